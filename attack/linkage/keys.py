"""Typed linkage keys and blocking keys, and their short text spellings.

A key is an overlap variable that enters the distance; a block (also used for risk cells) is a
column whose classes the intruder links within. Typed objects and the CLI's text spellings give
the same ``KeySpec`` and
``Classifier``::

    Metric("turnover", weight=0.5)          "turnover:metric:0.5"
    Ordinal("size", order=["s", "m", "l"])  "size:ordinal:order=s|m|l"
    Hierarchical("nace", levels=[2, 3, 4])  "nace:hierarchical:levels=2|3|4"
    Block("nace", prefix=2)                 "nace:prefix=2"
    Block("employees", bins=[20, 50])       "employees:bins=20,50"
    Block("surname", encoding="cologne")    "surname:cologne"
    AnyBlock("surname:prefix=1", "plz")     "surname:prefix=1|plz"

Text keys read ``NAME:TYPE[:WEIGHT][:OPTION...]`` with the options ``log``, ``squared``,
``absolute``, ``levenshtein``, ``jaro_winkler``, ``damerau``, ``token_set``, ``normalise``,
``soundex``, ``cologne``, ``tf``, ``swap=OTHER``, ``lca``, ``skip``, ``order=a|b|c`` and
``levels=2|3|4``. The distances themselves are explained in ``docs/method/linkage.md``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from attack.errors import InputError, from_validation
from attack.io.strict import SettingsModel
from attack.linkage.blocking import Classifier
from attack.linkage.distances import KEY_TYPES, KeySpec

__all__ = [
    "Key", "Metric", "Nominal", "Ordinal", "Hierarchical", "String", "Date", "Block", "AnyBlock",
    "KeyTable", "as_key", "as_block", "blocking_entry", "parse_key", "parse_block", "parse_block_entry",
]


def _alias_properties(schema: dict[str, Any]) -> None:
    """Let the JSON Schema accept the aliases ``column`` (for ``name``) and ``external`` (for
    ``external_name``) that scenario files use."""
    properties = schema.get("properties", {})
    for field, alias in (("name", "column"), ("external_name", "external")):
        if field in properties:
            properties[alias] = {**properties[field], "description": f"Same as {field}."}
    if "name" in schema.get("required", []):
        schema["required"] = [r for r in schema["required"] if r != "name"]
        schema["anyOf"] = [{"required": ["name"]}, {"required": ["column"]}]


class _Setting(SettingsModel):
    """A frozen settings object whose column name may also be given positionally."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True,
                              json_schema_extra=_alias_properties)

    name: str = Field(min_length=1, validation_alias=AliasChoices("name", "column"),
                      description="Column in the release (and, by default, in the external file).")
    external_name: str | None = Field(
        None, validation_alias=AliasChoices("external_name", "external"),
        description="Column in the external file when it is named differently.")

    def __init__(self, name: str | None = None, /, **data: Any) -> None:
        if name is not None:
            data["name"] = name
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise from_validation(exc, model=type(self)) from None


class Key(_Setting):
    """Common fields of every key type."""

    weight: float = Field(1.0, ge=0, allow_inf_nan=False, description="Weight λ_i of the component.")
    missing: Literal["max", "skip"] = Field(
        "max", description="A missing value takes the largest distance ('max') or drops the "
        "component for that pair ('skip').")

    def spec(self) -> KeySpec:
        """The key as the distance code takes it."""
        fields = self.model_dump(exclude={"type"})
        return KeySpec(type=self.type, **fields)  # type: ignore[attr-defined]

    def to_text(self) -> str:
        """The CLI spelling of the key (``external_name`` and parent maps have none)."""
        if self.external_name is not None:
            raise InputError(f"key {self.name!r}: a renamed external column has no text spelling")
        parts = [self.name, self.type, f"{self.weight:g}"]  # type: ignore[attr-defined]
        parts += self._options()
        if self.missing == "skip":
            parts.append("skip")
        return ":".join(parts)

    def _options(self) -> list[str]:
        return []


class Metric(Key):
    """A numeric key: squared or absolute difference, optionally of ``log(1 + x)``."""

    type: Literal["metric"] = "metric"
    log: bool = False
    metric_distance: Literal["squared", "absolute"] | None = Field(
        None, description="Squared or absolute difference; None takes the run's default.")

    def _options(self) -> list[str]:
        return (["log"] if self.log else []) + ([self.metric_distance] if self.metric_distance else [])


_TF = Field(False, description="Fellegi–Sunter: weigh exact agreement by the rarity of the value "
                               "(term-frequency adjustment).")


class Nominal(Key):
    """A categorical key: 0 when equal, 1 otherwise (handbook eq. 13.1)."""

    type: Literal["nominal"] = "nominal"
    tf: bool = _TF

    def _options(self) -> list[str]:
        return ["tf"] if self.tf else []


class Ordinal(Key):
    """An ordered categorical key: rank difference over the number of categories (eq. 13.2)."""

    type: Literal["ordinal"] = "ordinal"
    order: tuple[str, ...] | None = Field(None, description="The categories from lowest to highest.")

    def _options(self) -> list[str]:
        return [f"order={'|'.join(self.order)}"] if self.order else []


