"""Forms built from a settings model: one widget per field, read from the model's annotations.

Nothing here names a setting. A field's widget follows from its type (a choice for a fixed set
of values, a line per entry for a list of texts or numbers, a group for a nested table, a TOML
value for anything richer), its hint from the field's description and bounds, so a field that is
added, renamed or moved in the settings models appears on the form without an edit here.

Values live in the scenario's parsed TOML (a nested ``dict``); a form field is named by its
dotted path there (``evaluation.tau``, ``intruder[1].external.demo``), the same path an
``InputError`` names.
"""

from __future__ import annotations

import json
import re
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from attack.io.readback import MAX_DEPTH, depth

Kind = Literal["text", "number", "integer", "choice", "bool", "lines", "toml", "group", "list"]
Path = tuple[str | int, ...]
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_BOUNDS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}


@dataclass(frozen=True)
class Widget:
    """One field of a form: where its value lives, how it is edited, and what it means."""

    path: Path
    kind: Kind
    label: str
    hint: str = ""
    value: str = ""
    default: str = ""
    choices: tuple[str, ...] = ()
    optional: bool = False
    present: bool = True
    children: tuple[Widget, ...] = field(default=())
    items: tuple[tuple[Widget, ...], ...] = field(default=())

    @property
    def name(self) -> str:
        """The form name: the dotted path (``linkage.keys``, ``intruder[0].name``)."""
        return dotted(self.path)

    def leaves(self) -> list[Widget]:
        """This widget and everything below it that holds a value."""
        if self.kind == "group":
            return [leaf for child in self.children for leaf in child.leaves()]
        if self.kind == "list":
            return [leaf for item in self.items for child in item for leaf in child.leaves()]
        return [self]

    def groups(self) -> list[Widget]:
        """This widget and the groups and lists below it."""
        if self.kind not in ("group", "list"):
            return []
        below = self.children if self.kind == "group" else tuple(c for item in self.items for c in item)
        return [self, *(g for child in below for g in child.groups())]


def dotted(path: Path) -> str:
    """``("intruder", 0, "name")`` → ``intruder[0].name``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def parse_path(name: str) -> Path:
    """``intruder[0].name`` → ``("intruder", 0, "name")``."""
    out: list[str | int] = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", name):
        out.append(int(part[1:-1]) if part.startswith("[") else part)
    return tuple(out)


def widgets(model: type[BaseModel], raw: Mapping[str, Any], names: list[str] | None = None,
            prefix: Path = ()) -> list[Widget]:
    """The widgets of ``model``'s fields (only ``names`` when given), filled from ``raw``."""
    out = []
    own = set(model.__dict__.get("__annotations__", {}))
    # a table's own fields first, those it shares with its base (reading options) after them
    ordered = sorted(model.model_fields.items(), key=lambda item: item[0] not in own)
    for name, info in ordered:
        key = info.alias or name
        if names is not None and key not in names:
            continue
        out.append(_widget(prefix + (key,), info.annotation, info, raw.get(key), key in raw))
    return out


@dataclass(frozen=True)
class _Shape:
    """What a field's annotation allows, read once: its alternatives without ``None``, whether it
    may be left out, the tables among them and the item tables of its lists of tables."""

    kinds: tuple[Any, ...]
    optional: bool
    models: tuple[type[BaseModel], ...]
    item_models: tuple[Any, ...]


def _shape(annotation: Any, info: FieldInfo | None) -> _Shape:
    alternatives = _alternatives(annotation)
    kinds = tuple(k for k in alternatives if k is not type(None))
    optional = type(None) in alternatives or (info is not None and not info.is_required())
    item_models = tuple(typing.get_args(k)[0] for k in kinds
                        if typing.get_origin(k) is list and _is_model(_single(typing.get_args(k)[0])))
    return _Shape(kinds, optional, tuple(k for k in kinds if _is_model(k)), item_models)


