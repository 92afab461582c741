"""A generator's differential-privacy claim checked against the strongest membership attack
(docs/method/privacy-claims.md).

A mechanism that is (ε, δ)-differentially private limits every membership test: for any rule
that flags records as members, with false-positive rate FPR and false-negative rate FNR,

    1 − δ − FPR ≤ e^ε · FNR   and   1 − δ − FNR ≤ e^ε · FPR

(the hypothesis-testing view of Kairouz, Oh & Viswanath 2015, used for auditing by Jagielski,
Ullman & Oprea 2020 and Nasr et al. 2021). A test observed on members and non-members therefore
proves, at a stated confidence, ε ≥ max(log((1 − δ − FPR⁺)/FNR⁺), log((1 − δ − FNR⁺)/FPR⁺)),
with FPR⁺ and FNR⁺ one-sided Clopper–Pearson upper bounds. ``strongest_bound`` takes every
attack's scores, sets one threshold per attack and false-positive rate (the highest score group
whose false positives stay within the rate), and keeps the largest bound; the confidence is
split over every threshold tried and over the two rates (Bonferroni), so the maximum keeps it.

A claim (``PrivacyClaim``: a claimed ε and δ, or a budget ledger whose spends add up by basic
composition) is **falsified** when the lower bound exceeds the claimed ε. A bound below the
claim does not confirm it: an attack shows only what it found.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from annotated_types import Ge, Lt
from pydantic import Field, ValidationError, model_validator

from attack.errors import InputError, from_validation
from attack.io.rules import Count, Fraction, Share, Tally, checked
from attack.linkage.settings import SettingsTable
from attack.report.notebook import one_line, result_html
from attack.risk.stats import clopper_pearson_upper
from attack.synthetic_attacks.mia_metrics import REPORTED_FPRS, tie_groups

__all__ = ["DEFAULT_CLAIM_CONFIDENCE", "BudgetLedger", "ClaimCheck", "EpsilonBound", "LedgerEntry",
           "PrivacyClaim", "check_claim", "privacy_claim", "epsilon_lower_bound", "strongest_bound"]

#: Confidence of the lower bound on ε.
DEFAULT_CLAIM_CONFIDENCE = 0.95


@dataclass(frozen=True)
class EpsilonBound:
    """The lower bound on ε one membership test proves (or the strongest of several).

    ``true_positives`` of ``members`` and ``false_positives`` of ``non_members`` are the test's
    counts; ``fpr_upper`` and ``fnr_upper`` their one-sided Clopper–Pearson upper bounds at the
    level left after splitting ``1 − confidence`` over ``comparisons`` tests and the two rates.
    ``epsilon`` is never below 0 (a test that proves nothing gives 0)."""

    epsilon: float
    delta: float
    confidence: float
    members: int
    non_members: int
    true_positives: int
    false_positives: int
    fpr_upper: float
    fnr_upper: float
    comparisons: int = 1
    attack: str | None = None
    fpr_target: float | None = None

    @property
    def tpr(self) -> float:
        return self.true_positives / self.members

    @property
    def fpr(self) -> float:
        return self.false_positives / self.non_members

    def __repr__(self) -> str:
        return one_line("EpsilonBound", None, f"ε ≥ {self.epsilon:.3g} at {self.confidence:.0%}",
                        f"TPR {self.tpr:.3g}, FPR {self.fpr:.3g}", f"δ = {self.delta:g}")

    def _repr_html_(self) -> str:
        import pandas as pd

        return result_html("Lower bound on ε", None, [f"ε ≥ {self.epsilon:.3g} at {self.confidence:.0%} confidence"],
                           pd.DataFrame([{k: v for k, v in self.to_dict().items() if k != "rule"}]))

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "confidence": self.confidence,
                "attack": self.attack, "fpr_target": self.fpr_target, "members": self.members,
                "non_members": self.non_members, "true_positives": self.true_positives,
                "false_positives": self.false_positives, "tpr": self.tpr, "fpr": self.fpr,
                "fpr_upper": self.fpr_upper, "fnr_upper": self.fnr_upper, "comparisons": self.comparisons,
                "rule": "eps >= max(log((1-delta-FPR+)/FNR+), log((1-delta-FNR+)/FPR+)), one-sided "
                        "Clopper-Pearson bounds, Bonferroni over the thresholds tried and the two rates"}


def _log_ratio(numerator: float, denominator: float) -> float:
    return math.log(numerator / denominator) if numerator > 0 and denominator > 0 else 0.0


@checked
def epsilon_lower_bound(true_positives: Tally, members: Tally, false_positives: Tally, non_members: Tally, *,
                        delta: Annotated[float, Ge(0), Lt(1)] = 0.0, confidence: Share = DEFAULT_CLAIM_CONFIDENCE,
                        comparisons: Count = 1, attack: str | None = None,
                        fpr_target: Fraction | None = None) -> EpsilonBound:
    """The lower bound on ε that a membership test with these counts proves at ``confidence``
    (see the module docstring); ``comparisons``: how many tests the caller tried and keeps the
    best of."""
    alpha = (1 - confidence) / (2 * comparisons)
    fpr_upper = clopper_pearson_upper(false_positives, non_members, alpha)
    fnr_upper = clopper_pearson_upper(members - true_positives, members, alpha)
    epsilon = max(0.0, _log_ratio(1 - delta - fpr_upper, fnr_upper), _log_ratio(1 - delta - fnr_upper, fpr_upper))
    return EpsilonBound(epsilon, float(delta), float(confidence), int(members), int(non_members),
                        int(true_positives), int(false_positives), fpr_upper, fnr_upper, int(comparisons),
                        attack, fpr_target)


def _threshold_counts(members: np.ndarray, nonmembers: np.ndarray, fprs: Sequence[float]) -> list[tuple[int, int]]:
    """Per false-positive rate α: (true positives, false positives) of the rule that flags every
    score group from the top down while the false positives stay within ⌊α · non-members⌋."""
    groups = tie_groups(members, nonmembers)
    tp = np.concatenate([[0], np.cumsum(np.bincount(groups.member_group, minlength=groups.n_groups))])
    fp = np.concatenate([[0], np.cumsum(np.bincount(groups.nonmember_group, minlength=groups.n_groups))])
    out = []
    for alpha in fprs:
        last = int(np.searchsorted(fp, math.floor(alpha * nonmembers.size + 1e-9), side="right")) - 1
        out.append((int(tp[last]), int(fp[last])))
    return out


def strongest_bound(scores: Mapping[str, tuple[np.ndarray, np.ndarray]], *,
                    fprs: Sequence[float] = REPORTED_FPRS, delta: float = 0.0,
                    confidence: float = DEFAULT_CLAIM_CONFIDENCE) -> EpsilonBound:
    """The largest lower bound on ε over every attack (name → member scores, non-member scores;
    higher = more likely a member) and every false-positive rate in ``fprs``, at ``confidence``
    for the maximum (Bonferroni over attacks × rates)."""
    if not scores:
        raise InputError("no membership attack to bound ε with")
    comparisons = len(scores) * len(fprs)
    best: EpsilonBound | None = None
    for name, (members, nonmembers) in scores.items():
        members, nonmembers = np.asarray(members, float), np.asarray(nonmembers, float)
        for alpha, (tp, fp) in zip(fprs, _threshold_counts(members, nonmembers, fprs), strict=True):
            bound = epsilon_lower_bound(tp, members.size, fp, nonmembers.size, delta=delta, confidence=confidence,
                                        comparisons=comparisons, attack=name, fpr_target=float(alpha))
            if best is None or bound.epsilon > best.epsilon:
                best = bound
    assert best is not None
    return best


class LedgerEntry(SettingsTable):
    """One release's spend of the privacy budget."""

    name: str = Field(min_length=1, description="The release.")
    epsilon: float = Field(ge=0, allow_inf_nan=False, description="Its ε.")
    delta: float = Field(0.0, ge=0, lt=1, description="Its δ.")


