"""Deterministic JSON text and the keys used inside result documents."""

from __future__ import annotations

import json
import math
from typing import SupportsFloat

#: Version of the JSON layout of results. Version 1 was the layout before the public API
#: (three layouts, γ keys as typed); version 2 is one layout for ``link``, ``run`` and ``demo``.
SCHEMA_VERSION = 2


def to_json(obj: object) -> str:
    """Deterministic JSON text (keys in insertion order, two-space indent)."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def cell_key(cell: dict) -> tuple:
    """A hashable identity of a cell's values, independent of the order of its variables."""
    return tuple(sorted(cell.items()))


def json_float(value: SupportsFloat | None) -> float | None:
    """A JSON-ready float: None for None, NaN and infinities."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None
