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

Two rules shape flat JSON layouts: ``split=True`` writes an estimate with its interval (an
object with ``value`` and ``interval``, or a mapping of them) as two keys, ``name`` and
``name_ci``; a class's ``json_lead`` names fields written before the others (a subclass's
own leading fields before its base's). ``ABSENT`` as a field's value leaves its key out while
None stays a JSON null. ``from_plain(cls, document)`` is the inverse: it parses a document back
into the typed result by the same rules and the fields' annotations.

Two more rules, for documents whose shape predates the fields: ``flatten`` merges a mapping (or
a nested result's document) into the enclosing one instead of nesting it under the field's name,
and a class attribute ``document_order`` names every key in the order the JSON shows them, which
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
spelling type checkers understand. An object that writes its own ``to_dict`` (a settings model)
is its ``to_dict()`` wherever it is nested. No result writes its own ``to_dict`` by hand unless
its JSON is not a function of its fields.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar, TypeVar

import numpy as np

__all__ = ["ABSENT", "Serialised", "figure", "from_plain", "json_names", "rules", "to_plain"]

_MISSING: Any = dataclasses.MISSING
T = TypeVar("T")
S = TypeVar("S", bound="Serialised")


class _Absent:
    """The value of a field whose key the document does not have (None is a JSON null)."""

    _instance: ClassVar[_Absent | None] = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()


def figure(*, default: Any = _MISSING, default_factory: Any = _MISSING, name: str | None = None,
           omit_none: bool = False, serialise: bool = True, repr: bool = True, split: bool = False,
           flatten: bool = False, compare: bool = True) -> Any:
    """A dataclass field with its JSON rule: ``name`` (the JSON key, default the field's),
    ``omit_none`` (no key when the value is None), ``serialise`` (False: never in the JSON),
    ``split`` (an estimate with its interval as the keys ``name`` and ``name_ci``), ``flatten``
    (the value's keys join the enclosing document)."""
    metadata = rules(name=name, omit_none=omit_none, serialise=serialise, split=split, flatten=flatten)
    kwargs: dict[str, Any] = {"metadata": metadata, "repr": repr, "compare": compare}
    if default is not _MISSING:
        kwargs["default"] = default
    if default_factory is not _MISSING:
        kwargs["default_factory"] = default_factory
    return dataclasses.field(**kwargs)


def rules(*, name: str | None = None, omit_none: bool = False, serialise: bool = True, split: bool = False,
          flatten: bool = False) -> dict[str, Any]:
    """The JSON rule of a field as its metadata, for a field without a default, which type
    checkers only see as such when spelt ``dataclasses.field(metadata=rules(...))``."""
    return {"json_name": name, "omit_none": omit_none, "serialise": serialise, "split": split, "flatten": flatten}


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


def _ordered(cls: type) -> list[dataclasses.Field]:
    """The serialised fields of ``cls``: the leading ones (``json_lead``, most derived class
    first), then the others in declaration order."""
    fields = [f for f in dataclasses.fields(cls) if f.metadata.get("serialise", True)]
    lead: list[str] = []
    for klass in cls.__mro__:
        lead += [name for name in vars(klass).get("json_lead", ()) if name not in lead]
    by_name = {f.name: f for f in fields}
    return [by_name[name] for name in lead if name in by_name] + [f for f in fields if f.name not in lead]


def json_names(cls: type) -> list[str]:
    """The keys a document of the dataclass ``cls`` can have, in the order they are written."""
    names: list[str] = []
    for f in _ordered(cls):
        name = f.metadata.get("json_name") or f.name
        names += [name, f"{name}_ci"] if f.metadata.get("split", False) else [name]
    return names


def _fields(value: Any) -> dict[str, Any]:
    order = getattr(type(value), "document_order", None)
    if order is None:
        return _written(value, _ordered(type(value)))
    fields = {f.name: f for f in dataclasses.fields(value)}
    out: dict[str, Any] = {}
    for name in order:
        if name in fields:
            out.update(_written(value, [fields[name]]))
        else:  # a derived property the document shows
            out[name] = to_plain(getattr(value, name))
    return out


def _written(value: Any, fields: list[dataclasses.Field]) -> dict[str, Any]:
    """The keys of ``fields`` of ``value`` by their rules."""
    out: dict[str, Any] = {}
    for f in fields:
        meta = f.metadata
        item = getattr(value, f.name)
        if not meta.get("serialise", True) or item is ABSENT or (item is None and meta.get("omit_none", False)):
            continue
        name = meta.get("json_name") or f.name
        if meta.get("split", False):
            out[name], out[f"{name}_ci"] = _split(item)
        elif meta.get("flatten", False):
            out.update(to_plain(item))
        else:
            out[name] = to_plain(item)
    return out


def _split(item: Any) -> tuple[Any, Any]:
    """An estimate (``value``, ``interval``), or a mapping of them, as its values and intervals."""
    if item is None:
        return None, None
    if isinstance(item, Mapping):
        return ({str(k): to_plain(v.value) for k, v in item.items()},
                {str(k): to_plain(v.interval) for k, v in item.items()})
    return to_plain(item.value), to_plain(item.interval)


def from_plain(cls: type[T], document: Mapping[str, Any]) -> T:
    """The typed result ``cls`` (a dataclass) parsed from its JSON ``document`` by the fields'
    rules and annotations: nested results, tuples, mappings and optional values included; a
    field whose key is missing takes its default (or ``ABSENT`` when that is its default). A
    value of the wrong shape (a list where an object belongs, …) is a ``TypeError``."""
    document = _mapping(document)
    hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # a dataclass, by the contract
        meta = f.metadata
        name = meta.get("json_name") or f.name
        if not f.init or not meta.get("serialise", True) or name not in document:
            continue
        if meta.get("split", False):
            values[f.name] = _joined(hints[f.name], document[name], document.get(f"{name}_ci"))
        else:
            values[f.name] = _parsed(hints[f.name], document[name])
    return cls(**values)


def _joined(hint: Any, value: Any, interval: Any) -> Any:
    """A split field's estimate(s) from its values and intervals (a present key is an estimate,
    its value possibly unknown)."""
    kind = _without_none(hint)
    if typing.get_origin(kind) in (Mapping, dict):
        if value is None:
            return None
        estimate = typing.get_args(kind)[1]
        intervals = _mapping(interval or {})
        return {k: estimate(v, _interval(intervals.get(k))) for k, v in _mapping(value).items()}
    return kind(value, _interval(interval))


def _interval(value: Any) -> tuple[Any, ...] | None:
    return None if value is None else tuple(_sequence(value))


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return value


def _sequence(value: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _without_none(hint: Any) -> Any:
    """``X`` of ``X | None``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def _parsed(hint: Any, value: Any) -> Any:
    """``value`` (plain JSON) as the annotated type ``hint``."""
    if value is None:
        return None
    kind = _without_none(hint)
    origin = typing.get_origin(kind)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return from_plain(kind, _mapping(value))
    if origin is tuple:
        args = typing.get_args(kind)
        item = args[0] if len(args) == 2 and args[1] is Ellipsis else Any
        return tuple(_parsed(item, v) for v in _sequence(value))
    if origin in (Mapping, dict) and typing.get_args(kind):
        item = typing.get_args(kind)[1]
        return {k: _parsed(item, v) for k, v in _mapping(value).items()}
    return value


class Serialised:
    """Mixin of a typed result: ``to_dict`` is its fields' JSON (``to_plain``), ``from_dict``
    parses that JSON back (``from_plain``)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this result, derived from its fields."""
        return _fields(self)

    @classmethod
    def from_dict(cls: type[S], document: Mapping[str, Any]) -> S:
        """The typed result read back from its JSON document."""
        return from_plain(cls, document)
