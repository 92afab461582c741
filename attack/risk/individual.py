"""Individual, household and global re-identification risk from key frequencies
(docs/method/frequency-risk.md).

The individual risk of a record is the posterior expectation of ``1/F`` given the sample
frequency ``f`` of its key combination, with ``F − f`` negative binomial with success
probability ``p = f/F̂`` (Benedetti & Franconi 1998; Franconi & Polettini 2004), computed by
the formulas sdcMicro's ``indivRisk`` uses (version 5.8).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from attack.errors import InputError

RiskMethod = Literal["approx", "exact"]
HouseholdMethod = Literal["product", "inclusion-exclusion"]


def individual_risk(fk: np.ndarray, big_fk: np.ndarray | None,
                    method: RiskMethod = "approx") -> np.ndarray:
    """Benedetti–Franconi risk of each record.

    Parameters
    ----------
    fk, big_fk:
        Sample frequency and weighted (population) frequency of each record's key cell.
        Without weights (``big_fk`` ``None``) the risk is ``1/f_k``.
    method:
        ``approx``: ``r = p/(1−p)·log(1/p)`` for ``f = 1``, ``p/(1−p) − (p/(1−p))²·log(1/p)``
        for ``f = 2`` and ``p/(f − 1 + p)`` for ``f > 2``. ``exact``: the closed form of the
        expectation for ``f > 2`` (Franconi & Polettini 2004, as in sdcMicro). A cell whose
        weights sum to its size (``F = f``) has risk ``1/f``. As in sdcMicro, a non-integer ``f``
        below 2 (possible with missing keys and ``alpha < 1``) other than ``F = f`` gets risk 0.
    """
    fk = np.asarray(fk, dtype=float)
    if big_fk is None:
        return 1.0 / fk
    if method not in ("approx", "exact"):
        raise InputError(f"unknown risk method {method!r}; expected approx or exact")
    f, big_f = fk, np.asarray(big_fk, dtype=float)
    p = f / big_f
    risk = np.zeros(len(f))
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = p / (1.0 - p)
        one, two, more = f == 1, f == 2, f > 2
        risk[one] = odds[one] * np.log(1.0 / p[one])
        risk[two] = odds[two] - odds[two] ** 2 * np.log(1.0 / p[two])
        if method == "approx":
            risk[more] = p[more] / (f[more] - (1.0 - p[more]))
        elif more.any():  # the series once per distinct (f, p)
            cells = pd.DataFrame({"f": f[more], "p": p[more]})
            group = cells.groupby(["f", "p"], sort=False).ngroup().to_numpy()
            first = cells.drop_duplicates().to_numpy()
            risk[more] = np.array([_exact_risk(a, b) for a, b in first])[group]
    same = f == big_f
    risk[same] = 1.0 / f[same]
    return risk


def _exact_risk(f: float, p: float) -> float:
    """Closed-form ``E[1/F | f]`` for ``f > 2``: ``(p/(1−p))^f · (A·(1 + Σ_{m=0}^{f−3} (−1)^{m+1}
    Π_{l≤m} B_l) + (−1)^f·log p)`` with ``A = (p^{1−f} − 1)/(f − 1)`` and
    ``B_l = (f−1−l)²/((l+1)(f−2−l)) · (p^{l+2−f} − 1)/(p^{l+1−f} − 1)``."""
    a = (p ** (1 - f) - 1) / (f - 1)
    series, product = 0.0, 1.0
    m = 0
    while m <= f - 3:
        product *= ((f - 1 - m) ** 2 / ((m + 1) * (f - 2 - m))
                    * (p ** (m + 2 - f) - 1) / (p ** (m + 1 - f) - 1))
        series += (-1) ** (m + 1) * product
        m += 1
    with np.errstate(all="ignore"):
        return float((p / (1 - p)) ** f * (a * (1 + series) + (-1) ** f * np.log(p)))


def household_risk(risk: np.ndarray, household: np.ndarray,
                   method: HouseholdMethod = "product") -> np.ndarray:
    """Risk that at least one member of a record's household is re-identified, members taken as
    independent: ``1 − Π(1 − r_i)`` (``product``, sdcMicro's default) or the same probability by
    inclusion–exclusion, ``Σ_k (−1)^{k+1} e_k(r)`` with the elementary symmetric sums ``e_k``
    (``inclusion-exclusion``, μ-Argus's Boole formula; any household size).

    ``household`` holds integer household numbers (``0..H−1``)."""
    risk = np.asarray(risk, dtype=float)
    household = np.asarray(household)
    if not len(risk):
        return risk.copy()
    order = np.argsort(household, kind="stable")
    sorted_h = household[order]
    starts = np.flatnonzero(np.r_[True, sorted_h[1:] != sorted_h[:-1]])
    sizes = np.diff(np.r_[starts, len(sorted_h)])
    values = risk[order]
    per_household = np.empty(len(starts))
    if method == "product":
        per_household[:] = 1.0 - np.multiply.reduceat(1.0 - values, starts)
    elif method == "inclusion-exclusion":
        for size in np.unique(sizes):
            which = np.flatnonzero(sizes == size)
            members = values[starts[which][:, None] + np.arange(size)]
            per_household[which] = _union_by_symmetric_sums(members)
    else:
        raise InputError(f"unknown household method {method!r}; expected product or inclusion-exclusion")
    out = np.empty_like(risk)
    out[order] = np.repeat(per_household, sizes)
    return out


def _union_by_symmetric_sums(members: np.ndarray) -> np.ndarray:
    """``P(∪ A_i)`` for independent events with probabilities in each row, by inclusion–exclusion
    over the elementary symmetric sums (built member by member, no size limit)."""
    rows, size = members.shape
    sums = np.zeros((rows, size + 1))
    sums[:, 0] = 1.0
    for j in range(size):
        r = members[:, j]
        sums[:, 1: j + 2] = sums[:, 1: j + 2] + sums[:, 0: j + 1] * r[:, None]
    signs = (-1.0) ** (np.arange(1, size + 1) + 1)
    return sums[:, 1:] @ signs


def risk_threshold(risk: np.ndarray, max_global_risk: float) -> float | None:
    """μ-Argus's threshold ``r*`` for a target re-identification rate ξ (``max_global_risk``):
    going from the highest risk down, the first distinct risk ``r`` at which the risks below
    plus ``r`` for every record above stay under ``ξ·n``, as in sdcMicro's ``measure_risk``.
    ``None`` when the file already meets ξ (every threshold does) or the risks are all equal."""
    if not 0.0 < max_global_risk < 1.0:
        raise InputError(f"max_global_risk must lie strictly between 0 and 1, got {max_global_risk}")
    values = np.sort(np.asarray(risk, dtype=float))[::-1]
    if not len(values):
        return None
    target = max_global_risk * len(values)
    remaining = values.sum()
    if remaining < target:
        return None
    # after the records before position i are set to the risk at i: their count times r plus the rest
    below = remaining - np.r_[0.0, np.cumsum(values)[:-1]]
    above = np.arange(len(values))
    changes = np.r_[False, values[1:] != values[:-1]]
    found = np.flatnonzero(changes & (below + values * above < target))
    if not len(found):
        return None if values[-1] == 0.0 else 0.0
    return float(values[found[0]])
