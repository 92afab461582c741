"""The data-only membership family: every attack, its metrics and the maximum over attacks
(docs/method/membership-family.md).

No single attack wins on every file (Ward et al. 2025), so the family runs them all on the same
scored records and reports, per metric, the **maximum over attacks** — the worst case an intruder
who tries each attack and keeps the best could reach. The verdict is one check: the upper bound
of the bootstrap interval of the maximum TPR at the verdict's false-positive rate (default 1 %)
must stay below τ. Taking the largest of several noisy attacks errs on the side of caution.

Attacks: ``dcr``, ``dcr_difference``, ``local_density``, ``density_ratio``, ``gower_ensemble``
(``DATA_ONLY_ATTACKS``) and, when the synthesis settings are given, ``shadow_model`` (the
ensemble whose shadow releases come from the named synthesiser instead of the stand-in).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd

from attack.defaults import SYNTHETIC_TAU
from attack.errors import InputError
from attack.io.notices import gathered
from attack.io.rules import Count, Seed, Share, checked
from attack.report.notebook import one_line, result_html
from attack.synthetic_attacks.mia_dcr import DcrAttack, DcrDifferenceAttack
from attack.synthetic_attacks.mia_density import LocalDensityAttack
from attack.synthetic_attacks.mia_domias import DensityRatioAttack
from attack.synthetic_attacks.mia_ensemble import MIN_REFERENCE, GowerEnsembleAttack
from attack.synthetic_attacks.mia_game import DEFAULT_REFERENCE_SHARE, Game, assign_roles
from attack.synthetic_attacks.mia_metrics import (
    DEFAULT_BOOTSTRAP,
    REPORTED_FPRS,
    Metrics,
    evaluate_scores,
    fpr_key,
)
from attack.synthetic_attacks.privacy_claim import (
    ClaimCheck,
    EpsilonBound,
    PrivacyClaim,
    privacy_claim,
    strongest_bound,
)
from attack.synthetic_attacks.space import prepare
from attack.verdict import below_tau

DATA_ONLY_ATTACKS: tuple[str, ...] = ("dcr", "dcr_difference", "local_density", "density_ratio", "gower_ensemble")
ATTACKS: tuple[str, ...] = (*DATA_ONLY_ATTACKS, "shadow_model")
DEFAULT_VERDICT_FPR = 0.01


@dataclass(frozen=True)
class AttackMetrics:
    """One attack: its name, what it assumes the intruder has, and its metrics."""

    name: str
    assumes: str
    metrics: Metrics

    def to_dict(self) -> dict:
        return {"name": self.name, "assumes": self.assumes, "metrics": self.metrics.to_dict()}


@dataclass(frozen=True)
class MembershipFamilyResult:
    """The family on one release. ``exposed`` is record-level (members flagged at the verdict's
    false-positive rate, see ``exposed_records``) and never part of ``to_dict``."""

    attacks: tuple[AttackMetrics, ...]
    maximum: Metrics
    worst: Mapping[str, str]
    tau: float
    verdict_fpr: float
    roles: Mapping[str, Any]
    settings: Mapping[str, Any]
    warnings: tuple[str, ...] = ()
    exposed: pd.DataFrame | None = field(default=None, repr=False)
    epsilon: EpsilonBound | None = None
    claim: ClaimCheck | None = None

    @property
    def verdict_metric(self) -> str:
        return fpr_key(self.verdict_fpr)

    @property
    def passed(self) -> bool:
        """True when the upper bound of the maximum TPR at the verdict's FPR is below τ."""
        return below_tau(self.maximum.intervals[self.verdict_metric][1], self.tau)

    def table(self) -> pd.DataFrame:
        """One row per attack at the verdict's false-positive rate: TPR, its 95% interval and
        whether its upper bound is below τ."""
        key = self.verdict_metric
        return pd.DataFrame([{
            "below_tau": below_tau(a.metrics.intervals[key][1], self.tau), "attack": a.name, "assumes": a.assumes,
            key: a.metrics.values[key], "low": a.metrics.intervals[key][0], "high": a.metrics.intervals[key][1],
        } for a in self.attacks])

    def __repr__(self) -> str:
        key = self.verdict_metric
        return one_line("MembershipFamilyResult", self.passed, f"{len(self.attacks)} attacks",
                        f"max {key} {self.maximum.values[key]:.4g} (upper {self.maximum.intervals[key][1]:.4g})",
                        f"τ = {self.tau:g}")

    def _repr_html_(self) -> str:
        key = self.verdict_metric
        table = self.table()
        return result_html("Membership inference, family of attacks", self.passed,
                           [f"the maximum over the attacks of {key}: {self.maximum.values[key]:.4g}, upper 95% "
                            f"bound {self.maximum.intervals[key][1]:.4g}, τ = {self.tau:g}",
                            "passes when the upper bound is below τ"],
                           table, failing=(~table["below_tau"]).tolist() if len(table) else [], full=".table()")

    def to_dict(self) -> dict:
        """Aggregates only: per attack and for the maximum, every metric with its interval."""
        return {
            "roles": dict(self.roles), "settings": dict(self.settings),
            "attacks": [a.to_dict() for a in self.attacks],
            "maximum": {"metrics": self.maximum.to_dict(), "worst_attack": dict(self.worst),
                        "rule": "per metric, the largest value over the attacks; interval from the "
                                "largest value in each bootstrap replicate"},
            "verdict": {"metric": self.verdict_metric, "fpr": self.verdict_fpr, "tau": self.tau,
                        "value": self.maximum.values[self.verdict_metric],
                        "upper": self.maximum.intervals[self.verdict_metric][1], "passed": self.passed},
            "warnings": list(self.warnings),
            **({"empirical_epsilon": self.epsilon.to_dict()} if self.epsilon is not None else {}),
            **({"privacy_claim": self.claim.to_dict()} if self.claim is not None else {}),
        }


