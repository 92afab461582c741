"""One mechanism from a typed result to its JSON: ``to_dict`` is derived from the fields.

A result is a frozen dataclass whose fields are the truth; ``Serialised.to_dict`` walks them in
declaration order (nested dataclasses, mappings, tuples and numpy scalars included) and builds
the plain document. A field's ``metadata`` (set with ``figure``) renames it in the JSON, leaves
it out when it is None, or keeps it out of the JSON altogether (record-level tables, timings)::

    @dataclass(frozen=True)
    class Rate(Serialised):
        value: float | None
        interval: tuple[float, float] | None = figure(omit_none=True)
        links: pd.DataFrame | None = figure(default=None, serialise=False)

Two more rules, for documents whose shape predates the fields: ``flatten`` merges a mapping (or
a nested result's document) into the enclosing one instead of nesting it under the field's name,
and a class attribute ``document_order`` names the keys in the order the JSON shows them, which
may include derived properties (a verdict computed from the fields)::

    @dataclass(frozen=True)
    class Check(Serialised):
        document_order: ClassVar = ("measure", "where", "value", "passed")
        measure: str
        value: float | None
        where: Mapping[str, Any] = figure(default_factory=dict, flatten=True)

        @property
        def passed(self) -> bool: ...

A field without a default takes its rule as ``dataclasses.field(metadata=rules(...))``, the
spelling type checkers understand. An object that writes its own ``to_dict`` (a settings model, a result not yet built this way) is
its ``to_dict()`` wherever it is nested. No result writes its own ``to_dict`` by hand unless its
JSON is not a function of its fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from typing import Any

import numpy as np

__all__ = ["Serialised", "figure", "rules", "to_plain"]

_MISSING: Any = dataclasses.MISSING


def figure(*, default: Any = _MISSING, default_factory: Any = _MISSING, name: str | None = None,
           omit_none: bool = False, serialise: bool = True, flatten: bool = False, repr: bool = True) -> Any:
    """A dataclass field with its JSON rule: ``name`` (the JSON key, default the field's),
    ``omit_none`` (no key when the value is None), ``serialise`` (False: never in the JSON),
    ``flatten`` (the value's keys join the enclosing document)."""
    kwargs: dict[str, Any] = {"metadata": rules(name=name, omit_none=omit_none, serialise=serialise,
                                                flatten=flatten), "repr": repr}
    if default is not _MISSING:
        kwargs["default"] = default
    if default_factory is not _MISSING:
        kwargs["default_factory"] = default_factory
    return dataclasses.field(**kwargs)


def rules(*, name: str | None = None, omit_none: bool = False, serialise: bool = True,
          flatten: bool = False) -> dict[str, Any]:
    """The JSON rule of a field as its metadata, for a field without a default, which type
    checkers only see as such when spelt ``dataclasses.field(metadata=rules(...))``."""
    return {"json_name": name, "omit_none": omit_none, "serialise": serialise, "flatten": flatten}


def to_plain(value: Any) -> Any:
    """``value`` as JSON-ready Python: dataclasses by their fields' rules, mappings as dicts
    (keys as text), sequences as lists, numpy scalars and arrays as Python numbers and lists."""
    if isinstance(value, type):
        return value
    own = getattr(type(value), "to_dict", None)
    if callable(own) and own is not Serialised.to_dict:
        return value.to_dict()
    if dataclasses.is_dataclass(value):
        return _fields(value)
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, str) else k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_plain(v) for v in value.tolist()]
    if isinstance(value, Enum):
        return to_plain(value.value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _fields(value: Any) -> dict[str, Any]:
    fields = {f.name: f for f in dataclasses.fields(value)}
    out: dict[str, Any] = {}
    for name in getattr(type(value), "document_order", None) or fields:
        f = fields.get(name)
        if f is None:  # a derived property the document shows
            out[name] = to_plain(getattr(value, name))
            continue
        meta = f.metadata
        if not meta.get("serialise", True):
            continue
        item = getattr(value, f.name)
        if item is None and meta.get("omit_none", False):
            continue
        if meta.get("flatten", False):
            out.update(to_plain(item))
        else:
            out[meta.get("json_name") or f.name] = to_plain(item)
    return out


class Serialised:
    """Mixin of a typed result: ``to_dict`` is its fields' JSON (``to_plain``)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this result, derived from its fields."""
        return _fields(self)
