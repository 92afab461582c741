"""Writing result files safely: atomically, and record-level files owner-only.

A file is written to a temporary name in its target directory and renamed into place, so a
failed run never leaves a partial file (and never replaces a good one with half of a new one).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from attack.linkage import Links


def write_text_atomic(path: str | Path, text: str, *, mode: int | None = None) -> Path:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``.

    ``mode`` sets the file permissions (e.g. ``0o600`` for owner-only) before the file appears.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def to_json(obj: object) -> str:
    """Deterministic JSON text (keys in insertion order, two-space indent)."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: str | Path, obj: object) -> Path:
    """Write ``obj`` as JSON atomically."""
    return write_text_atomic(path, to_json(obj))


def write_matches(
    path: str | Path, links: Links, external_ids: np.ndarray, release_ids: np.ndarray
) -> Path:
    """Record-level links ``external_id,release_id,distance,correct`` with owner-only permissions.

    One row per assigned pair. The file links identities to confidential records: it is written
    only on request (METHOD.md §15; confidential by default).
    """
    rows = np.flatnonzero(links.linked)
    linked_ids = release_ids[links.release_row[rows]]
    table = pd.DataFrame(
        {
            "external_id": external_ids[rows],
            "release_id": linked_ids,
            "distance": links.distance[rows],
            "correct": linked_ids == external_ids[rows],
        }
    )
    return write_text_atomic(path, table.to_csv(index=False, float_format="%.12g"), mode=0o600)
