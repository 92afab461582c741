"""The base of every column setting: a key or a block names a column of the release and, when it
is spelt differently there, of the external file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from attack.errors import InputError
from attack.io.strict import SettingsModel


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


class ColumnSetting(SettingsModel):
    """A frozen settings object whose column name may also be given positionally; a bad value
    raises ``attack.InputError`` naming the field."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True,
                              json_schema_extra=_alias_properties)

    name: str = Field(min_length=1, validation_alias=AliasChoices("name", "column"),
                      description="Column in the release (and, by default, in the external file).")
    external_name: str | None = Field(default=
        None, validation_alias=AliasChoices("external_name", "external"),
        description="Column in the external file when it is named differently.")

    def __init__(self, name: str | None = None, /, **data: Any) -> None:
        if name is not None:
            data["name"] = name
        super().__init__(**data)

    @property
    def external_column(self) -> str:
        """The column in the external file."""
        return self.external_name or self.name


def entry_validator(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``convert`` as a validator of a settings entry: a text spelling's error names the entry
    only (the text has no fields), a table's names the field inside it."""

    def validate(value: Any) -> Any:
        if not isinstance(value, str):
            return convert(value)
        try:
            return convert(value)
        except InputError as exc:
            raise ValueError(exc.message) from None

    return validate


def build(cls: type[BaseModel], fields: Mapping, what: str) -> Any:
    """``cls(**fields)``; an error names ``what`` (the text or table it came from)."""
    try:
        return cls(**fields)
    except InputError as exc:
        raise InputError(f"{what}: {exc.message}", field=exc.field) from None