class BudgetLedger(SettingsTable):
    """The releases made from the same data and what each spent (``[[release]]`` tables)."""

    release: list[LedgerEntry] = Field(min_length=1, description="Every release's spend.")

    @property
    def epsilon(self) -> float:
        """The total ε by basic composition: the sum of the spends."""
        return float(sum(e.epsilon for e in self.release))

    @property
    def delta(self) -> float:
        """The total δ by basic composition: the sum of the spends."""
        return float(sum(e.delta for e in self.release))

    def to_dict(self) -> dict[str, Any]:
        return {"releases": [e.model_dump() for e in self.release], "epsilon": self.epsilon, "delta": self.delta,
                "composition": "basic: the ε and the δ of the releases add up"}


class PrivacyClaim(SettingsTable):
    """What the generator claims: ``epsilon`` (and ``delta``) of this release, or a ``ledger``
    whose total is then the claim. ``confidence``: of the lower bound on ε."""

    epsilon: float | None = Field(None, gt=0, allow_inf_nan=False, description="Claimed ε of the release.")
    delta: float | None = Field(None, ge=0, lt=1, description="Claimed δ (default 0, or the ledger's total).")
    ledger: BudgetLedger | None = Field(None, description="The budget ledger of the releases.")
    confidence: float = Field(DEFAULT_CLAIM_CONFIDENCE, gt=0, lt=1, description="Confidence of the bound on ε.")

    @model_validator(mode="after")
    def _something_claimed(self) -> PrivacyClaim:
        if self.epsilon is None and self.ledger is None:
            raise InputError("a privacy claim needs a claimed ε or a budget ledger", field="epsilon")
        return self

    @property
    def claimed_epsilon(self) -> float:
        """The ε checked: the release's own claim, else the ledger's total."""
        if self.epsilon is not None:
            return self.epsilon
        assert self.ledger is not None
        return self.ledger.epsilon

    @property
    def claimed_delta(self) -> float:
        if self.delta is not None:
            return self.delta
        return 0.0 if self.ledger is None or self.epsilon is not None else self.ledger.delta