class Hierarchical(Key):
    """A hierarchical code such as NACE: distance from the deepest shared level (eq. 13.3)."""

    type: Literal["hierarchical"] = "hierarchical"
    levels: tuple[int, ...] | None = Field(None, description="Prefix lengths of the levels, e.g. [2, 3, 4].")
    parents: dict[str, str] | None = Field(None, description="An explicit map code → parent code.")
    hierarchy_mode: Literal["compatible_zero", "lca"] = "compatible_zero"

    def _options(self) -> list[str]:
        if self.parents is not None:
            raise InputError(f"key {self.name!r}: a parent map has no text spelling")
        levels = [f"levels={'|'.join(map(str, self.levels))}"] if self.levels else []
        return levels + (["lca"] if self.hierarchy_mode == "lca" else [])


class String(Key):
    """A text key such as a firm or person name: normalised edit distance."""

    type: Literal["string"] = "string"
    string_method: Literal["levenshtein", "jaro_winkler", "damerau", "token_set"] = "levenshtein"
    normalise: bool = Field(False, description="Fold case, diacritics, punctuation and spaces before comparing.")
    encoding: Literal["soundex", "cologne"] | None = Field(
        None, description="Compare the phonetic codes of the values (Soundex or Kölner Phonetik).")
    tf: bool = _TF
    swap_with: str | None = Field(
        None, min_length=1, description="The other name column (given or family name, same name in both "
        "files): the names are compared straight and crossed, the better counts.")

    def _options(self) -> list[str]:
        return ([self.string_method] if self.string_method != "levenshtein" else []) + (
            ["normalise"] if self.normalise else []) + ([self.encoding] if self.encoding else []) + (
            ["tf"] if self.tf else []) + ([f"swap={self.swap_with}"] if self.swap_with else [])


class Date(Key):
    """A date such as the date of birth: parts compared, day–month transposition recognised
    (``attack.linkage.dates``)."""

    type: Literal["date"] = "date"


#: A key table of a scenario file, told apart by its ``type``.
KeyTable = Annotated[Metric | Nominal | Ordinal | Hierarchical | String | Date, Field(discriminator="type")]
_KEY_CLASSES = {cls.model_fields["type"].default: cls
                for cls in (Metric, Nominal, Ordinal, Hierarchical, String, Date)}


class Block(_Setting):
    """A blocking key or a risk cell: the column as is, by code prefix, by interval bins, or (a
    name) by its phonetic code."""

    prefix: int | None = Field(None, ge=1, description="Classes are the first N characters of the code.")
    bins: tuple[float, ...] | None = Field(None, min_length=1, description="Break points of the classes.")
    encoding: Literal["soundex", "cologne"] | None = Field(
        None, description="Classes are the Soundex or Kölner Phonetik codes of the names.")

    @model_validator(mode="after")
    def _one_rule(self) -> Block:
        if sum(x is not None for x in (self.prefix, self.bins, self.encoding)) > 1:
            raise ValueError("use one of a prefix, bins or an encoding")
        if self.bins is not None and not all(math.isfinite(b) for b in self.bins):
            raise ValueError("bins must be finite numbers (no nan or inf)")
        if self.bins is not None and any(b <= a for a, b in itertools.pairwise(self.bins)):
            raise ValueError("bins must be strictly increasing break points")
        return self

    def classifier(self) -> Classifier:
        """The block as the blocking and cell code takes it."""
        return Classifier(self.name, prefix=self.prefix, bins=self.bins, external_name=self.external_name,
                          encoding=self.encoding)

    def to_text(self) -> str:
        return self.classifier().label()


