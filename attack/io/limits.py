"""The size limits of every file the tool reads (``docs/reference/input-formats.md``).

A file over a limit is refused before it is parsed, with the limit named: a data file larger
than ``max_input_bytes()`` (4 GiB unless the environment variable ``ATTACK_MAX_INPUT_BYTES``
says otherwise), a CSV row longer than ``MAX_CSV_ROW_BYTES``, a workbook (xlsx, ods: zip
archives) whose members would unpack to more than ``MAX_WORKBOOK_BYTES`` or whose members are
compressed more than ``MAX_COMPRESSION_RATIO`` to one (a zip bomb: a few MB that unpack to
gigabytes), and a document read back (result, certificate, scenario, log) larger than
``attack.io.readback.MAX_DOCUMENT_BYTES``.
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np

from attack.errors import InputError

#: Largest data file read unless ``ATTACK_MAX_INPUT_BYTES`` sets another limit (bytes).
MAX_INPUT_BYTES = 4 * 1024**3
#: Longest row of a CSV file (the block the CSV parser reads at once).
MAX_CSV_ROW_BYTES = 1 << 24
#: Largest unpacked size of a workbook's members together.
MAX_WORKBOOK_BYTES = 512 * 1024**2
#: Largest ratio of a workbook member's unpacked to packed size (real sheets reach about 20).
MAX_COMPRESSION_RATIO = 200
#: Members smaller than this are not judged by their ratio (tiny files compress oddly).
_RATIO_FLOOR = 1 << 20
ENVIRONMENT = "ATTACK_MAX_INPUT_BYTES"


def max_input_bytes() -> int:
    """The limit of a data file's size: ``ATTACK_MAX_INPUT_BYTES`` when set, else ``MAX_INPUT_BYTES``."""
    given = os.environ.get(ENVIRONMENT)
    if given is None:
        return MAX_INPUT_BYTES
    try:
        limit = int(given)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise InputError(f"{ENVIRONMENT} must be a positive whole number of bytes, got {given!r}")
    return limit


def size_words(n: int) -> str:
    """A byte count in the largest binary unit that keeps it whole or to one decimal."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


def check_size(size: int, limit: int, name: str) -> None:
    """Refuse a file of ``size`` bytes over ``limit``."""
    if size > limit:
        raise InputError(f"is {size_words(size)}, larger than the limit of {size_words(limit)} for this kind of "
                         f"file (docs/reference/input-formats.md; for data files {ENVIRONMENT} sets another "
                         "limit); nothing was read", file=name)


def check_workbook(raw: bytes, name: str) -> None:
    """Refuse a workbook (a zip archive) that would unpack to more than ``MAX_WORKBOOK_BYTES`` or
    has a member compressed more than ``MAX_COMPRESSION_RATIO`` to one, from the archive's
    directory alone (nothing is unpacked)."""
    try:
        members = zipfile.ZipFile(io.BytesIO(raw)).infolist()
    except zipfile.BadZipFile:
        return  # the workbook reader names what is wrong with it
    total = sum(m.file_size for m in members)
    if total > MAX_WORKBOOK_BYTES:
        raise InputError(f"workbook would unpack to {size_words(total)}, more than the limit of "
                         f"{size_words(MAX_WORKBOOK_BYTES)} (docs/reference/input-formats.md); save the "
                         "sheet as CSV; nothing was read", file=name)
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_FLOOR and ratio > MAX_COMPRESSION_RATIO:
            raise InputError(f"workbook member {member.filename} is compressed {ratio:.0f} to one, more than "
                             f"the limit of {MAX_COMPRESSION_RATIO} (a zip bomb?; "
                             "docs/reference/input-formats.md); save the sheet as CSV; nothing was read",
                             file=name)


def check_rows(content: bytes, name: str) -> None:
    """Refuse a CSV text with a line longer than ``MAX_CSV_ROW_BYTES``, naming the line, from the
    positions of its line breaks (found chunk by chunk: no copy of the text is made)."""
    limit, chunk = MAX_CSV_ROW_BYTES, 1 << 26
    if len(content) <= limit:
        return
    view, previous, line = memoryview(content), -1, 1  # previous: the last line break seen
    for offset in range(0, len(content), chunk):
        breaks = np.flatnonzero(np.frombuffer(view[offset:offset + chunk], dtype=np.uint8) == 10) + offset
        lengths = np.diff(breaks, prepend=previous) - 1
        if lengths.size and int(lengths.max()) > limit:
            _too_long(line + int(np.argmax(lengths > limit)), name)
        if breaks.size:
            line, previous = line + int(breaks.size), int(breaks[-1])
    if len(content) - previous - 1 > limit:
        _too_long(line, name)


def _too_long(line: int, name: str) -> None:
    raise InputError(f"line {line} is longer than the limit of {size_words(MAX_CSV_ROW_BYTES)} for a CSV row "
                     "(docs/reference/input-formats.md); is it a CSV file, with the right quote character?",
                     file=name)
