"""The evaluation settings as data behind a schema: one description for scenario files and the API.

``Evaluation`` is the ``[evaluation]`` table of a scenario file and the scoring arguments of
``attack.mass_attack`` (Destatis handbook, ch. 12; ``docs/method/risk.md``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from attack.defaults import LINKAGE_TAU
from attack.errors import InputError
from attack.linkage.settings import BlockEntry, SettingsTable
from attack.risk.evaluation import (
    DEFAULT_MIN_PROBABILITIES,
    RISK_BASES,
    EvaluationSpec,
    gammas_from,
)

Gamma = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Probability = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class Evaluation(SettingsTable):
    """How the attack is scored and judged (Destatis handbook, ch. 12)."""

    gamma: list[Gamma] = Field(
        default_factory=lambda: [0.05, 0.10], min_length=1,
        description="Usefulness thresholds γ: relative deviations below γ count as useful.")
    gamma_by_variable: dict[str, list[Gamma]] | None = None
    tau: float = Field(LINKAGE_TAU, gt=0, le=1, description="Threshold τ: every cell's risk must stay below it.")
    targets: list[str] | None = Field(None, min_length=1, description="Variables the intruder wants.")
    cells: list[BlockEntry] = Field(default_factory=list, description="Cell variables.")
    zero_tolerance: float = Field(0.0, ge=0, allow_inf_nan=False)
    truth_complete: bool = Field(False, description="The ground truth covers every external record: one whose "
                                 "unit is not in the release has no counterpart and its link is false.")
    min_probability: list[Probability] = Field(
        default_factory=lambda: list(DEFAULT_MIN_PROBABILITIES), min_length=1,
        description="Match probabilities P at which the confident links are reported.")
    risk_on: Literal[RISK_BASES] = Field(  # type: ignore[valid-type]
        "all", description="'all' links (the handbook's hit rate) or the 'confident' links at the first P.")

    @model_validator(mode="after")
    def _aligned(self) -> Evaluation:
        if len(set(self.gamma)) != len(self.gamma):
            raise InputError("a γ value is given twice", field="gamma")
        for name, values in (self.gamma_by_variable or {}).items():
            if len(values) != len(self.gamma):
                raise InputError(f"needs {len(self.gamma)} values, one per γ", field=f"gamma_by_variable.{name}")
        return self


def evaluation_spec(table: Evaluation) -> EvaluationSpec:
    """The ``EvaluationSpec`` of a validated table."""
    return EvaluationSpec(
        gammas=gammas_from(table.gamma, table.gamma_by_variable),
        tau=table.tau,
        targets=None if table.targets is None else tuple(table.targets),
        cells=tuple(table.cells),
        zero_tolerance=table.zero_tolerance,
        truth_complete=table.truth_complete,
        min_probabilities=tuple(table.min_probability),
        risk_on=table.risk_on,
    )


__all__ = ["Evaluation", "evaluation_spec"]
