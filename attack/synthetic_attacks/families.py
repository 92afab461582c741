"""The built-in attack families on a synthetic release, each behind the evaluator protocol.

In the order of the report: the distance attacks (diagnostics without τ), singling out,
linkability, attribute disclosure (table measures, CAP, kNN attribution, inference per target
and γ), shadow-model membership inference and the data-only membership family
(docs/method/synthetic-attacks.md, docs/method/membership-family.md).

Decisions: singling out, linkability and every inference are judged on the upper bound of
their risk interval (the residual risk over the holdout when one is given, else the attack's
own success rate); DiSCO and repU on the upper Wilson bound of their share of original records;
membership on the largest upper bound of the advantage; the membership family on the upper
bound of the maximum over attacks of the TPR at the chosen false-positive rate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attack.io.serial import Serialised, rules
from attack.risk.stats import Estimate, wilson_interval
from attack.synthetic_attacks.anonymeter import AttackRisk, inference, linkability, singling_out
from attack.synthetic_attacks.cap import (
    Binning,
    CapScores,
    KnnAttribution,
    TableMeasures,
    cap_scores,
    knn_attribution,
    table_measures,
)
from attack.synthetic_attacks.distance import distance_attack
from attack.synthetic_attacks.evaluator import AttackEvaluation, Check, Space, register
from attack.synthetic_attacks.membership import membership_inference
from attack.synthetic_attacks.mia_family import membership_family
from attack.synthetic_attacks.settings import SynthSpec
from attack.synthetic_attacks.space import prepare
from attack.verdict import below_tau

__all__ = ["AttributeDisclosure", "Decided", "Decision", "DistanceAttacks", "Linkability", "MembershipFamily",
           "ShadowMembership", "SinglingOut", "TargetDisclosure", "decision"]

#: Columns per multivariate singling-out query (Anonymeter's default; fewer when the files have fewer).
SINGLING_OUT_COLUMNS = 3
#: Most attacks per check that ``decide`` runs.
MAX_DECIDING_ATTACKS = 50_000


@dataclass(frozen=True)
class Decision(Serialised):
    """Whether one attack's risk interval decides at τ, and if not, about how many attacks would
    (``attacks_needed``; None when no estimate says) out of the ``attacks_available``."""

    decided: bool
    attacks: int
    attacks_needed: int | None
    attacks_available: int | None

    def wanted(self) -> int | None:
        """The attacks this decision asks for, capped by what the files allow and by
        ``MAX_DECIDING_ATTACKS``; None when it decides or cannot say."""
        if self.decided or self.attacks_needed is None:
            return None
        cap = MAX_DECIDING_ATTACKS if self.attacks_available is None else min(self.attacks_available,
                                                                             MAX_DECIDING_ATTACKS)
        return min(self.attacks_needed, cap)


def decision(risk: Estimate | None, n: int, tau: float, available: int | None) -> Decision:
    """Whether the risk interval of one attack of ``n`` attacks decides at τ (it lies wholly
    below τ or reaches it from above: ``high < τ`` or ``low ≥ τ``), and if not, about how many
    attacks would: the half-width shrinks as 1/√n, so ``n · (error / |τ − estimate|)²`` if the
    (unclipped) estimate stayed where it is. ``available``: the most attacks the files allow
    (records per attacked set; None when unknown)."""
    if risk is not None and (below_tau(risk.high, tau) or not below_tau(risk.low, tau)):
        return Decision(True, n, None, available)
    needed = None
    if risk is not None:
        # the unclipped estimate: the interval is estimate ± error, clipped to [0, 1]
        centre = risk.high - risk.error if 0 < risk.high < 1 else risk.value
        gap = abs(tau - centre)
        needed = int(np.ceil(n * (risk.error / gap) ** 2)) if gap else None
    return Decision(False, n, needed, available)


@dataclass(frozen=True)
class Decided(Serialised):
    """An Anonymeter-style attack's figures followed by whether its interval decides at τ."""

    found: AttackRisk = field(metadata=rules(flatten=True))
    decision: Decision

    @classmethod
    def of(cls, found: AttackRisk, tau: float, available: int | None) -> Decided:
        return cls(found, decision(found.risk, found.main.n, tau, available))

    def check(self, family: str, tau: float, **where: Any) -> Check:
        """The τ check of this attack: its risk and the upper bound of the risk's interval."""
        risk = self.found.risk
        measure = "residual risk" if self.found.risk_basis == "residual" else "success rate"
        return Check(family, measure, None if risk is None else risk.value, None if risk is None else risk.high,
                     tau, where)


