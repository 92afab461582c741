"""Fingerprints of inputs: SHA-256 of files and of generated frames."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd

from attack.errors import InputError
from attack.io.table import Table


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


def sha256_frame(frame: pd.DataFrame) -> str:
    """SHA-256 of a data frame's CSV text (for generated inputs that are not files)."""
    return hashlib.sha256(frame.to_csv(index=False).encode("utf-8")).hexdigest()


def file_input(role: str, path: str | Path, certificate_dir: str | Path,
               read: tuple[str, int] | None = None) -> dict:
    """Fingerprint of an input file, its path relative to the certificate's folder if possible.
    ``read`` is the (SHA-256, size) of the bytes that were parsed; without it the file is hashed
    now (only for a file the run did not read)."""
    path = Path(path).resolve()
    try:
        shown = os.path.relpath(path, Path(certificate_dir).resolve())
    except ValueError:  # another drive: no relative path exists; never record an absolute one
        shown = path.name
    sha256, size = read if read is not None else (sha256_file(path), path.stat().st_size)
    return {"role": role, "path": shown, "sha256": sha256, "bytes": size}


class ReadLedger:
    """The SHA-256 and size of every file one run parsed, taken from the very bytes parsed, so
    that a certificate binds what was attacked, not what lies on disk afterwards. A file read
    twice in a run must give the same bytes both times."""

    def __init__(self) -> None:
        self._read: dict[Path, tuple[str, int]] = {}

    def copy(self) -> ReadLedger:
        """A ledger holding what this one holds, to record a new run's reads."""
        twin = ReadLedger()
        twin._read = dict(self._read)
        return twin

    def record(self, path: str | Path, sha256: str, size: int) -> None:
        """Note that ``path`` was read with this digest; a different digest for a file already
        read means it changed during the run (``InputError``)."""
        key = Path(path).resolve()
        seen = self._read.setdefault(key, (sha256, size))
        if seen != (sha256, size):
            raise InputError("changed while the run was reading it (it was read twice with different "
                             "contents); run again once nothing writes to it", file=str(path))

    def record_table(self, path: str | Path, table: Table) -> None:
        """Record a table read by ``attack.io.readers.read`` (the digest of the bytes it parsed)."""
        if table.sha256 is None or table.size is None:
            raise ValueError(f"{table.source} was not read from a file")
        self.record(path, table.sha256, table.size)

    def record_bytes(self, path: str | Path, content: bytes) -> None:
        """Record a file read whole, e.g. the scenario file."""
        self.record(path, hashlib.sha256(content).hexdigest(), len(content))

    def file_input(self, role: str, path: str | Path, certificate_dir: str | Path) -> dict:
        """``file_input`` with the digest of the bytes this run read."""
        return file_input(role, path, certificate_dir, self._read.get(Path(path).resolve()))


def frame_input(role: str, source: str, frame: pd.DataFrame, options: dict) -> dict:
    """Fingerprint of a generated demo input, with the options that regenerate it."""
    return {
        "role": role, "source": source, "options": dict(options),
        "sha256": sha256_frame(frame), "rows": len(frame),
    }