@gathered
@checked
def membership_family(
    original: pd.DataFrame,
    holdout: pd.DataFrame,
    synthetic: pd.DataFrame,
    reference: pd.DataFrame | None = None,
    *,
    columns: Sequence[str] | None = None,
    categorical: Sequence[str] | None = None,
    metric: str = "gower_mean",
    scaling: str = "minmax_range",
    categorical_mode: str = "mismatch",
    attacks: Sequence[str] | None = None,
    synthesis: Mapping[str, Any] | None = None,
    reference_share: Share = DEFAULT_REFERENCE_SHARE,
    fprs: Sequence[float] = REPORTED_FPRS,
    verdict_fpr: Share = DEFAULT_VERDICT_FPR,
    tau: Share = SYNTHETIC_TAU,
    n_bootstrap: Count = DEFAULT_BOOTSTRAP,
    exposed: bool = False,
    claim: PrivacyClaim | Mapping[str, Any] | None = None,
    seed: Seed = 0,
) -> MembershipFamilyResult:
    """Run the data-only membership attacks (see the module docstring).

    ``original``: the members; ``holdout``: non-members of the same population; ``reference``: the
    intruder's sample (default: a ``reference_share`` of the holdout, drawn with ``seed``, is the
    reference and the rest is scored). ``attacks``: names from ``ATTACKS`` (default every
    data-only attack, plus ``shadow_model`` when ``synthesis`` — the settings of
    ``attack.synthesize`` the release was made with — is given). ``exposed``: also return
    the record-level table of members flagged at ``verdict_fpr``. ``claim``: a differential-privacy
    claim (``attack.synthetic_attacks.privacy_claim.PrivacyClaim`` or its fields) checked against the
    lower bound on ε the attacks prove; without one the bound is given at δ = 0.
    """
    names = _attack_names(attacks, synthesis)
    fprs = tuple(sorted(set(map(float, fprs)) | {float(verdict_fpr)}))
    roles = assign_roles(original, holdout, synthetic, reference, reference_share=reference_share, seed=seed)
    columns = list(original.columns if columns is None else columns)
    pooled = pd.concat([roles.members[columns], roles.nonmembers[columns]], ignore_index=True)
    prep = prepare(pooled, columns, categorical=categorical, scaling=scaling,
                   categorical_mode=categorical_mode, metric=metric)
    game = Game.from_roles(prep, roles, seed)
    warnings = []
    scores = {}
    for name in names:
        if name in ("gower_ensemble", "shadow_model") and len(roles.reference) < MIN_REFERENCE:
            warnings.append(f"{name} left out: the reference has {len(roles.reference)} records, "
                            f"fewer than {MIN_REFERENCE}")
            continue
        scores[name] = game.split(_attack(name, synthesis).score(game))
    per_attack, maximum = evaluate_scores(scores, fprs=fprs, n_bootstrap=n_bootstrap, seed=seed)
    worst = {m: max(per_attack, key=lambda a: (per_attack[a].values[m], a)) for m in maximum.values}
    outcomes = tuple(AttackMetrics(name, _attack(name, synthesis).assumes, per_attack[name]) for name in per_attack)
    settings = {"attacks": list(scores), "fprs": list(fprs), "verdict_fpr": verdict_fpr, "tau": tau,
                "n_bootstrap": n_bootstrap, "seed": seed, "reference_share": reference_share,
                "preparation": {"metric": metric, "scaling": scaling, "categorical_mode": categorical_mode,
                                "fitted_on": "members and scored non-members together"},
                "interval": "95% percentile bootstrap, members and non-members resampled separately"}
    table = exposed_records(scores, verdict_fpr) if exposed else None
    checked = None if claim is None else privacy_claim(claim)
    bound = strongest_bound(scores, fprs=fprs, delta=0.0 if checked is None else checked.claimed_delta,
                            **({} if checked is None else {"confidence": checked.confidence}))
    return MembershipFamilyResult(outcomes, maximum, worst, tau, verdict_fpr, roles.to_dict(), settings,
                        tuple(warnings), table, bound, None if checked is None else ClaimCheck(checked, bound))


