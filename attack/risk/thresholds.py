"""The thresholds of the verdict: usefulness thresholds γ, the risk limit τ and the match
probabilities P of the confident links, with their defaults (docs/method/risk.md).

Kept apart from the settings model so that the command line reads the defaults without loading
the linkage machinery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from attack.defaults import LINKAGE_TAU
from attack.errors import InputError

DEFAULT_GAMMAS: tuple[float, ...] = (0.05, 0.10)
DEFAULT_TAU = LINKAGE_TAU  # why 0.5: attack/defaults.py
#: Match-probability thresholds at which confident links are reported by default.
DEFAULT_MIN_PROBABILITIES: tuple[float, ...] = (0.5, 0.9, 0.99)
#: What τ judges: the handbook hit rate of all links, or the hit rate of the confident links.
RISK_BASES: tuple[str, ...] = ("all", "confident")


@dataclass(frozen=True)
class Gamma:
    """One usefulness threshold setting: a default γ and per-variable γ_i overrides."""

    value: float
    label: str
    by_variable: Mapping[str, float] = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        for g in (self.value, *self.by_variable.values()):
            if not g > 0:
                raise InputError(f"usefulness threshold γ must be positive, got {g}")

    def for_variable(self, name: str) -> float:
        return self.by_variable.get(name, self.value)


def gammas_from(
    values: Sequence[float | str], by_variable: Mapping[str, Sequence[float]] | None = None
) -> tuple[Gamma, ...]:
    """Build γ settings from values as written ("0.05") and optional per-variable lists
    aligned with them (``{"costs": [0.08, 0.15]}``)."""
    by_variable = by_variable or {}
    out = []
    for i, raw in enumerate(values):
        try:
            value = float(raw)
        except (TypeError, ValueError) as exc:
            raise InputError(f"γ must be a number, got {raw!r}") from exc
        label = repr(value)  # one spelling, the shortest exact one: "0.10" and 0.1 are both "0.1"
        overrides = {}
        for name, settings in by_variable.items():
            if len(settings) != len(values):
                raise InputError(
                    f"per-variable γ for {name!r} needs {len(values)} values, one per γ setting"
                )
            overrides[name] = float(settings[i])
        out.append(Gamma(value, label, overrides))
    if len({g.value for g in out}) != len(out):
        raise InputError("a γ value is given twice")
    return tuple(out)


#: The roles a release column can have, declared once (docs/method/roles.md).
COLUMN_ROLES: tuple[str, ...] = ("unit_id", "direct_identifier", "key", "target", "weight", "cluster_id",
                                 "stratum", "other")
#: The kinds of target variable and how each is scored for usefulness (docs/method/risk.md).
TARGET_TYPES: tuple[str, ...] = ("numeric", "categorical", "ordinal", "string", "date")
#: How identity disclosure is judged: the re-identification rate has its own limit ("judged"), or
#: the data holder declares that re-identification alone discloses nothing here (the handbook's
#: perturbed business data).
IDENTITY_RULES: tuple[str, ...] = ("judged", "discloses-nothing")
#: The fewest scored units, links and (with risk_on = "confident") confident links a verdict may
#: rest on; fewer, and the run is NOT PASSED whatever its rates (docs/method/risk.md). Three is
#: the floor below which the reports already suppress a cell's figures.
DEFAULT_MIN_SCORED = 3


__all__ = ["COLUMN_ROLES", "DEFAULT_GAMMAS", "DEFAULT_MIN_PROBABILITIES", "DEFAULT_MIN_SCORED", "DEFAULT_TAU",
           "IDENTITY_RULES", "RISK_BASES", "TARGET_TYPES", "Gamma", "gammas_from"]
