"""Writing result files safely: atomically, and record-level files owner-only.

A file is written to a temporary name in its target directory and renamed into place, so a
failed run never leaves a partial file (and never replaces a good one with half of a new one).
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import pandas as pd

from attack.errors import InputError


def write_files_atomic(files: dict[Path, tuple[str | bytes, int | None]]) -> list[Path]:
    """Write several files so that either all appear or none does.

    ``files`` maps each path to ``(content, mode)``, content as text or bytes; ``mode`` None means the permissions a new file
    gets under the current umask, ``0o600`` makes it owner-only before it appears. Every text
    is first written to a temporary file beside its target, then all are renamed into place.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for path, (text, mode) in files.items():
            path = Path(path)
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
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
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