def _wanted(decided: Iterable[Decided]) -> int | None:
    """The attacks per check that the undecided results need (each capped); None when every
    result decides or none can say."""
    return max((w for d in decided if (w := d.decision.wanted()) is not None), default=None)


@dataclass(frozen=True)
class TargetDisclosure(Serialised):
    """What the attribute attacks found on one target: the table measures, the CAP trio, kNN
    attribution and the inference per γ (one entry for a categorical target)."""

    kind: str = field(metadata=rules(name="type"))
    table_measures: TableMeasures
    cap: CapScores
    knn_attribution: KnnAttribution
    inference: Mapping[str, Decided]


def _share_check(measure: str, pct: float | None, n: int, tau: float, **where: Any) -> Check:
    """A table measure given in % of the n original records, judged on its Wilson bound."""
    if pct is None:
        return Check("attribute", measure, None, None, tau, where)
    interval = wilson_interval(round(pct / 100 * n), n)
    return Check("attribute", measure, pct / 100, interval[1] if interval else None, tau, where)


def _available(original: pd.DataFrame, control: pd.DataFrame | None) -> int:
    return len(original) if control is None else min(len(original), len(control))


@register
@dataclass(frozen=True, eq=False)
class DistanceAttacks:
    """DCR, NNDR, exact and near copies and the holdout comparison: diagnostics, no τ."""

    family = "distance"
    order = 10
    space: Space

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> DistanceAttacks:
        return cls(space)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        found = distance_attack(original, synthetic, self.space.preparation, control=control, seed=seed)
        return AttackEvaluation(self.family, found)


@register
@dataclass(frozen=True, eq=False)
class SinglingOut:
    """Multivariate singling out on every attacked column (Giomi et al. 2023)."""

    family = "singling_out"
    order = 20
    space: Space
    n_attacks: int
    tau: float

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> SinglingOut:
        return cls(space, settings.n_attacks, settings.tau)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        columns = list(self.space.columns)
        found = singling_out(original, synthetic, control, columns=columns,
                             categorical=list(self.space.preparation.categorical), n_attacks=self.n_attacks,
                             n_cols=min(SINGLING_OUT_COLUMNS, len(columns)), tau=self.tau, seed=seed)
        decided = Decided.of(found, self.tau, None)
        return AttackEvaluation(self.family, decided, (decided.check(self.family, self.tau),), _wanted([decided]))


@register
@dataclass(frozen=True, eq=False)
class Linkability:
    """Linking the records of two halves of the keys through the synthetic file (needs two keys)."""

    family = "linkability"
    order = 30
    space: Space
    keys: tuple[str, ...]
    n_attacks: int
    tau: float

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> Linkability | None:
        if len(settings.keys) < 2:
            return None
        return cls(space, tuple(settings.keys), settings.n_attacks, settings.tau)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        keys = list(self.keys)
        prep = self.space.preparation
        found = linkability(original, synthetic, control, aux_columns=(keys[::2], keys[1::2]),
                            n_attacks=self.n_attacks, space=prep.subset(keys),
                            categorical=[c for c in prep.categorical if c in keys],
                            tau=self.tau, seed=seed)
        decided = Decided.of(found, self.tau, _available(original, control))
        return AttackEvaluation(self.family, decided, (decided.check(self.family, self.tau),), _wanted([decided]))


