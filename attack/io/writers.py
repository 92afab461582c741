"""Writing result files safely: one output guard, atomic writes, record-level files owner-only.

Every command and every writer of the API goes through ``check_outputs`` (before anything is
computed) and ``write_files_atomic`` (which checks again): an output may not be an input of
the run (the same file, also through a symbolic or hard link), a scenario file, another output of
the same run (a certificate's printable twin included), a folder or a special file (a device, a
FIFO, a socket). A file is written to a temporary name in its target directory and renamed into
place, so a failed or interrupted run never leaves a partial file (and never replaces a good one
with half of a new one).
"""

from __future__ import annotations

import io
import os
import signal
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pandas as pd

from attack.errors import InputError
from attack.io.jsonio import to_json
from attack.io.table import Table

#: Permissions of record-level files.
OWNER_ONLY = 0o600

#: Temporary files being written right now (removed by ``discard_staged`` on an interrupt).
_STAGED: set[str] = set()


def discard_staged() -> None:
    """Remove the temporary files of writes under way (the CLI's signal handler calls this
    before it leaves, so an interrupted run leaves no partial file)."""
    for tmp in list(_STAGED):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _STAGED.discard(tmp)


def certificate_paths(path: str | Path) -> list[Path]:
    """A certificate's JSON and its printable HTML twin (both are outputs of one run)."""
    path = Path(path)
    return [path, path.with_suffix(".html")]


def verify_root(certificate: str | Path, inputs: Iterable[str]) -> Path | None:
    """The folder to give a plain ``attack verify`` as ``--root`` so that it may open every input
    of the certificate at ``certificate`` (``inputs``: their paths relative to its folder), as a
    path relative to the working folder; None when the certificate's own folder holds them all.
    Worked out from the paths' text (``..`` steps), without following links."""
    folder = Path(os.path.abspath(Path(certificate).parent))
    reached = [Path(os.path.normpath(folder / p)) for p in inputs
               if p and not (PurePosixPath(p).is_absolute() or PureWindowsPath(p).anchor)]
    common = Path(os.path.commonpath([folder, *reached]))
    return None if common == folder else Path(os.path.relpath(common))


def _stat(path: str | Path) -> os.stat_result | None:
    """What ``path`` names after following links; None when nothing is there (or it cannot be
    looked at: that is found out when the file is written)."""
    try:
        return os.stat(path)
    except OSError:
        return None


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in words (None for a regular file)."""
    for test, word in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return None


def check_outputs(outputs: Iterable[str | Path | None], inputs: Iterable[str | Path | None] = ()) -> None:
    """Refuse, before anything is computed or written, an output that is one of the inputs (the
    same file after resolving links and ``..``, or the same inode: hard links), two outputs that
    are one file, an output that is a folder or a special file, and an output whose folder is a
    regular file. ``None`` entries are skipped; give a scenario file among the inputs."""
    by_path: dict[Path, str] = {}
    by_inode: dict[tuple[int, int], str] = {}
    for given in inputs:
        if given is None:
            continue
        label = f"the input {given}"
        by_path.setdefault(Path(given).resolve(), label)
        info = _stat(given)
        if info is not None:
            by_inode.setdefault((info.st_dev, info.st_ino), label)
    for given in outputs:
        if given is None:
            continue
        path = Path(given)
        resolved = path.resolve()
        info = _stat(path)
        identity = None if info is None else (info.st_dev, info.st_ino)
        clash = by_path.get(resolved) or (None if identity is None else by_inode.get(identity))
        if clash is not None:
            raise InputError(f"is also {clash}; choose another output path (nothing was "
                             "written)", file=str(given))
        label = f"the output {given}"
        by_path[resolved] = label
        if identity is not None:
            by_inode[identity] = label
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise InputError("is a folder; give a file name", file=str(given))
        kind = None if info is None else _kind(info.st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, not a regular file; outputs are written only as "
                             "regular files (nothing was written)", file=str(given))
        for parent in path.parents:
            if parent.exists():
                if not parent.is_dir():
                    raise InputError(f"cannot be written: {parent} is a file, not a folder",
                                     file=str(given))
                break


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the staged files are renamed into place, so that an
    interrupt cannot leave some of them written and others not (delivered right after)."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # not the main thread, or no such call
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def write_files_atomic(files: Mapping[Path, tuple[str | bytes, int | None]],
                       inputs: Iterable[str | Path | None] = ()) -> list[Path]:
    """Write several files so that either all appear or none does.

    ``files`` maps each path to ``(content, mode)``, content as text or bytes; ``mode`` None
    means the permissions a new file gets under the current umask, ``0o600`` makes it
    owner-only before it appears. Every text is first written to a temporary file beside its
    target, then all are renamed into place (interrupts held meanwhile). The paths are first
    checked by ``check_outputs`` against ``inputs``; a path that cannot be written raises
    ``InputError`` naming the path as given (never the temporary file).
    """
    check_outputs(files, inputs)
    staged: list[tuple[str, Path]] = []
    current = None
    try:
        for path, (text, mode) in files.items():
            path = current = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            _STAGED.add(tmp)
            staged.append((tmp, path))
            if isinstance(text, bytes):
                with os.fdopen(fd, "wb") as handle:
                    handle.write(text)
            else:
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(text)
            os.chmod(tmp, _default_mode() if mode is None else mode)
        with _signals_deferred():
            for tmp, path in staged:
                current = path
                os.replace(tmp, path)
                _STAGED.discard(tmp)
    except BaseException as exc:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
            _STAGED.discard(tmp)
        if isinstance(exc, OSError) and current is not None:
            reason = exc.strerror or str(exc)
            raise InputError(f"cannot be written: {reason} (nothing was written)",
                             file=str(current)) from exc
        raise
    return [path for _, path in staged]


def write_text_atomic(path: str | Path, text: str, *, mode: int | None = None,
                      inputs: Iterable[str | Path | None] = ()) -> Path:
    """Write one file atomically, never over one of ``inputs`` (see ``write_files_atomic``)."""
    return write_files_atomic({Path(path): (text, mode)}, inputs)[0]


def files_read(*tables: Table | pd.DataFrame | None) -> tuple[str, ...]:
    """The paths the tables were read from (data built in memory has none): the inputs a
    result's writers must never replace."""
    return tuple(t.source for t in tables if isinstance(t, Table) and t.from_file)


def table_content(frame: pd.DataFrame, path: str | Path) -> str | bytes:
    """A data frame serialised for ``path``: CSV text (``.csv``) or Parquet bytes (``.parquet``)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return frame.to_csv(index=False)
    if suffix in {".parquet", ".pq"}:
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return buffer.getvalue()
    raise InputError(f"cannot write {suffix or 'files without a suffix'}; use .csv or .parquet",
                     file=str(path))


def record_file(frame: pd.DataFrame, path: str | Path) -> tuple[str | bytes, int]:
    """A record-level table output for ``write_files_atomic``: its content in the format of the
    suffix, owner-only."""
    return table_content(frame, path), OWNER_ONLY


def json_file(document: Mapping[str, Any]) -> tuple[str, None]:
    """A JSON output for ``write_files_atomic`` (aggregates only, default mode)."""
    return to_json(document), None


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask

