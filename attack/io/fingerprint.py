"""Fingerprints of inputs: SHA-256 of files and of generated frames."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd


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


def file_input(role: str, path: str | Path, certificate_dir: str | Path) -> dict:
    """Fingerprint of an input file, its path relative to the certificate's folder if possible."""
    path = Path(path).resolve()
    try:
        shown = os.path.relpath(path, Path(certificate_dir).resolve())
    except ValueError:  # another drive: no relative path exists; never record an absolute one
        shown = path.name
    return {"role": role, "path": shown, "sha256": sha256_file(path), "bytes": path.stat().st_size}


def frame_input(role: str, source: str, frame: pd.DataFrame, options: dict) -> dict:
    """Fingerprint of a generated demo input, with the options that regenerate it."""
    return {
        "role": role, "source": source, "options": dict(options),
        "sha256": sha256_frame(frame), "rows": len(frame),
    }