@register
@dataclass(frozen=True, eq=False)
class AttributeDisclosure:
    """Per target: synthpop's table measures, SDMetrics' CAP trio, kNN attribution
    (Papavasiliou 2020) and, per γ, the inference attack."""

    family = "attribute"
    order = 40
    space: Space
    settings: SynthSpec

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> AttributeDisclosure:
        return cls(space, settings)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        section: dict[str, TargetDisclosure] = {}
        checks: list[Check] = []
        for target in self.settings.targets:
            section[target], found = self._target(original, synthetic, control, target, seed)
            checks += found
        decided = [d for entry in section.values() for d in entry.inference.values()]
        return AttackEvaluation(self.family, section, tuple(checks), _wanted(decided))

    def _target(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                target: str, seed: int) -> tuple[TargetDisclosure, list[Check]]:
        spec, prep = self.settings, self.space.preparation
        keys = list(spec.keys)
        if not set([*keys, target]) <= set(prep.columns):  # keys or target left out of --columns
            prep = prepare(original, [*keys, target], categorical=spec.categorical)
        numeric = set(prep.numeric)
        bins = {c: spec.binnings().get(c, Binning.quantile(5)) for c in [*keys, target] if c in numeric}
        target_numeric = target in numeric
        tables = table_measures(original, synthetic, keys, target, binning=bins)
        caps = cap_scores(original, synthetic, keys, target, binning=bins)
        knn = knn_attribution(
            original, synthetic, keys, target,
            target_type="numeric" if target_numeric else "categorical",
            categorical=[c for c in keys if c not in numeric],
            k=min(10, len(synthetic)), n_attacks=spec.n_attacks, seed=seed,
            gamma=spec.gammas[0],
        )
        n = len(original)
        checks = [
            _share_check("DiSCO", tables.disco_pct, n, spec.tau, target=target),
            _share_check("repU", tables.repu_pct, n, spec.tau, target=target),
        ]
        inferences = {}
        for gamma in spec.gammas:
            result = inference(
                original, synthetic, control, aux_columns=keys, secret=target,
                n_attacks=spec.n_attacks, gamma=gamma, space=prep.subset(keys),
                categorical=[c for c in [*keys, target] if c not in numeric],
                tau=spec.tau, seed=seed,
            )
            decided = Decided.of(result, spec.tau, _available(original, control))
            inferences[f"{gamma:g}"] = decided
            checks.append(decided.check("inference", spec.tau, target=target, gamma=gamma if target_numeric else None))
            if not target_numeric:
                break  # γ does not apply to a categorical secret
        kind = "numeric" if target_numeric else "categorical"
        return TargetDisclosure(kind, tables, caps, knn, inferences), checks


@register
@dataclass(frozen=True, eq=False)
class ShadowMembership:
    """Shadow-model membership inference against the synthesiser (Stadler et al. 2022),
    decided on the largest upper bound of the advantage."""

    family = "membership"
    order = 50
    space: Space
    game: Mapping[str, Any]
    tau: float

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> ShadowMembership | None:
        if settings.membership is None:
            return None
        return cls(space, dict(settings.membership), settings.tau)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        member = membership_inference(original, columns=list(self.space.columns), release=synthetic,
                                      tau=self.tau, seed=seed, **self.game)
        worst = max(member.targets, key=lambda t: (t.advantage_interval[1], t.advantage))
        check = Check(self.family, "advantage", worst.advantage, worst.advantage_interval[1], self.tau,
                      {"target": worst.label})
        return AttackEvaluation(self.family, member, (check,))


@register
@dataclass(frozen=True, eq=False)
class MembershipFamily:
    """The data-only membership attacks, decided on the upper bound of the maximum over
    attacks of the TPR at the chosen false-positive rate."""

    family = "membership_family"
    order = 60
    space: Space
    settings: SynthSpec

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> MembershipFamily | None:
        return None if settings.membership_family is None else cls(space, settings)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        spec = self.settings
        if control is None:
            raise ValueError("the membership family needs a control set")
        synthesis = (spec.membership or {}).get("synthesis")
        family = membership_family(
            original, control, synthetic, self.space.reference, columns=list(self.space.columns),
            categorical=spec.categorical, metric=spec.metric, scaling=spec.scaling,
            categorical_mode=spec.categorical_mode, synthesis=None if callable(synthesis) else synthesis,
            tau=spec.tau, seed=seed, claim=spec.privacy_claim, **dict(spec.membership_family or {}))
        metric = family.verdict_metric
        checks = [Check(self.family, f"max TPR at FPR {family.verdict_fpr:g}", family.maximum.values[metric],
                        family.maximum.intervals[metric][1], spec.tau, {"target": family.worst[metric]})]
        if family.claim is not None:  # passes while the proven ε stays below the claimed one
            bound = family.claim.bound
            checks.append(Check("privacy_claim", "epsilon lower bound against the claimed epsilon", bound.epsilon,
                                bound.epsilon, family.claim.claim.claimed_epsilon, {"target": bound.attack}))
        exposed = None if family.exposed is None else family.exposed.rename(columns={"member_row": "original_row"})
        return AttackEvaluation(self.family, family, tuple(checks), exposed=exposed)
