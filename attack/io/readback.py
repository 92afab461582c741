"""The one reader of every JSON and TOML document the tool reads back: results, certificates,
scenarios, protection logs and settings.

A document is read only when it is unambiguous to every reader: UTF-8 text (a leading byte-order
mark is skipped) of at most ``MAX_DOCUMENT_BYTES``, nested at most ``MAX_DEPTH`` levels, no key
twice in one object (JSON readers differ in which occurrence they keep, so a person and a
program could read different verdicts), no ``NaN``/``Infinity`` (not JSON numbers) and no lone
UTF-16 surrogate (``\\ud800`` escapes a character that does not exist: it cannot be written to
a terminal, a report or a digest). Each refusal is an ``InputError`` naming the file and, where
there is one, the line and column. Whether a boolean stands where a number is expected is a
question of the document's layout: the layouts (``attack.io.strict.SettingsModel`` for
settings, the certificate and result schemas for figures) refuse it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from attack.errors import InputError
from attack.io.limits import check_size
from attack.io.readers import read_file_bytes

#: Largest document read back (results and certificates are aggregates: a few MB at most).
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
#: Deepest nesting of objects and lists (the real documents reach about ten levels).
MAX_DEPTH = 64

#: A JSON ``\\u`` escape of a UTF-16 surrogate (paired ones are two such escapes in a row).
_SURROGATE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u([dD][89a-fA-F][0-9a-fA-F]{2})")


class _Refused(ValueError):
    """A text that parses but is not acceptable in a document read back."""


def read_document_bytes(path: str | Path, what: str = "document") -> bytes:
    """The bytes of the document file ``path``: a regular file of at most ``MAX_DOCUMENT_BYTES``."""
    return read_file_bytes(path, limit=MAX_DOCUMENT_BYTES)


def _text(content: bytes, file: str | None, what: str) -> str:
    check_size(len(content), MAX_DOCUMENT_BYTES, file or what)
    try:
        return content.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise InputError(f"not a {what} (not UTF-8 text: byte {exc.start})", file=file) from None


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"the key {key!r} occurs twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> None:
    raise _Refused(f"{name} is not a JSON number")


def depth(value: Any) -> int:
    """Levels of nesting of a parsed document (objects and lists), counted without recursion
    (stops counting once past ``MAX_DEPTH``)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                break
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _lone_surrogate(text: str) -> int | None:
    """The offset of the first ``\\u`` escape of an unpaired UTF-16 surrogate in a JSON text."""
    matches = list(_SURROGATE_ESCAPE.finditer(text))
    i = 0
    while i < len(matches):
        here = matches[i]
        code = int(here.group(2), 16)
        start = here.start() + len(here.group(1))
        if code < 0xDC00 and i + 1 < len(matches) and matches[i + 1].start() == here.end() \
                and int(matches[i + 1].group(2), 16) >= 0xDC00:
            i += 2
            continue
        return start
    return None


def _unencodable(value: Any) -> bool:
    """Whether some string in a parsed document (key or value) is not encodable as UTF-8."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def read_json(content: bytes, *, file: str | None = None, what: str = "JSON document") -> Any:
    """The parsed JSON document of ``content`` under the guards of this module."""
    text = _text(content, file, what)
    try:
        document = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"not a {what} (invalid JSON: {exc})", file=file) from None
    except RecursionError:
        raise InputError(f"not a {what} (JSON nested deeper than {MAX_DEPTH} levels)", file=file) from None
    except _Refused as exc:
        raise InputError(f"not a {what} ({exc})", file=file) from None
    if depth(document) > MAX_DEPTH:
        raise InputError(f"not a {what} (JSON nested deeper than {MAX_DEPTH} levels)", file=file)
    if _unencodable(document):
        offset = _lone_surrogate(text)
        where = f" at {_position(text, offset)}" if offset is not None else ""
        raise InputError(f"not a {what} (a lone UTF-16 surrogate escape{where}: no character; "
                         "invalid Unicode)", file=file)
    return document


def read_toml(content: bytes, *, file: str | None = None, what: str = "TOML file") -> dict[str, Any]:
    """The parsed TOML document of ``content`` under the guards of this module (TOML itself
    refuses a key given twice and an escape that is no character)."""
    text = _text(content, file, what)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", file=file) from None
    except RecursionError:
        raise InputError(f"not a {what} (TOML nested deeper than {MAX_DEPTH} levels)", file=file) from None
    if depth(document) > MAX_DEPTH:
        raise InputError(f"not a {what} (TOML nested deeper than {MAX_DEPTH} levels)", file=file)
    return document


def load_json(path: str | Path, what: str = "JSON document") -> Any:
    """The JSON document in the file ``path`` (see ``read_json``)."""
    return read_json(read_document_bytes(path, what), file=str(path), what=what)


def load_toml(path: str | Path, what: str = "TOML file") -> dict[str, Any]:
    """The TOML document in the file ``path`` (see ``read_toml``)."""
    return read_toml(read_document_bytes(path, what), file=str(path), what=what)
