"""The options of the attack families that take some, as one typed table (``[attacks.options]``,
``SynthSpec.options``; docs/method/synthetic-attacks.md).

Each built-in family with options has a typed field here, so the JSON Schema, the UI form and
the validation see its settings. A family registered from another module (see
docs/contributing/add-a-synthetic-attack.md) gives its table under its own name and validates it
with its own model when it is configured; a name that is no registered family is refused when
the run starts (``unknown_families``). This module stays light (no SciPy): the command line
reads it at start-up.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    field_validator,
    model_validator,
)

from attack.errors import InputError, did_you_mean
from attack.linkage.settings import SettingsTable

__all__ = ["CURVE_RECALLS", "DEFAULT_RECALL", "ConfidenceOptions", "FamilyOptions", "unknown_families"]

#: The recall at which τ applies unless the options declare another.
DEFAULT_RECALL = 0.10
#: The recalls of the reported curve.
CURVE_RECALLS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


class ConfidenceOptions(SettingsTable):
    """Options of the inference with confidence (``options["inference_confidence"]``)."""

    recall: float = Field(DEFAULT_RECALL, gt=0, le=1, description="The declared recall at which τ applies.")
    neighbours: int = Field(5, ge=1, le=50, strict=True, description="Nearest records per guess.")
    n_targets: int = Field(50_000, ge=10, strict=True, description="Members attacked (a seeded sample).")
    calibration_rows: int = Field(2_000, ge=20, strict=True,
                                  description="Records of the intruder's file he calibrates on.")
    recalls: list[float] = Field(default_factory=lambda: list(CURVE_RECALLS), min_length=1,
                                 description="Recalls of the reported curve.")

    @field_validator("recalls")
    @classmethod
    def _in_range(cls, recalls: list[float]) -> list[float]:
        if any(not 0 < r <= 1 for r in recalls):
            raise ValueError("every recall must lie in (0, 1]")
        return sorted(set(recalls))


class FamilyOptions(SettingsTable):
    """The settings of further attack families, one table per family name."""

    model_config = ConfigDict(extra="allow")

    inference_confidence: ConfidenceOptions | None = Field(
        None, description="Inference with confidence: the declared recall, neighbours, targets, calibration.")

    #: The tables as the settings wrote them (the result's JSON echoes them, not their defaults).
    _written: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _tables(cls, data: Any, handler: ModelWrapValidatorHandler[FamilyOptions]) -> FamilyOptions:
        if not isinstance(data, Mapping):
            return handler(data)
        for name, table in data.items():
            if name not in cls.model_fields and not isinstance(table, Mapping):
                raise InputError(f"expected a table of options, got {table!r}", field=name)
        made = handler(data)
        made._written = {name: copy.deepcopy(table) for name, table in data.items() if isinstance(table, Mapping)}
        return made

    def of(self, family: str) -> Any | None:
        """The options given for ``family`` (its typed model for a built-in family, else the
        table as given); None when the settings give none."""
        return getattr(self, family, None)

    def given(self) -> dict[str, Any]:
        """The tables as the settings gave them (what a result's JSON shows): as written when
        they were written as data, else the fields set on the models."""
        return {name: self._written[name] if name in self._written else
                table.model_dump(exclude_unset=True) if isinstance(table, BaseModel) else table
                for name in self.named() if (table := self.of(name)) is not None}

    def named(self) -> list[str]:
        """The family names the settings give tables for."""
        return [*(n for n in type(self).model_fields if n in self.model_fields_set), *(self.model_extra or {})]


def unknown_families(options: FamilyOptions, families: Iterable[str]) -> None:
    """Refuse a table named after no registered family (``families``), suggesting the closest."""
    known = sorted(families)
    for name in options.named():
        if name not in known:
            raise InputError(f"unknown attack family {name!r}{did_you_mean(name, known)}", field=f"options.{name}")