def exposed_records(scores: Mapping[str, tuple[np.ndarray, np.ndarray]], fpr: float) -> pd.DataFrame:
    """Members flagged by some attack at false-positive rate ``fpr``: per attack the share of
    non-members scoring at least as high (``p_<attack>``), their minimum, most exposed first.
    ``member_row``: the member's position in the original (0-based)."""
    columns = {}
    for name, (members, nonmembers) in scores.items():
        ordered = np.sort(nonmembers)
        columns[f"p_{name}"] = (ordered.size - np.searchsorted(ordered, members, side="left")) / ordered.size
    table = pd.DataFrame(columns)
    table.insert(0, "member_row", np.arange(len(table)))
    table["p_min"] = table[list(columns)].min(axis=1)
    table = table[table["p_min"] <= fpr]
    return table.sort_values(["p_min", "member_row"], kind="stable").reset_index(drop=True)


def _attack_names(attacks: Sequence[str] | None, synthesis: Mapping[str, Any] | None) -> list[str]:
    if attacks is None:
        return [*DATA_ONLY_ATTACKS, *(["shadow_model"] if synthesis is not None else [])]
    names = list(dict.fromkeys(attacks))
    unknown = [a for a in names if a not in ATTACKS]
    if unknown:
        raise InputError(f"unknown membership attack {unknown[0]!r}; expected one of {', '.join(ATTACKS)}",
                         field="attacks")
    if not names:
        raise InputError("no membership attack chosen", field="attacks")
    if "shadow_model" in names and synthesis is None:
        raise InputError("the shadow_model attack needs the synthesis settings (a synthesis log)", field="attacks")
    return names


class _Attack(Protocol):
    """What the family needs of a membership attack: its assumption and its scores."""

    @property
    def assumes(self) -> str: ...

    def score(self, game: Game) -> np.ndarray: ...


def _attack(name: str, synthesis: Mapping[str, Any] | None) -> _Attack:
    if name == "dcr":
        return DcrAttack()
    if name == "dcr_difference":
        return DcrDifferenceAttack()
    if name == "local_density":
        return LocalDensityAttack()
    if name == "density_ratio":
        return DensityRatioAttack()
    if name == "gower_ensemble":
        return GowerEnsembleAttack()
    return GowerEnsembleAttack(synthesis)


__all__ = ["ATTACKS", "DATA_ONLY_ATTACKS", "DEFAULT_VERDICT_FPR", "AttackMetrics", "MembershipFamilyResult",
           "exposed_records", "membership_family"]
