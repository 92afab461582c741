"""Simulation methods: Latin hypercube sampling with Iman–Conover rank-correlation restoration
and kernel resampling (docs/method/protection.md).

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
from attack.protect.registry import Param, protection_method
from attack.protect.validated import validated

__all__ = ["kernel_resampling", "latin_hypercube", "silverman_bandwidth"]


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


@protection_method(
    "lhs", family="synthesis",
    summary="Latin hypercube sample of the listed variables with the original rank correlations "
            "restored (Iman-Conover); use --by for subpopulations")
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


def silverman_bandwidth(x: np.ndarray) -> float:
    """Silverman's (1986) rule of thumb ``0.9·min(σ, IQR/1.349)/n^{1/5}`` (σ the sample SD;
    the SD alone when the interquartile range is 0)."""
    sd = float(np.std(x, ddof=1))
    q75, q25 = np.percentile(x, [75, 25])
    spread = min(sd, (q75 - q25) / 1.349) if q75 > q25 else sd
    return 0.9 * spread / len(x) ** 0.2


@validated
@protection_method(
    "kernel-resampling", family="synthesis",
    summary="smoothed bootstrap: records drawn with replacement plus Gaussian kernels of Silverman's "
            "bandwidth times a factor, mean and variance kept (Gottschalk)",
    params={"factor": Param("float", 1.0, help="bandwidth factor (the handbook tried up to 2.1)", gt=0),
            "variant": Param("str", "correlation", ("correlation", "univariate"),
                             "kernels with the original correlations, or independent"),
            "adaptive": Param("bool", True, help="narrower bandwidths where a non-negative variable "
                                                 "would turn negative (Gottschalk)")})
def kernel_resampling(data: pd.DataFrame, columns: Sequence[str], factor: float = 1.0,
                      variant: str = "correlation", seed: int = 0, adaptive: bool = True) -> pd.DataFrame:
    """Smoothed bootstrap of the listed columns (Gottschalk 2005; Silverman 1986).

    Each row gets the listed values of a record drawn with replacement plus a Gaussian kernel
    draw ``h·k`` with the bandwidth ``h`` of each variable ``factor`` times Silverman's rule of
    thumb, rescaled so that mean and variance are kept:
    ``x̄ + (x_Z − x̄ + h·k)/√(1 + h²/σ²)``. ``variant="univariate"`` draws the kernels of the
    variables independently; ``"correlation"`` (Gottschalk's correlation-rescaled kernel matrix)
    draws them from a normal distribution with the original correlation matrix, which keeps
    the correlations. The other columns are kept, so use ``--by`` for subpopulations.

    ``adaptive`` (Gottschalk's adaptive bandwidth, for variables without a negative value in the
    original): while a resampled value of such a variable is negative, the bandwidth that puts the
    most negative one just above 0 is solved from the resampling formula (the smallest positive
    root of a quadratic in ``h``) and used for every record still negative; the kernel draws stay
    the same. Small values are then smoothed less, which is where densities are high."""
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "kernel resampling")
    n, d = x.shape
    if n < 3:
        raise InputError(f"kernel resampling needs at least 3 records, got {n}")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    drawn = x[rng.integers(0, n, n)]
    kernel = rng.standard_normal((n, d))
    if variant == "correlation" and d > 1:
        kernel = kernel @ _factor(np.atleast_2d(np.corrcoef(x, rowvar=False))).T
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    h = factor * np.array([silverman_bandwidth(x[:, j]) for j in range(d)])
    with np.errstate(invalid="ignore", divide="ignore"):
        shrink = np.where(sd > 0, np.sqrt(1 + (h / np.where(sd > 0, sd, 1)) ** 2), 1.0)
    out = data.copy()
    values = mean + (drawn - mean + h * kernel) / shrink
    for j, column in enumerate(columns):
        if adaptive and x[:, j].min() >= 0 and sd[j] > 0:
            values[:, j] = _non_negative(values[:, j], drawn[:, j], kernel[:, j], mean[j], sd[j])
        out[column] = values[:, j]
    return out


def _non_negative(values: np.ndarray, drawn: np.ndarray, kernel: np.ndarray, mean: float,
                  sd: float) -> np.ndarray:
    """Gottschalk's adaptive bandwidth: repeatedly solve ``mean + (a + h·k)/√(1 + h²/σ²) = δ``
    (``a = x_Z − mean``, ``δ`` a millionth of σ) at the most negative value and resample every
    negative record with that bandwidth. Ends: at ``h = 0`` a value is its drawn original, which
    is not negative."""
    values = values.copy()
    delta = 1e-6 * sd
    for _ in range(values.size):
        negative = np.flatnonzero(values < 0)
        if not negative.size:
            break
        i = negative[np.argmin(values[negative])]
        a, k, c = drawn[i] - mean, kernel[i], delta - mean
        roots = np.roots([k * k - c * c / sd**2, 2 * a * k, a * a - c * c])
        real = roots[np.isreal(roots)].real
        positive = real[real > 0]
        h = float(positive.min()) if positive.size else 0.0
        values[negative] = mean + (drawn[negative] - mean + h * kernel[negative]) / np.sqrt(1 + (h / sd) ** 2)
    return np.maximum(values, 0.0)