def _widget(path: Path, annotation: Any, info: FieldInfo | None, value: Any, present: bool) -> Widget:
    """The widget of one field: lines of text items, a list of tables, a table, or a value."""
    shape = _shape(annotation, info)
    label = str(path[-1]) if not isinstance(path[-1], int) else f"entry {path[-1] + 1}"
    hint = _hint(info)
    default = _default(info)
    if shape.item_models and _text_items(list(shape.kinds)):
        return Widget(path, "lines", label, hint, shown(value, "lines") if present else "", default, (),
                      shape.optional, present)
    if shape.item_models and (isinstance(value, list) or not shape.models):
        item_model = _single(shape.item_models[0])
        entries = value if isinstance(value, list) else []
        items = tuple(tuple(widgets(item_model, entry if isinstance(entry, Mapping) else {}, prefix=path + (i,)))
                      for i, entry in enumerate(entries))
        return Widget(path, "list", label, hint, optional=shape.optional, present=present, items=items)
    if len(shape.models) == 1 and not (present and not isinstance(value, Mapping)):
        return _group(path, label, hint, shape, info, value, present)
    kind, choices = _leaf_kind(list(shape.kinds))
    return Widget(path, kind, label, hint, shown(value, kind) if present else "", default, choices, shape.optional,
                  present)


def _group(path: Path, label: str, hint: str, shape: _Shape, info: FieldInfo | None, value: Any,
           present: bool) -> Widget:
    """The widget of a table: its fields' widgets, the table's docstring as the hint by default."""
    model = shape.models[0]
    children = tuple(widgets(model, value if isinstance(value, Mapping) else {}, prefix=path))
    return Widget(path, "group", label, hint or _doc(model), optional=shape.optional and not _has_default_table(info),
                  present=present, children=children)


def _leaf_kind(kinds: list[Any]) -> tuple[Kind, tuple[str, ...]]:
    if len(kinds) == 1:
        only = kinds[0]
        if only is bool:
            return "bool", ("true", "false")
        if only is int:
            return "integer", ()
        if only is float:
            return "number", ()
        if only is str:
            return "text", ()
        if typing.get_origin(only) is Literal:
            return "choice", tuple(str(c) for c in typing.get_args(only))
        if typing.get_origin(only) is list and all(_scalar(a) for a in _alternatives(typing.get_args(only)[0])):
            return "lines", ()
    if set(kinds) == {int, float}:
        return "number", ()
    return "toml", ()


def _text_items(kinds: list[Any]) -> bool:
    """A list of tables whose items also have a one-line text spelling (keys, blocks): edited as
    lines, one item per line (an item without a text spelling as an inline table)."""
    for kind in kinds:
        if typing.get_origin(kind) is list:
            schema = TypeAdapter(typing.get_args(kind)[0]).json_schema()
            if any(alternative.get("type") == "string" for alternative in schema.get("anyOf", [])):
                return True
    return False


