"""Cell labels a statistician reads: ``employees 20 to under 50, east_west E`` for the cell
``{"employees:bins=20,50,100": "[20, 50)", "east_west": "E"}``.

A cell variable is written as the user specified it (``name``, ``name:prefix=N`` or
``name:bins=B0,B1,...``, see ``attack.linkage.blocking``) and its value is the class label the
classifier gave. The label drops the specification and says what the class means: an interval
``[a, b)`` becomes "a to under b" (exact for any variable, integer or not), an open end "under b"
or "a or more", a code prefix "starting C2". JSON results keep the specification beside the label.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["cell_label", "class_label", "variable_name"]

_INTERVAL = re.compile(r"^\[\s*(-inf|[^,\s]+)\s*,\s*(inf|[^)\s]+)\s*\)$")


def variable_name(spec: str) -> str:
    """The variable of a cell specification: ``employees:bins=20,50`` → ``employees``."""
    return str(spec).split(":", 1)[0]


def class_label(spec: str, value: Any) -> str:
    """The class ``value`` of the cell variable ``spec`` in words: ``[20, 50)`` → ``20 to under 50``."""
    text = "–" if value is None else str(value)
    option = str(spec).split(":", 1)[1] if ":" in str(spec) else ""
    if option.startswith("bins="):
        match = _INTERVAL.match(text)
        if match:
            low, high = match.groups()
            if low == "-inf":
                return f"under {high}"
            if high == "inf":
                return f"{low} or more"
            return f"{low} to under {high}"
    if option.startswith("prefix="):
        return f"starting {text}"
    return text


def cell_label(cell: Mapping[str, Any]) -> str:
    """The human label of a cell (``{specification: class}``); ``all units`` for no variables."""
    if not cell:
        return "all units"
    return ", ".join(f"{variable_name(spec)} {class_label(spec, value)}" for spec, value in cell.items())
