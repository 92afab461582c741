"""Membership scores → ROC metrics with bootstrap intervals (docs/method/membership-family.md).

A score is higher for a record the attack believes a member. Records with equal scores form one
**tie group**; the ROC curve has one vertex per tie group (descending score), so a tie is never
broken by record order. Between two vertices the curve is linear: the operating point of a rule
that flags the higher groups and, at random, a fraction of the tied group.

* ``TPR at FPR α``: the largest TPR on that curve with FPR ≤ α (the vertex at α when there is
  one, else linear interpolation between the vertices on either side of α);
* ``AUC``: the area under the curve, equal to the Mann–Whitney probability that a member scores
  above a non-member, ties counted one half;
* ``advantage``: the largest TPR − FPR over the vertices (Yeom et al. 2018's membership advantage
  at its best threshold).

Intervals: the percentile bootstrap over the scored records, members and non-members resampled
separately with replacement (seeded); the draws are shared by every attack, so the maximum over
attacks has an interval of its own (per replicate, the largest value over the attacks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from attack.errors import InputError

#: False-positive rates at which the TPR is reported (Carlini et al. 2022).
REPORTED_FPRS: tuple[float, ...] = (0.001, 0.01, 0.1)
#: Bootstrap replicates of the intervals.
DEFAULT_BOOTSTRAP = 200


@dataclass(frozen=True)
class TieGroups:
    """Scores reduced to tie groups, in descending score: ``member_group`` and
    ``nonmember_group`` give each scored record's group."""

    n_groups: int
    member_group: np.ndarray
    nonmember_group: np.ndarray


def tie_groups(members: np.ndarray, nonmembers: np.ndarray) -> TieGroups:
    """Group numbers by descending score (NaN is an input error)."""
    members, nonmembers = np.asarray(members, float), np.asarray(nonmembers, float)
    if members.size == 0 or nonmembers.size == 0:
        raise InputError("membership metrics need at least one member and one non-member")
    pooled = np.concatenate([members, nonmembers])
    if np.isnan(pooled).any():
        raise InputError("a membership score is NaN")
    values, inverse = np.unique(-pooled, return_inverse=True)  # ascending -score = descending score
    return TieGroups(int(values.size), inverse[: members.size], inverse[members.size:])


