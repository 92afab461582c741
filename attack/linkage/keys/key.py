"""The base of every key type, the registry of key types and the keys' text spelling.

A key type is a subclass of ``Key`` with a ``type`` field whose default is its name (``"metric"``)
and a ``component`` method that builds its distances (``attack.linkage.distances.Component``).
Defining the class registers it: the text form ``NAME:TYPE[:WEIGHT][:OPTION...]``, the key tables
of scenario files, their JSON Schema and ``attack.<ClassName>`` then know it
(``docs/contributing/add-a-distance.md``).
"""

from __future__ import annotations

import difflib
from abc import abstractmethod
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Literal

import pandas as pd
from pydantic import Field, TypeAdapter
from pydantic_core import core_schema

from attack.errors import InputError
from attack.io.plugins import Registry
from attack.linkage.column import ColumnSetting, build, entry_validator
from attack.linkage.distances import Component, ComponentOptions

#: The field ``tf`` of the key types that offer it (Fellegi–Sunter term-frequency adjustment).
TERM_FREQUENCY: Any = Field(default=False, description="Fellegi–Sunter: weigh exact agreement by the rarity of "
                            "the value (term-frequency adjustment).")

#: Key type name -> class, in the order the types were defined; reading it imports every module of
#: ``attack.linkage.keys`` (``attack.io.plugins.Registry``, the one mechanism of every plug-in).
KEY_TYPES: Registry[type[Key]] = Registry("key type", "attack.linkage.keys")


class Key(ColumnSetting):
    """An overlap variable that enters the distance: the fields every key type has.

    A subclass declares ``type: Literal["its-name"] = "its-name"``, its own fields, its text
    options (``flags``, ``valued_options``) and builds its distances in ``component``.
    """

    weight: float = Field(default=1.0, ge=0, allow_inf_nan=False, description="Weight λ_i of the component.")
    missing: Literal["max", "skip"] = Field(default=
        "max", description="A missing value takes the largest distance ('max') or drops the "
        "component for that pair ('skip').")

    #: Text options without a value: option -> (field, value), e.g. ``"log": ("log", True)``.
    flags: ClassVar[Mapping[str, tuple[str, Any]]] = {}
    #: Text options with a value (``order=a|b``): prefix -> (field, reader of the value).
    valued_options: ClassVar[Mapping[str, tuple[str, Callable[[str], Any]]]] = {}
    #: Whether the key's values are read as codes (text) rather than numbers.
    reads_codes: ClassVar[bool] = True

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        field = cls.model_fields.get("type")
        if field is not None and isinstance(field.default, str):
            KEY_TYPES.add(field.default, cls)

    @property
    def kind(self) -> str:
        """The key type's name (``"metric"``, ``"string"``, ...)."""
        return str(getattr(self, "type"))  # noqa: B009 - declared by each subclass

    @property
    def columns(self) -> tuple[str, ...]:
        """The release columns the key reads."""
        return (self.name,)

    @property
    def external_columns(self) -> tuple[str, ...]:
        """The external columns the key reads."""
        return (self.external_column,)

    @property
    def weighs_by_frequency(self) -> bool:
        """Whether exact agreement is weighed by the value's rarity (option ``tf``)."""
        return False

    @abstractmethod
    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> Component:
        """The key's raw distances between the rows of ``external`` and ``release``."""

    def to_dict(self) -> dict:
        """JSON-ready description for results and certificates."""
        out: dict = {"name": self.name, "type": self.kind, "weight": self.weight}
        if self.external_name and self.external_name != self.name:
            out["external_name"] = self.external_name
        out.update(self._described())
        out["missing"] = self.missing
        return out

    def _described(self) -> dict:
        """The type's own entries of ``to_dict``."""
        return {}

    def to_text(self) -> str:
        """The CLI spelling of the key (``external_name`` and parent maps have none)."""
        if self.external_name is not None:
            raise InputError(f"key {self.name!r}: a renamed external column has no text spelling")
        parts = [self.name, self.kind, f"{self.weight:g}", *self._options()]
        if self.missing == "skip":
            parts.append("skip")
        return ":".join(parts)

    def _options(self) -> list[str]:
        """The type's own options of ``to_text``."""
        return []

    def to_data(self) -> str | dict:
        """The key as a scenario file writes it: its text spelling, or a table when it has none."""
        try:
            return self.to_text()
        except InputError:
            return {"type": self.kind, **self.model_dump(mode="json", exclude_defaults=True)}


