"""The evaluation settings, declared once: the schema of scenario files, the API's arguments and
what the scoring engine reads.

``Evaluation`` is the ``[evaluation]`` table of a scenario file and the scoring arguments of
``attack.mass_attack`` (Destatis handbook, ch. 12; ``docs/method/risk.md``). Every rule on τ,
γ and the other settings is checked here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError, model_validator

from attack.defaults import LINKAGE_TAU
from attack.errors import InputError, from_validation
from attack.linkage.settings import BlockEntry, SettingsTable
from attack.risk.targets import Target, parse_target
from attack.risk.thresholds import (
    COLUMN_ROLES,
    DEFAULT_GAMMAS,
    DEFAULT_MIN_PROBABILITIES,
    DEFAULT_MIN_SCORED,
    IDENTITY_RULES,
    RISK_BASES,
    TARGET_TYPES,
    Gamma,
    gammas_from,
)

GammaValue = Annotated[float, Field(gt=0, allow_inf_nan=False)]


def _probability(value: float) -> float:
    if not 0 <= value <= 1:
        raise ValueError(f"every minimum match probability must lie in [0, 1], got {value:g}")
    return value


#: The range is checked by ``_probability`` (its message names the interval); the schema shows it.
Probability = Annotated[float, Field(allow_inf_nan=False, json_schema_extra={"minimum": 0, "maximum": 1}),
                        AfterValidator(_probability)]


class Evaluation(SettingsTable):
    """How the attack is scored and judged (Destatis handbook, ch. 12)."""

    gamma: list[GammaValue] = Field(
        default_factory=lambda: list(DEFAULT_GAMMAS), min_length=1,
        description="Usefulness thresholds γ: relative deviations below γ count as useful.")
    gamma_by_variable: dict[str, list[GammaValue]] | None = None
    tau: float = Field(LINKAGE_TAU, gt=0, le=1, description="Threshold τ: every cell's risk must stay below it.")
    targets: list[str] | None = Field(None, min_length=1, description="Variables the intruder wants: "
                                      "NAME[:TYPE[:OPTION...]], TYPE " + "|".join(TARGET_TYPES) + ".")
    cells: list[BlockEntry] = Field(default_factory=list, description="Cell variables.")
    zero_tolerance: float = Field(0.0, ge=0, allow_inf_nan=False)
    truth_complete: bool = Field(False, description="The ground truth covers every external record: one whose "
                                 "unit is not in the release has no counterpart and its link is false.")
    min_probability: list[Probability] = Field(
        default_factory=lambda: list(DEFAULT_MIN_PROBABILITIES), min_length=1,
        description="Match probabilities P at which the confident links are reported.")
    risk_on: Literal[RISK_BASES] = Field(  # type: ignore[valid-type]
        "all", description="'all' links (the handbook's hit rate) or the 'confident' links at the first P.")
    external_coverage: float | None = Field(
        None, gt=0, le=1, description="Share of the population the intruder's external file covers: adds the "
        "expected re-identifications in the population (docs/method/population-uniqueness.md).")
    release_fraction: float | None = Field(
        None, gt=0, le=1, description="Sampling fraction of the release (1 for a complete file): adds the "
        "expected re-identifications in the population.")

    roles: dict[str, Literal[COLUMN_ROLES]] = Field(  # type: ignore[valid-type]
        default_factory=dict, description="Role of release columns (" + ", ".join(COLUMN_ROLES) + "); the "
        "others are inferred (docs/method/roles.md).")
    identity: Literal[IDENTITY_RULES] = Field(  # type: ignore[valid-type]
        "judged", description="'judged': every cell's re-identification rate must stay below identity_limit; "
        "'discloses-nothing': the data holder declares that re-identification alone discloses nothing here.")
    identity_limit: float | None = Field(None, gt=0, le=1, description="Limit of the re-identification rate "
                                         "per cell (default: tau).")
    min_scored: int = Field(DEFAULT_MIN_SCORED, ge=1, description="Fewest scored units and links (confident "
                            "links with risk_on = 'confident') a verdict may rest on.")
    harmless: list[str] = Field(default_factory=list, description="Released direct identifiers the data holder "
                                "declares harmless (recorded).")

    @classmethod
    def of(cls, **values: Any) -> Evaluation:
        """The settings validated from keywords (``Evaluation.of(gamma=[0.1], tau=0.5)``); a bad
        value raises ``attack.InputError`` naming the field."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise from_validation(exc, model=cls) from None

    @model_validator(mode="after")
    def _aligned(self) -> Evaluation:
        if len(set(self.gamma)) != len(self.gamma):
            raise InputError("a γ value is given twice", field="gamma")
        for name, values in (self.gamma_by_variable or {}).items():
            if len(values) != len(self.gamma):
                raise InputError(f"needs {len(self.gamma)} values, one per γ", field=f"gamma_by_variable.{name}")
        if len(set(self.min_probability)) != len(self.min_probability):
            raise InputError("a minimum match probability is given twice", field="min_probability")
        for i, text in enumerate(self.targets or ()):
            try:
                parse_target(text)
            except InputError as exc:
                raise InputError(exc.message, field=f"targets[{i}]") from None
        for i, name in enumerate(self.target_names):
            if self.roles.get(name, "target") != "target":
                raise InputError(f"{name!r} is declared a target and given the role {self.roles[name]!r}; "
                                 "a column has one role", field=f"targets[{i}]")
        if self.identity == "discloses-nothing" and self.identity_limit is not None:
            raise InputError("identity = 'discloses-nothing' sets no limit; drop identity_limit", field="identity_limit")
        return self

    @property
    def target_specs(self) -> tuple[Target, ...] | None:
        """The declared targets, parsed (None: inferred from the columns' roles)."""
        return None if self.targets is None else tuple(parse_target(t) for t in self.targets)

    @property
    def target_names(self) -> list[str]:
        """The columns of the declared targets."""
        return [t.name for t in self.target_specs or ()]

    @property
    def reidentification_limit(self) -> float | None:
        """The limit of every cell's re-identification rate (None: not judged)."""
        if self.identity == "discloses-nothing":
            return None
        return self.tau if self.identity_limit is None else self.identity_limit

    @cached_property
    def gammas(self) -> tuple[Gamma, ...]:
        """The γ settings with their labels and per-variable overrides."""
        return gammas_from(self.gamma, self.gamma_by_variable)

    @property
    def min_probabilities(self) -> tuple[float, ...]:
        return tuple(self.min_probability)

    def to_dict(self, targets: Sequence[str]) -> dict[str, Any]:
        """The ``evaluation`` block of an attack's JSON, with the variables evaluated."""
        out: dict[str, Any] = {
            "gamma": [g.value for g in self.gammas],
            "gamma_by_variable": {
                g.label: dict(g.by_variable) for g in self.gammas if g.by_variable
            },
            "tau": self.tau,
            "targets": list(targets),
            "cell_variables": [c.label() for c in self.cells],
            "zero_rule": "exact" if self.zero_tolerance == 0 else f"|w'| <= {self.zero_tolerance:g}",
            "decision": "every cell's disclosure risk < tau for every gamma (point estimate)",
        }
        for name in ("external_coverage", "release_fraction"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.truth_complete:
            out["truth_complete"] = True
        out["identity"] = self.identity
        out["identity_limit"] = self.reidentification_limit
        out["min_scored"] = self.min_scored
        if self.harmless:
            out["harmless"] = list(self.harmless)
        if self.risk_on != "all":
            out["risk_on"] = f"confident links (match probability >= {self.min_probabilities[0]:g})"
        return out


__all__ = ["Evaluation"]
