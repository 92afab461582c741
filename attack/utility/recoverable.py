"""What an analyst can recover from a release that says how it was made (docs/method/ml-utility.md,
"Recoverable").

* PRAM with a published transition matrix: the moment estimator of the original frequencies
  and its covariance (Kooiman, Willenborg & Gouweleeuw 1997). With the row-stochastic matrix
  ``P[i, j] = P(released j | original i)`` of ``attack.protect.pram``,
  ``E[T* | T] = Pᵀ T``, so ``T̂ = (Pᵀ)⁻¹ T*`` (``P⁻¹ T*`` in the column-stochastic notation of
  the literature) and ``Var(T̂) = (Pᵀ)⁻¹ [Σ_i T_i (diag p_i − p_i p_iᵀ)] P⁻¹`` with T estimated
  by T̂ (p_i the i-th row of P).
* Additive noise with a published variance: regression calibration of a linear regression on
  noised regressors (Carroll, Ruppert, Stefanski & Crainiceanu 2006, ch. 3). For
  ``X* = X + U`` with U independent of X and y, covariance Σ_uu, the naive slopes are
  attenuated; ``β̂ = (S_X*X* − Σ_uu)⁻¹ S_X*y`` removes the attenuation.

The protection log of ``attack protect`` (method, parameters, columns) is what a release
publishes about itself here; ``recoverable`` reads it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from attack.errors import InputError
from attack.io.jsonio import json_float
from attack.io.readers import code_column, numeric_column, require_columns

__all__ = ["FrequencyEstimate", "Recoverable", "SlopeCorrection", "deattenuated_slopes",
           "pram_estimate", "recoverable"]


@dataclass(frozen=True)
class FrequencyEstimate:
    """Original frequencies of one PRAM'd variable estimated from the release: released counts,
    the moment estimate, its standard error and, when the original is at hand, the true
    counts."""

    variable: str
    categories: tuple[str, ...]
    released: tuple[float, ...]
    estimate: tuple[float, ...]
    se: tuple[float, ...]
    original: tuple[float, ...] | None = None

    def _tvd(self, counts: ArrayLike) -> float | None:
        """Total variation distance of ``counts`` from the original shares."""
        if self.original is None or not sum(self.original):
            return None
        o = np.asarray(self.original) / sum(self.original)
        c = np.asarray(counts, dtype=float)
        return float(0.5 * np.abs(c / c.sum() - o).sum()) if c.sum() else None

    def to_dict(self) -> dict:
        rows = [{"category": c, "released": json_float(r), "estimate": json_float(e),
                 "se": json_float(s), "original": None if self.original is None
                 else json_float(self.original[i])}
                for i, (c, r, e, s) in enumerate(zip(self.categories, self.released, self.estimate,
                                                     self.se, strict=True))]
        return {"variable": self.variable, "categories": rows,
                "tvd_released": json_float(self._tvd(self.released)),
                "tvd_estimate": json_float(self._tvd(np.clip(self.estimate, 0, None)))}


def pram_estimate(variable: str, released: Mapping[str, float], matrix: pd.DataFrame,
                  original: Mapping[str, float] | None = None) -> FrequencyEstimate:
    """Moment estimate ``T̂ = (Pᵀ)⁻¹ T*`` of the original counts and its covariance (module
    docstring). ``matrix`` is row-stochastic, labelled by category on both axes; released
    categories missing from it are an ``InputError``. The estimate can be negative for
    rare categories (it is unbiased, not constrained)."""
    labels = [str(c) for c in matrix.index]
    p = matrix.loc[matrix.index, matrix.index].to_numpy(dtype=float)
    if set(map(str, matrix.columns)) != set(labels) or p.shape[0] != p.shape[1]:
        raise InputError(f"the PRAM matrix of {variable} must be square with the same categories "
                         "as rows and columns")
    unknown = sorted(set(map(str, released)) - set(labels))
    if unknown:
        raise InputError(f"released category {unknown[0]!r} of {variable} is not in its PRAM matrix")
    t_star = np.array([float(released.get(c, 0.0)) for c in labels])
    try:
        inverse_t = np.linalg.inv(p.T)
    except np.linalg.LinAlgError:
        raise InputError(f"the PRAM matrix of {variable} is singular: the original frequencies "
                         "cannot be recovered") from None
    estimate = inverse_t @ t_star
    conditional = sum(max(t, 0.0) * (np.diag(row) - np.outer(row, row))
                      for t, row in zip(estimate, p, strict=True))
    covariance = inverse_t @ conditional @ inverse_t.T
    truth = None if original is None else tuple(float(original.get(c, 0.0)) for c in labels)
    return FrequencyEstimate(variable, tuple(labels), tuple(t_star), tuple(estimate),
                             tuple(math.sqrt(max(v, 0.0)) for v in np.diag(covariance)), truth)


@dataclass(frozen=True)
class SlopeCorrection:
    """Linear regression of ``target`` on noised ``regressors``: slopes on the release (naive),
    after regression calibration (corrected) and, when the original is at hand, on it."""

    target: str
    regressors: tuple[str, ...]
    naive: tuple[float, ...]
    corrected: tuple[float, ...]
    original: tuple[float, ...] | None = None

    def to_dict(self) -> dict:
        return {"target": self.target, "regressors": list(self.regressors),
                "naive": [json_float(b) for b in self.naive],
                "corrected": [json_float(b) for b in self.corrected],
                "original": None if self.original is None else [json_float(b) for b in self.original]}


def _slopes(x: np.ndarray, y: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
    """``(S_xx − noise)⁻¹ S_xy`` from sample covariances (n − 1)."""
    s = np.atleast_2d(np.cov(np.column_stack([x, y]), rowvar=False))
    k = x.shape[1]
    sxx = s[:k, :k] - (0 if noise is None else noise)
    try:
        return np.linalg.solve(sxx, s[:k, k])
    except np.linalg.LinAlgError:
        raise InputError("the regressors' covariance less the noise covariance is singular") from None


def deattenuated_slopes(x_release: np.ndarray, y: np.ndarray,
                        noise_covariance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Naive and calibrated slopes of ``y`` on ``x_release`` (n × k, complete rows), the
    regressors released as ``X + U`` with ``Cov(U) = noise_covariance`` (k × k)."""
    x = np.asarray(x_release, dtype=float).reshape(len(y), -1)
    noise = np.atleast_2d(np.asarray(noise_covariance, dtype=float))
    return _slopes(x, np.asarray(y, dtype=float)), _slopes(x, np.asarray(y, dtype=float), noise)


