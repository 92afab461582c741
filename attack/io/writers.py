"""Writing result files safely: atomically, and record-level files owner-only.

A file is written to a temporary name in its target directory and renamed into place, so a
failed run never leaves a partial file (and never replaces a good one with half of a new one).
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from attack.errors import InputError


def check_outputs(outputs: Iterable[str | Path | None], inputs: Iterable[str | Path | None] = ()) -> None:
    """Refuse, before anything is computed or written, an output that is one of the inputs (the
    same file after resolving links and ``..``), two outputs that are one file, an output that is
    a folder, and an output whose folder is a regular file. ``None`` entries are skipped."""
    seen: dict[Path, str] = {}
    for given in inputs:
        if given is not None and Path(given).exists():
            seen[Path(given).resolve()] = f"the input {given}"
    for given in outputs:
        if given is None:
            continue
        path = Path(given)
        resolved = path.resolve()
        if resolved in seen:
            raise InputError(f"is also {seen[resolved]}; choose another output path (nothing was "
                             "written)", file=str(given))
        seen[resolved] = f"the output {given}"
        if path.is_dir():
            raise InputError("is a folder; give a file name", file=str(given))
        for parent in path.parents:
            if parent.exists():
                if not parent.is_dir():
                    raise InputError(f"cannot be written: {parent} is a file, not a folder",
                                     file=str(given))
                break


def write_files_atomic(files: dict[Path, tuple[str | bytes, int | None]],
                       inputs: Iterable[str | Path | None] = ()) -> list[Path]:
    """Write several files so that either all appear or none does.

    ``files`` maps each path to ``(content, mode)``, content as text or bytes; ``mode`` None
    means the permissions a new file gets under the current umask, ``0o600`` makes it
    owner-only before it appears. Every text is first written to a temporary file beside its
    target, then all are renamed into place. The paths are first checked by
    :func:`check_outputs` against ``inputs``; a path that cannot be written raises
    :class:`InputError` naming the path as given (never the temporary file).
    """
    check_outputs(files, inputs)
    staged: list[tuple[str, Path]] = []
    current = None
    try:
        for path, (text, mode) in files.items():
            path = current = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            staged.append((tmp, path))
            if isinstance(text, bytes):
                with os.fdopen(fd, "wb") as handle:
                    handle.write(text)
            else:
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(text)
            os.chmod(tmp, _default_mode() if mode is None else mode)
        for tmp, path in staged:
            current = path
            os.replace(tmp, path)
    except BaseException as exc:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
        if isinstance(exc, OSError) and current is not None:
            reason = exc.strerror or str(exc)
            raise InputError(f"cannot be written: {reason} (nothing was written)",
                             file=str(current)) from exc
        raise
    return [path for _, path in staged]


def write_text_atomic(path: str | Path, text: str, *, mode: int | None = None) -> Path:
    """Write one file atomically (see :func:`write_files_atomic`)."""
    return write_files_atomic({Path(path): (text, mode)})[0]


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


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


#: Permissions of record-level files.
OWNER_ONLY = 0o600