def curve(member_counts: np.ndarray, nonmember_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ROC vertices (FPR, TPR) from the counts per tie group (descending score), starting at (0, 0)."""
    tpr = np.concatenate([[0.0], np.cumsum(member_counts) / member_counts.sum()])
    fpr = np.concatenate([[0.0], np.cumsum(nonmember_counts) / nonmember_counts.sum()])
    return fpr, tpr


def tpr_at(fpr: np.ndarray, tpr: np.ndarray, alpha: float) -> float:
    """The largest TPR with FPR ≤ ``alpha`` on the piecewise-linear curve (see the module docstring)."""
    last = int(np.searchsorted(fpr, alpha, side="right")) - 1  # last vertex with FPR ≤ α
    if fpr[last] == alpha or last == fpr.size - 1:
        return float(tpr[last])
    step = (alpha - fpr[last]) / (fpr[last + 1] - fpr[last])
    return float(tpr[last] + step * (tpr[last + 1] - tpr[last]))


def area(member_counts: np.ndarray, nonmember_counts: np.ndarray) -> float:
    """AUC: P(member > non-member) + ½ P(tie), from the counts per tie group."""
    above = np.cumsum(member_counts) - member_counts  # members in higher groups
    pairs = nonmember_counts * (above + 0.5 * member_counts)
    return float(pairs.sum() / (member_counts.sum() * nonmember_counts.sum()))


def point_metrics(member_counts: np.ndarray, nonmember_counts: np.ndarray,
                  fprs: Sequence[float] = REPORTED_FPRS) -> dict[str, float]:
    """AUC, advantage and the TPR at each FPR of ``fprs`` for one set of counts."""
    fpr, tpr = curve(member_counts, nonmember_counts)
    out = {"auc": area(member_counts, nonmember_counts), "advantage": float(np.max(tpr - fpr))}
    out.update({fpr_key(a): tpr_at(fpr, tpr, a) for a in fprs})
    return out


def fpr_key(alpha: float) -> str:
    """The name of the TPR at FPR α in results: ``tpr_at_fpr_0.01``."""
    return f"tpr_at_fpr_{alpha:g}"


@dataclass(frozen=True)
class Metrics:
    """Point values and 95 % bootstrap intervals of every metric (names: ``auc``, ``advantage``,
    ``tpr_at_fpr_<α>``) for one attack or for the maximum over attacks."""

    values: Mapping[str, float]
    intervals: Mapping[str, tuple[float, float]]

    def to_dict(self) -> dict:
        return {name: {"value": self.values[name], "low": self.intervals[name][0],
                       "high": self.intervals[name][1]} for name in self.values}


def evaluate_scores(scores: Mapping[str, tuple[np.ndarray, np.ndarray]], *,
                    fprs: Sequence[float] = REPORTED_FPRS, n_bootstrap: int = DEFAULT_BOOTSTRAP,
                    seed: int = 0) -> tuple[dict[str, Metrics], Metrics]:
    """Metrics of every attack and of the maximum over attacks.

    ``scores``: attack name → (member scores, non-member scores), the same records in the same
    order for every attack. The maximum's point value is, per metric, the largest value over the
    attacks; its interval comes from the largest value per bootstrap replicate.
    """
    if not scores:
        raise InputError("no membership attack to evaluate")
    if n_bootstrap < 1:
        raise InputError(f"expected at least 1 bootstrap replicate, got {n_bootstrap}", field="n_bootstrap")
    for alpha in fprs:
        if not 0 < alpha < 1:
            raise InputError(f"a false-positive rate must lie in (0, 1), got {alpha}", field="fprs")
    groups = {name: tie_groups(m, n) for name, (m, n) in scores.items()}
    first = next(iter(groups.values()))
    n_m, n_n = first.member_group.size, first.nonmember_group.size
    points = {}
    for name, g in groups.items():
        if (g.member_group.size, g.nonmember_group.size) != (n_m, n_n):
            raise InputError(f"attack {name!r} scores a different number of records")
        points[name] = point_metrics(*_counts(g, None, None), fprs)
    rng = np.random.default_rng(seed)
    names = list(points[next(iter(points))])
    replicates = {name: {metric: np.empty(n_bootstrap) for metric in names} for name in groups}
    for b in range(n_bootstrap):
        draw_m, draw_n = rng.integers(0, n_m, n_m), rng.integers(0, n_n, n_n)
        for name, g in groups.items():
            for metric, value in point_metrics(*_counts(g, draw_m, draw_n), fprs).items():
                replicates[name][metric][b] = value
    per_attack = {name: Metrics(points[name], {m: _interval(replicates[name][m]) for m in names})
                  for name in groups}
    best_values = {m: max(points[name][m] for name in groups) for m in names}
    best_intervals = {m: _interval(np.max([replicates[name][m] for name in groups], axis=0)) for m in names}
    return per_attack, Metrics(best_values, best_intervals)


def _counts(g: TieGroups, draw_m: np.ndarray | None, draw_n: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    members = g.member_group if draw_m is None else g.member_group[draw_m]
    nonmembers = g.nonmember_group if draw_n is None else g.nonmember_group[draw_n]
    return (np.bincount(members, minlength=g.n_groups).astype(float),
            np.bincount(nonmembers, minlength=g.n_groups).astype(float))


def _interval(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


__all__ = ["DEFAULT_BOOTSTRAP", "REPORTED_FPRS", "Metrics", "TieGroups", "area", "curve",
           "evaluate_scores", "fpr_key", "point_metrics", "tie_groups", "tpr_at"]
