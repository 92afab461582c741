"""The base of every settings table: a number is never read from ``true`` or ``false``, and a
bad value is an ``attack.InputError`` naming the field.

Pydantic converts a boolean into a number (``tau = true`` becomes τ = 1), which would change a
verdict without a word; ``SettingsModel`` refuses such a value, naming the field. A settings object
built directly from Python (``attack.PrivacyClaim(epsilon=0)``) reports its first problem as the
``InputError`` the command line prints, not as pydantic's ``ValidationError``; a table validated
inside a larger document (a scenario) is still reported by that document, with its full path.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError, model_validator

from attack.errors import InputError, from_validation


def takes_booleans(annotation: Any) -> bool:
    """Whether a field of this type may hold ``true``/``false`` (a bool, Any, or a type that is
    not a number, such as text or a table)."""
    if annotation is bool or annotation is Any:
        return True
    if annotation in (int, float):
        return False
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return takes_booleans(args[0])
    if origin is typing.Literal:
        return True  # pydantic names the allowed values itself
    if origin in (typing.Union, types.UnionType, list, tuple, dict, set):
        inner = args[1:] if origin is dict else args
        return any(takes_booleans(a) for a in inner if a is not type(None) and a is not Ellipsis)
    return True


class SettingsModel(BaseModel):
    """A pydantic model that refuses ``true``/``false`` where its field expects a number and
    raises ``InputError`` when built with a bad value."""

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise from_validation(exc, model=type(self)) from None

    @model_validator(mode="before")
    @classmethod
    def _no_booleans_as_numbers(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        for name, field in cls.model_fields.items():
            for given in {name, field.alias, *getattr(field.validation_alias, "choices", ())} - {None}:
                if given in data and not takes_booleans(field.annotation):
                    value = data[given]
                    values = value if isinstance(value, (list, tuple)) else (
                        value.values() if isinstance(value, Mapping) else [value])
                    if any(isinstance(v, bool) for v in values):
                        word = "a number" if "float" in str(field.annotation) else "a whole number"
                        raise InputError(f"expected {word}, got {str(value).lower()!r}", field=str(given))
        return data