def key_types() -> dict[str, type[Key]]:
    """Every registered key type: name -> class."""
    return dict(KEY_TYPES.items())


def _type_names() -> str:
    return ", ".join(KEY_TYPES)


_COMMON_FLAGS = {"skip": ("missing", "skip")}


def parse_key(text: str) -> Key:
    """A typed key from ``NAME:TYPE[:WEIGHT][:OPTION...]``; the options are those of the type."""
    parts = text.split(":")
    if len(parts) < 2 or not parts[0]:
        raise InputError(f"key {text!r}: expected NAME:TYPE[:WEIGHT], TYPE one of {_type_names()}")
    name, kind, rest = parts[0], parts[1], parts[2:]
    if kind not in KEY_TYPES:
        raise InputError(f"key {text!r}: unknown key type {kind!r}; expected one of {_type_names()}")
    cls = KEY_TYPES[kind]
    options: dict[str, Any] = {}
    if rest:
        try:
            options["weight"] = float(rest[0])
            rest = rest[1:]
        except ValueError:
            pass
    flags = {**_COMMON_FLAGS, **cls.flags}
    for option in rest:
        prefix, equals, value = option.partition("=")
        if option in flags:
            field_name, flag_value = flags[option]
            options[field_name] = flag_value
        elif equals and prefix in cls.valued_options:
            field_name, read = cls.valued_options[prefix]
            try:
                options[field_name] = read(value)
            except ValueError as exc:
                raise InputError(f"key {text!r}: {prefix}= {exc}") from None
        else:
            raise InputError(f"key {text!r}: unknown option {option!r}")
    return build(cls, {"name": name, **options}, f"key {text!r}")


def as_key(value: Key | str | Mapping) -> Key:
    """A typed key from a key, its text spelling or a scenario-file table with ``type``."""
    if isinstance(value, Key):
        return value
    if isinstance(value, str):
        return parse_key(value)
    if isinstance(value, Mapping):
        kind = value.get("type")
        if kind is None:
            raise InputError(f"needs a type ({_type_names()})")
        if kind not in KEY_TYPES:
            close = difflib.get_close_matches(str(kind), KEY_TYPES.names(), n=1)
            raise InputError(f"unknown type {kind!r}; " + (
                f"did you mean {close[0]!r}?" if close else f"expected one of {_type_names()}"))
        return build(KEY_TYPES[kind], value, "key")
    raise InputError(f"expected a key (attack.Metric, ... or text like 'turnover:metric'), got {value!r}")


def whole_numbers(text: str) -> tuple[int, ...]:
    """``"2|3|4"`` as whole numbers."""
    try:
        return tuple(int(v) for v in text.split("|"))
    except ValueError:
        raise ValueError("expected whole numbers") from None


class _RegisteredKey:
    """Validation of a key of a settings table by the registry at the time of validation (so
    that a key type defined later is accepted), and its JSON Schema from the registered types."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            entry_validator(as_key), serialization=core_schema.plain_serializer_function_ser_schema(
                lambda key: key.to_data() if isinstance(key, Key) else key))

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict:
        tables = [handler(TypeAdapter(t).core_schema) for t in KEY_TYPES.values()]
        text = {"type": "string", "description": "NAME:TYPE[:WEIGHT][:OPTION...], TYPE one of " + _type_names()}
        return {"anyOf": [text, *tables]}


#: A key of a settings table: its text spelling (``"turnover:metric:0.5"``) or a table with a
#: ``type``; validated into the typed key of its registered type, written back as text.
KeyEntry = Annotated[Key, _RegisteredKey]