def _alternatives(annotation: Any) -> list[Any]:
    """The members of a union (through ``Annotated``), each without its ``Annotated``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _alternatives(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [k for a in typing.get_args(annotation) for k in _alternatives(a)]
    return [annotation]


def _single(annotation: Any) -> Any:
    kinds = _alternatives(annotation)
    return kinds[0] if len(kinds) == 1 else annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _scalar(annotation: Any) -> bool:
    """A list item edited on one line: a number, a text, a choice or a small table."""
    return annotation in (str, int, float) or typing.get_origin(annotation) is Literal or _is_model(annotation)


def _has_default_table(info: FieldInfo | None) -> bool:
    return info is not None and info.default_factory is not None


def _doc(model: type[BaseModel]) -> str:
    """A table's docstring as a hint: one paragraph, without reStructuredText's literal marks."""
    return " ".join((model.__doc__ or "").split()).replace("``", "")


def _hint(info: FieldInfo | None) -> str:
    if info is None:
        return ""
    bounds = [f"{_BOUNDS[k]} {getattr(m, k)}" for m in info.metadata for k in _BOUNDS if getattr(m, k, None) is not None]
    text = info.description or ""
    return f"{text} ({', '.join(bounds)})" if bounds and text else text or ", ".join(bounds)


def _default(info: FieldInfo | None) -> str:
    """The default shown in an empty field (a default table is shown by its own fields)."""
    if info is None:
        return ""
    value = info.default
    if value is PydanticUndefined and info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
    if value is PydanticUndefined or value is None or isinstance(value, BaseModel) or value in ([], {}):
        return ""
    return value if isinstance(value, str) else inline(value)


def inline(value: Any) -> str:
    """A value as an inline TOML value (``0.5``, ``"nace"``, ``["a", "b"]``, ``{ k = 1 }``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        pairs = [f"{k if _BARE_KEY.match(str(k)) else json.dumps(str(k))} = {inline(v)}" for k, v in value.items()]
        return "{ " + ", ".join(pairs) + " }" if pairs else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return repr(value)


def shown(value: Any, kind: Kind) -> str:
    """How a value is shown in its widget."""
    if value is None:
        return ""
    if kind == "lines":
        if not isinstance(value, list):
            return inline(value)
        # a text that would read back as something else (a number, a quoted text) is quoted
        return "\n".join(v if isinstance(v, str) and v and _entry(v) == v else inline(v) for v in value)
    if kind in ("text", "choice") and isinstance(value, str):
        return value
    return inline(value)


def read(widget: Widget, text: str) -> Any:
    """The value typed into ``widget``; ``None`` for an empty field (the setting is left out).
    A value that does not fit the field's type is kept as typed, so that validation names it."""
    text = text.strip() if widget.kind != "lines" else text
    if widget.kind != "lines" and text == "":
        return None
    if widget.kind == "bool":
        return {"true": True, "false": False}.get(text, text)
    if widget.kind in ("integer", "number"):
        for convert in (int, float):  # a whole number stays one (TOML tells 3 from 3.0)
            try:
                return convert(text)
            except ValueError:
                continue
        return text
    if widget.kind == "lines":
        entries = [line.strip() for line in text.splitlines() if line.strip()]
        return [_entry(line) for line in entries] if entries else None
    if widget.kind == "toml":
        return _toml(text, fallback=text)
    return text


def _entry(line: str) -> Any:
    """A line of a list: a TOML value when it is written as one (a quoted text, a number, a
    table in braces), else the text itself."""
    if line[0] in "{[\"'" or re.fullmatch(r"[-+]?(\d[\d_]*)(\.\d+)?([eE][-+]?\d+)?", line):
        return _toml(line, fallback=line)
    return line


def _toml(text: str, fallback: Any) -> Any:
    """``text`` as a TOML value; ``fallback`` when it is none, or nested deeper than any document
    the tool reads back (``attack.io.readback.MAX_DEPTH``)."""
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return fallback
    return fallback if depth(value) > MAX_DEPTH else value


def put(document: dict[str, Any], path: Path, value: Any) -> None:
    """Set ``value`` at ``path`` in ``document`` (tables made on the way); ``None`` removes it."""
    here: Any = document
    for step, following in zip(path[:-1], path[1:], strict=True):
        if isinstance(here, list):
            here = here[int(step)]
            continue
        if value is None and step not in here:
            return
        here = here.setdefault(step, [] if isinstance(following, int) else {})
    last = path[-1]
    if isinstance(here, list):
        here[int(last)] = {} if value is None else value
    elif value is None:
        here.pop(last, None)
    else:
        here[last] = value


def get(document: Mapping[str, Any], path: Path) -> Any:
    """The value at ``path``; ``None`` when absent."""
    here: Any = document
    for step in path:
        try:
            here = here[step]
        except (KeyError, IndexError, TypeError):
            return None
    return here


def prune(value: Any, keep: frozenset[Path] = frozenset(), path: Path = ()) -> Any:
    """``value`` without the empty tables left behind by cleared fields, except those at the
    paths in ``keep`` (a table asked for with its defaults); lists keep their entries."""
    if isinstance(value, dict):
        kept = {k: prune(v, keep, path + (k,)) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v != {} or path + (k,) in keep}
    if isinstance(value, list):
        return [prune(v, keep, path + (i,)) for i, v in enumerate(value)]
    return value
