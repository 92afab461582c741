"""Simulation methods: Latin hypercube sampling with Iman–Conover rank-correlation restoration
(docs/method/protection.md).

The listed numeric columns are replaced by a synthetic sample of the same size (Dandekar,
Cohen & Kirkendall 2002, after McKay, Beckman & Conover 1979): each variable takes the values
``F⁻¹(i/(n+1))``, ``i = 1..n``, of its piecewise-linear empirical distribution function (with
as many synthetic as original records these are the original order statistics, so every
marginal distribution is kept exactly), and the values are then rearranged so that the rank
correlations approach those of the original (Iman & Conover 1982): with the van der Waerden
scores of the current ranks, ``R*`` their correlation, ``R`` the original rank correlation and
``A A' = R*``, ``B B' = R`` (Cholesky), the scores are mapped by ``B A⁻¹`` and each column takes
the order of its mapped scores; this is repeated while the mean absolute difference of the
off-diagonal correlations decreases. Row ``i`` of the release holds synthetic record ``i``;
the other columns are kept, so run it within groups (``--by``) to keep subpopulations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata

from attack.errors import InputError
from attack.protect.microaggregation import _complete_matrix, _distinct

__all__ = ["latin_hypercube"]


def _spearman(x: np.ndarray) -> np.ndarray:
    ranks = np.column_stack([rankdata(x[:, j]) for j in range(x.shape[1])])
    return np.atleast_2d(np.corrcoef(ranks, rowvar=False))


def _factor(matrix: np.ndarray) -> np.ndarray:
    """Cholesky factor, with a small ridge when rounding left the matrix not positive definite."""
    for ridge in (0.0, 1e-10, 1e-8, 1e-6):
        try:
            return np.linalg.cholesky(matrix + ridge * np.eye(len(matrix)))
        except np.linalg.LinAlgError:
            continue
    raise InputError("the rank correlation matrix is not positive definite; leave out columns "
                     "that are functions of others")


def latin_hypercube(data: pd.DataFrame, columns: Sequence[str], seed: int = 0,
                    max_iterations: int = 20) -> pd.DataFrame:
    """The listed columns replaced by a Latin hypercube sample with the original's rank
    correlations restored by Iman–Conover (module docstring)."""
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "Latin hypercube sampling")
    n, d = x.shape
    if n < 3:
        raise InputError(f"Latin hypercube sampling needs at least 3 records, got {n}")
    constant = [c for j, c in enumerate(columns) if d > 1 and np.ptp(x[:, j]) == 0]
    if constant:
        raise InputError("a constant column has no rank correlation; leave it out of the Latin "
                         "hypercube sample", column=constant[0])
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    values = np.sort(x, axis=0)  # F⁻¹(i/(n+1)) of the piecewise-linear ECDF at i = 1..n
    target = _spearman(x) if d > 1 else np.ones((1, 1))
    order = np.column_stack([rng.permutation(n) for _ in range(d)])  # rank - 1 of each row
    scores_of = norm.ppf(np.arange(1, n + 1) / (n + 1))
    off = ~np.eye(d, dtype=bool)
    best_gap, best = np.inf, order
    for _ in range(max_iterations if d > 1 else 0):
        scores = scores_of[order]
        current = np.atleast_2d(np.corrcoef(scores, rowvar=False))
        gap = float(np.abs(current - target)[off].mean())
        if gap >= best_gap - 1e-12:
            break
        best_gap, best = gap, order
        mapped = scores @ (_factor(target) @ np.linalg.inv(_factor(current))).T
        tiebreak = rng.random((n, d))
        order = np.column_stack([np.lexsort((tiebreak[:, j], mapped[:, j])).argsort() for j in range(d)])
    out = data.copy()
    for j, column in enumerate(columns):
        out[column] = values[best[:, j], j]
    return out