@dataclass(frozen=True)
class ClaimCheck:
    """A claim against the lower bound the strongest membership attack proves."""

    claim: PrivacyClaim
    bound: EpsilonBound

    @property
    def falsified(self) -> bool:
        """True when the lower bound on ε exceeds the claimed ε."""
        return self.bound.epsilon > self.claim.claimed_epsilon

    @property
    def basis(self) -> str:
        return "claimed epsilon" if self.claim.epsilon is not None else "ledger total"

    def to_dict(self) -> dict[str, Any]:
        return {"claimed_epsilon": self.claim.claimed_epsilon, "claimed_delta": self.claim.claimed_delta,
                "basis": self.basis, "ledger": None if self.claim.ledger is None else self.claim.ledger.to_dict(),
                "lower_bound": self.bound.to_dict(), "falsified": self.falsified,
                "reading": self.reading()}

    def reading(self) -> str:
        b = self.bound
        verdict = "claim falsified" if self.falsified else "claim not falsified (an attack cannot confirm it)"
        return (f"claimed ε = {self.claim.claimed_epsilon:g} ({self.basis}); the strongest attack shows "
                f"ε ≥ {b.epsilon:.3g} at {b.confidence:.0%} confidence: {verdict}")

    def __repr__(self) -> str:
        return one_line("ClaimCheck", not self.falsified, self.reading())

    def _repr_html_(self) -> str:
        import pandas as pd

        row = {"falsified": self.falsified, "claimed_epsilon": self.claim.claimed_epsilon,
               "epsilon_lower_bound": self.bound.epsilon, "attack": self.bound.attack,
               "fpr_target": self.bound.fpr_target, "tpr": self.bound.tpr, "fpr": self.bound.fpr}
        return result_html("Privacy claim", not self.falsified, [self.reading()], pd.DataFrame([row]),
                           failing=[self.falsified])


def privacy_claim(claim: PrivacyClaim | Mapping[str, Any], *, file: str | None = None) -> PrivacyClaim:
    """A validated claim (a mapping with ``epsilon``, ``delta``, ``ledger``, ``confidence``); a bad
    one is an ``InputError`` naming the field (and the ledger ``file`` when given)."""
    if isinstance(claim, PrivacyClaim):
        return claim
    try:
        return PrivacyClaim.model_validate(dict(claim))
    except ValidationError as exc:
        raise from_validation(exc, model=PrivacyClaim, file=file, prefix="privacy_claim") from None


def check_claim(claim: PrivacyClaim | Mapping[str, Any], scores: Mapping[str, tuple[np.ndarray, np.ndarray]], *,
                fprs: Sequence[float] = REPORTED_FPRS) -> ClaimCheck:
    """The claim against the strongest of the membership attacks' ``scores`` (see ``strongest_bound``)."""
    claim = privacy_claim(claim)
    bound = strongest_bound(scores, fprs=fprs, delta=claim.claimed_delta, confidence=claim.confidence)
    return ClaimCheck(claim, bound)
