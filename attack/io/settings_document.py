"""One settings document per entry point: the validated model, a dict or a path to a JSON or
TOML file, plus keyword shortcuts that only fill the same model's fields (Splink's
``settings`` argument)::

    attack.mass_attack(external, release, settings={"keys": ["turnover:metric"], "tau": 0.5})
    attack.mass_attack(external, release, settings="attack.toml", tau=0.4)  # a shortcut wins

``settings_document`` is the only place that turns those forms into the model; a bad field is an
``attack.InputError`` naming it (``settings.tau``, or the keyword's own name).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from attack.errors import InputError, did_you_mean, from_validation
from attack.io.readback import load_json, load_toml

M = TypeVar("M", bound=BaseModel)

SettingsLike = BaseModel | Mapping[str, Any] | str | os.PathLike[str] | None
"""What an entry point's ``settings`` argument takes: the model, a dict, or a JSON/TOML path."""

__all__ = ["SettingsLike", "settings_document"]


def settings_document(model: type[M], settings: SettingsLike = None, /, *, where: str = "settings",
                      **shortcuts: Any) -> M:
    """``model`` validated from ``settings`` (the model itself, a mapping, or the path of a JSON
    or TOML file) with ``shortcuts`` (keyword arguments named after the model's fields) on top.

    A shortcut whose value is None is not given. An unknown shortcut or field, or a value
    outside a field's rule, is an ``InputError`` whose ``field`` names it.
    """
    base = _as_mapping(model, settings, where)
    given = {name: value for name, value in shortcuts.items() if value is not None}
    for name in given:
        if name not in model.model_fields:
            raise InputError(f"unknown setting {name!r}{did_you_mean(name, model.model_fields)}", field=name)
    values = {**base, **{name: list(v) if isinstance(v, tuple) else v for name, v in given.items()}}
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        error = from_validation(exc, model=model)
    head = (error.field or "").split(".")[0].split("[")[0]
    field = error.field if head in given or not error.field else f"{where}.{error.field}"
    raise InputError(error.message, field=field, file=error.file)


def _as_mapping(model: type[BaseModel], settings: SettingsLike, where: str) -> dict[str, Any]:
    if settings is None:
        return {}
    if isinstance(settings, model):
        return settings.model_dump(exclude_unset=True)
    if isinstance(settings, BaseModel):
        raise InputError(f"expected {model.__name__} settings, a mapping or a path, not {type(settings).__name__}",
                         field=where)
    if isinstance(settings, Mapping):
        return dict(settings)
    if isinstance(settings, (str, os.PathLike)):
        path = Path(settings)
        content = load_toml(path) if path.suffix.lower() == ".toml" else load_json(path, "settings document")
        if not isinstance(content, dict):
            raise InputError("expected a settings document (a JSON object or a TOML table)", file=path.name,
                             field=where)
        return content
    raise InputError(f"expected {model.__name__} settings, a mapping or a path, not {type(settings).__name__}",
                     field=where)
