"""SUDA: special uniques and their scores (docs/method/frequency-risk.md).

A *minimal sample unique* (MSU) of a record is a set of key variables on which the record's
values occur in no other record while every proper subset of the set is shared with another
record (Elliot et al. 2002; the SUDA2 search of Manning, Haglin & Keane 2008 finds the same
sets). The SUDA score adds ``(M − |S|)!`` for every MSU ``S`` (``M`` key variables, at least 3 as
in sdcMicro's ``suda2``, which pads one or two keys with constant columns); a variable's
contribution is the part of the score from the MSUs that contain it. The DIS-SUDA score
(Elliot 2005) calibrates the scores to the probability that a sample unique is a population
unique, with sdcMicro's formula and sampling fraction (``DisFraction``, default 0.01).

Missing values as in sdcMicro: a missing value is never part of an MSU and equals no value;
in the file-level counts of uniques and pairs it counts as a value of its own.

The sets are found by enumerating the ``2^m − 1`` subsets of the keys level by level (a set is
minimal when it is unique and none of its subsets one variable smaller is), which is exact and,
with packed integer keys, fast for the handful of keys a frequency analysis uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.risk.frequencies import row_groups

#: Largest number of key variables SUDA enumerates (2^m − 1 subsets).
MAX_SUDA_KEYS = 16


@dataclass(frozen=True)
class Suda:
    """SUDA per record and per key variable.

    Attributes
    ----------
    keys:
        The key variables, in the order of the columns of ``contributions``.
    score, dis_score:
        SUDA and DIS-SUDA score of each record (0 without an MSU).
    msu_counts:
        ``(n, m)`` number of MSUs of each size ``1..m`` per record.
    contributions:
        ``(n, m)`` share of each record's score from the MSUs containing each key (0 without MSU).
    dis_fraction:
        The sampling fraction of the DIS calibration.
    """

    keys: tuple[str, ...]
    score: np.ndarray = field(repr=False)
    dis_score: np.ndarray = field(repr=False)
    msu_counts: np.ndarray = field(repr=False)
    contributions: np.ndarray = field(repr=False)
    dis_fraction: float = 0.01

    def attribute_contributions(self) -> dict[str, float | None]:
        """Per key, the percentage of the total SUDA score that comes from MSUs containing it
        (sdcMicro's ``attribute_contributions``); ``None`` when no record has an MSU."""
        total = float(self.score.sum())
        raw = (self.contributions * self.score[:, None]).sum(axis=0)
        return {k: (100.0 * float(v) / total if total else None) for k, v in zip(self.keys, raw, strict=True)}

    def to_dict(self) -> dict:
        """Aggregates only: records with an MSU, MSUs by size, score distribution, contributions."""
        bins = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
        dis = self.dis_score
        table = {"0": int((dis == 0).sum())}
        for lower, upper in zip(bins, [*bins[1:], math.inf], strict=True):
            label = f"({lower:.1f}, {upper:.1f}]" if math.isfinite(upper) else f"> {lower:.1f}"
            table[label] = int(((dis > lower) & (dis <= upper)).sum())
        return {
            "keys": list(self.keys),
            "dis_fraction": self.dis_fraction,
            "records_with_msu": int((self.score > 0).sum()),
            "msus_by_size": {str(s + 1): int(c) for s, c in enumerate(self.msu_counts.sum(axis=0))},
            "max_score": float(self.score.max()) if self.score.size else None,
            "mean_dis_score": float(dis.mean()) if dis.size else None,
            "records_by_dis_score": table,
            "attribute_contributions": self.attribute_contributions(),
        }


def suda_scores(codes: np.ndarray, keys: tuple[str, ...], dis_fraction: float = 0.01) -> Suda:
    """SUDA and DIS-SUDA scores of every record.

    Parameters
    ----------
    codes:
        ``(n, m)`` integer key codes, ``-1`` for missing (``attack.risk.frequencies.key_codes``).
    keys:
        Names of the ``m`` key variables.
    dis_fraction:
        Sampling fraction of the DIS calibration, in ``(0, 1)``.
    """
    n, m = codes.shape
    if m > MAX_SUDA_KEYS:
        raise InputError(f"SUDA enumerates every subset of the keys; at most {MAX_SUDA_KEYS} keys, got {m}")
    if not 0.0 < dis_fraction < 1.0:
        raise InputError(f"the DIS sampling fraction must lie strictly between 0 and 1, got {dis_fraction}")
    size_m = max(m, 3)
    weight = [math.factorial(size_m - s) for s in range(m + 1)]
    cells, inverse = row_groups(codes)  # MSUs depend only on the distinct key combinations
    multiplicity = np.bincount(inverse, minlength=len(cells)).astype(float)
    columns = [np.ascontiguousarray(cells[:, j] + 1) for j in range(m)]  # 0 = missing
    sizes = [int(c.max(initial=0)) + 1 for c in columns]
    msu_counts = np.zeros((m, len(cells)), dtype=np.int64)
    raw = np.zeros((m, len(cells)))
    previous: dict[tuple[int, ...], np.ndarray] = {}
    for size in range(1, m + 1):
        current: dict[tuple[int, ...], np.ndarray] = {}
        for subset in combinations(range(m), size):
            unique = _unique_on(columns, sizes, multiplicity, subset)
            current[subset] = unique
            msu = unique.copy()
            if size > 1:
                for drop in range(size):
                    msu &= ~previous[subset[:drop] + subset[drop + 1:]]
            rows = np.flatnonzero(msu)
            if len(rows):
                msu_counts[size - 1, rows] += 1
                for j in subset:
                    raw[j, rows] += weight[size]
        previous = current
    cell_score = np.asarray(weight[1:], dtype=float) @ msu_counts.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        cell_share = np.where(cell_score > 0, raw / cell_score, 0.0).T
    score = cell_score[inverse]
    return Suda(keys, score, _dis_scores(multiplicity, score, size_m, dis_fraction), msu_counts.T[inverse],
                cell_share[inverse], dis_fraction)


def _unique_on(columns: list[np.ndarray], sizes: list[int], multiplicity: np.ndarray,
               subset: tuple[int, ...]) -> np.ndarray:
    """Key cells observed on every variable of ``subset`` whose values there belong to one record
    only: the subset's values (``0`` = missing) are packed into one integer and counted (directly
    when the packed range is small, else after hashing)."""
    span = float(np.prod([float(sizes[j]) for j in subset]))
    if span > 2.0**62:
        packed = row_groups(np.column_stack([columns[j] for j in subset]) - 1)[1]
    else:
        packed = columns[subset[0]].astype(np.int64)
        for j in subset[1:]:
            packed *= sizes[j]
            packed += columns[j]
        if span > 4 * len(packed) + 1024:
            packed = pd.factorize(packed)[0]
    counts = np.bincount(packed, weights=multiplicity)
    unique = counts[packed] == 1
    for j in subset:
        if not columns[j].all():  # a record missing a variable of the subset has no MSU on it
            unique &= columns[j] > 0
    return unique


def _dis_scores(multiplicity: np.ndarray, score: np.ndarray, size_m: int, dis_fraction: float) -> np.ndarray:
    """sdcMicro's DIS-SUDA: ``1/(1 + (U/D − U)/(score^Q · Σ score^−Q))`` with ``U`` full-key sample
    uniques, ``P`` records in full-key pairs, ``D = U·f/(U·f + P·(1−f))`` and ``Q = 1 + (8 − M)/20``.
    The sampling-fraction arithmetic is single precision, as in sdcMicro's C++ code."""
    dis = np.zeros_like(score)
    scored = score > 0
    if not scored.any():
        return dis
    uniques = np.float32((multiplicity == 1).sum())
    pairs = np.float32(2 * (multiplicity == 2).sum())
    f = np.float32(dis_fraction)
    d = uniques * f / (uniques * f + pairs * (np.float32(1) - f))
    excess = float(uniques / d - uniques)
    q = float(np.float32(1) + (np.float32(8) - np.float32(size_m)) / np.float32(20))
    powered = score[scored] ** q
    dis[scored] = 1.0 / (1.0 + excess / (powered * (1.0 / powered).sum()))
    return dis