class AnyBlock(SettingsModel):
    """Alternative blocking keys (``"surname:prefix=1|postcode"``): a pair is a candidate when it
    agrees on any of them; each alternative is one blocking pass (``attack.linkage.passes``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    any: tuple[Block, ...] = Field(min_length=2, description="The alternative blocking keys.")

    def __init__(self, *alternatives: Block | str | Mapping, **data: Any) -> None:
        if alternatives:
            data["any"] = tuple(as_block(a) for a in alternatives)
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise from_validation(exc, model=type(self)) from None

    @field_validator("any", mode="before")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            return value
        try:
            return tuple(parse_block(v) if isinstance(v, str) else v for v in value)
        except InputError as exc:
            raise ValueError(exc.message) from None

    def to_text(self) -> str:
        return "|".join(b.to_text() for b in self.any)


_FLAGS = {
    "log": ("log", True),
    "squared": ("metric_distance", "squared"),
    "absolute": ("metric_distance", "absolute"),
    "levenshtein": ("string_method", "levenshtein"),
    "jaro_winkler": ("string_method", "jaro_winkler"),
    "damerau": ("string_method", "damerau"),
    "token_set": ("string_method", "token_set"),
    "normalise": ("normalise", True),
    "soundex": ("encoding", "soundex"),
    "cologne": ("encoding", "cologne"),
    "tf": ("tf", True),
    "lca": ("hierarchy_mode", "lca"),
    "skip": ("missing", "skip"),
}


def parse_key(text: str) -> Key:
    """A typed key from ``NAME:TYPE[:WEIGHT][:OPTION...]`` (see the module docstring)."""
    parts = text.split(":")
    if len(parts) < 2 or not parts[0]:
        raise InputError(f"key {text!r}: expected NAME:TYPE[:WEIGHT], TYPE one of {', '.join(KEY_TYPES)}")
    name, kind, rest = parts[0], parts[1], parts[2:]
    if kind not in KEY_TYPES:
        raise InputError(f"key {text!r}: unknown key type {kind!r}; expected one of {', '.join(KEY_TYPES)}")
    options: dict[str, Any] = {}
    if rest:
        try:
            options["weight"] = float(rest[0])
            rest = rest[1:]
        except ValueError:
            pass
    for option in rest:
        if option in _FLAGS:
            field_name, value = _FLAGS[option]
            options[field_name] = value
        elif option.startswith("order="):
            options["order"] = tuple(option[len("order="):].split("|"))
        elif option.startswith("swap="):
            options["swap_with"] = option[len("swap="):]
        elif option.startswith("levels="):
            options["levels"] = tuple(_ints(option[len("levels="):].split("|"), text))
        else:
            raise InputError(f"key {text!r}: unknown option {option!r}")
    return _build(_KEY_CLASSES[kind], {"name": name, **options}, f"key {text!r}")


def parse_block(text: str) -> Block:
    """A block from ``NAME``, ``NAME:prefix=N``, ``NAME:bins=B1,B2,...``, ``NAME:soundex`` or
    ``NAME:cologne``."""
    name, _, option = text.partition(":")
    if not name:
        raise InputError(f"{text!r}: a column name is needed")
    if not option:
        return Block(name)
    if option in ("soundex", "cologne"):
        return Block(name, encoding=option)
    if option.startswith("prefix="):
        return _build(Block, {"name": name, "prefix": _ints([option[len("prefix="):]], text)[0]}, repr(text))
    if option.startswith("bins="):
        try:
            bins = tuple(float(b) for b in option[len("bins="):].split(","))
        except ValueError as exc:
            raise InputError(f"{text!r}: bins must be numbers separated by commas") from exc
        return _build(Block, {"name": name, "bins": bins}, repr(text))
    raise InputError(f"{text!r}: expected NAME, NAME:prefix=N, NAME:bins=B1,B2,..., NAME:soundex or NAME:cologne")


def parse_block_entry(text: str) -> Block | AnyBlock:
    """A blocking entry: one block, or alternatives separated by ``|`` (``"surname:prefix=1|plz"``)."""
    if "|" not in text:
        return parse_block(text)
    return AnyBlock(*(parse_block(part.strip()) for part in text.split("|")))


def blocking_entry(value: Block | AnyBlock | Classifier | str | Mapping) -> Block | AnyBlock:
    """A blocking entry from its typed form, its text spelling or a scenario-file table
    (``{any = [...]}`` for alternatives)."""
    if isinstance(value, AnyBlock):
        return value
    if isinstance(value, str):
        return parse_block_entry(value)
    if isinstance(value, Mapping) and "any" in value:
        return _build(AnyBlock, value, "block")
    return as_block(value)


def as_key(value: Key | str | Mapping) -> Key:
    """A typed key from a key, its text spelling or a scenario-file table with ``type``."""
    if isinstance(value, Key):
        return value
    if isinstance(value, str):
        return parse_key(value)
    if isinstance(value, Mapping):
        kind = value.get("type")
        if kind not in _KEY_CLASSES:
            raise InputError(f"'type' must be one of {', '.join(KEY_TYPES)}, got {kind!r}")
        return _build(_KEY_CLASSES[kind], value, "key")
    raise InputError(f"expected a key (attack.Metric, ... or text like 'turnover:metric'), got {value!r}")


def as_block(value: Block | Classifier | str | Mapping) -> Block:
    """A block from a block, its text spelling or a scenario-file table."""
    if isinstance(value, Block):
        return value
    if isinstance(value, Classifier):
        return Block(value.name, prefix=value.prefix, bins=value.bins, external_name=value.external_name,
                     encoding=value.encoding)
    if isinstance(value, str):
        if "|" in value:
            raise InputError(f"{value!r}: alternatives (a|b) are blocking passes, not a cell or a single block")
        return parse_block(value)
    if isinstance(value, Mapping):
        return _build(Block, value, "block")
    raise InputError(f"expected a block (attack.Block or text like 'nace:prefix=2'), got {value!r}")


def _build(cls: type[BaseModel], fields: Mapping, what: str) -> Any:
    try:
        return cls(**fields)
    except InputError as exc:
        raise InputError(f"{what}: {exc.message}", field=exc.field) from None


def _ints(values: list[str], context: str) -> list[int]:
    try:
        return [int(v) for v in values]
    except ValueError as exc:
        raise InputError(f"{context!r}: expected whole numbers") from exc