@dataclass(frozen=True)
class Recoverable:
    """Corrections an analyst can apply with what the release publishes (its protection log)."""

    method: str
    frequencies: tuple[FrequencyEstimate, ...] = ()
    slopes: SlopeCorrection | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"method": self.method, "frequencies": [f.to_dict() for f in self.frequencies],
                "slopes": None if self.slopes is None else self.slopes.to_dict(),
                "notes": list(self.notes)}


def _counts(frame: pd.DataFrame, column: str) -> dict[str, float]:
    codes = pd.Series(code_column(frame, column, warn=False)).dropna()
    return {str(k): float(v) for k, v in codes.value_counts(sort=False).items()}


def _published_matrix(params: Mapping, released: Mapping[str, float]) -> pd.DataFrame:
    """The PRAM matrix of the log: the given one, or the invariant matrix ``λI + (1 − λ)1θᵀ``
    with θ estimated by the released shares (unbiased, since ``Pᵀθ = θ``)."""
    given = params.get("matrix")
    if given is not None:
        table = pd.DataFrame(given["matrix"] if "matrix" in given else given)
        table.index = table.index.map(str)
        table.columns = table.columns.map(str)
        return table
    labels = sorted(released)
    theta = np.array([released[c] for c in labels]) / sum(released.values())
    lam = float(params["lam"])
    p = lam * np.eye(len(labels)) + (1 - lam) * np.outer(np.ones(len(labels)), theta)
    return pd.DataFrame(p, index=labels, columns=labels)


def _noised_regression(original: pd.DataFrame, release: pd.DataFrame, log: Mapping,
                       target: str) -> SlopeCorrection:
    """Regression calibration for ``additive-noise`` (noise ``W ~ N(0, d·Σ)``): without Kim's
    correction ``X* = X + W`` and ``Σ_uu = d/(1 + d)·S_X*``; with it the release is first put
    back on the ``X + W`` scale, ``x̄ + √(1 + d)(x^a − x̄)``."""
    columns = list(log["columns"])
    d = float(log["params"]["d"])
    require_columns(release, [target, *columns])
    x = np.column_stack([numeric_column(release, c) for c in columns])
    y = numeric_column(release, target)
    ok = ~np.isnan(x).any(axis=1) & ~np.isnan(y)
    x, y = x[ok], y[ok]
    if log["params"].get("kim_correction", True):
        x = x.mean(axis=0) + math.sqrt(1 + d) * (x - x.mean(axis=0))
    noise = d / (1 + d) * np.atleast_2d(np.cov(x, rowvar=False))
    naive, corrected = deattenuated_slopes(x, y, noise)
    truth = None
    if all(c in original.columns for c in [target, *columns]):
        xo = np.column_stack([numeric_column(original, c) for c in columns])
        yo = numeric_column(original, target)
        keep = ~np.isnan(xo).any(axis=1) & ~np.isnan(yo)
        truth = tuple(_slopes(xo[keep], yo[keep]))
    if log["params"].get("kim_correction", True):  # naive slopes on the released scale
        naive = naive * math.sqrt(1 + d)
    return SlopeCorrection(target, tuple(columns), tuple(naive), tuple(corrected), truth)


def recoverable(original: pd.DataFrame, release: pd.DataFrame, log: Mapping,
                target: str | None = None) -> Recoverable:
    """Corrections the protection ``log`` of ``attack protect`` allows: PRAM frequency
    estimates (one column, no ``by`` groups) and, for ``additive-noise`` with a ``target``
    outside the noised columns, the regression calibration of its regression on them."""
    method = str(log.get("method", ""))
    columns = list(log.get("columns", []))
    if log.get("by"):
        return Recoverable(method, notes=("the method ran within groups; the corrections need "
                                          "each group's parameters",))
    if method == "pram":
        if len(columns) != 1:
            return Recoverable(method, notes=("joint PRAM of several columns: not estimated",))
        column = columns[0]
        require_columns(release, [column])
        released = _counts(release, column)
        matrix = _published_matrix(log.get("params", {}), released)
        truth = _counts(original, column) if column in original.columns else None
        return Recoverable(method, (pram_estimate(column, released, matrix, truth),))
    if method == "additive-noise":
        if target is None or target in columns:
            note = ("proportional noise on the regressors and the target keeps the regression "
                    "coefficients consistent" if target in columns else
                    "name a target outside the noised columns to calibrate its regression")
            return Recoverable(method, notes=(note,))
        return Recoverable(method, slopes=_noised_regression(original, release, log, target))
    return Recoverable(method, notes=(f"no correction is implemented for {method or 'this method'}",))
