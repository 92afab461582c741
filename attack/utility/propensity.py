"""Propensity-score utility: can a model tell the release from the original? (docs/method/utility.md)

Woo, Reiter, Oganian & Karr (2009); Snoke, Raab, Nowok, Dibben & Slavković (2018). The original
(n₁ rows, label 0) and the release (n₂ rows, label 1) are stacked, N = n₁ + n₂, c = n₂ / N,
and a model estimates each row's probability p̂ᵢ of coming from the release:

    pMSE = (1/N) Σᵢ (p̂ᵢ − c)²

0 when the model cannot tell the files apart, c(1 − c) when it separates them perfectly. It is
compared with its expectation when both files come from one distribution:

* logistic model with k parameters (intercept included): E = (k − 1) c (1 − c) / N and
  SD = √(2(k − 1)) c (1 − c) / N. Near the null, p̂ᵢ − c ≈ c(1 − c) xᵢ'β̂ and β̂'Sβ̂ is
  χ²ₖ₋₁ / (c(1 − c)) (S the centred cross-product matrix), so N·pMSE / (c(1 − c)) is χ²ₖ₋₁.
  The formula usually quoted from Snoke et al. (2018), (k − 1)(1 − c)² c / N, is smaller by the
  factor 1 − c; with it a sample of the original's own distribution averages 2 at c = ½, which
  is why synthpop halves its simulated logit null (docs/method/utility.md shows the check);
* CART: mean and standard deviation of the pMSE over ``permutations`` random relabellings of the
  stacked rows (synthpop's permutation null).

``pmse_ratio`` = pMSE / E — Snoke et al.'s pMSE ratio, which synthpop now prints as S_pMSE, hence
``s_pmse`` carries the same value; about 1 when the release is as good as a fresh sample of
the original's distribution. ``z`` = (pMSE − E) / SD, the standardised pMSE of the paper.

Per two-way table (numbers grouped into quintiles of the original): the table pMSE of the
saturated model on the cells, its ratio to the null expectation (g − 1) c (1 − c) / N for g
non-empty cells, and the total variation distance ½ Σ |p − q| of the two relative frequency
tables.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attack.errors import InputError, did_you_mean

MODELS = ("logistic", "logistic2", "cart")
TABLE_GROUPS = 5


@dataclass(frozen=True)
class PropensityScore:
    """The pMSE of one propensity model and its comparison with the null."""

    model: str
    pmse: float
    expected: float
    sd: float
    c: float
    k: int | None = None
    permutations: int | None = None

    @property
    def pmse_ratio(self) -> float:
        return self.pmse / self.expected if self.expected > 0 else float("nan")

    @property
    def z(self) -> float:
        return (self.pmse - self.expected) / self.sd if self.sd > 0 else float("nan")

    def to_dict(self) -> dict:
        return {"pmse": self.pmse, "s_pmse": self.pmse_ratio, "pmse_ratio": self.pmse_ratio, "z": self.z,
                "expected": self.expected, "sd": self.sd, "c": self.c, "k": self.k,
                "permutations": self.permutations}


@dataclass(frozen=True)
class TableUtility:
    """The two-way table of ``variables`` compared between original and release."""

    variables: tuple[str, str]
    pmse: float
    s_pmse: float
    tvd: float
    cells: int

    def to_dict(self) -> dict:
        return {"variables": list(self.variables), "pmse": self.pmse, "s_pmse": self.s_pmse,
                "tvd": self.tvd, "cells": self.cells}


@dataclass(frozen=True)
class PropensityUtility:
    """Propensity scores per model and the two-way tables."""

    scores: tuple[PropensityScore, ...]
    tables: tuple[TableUtility, ...]
    variables: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "variables": list(self.variables),
            "models": {s.model: s.to_dict() for s in self.scores},
            "tables": [t.to_dict() for t in self.tables],
        }


def propensity_utility(
    original: pd.DataFrame,
    release: pd.DataFrame,
    *,
    variables: Sequence[str] | None = None,
    models: Sequence[str] = ("logistic", "cart"),
    permutations: int = 50,
    minbucket: int = 5,
    cp: float = 1e-3,
    tables: bool = True,
    seed: int = 0,
) -> PropensityUtility:
    """pMSE, its ratio to the null and the standardised pMSE for each model (``logistic``: main
    effects; ``logistic2``: with all two-way interactions; ``cart``: a classification tree with
    leaf size ``minbucket`` and complexity ``cp``, null by ``permutations`` relabellings), and
    the two-way tables (see the module docstring). Same inputs and seed, same figures."""
    variables = list(variables if variables is not None else [c for c in original.columns if c in release.columns])
    for name in variables:
        for role, frame in (("original", original), ("release", release)):
            if name not in frame.columns:
                raise InputError(f"column not found in the {role}{did_you_mean(name, frame.columns)}", column=name)
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise InputError(f"unknown propensity model {unknown[0]!r}; expected one of {', '.join(MODELS)}",
                         field="models")
    if len(original) == 0 or len(release) == 0:
        raise InputError("both files need rows for a propensity score")
    stacked = pd.concat([original[variables], release[variables]], ignore_index=True)
    labels = np.r_[np.zeros(len(original)), np.ones(len(release))]
    kinds = {v: _is_numeric(stacked[v]) for v in variables}
    rng = np.random.default_rng(seed)
    scores = []
    for model in models:
        if model == "cart":
            scores.append(_cart(stacked, labels, kinds, minbucket, cp, permutations, rng))
        else:
            scores.append(_logistic(stacked, labels, kinds, interactions=model == "logistic2"))
    table_scores: tuple[TableUtility, ...] = ()
    if tables and len(variables) >= 2:
        groups = {v: _groups(stacked[v], len(original), kinds[v]) for v in variables}
        table_scores = tuple(_table(groups[a], groups[b], labels, (a, b)) for a, b in itertools.combinations(variables, 2))
    return PropensityUtility(tuple(scores), table_scores, tuple(variables))


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _main_effects(stacked: pd.DataFrame, kinds: dict[str, bool]) -> np.ndarray:
    """Numbers standardised (a missing value at the mean, with an indicator column); categories
    one-hot with the first level dropped, a missing value a category of its own."""
    parts = []
    for name, numeric in kinds.items():
        column = stacked[name]
        if numeric:
            x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
            known = ~np.isnan(x)
            mean = x[known].mean() if known.any() else 0.0
            sd = x[known].std() if known.sum() > 1 else 0.0
            parts.append(((np.where(known, x, mean) - mean) / (sd if sd > 0 else 1.0))[:, None])
            if not known.all():
                parts.append((~known).astype(float)[:, None])
        else:
            codes, _ = pd.factorize(column.astype(object).where(column.notna(), "\x00NA"), sort=True)
            dummies = np.zeros((len(codes), codes.max() + 1))
            dummies[np.arange(len(codes)), codes] = 1.0
            parts.append(dummies[:, 1:])
    x = np.hstack(parts) if parts else np.zeros((len(stacked), 0))
    return x[:, x.std(axis=0) > 0]  # constant columns carry no parameter


def _logistic(stacked: pd.DataFrame, labels: np.ndarray, kinds: dict[str, bool], interactions: bool) -> PropensityScore:
    from sklearn.linear_model import LogisticRegression

    x = _main_effects(stacked, kinds)
    if interactions and x.shape[1] > 1:
        i, j = np.triu_indices(x.shape[1], k=1)
        products = x[:, i] * x[:, j]
        x = np.hstack([x, products[:, products.std(axis=0) > 0]])
    n = len(labels)
    c = float(labels.mean())
    k = x.shape[1] + 1
    if x.shape[1]:
        fit = LogisticRegression(C=1e6, max_iter=2000).fit(x, labels)
        p = fit.predict_proba(x)[:, 1]
    else:
        p = np.full(n, c)
    pmse = float(np.mean((p - c) ** 2))
    scale = c * (1 - c) / n
    return PropensityScore("logistic2" if interactions else "logistic", pmse, (k - 1) * scale,
                           np.sqrt(2 * (k - 1)) * scale, c, k=k)


def _cart(stacked: pd.DataFrame, labels: np.ndarray, kinds: dict[str, bool], minbucket: int, cp: float,
          permutations: int, rng: np.random.Generator) -> PropensityScore:
    from sklearn.tree import DecisionTreeClassifier

    x = np.hstack([_tree_columns(stacked[name], numeric) for name, numeric in kinds.items()])
    c = float(labels.mean())

    def pmse(y: np.ndarray) -> float:
        tree = DecisionTreeClassifier(min_samples_leaf=minbucket, min_samples_split=3 * minbucket,
                                      min_impurity_decrease=cp * 2 * c * (1 - c), random_state=0)
        p = tree.fit(x, y).predict_proba(x)[:, 1]
        return float(np.mean((p - c) ** 2))

    observed = pmse(labels)
    null = np.array([pmse(rng.permutation(labels)) for _ in range(permutations)])
    return PropensityScore("cart", observed, float(null.mean()), float(null.std(ddof=1)) if permutations > 1 else 0.0,
                           c, permutations=permutations)


def _tree_columns(column: pd.Series, numeric: bool) -> np.ndarray:
    if numeric:
        return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)[:, None]
    codes, _ = pd.factorize(column.astype(object).where(column.notna(), "\x00NA"), sort=True)
    return codes.astype(float)[:, None]


def _groups(column: pd.Series, n_original: int, numeric: bool) -> np.ndarray:
    """Group labels: numbers in quintiles of the original (missing values a group), else the
    categories themselves."""
    if not numeric:
        return pd.factorize(column.astype(object).where(column.notna(), "\x00NA"), sort=True)[0]
    x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    reference = x[:n_original][~np.isnan(x[:n_original])]
    if reference.size == 0:
        return np.where(np.isnan(x), -1, 0)
    edges = np.unique(np.quantile(reference, np.linspace(0, 1, TABLE_GROUPS + 1)[1:-1]))
    return np.where(np.isnan(x), -1, np.searchsorted(edges, x, side="right"))


def _table(a: np.ndarray, b: np.ndarray, labels: np.ndarray, names: tuple[str, str]) -> TableUtility:
    cell = pd.factorize(pd.MultiIndex.from_arrays([a, b]))[0]
    n_cells = cell.max() + 1
    orig = np.bincount(cell[labels == 0], minlength=n_cells).astype(float)
    syn = np.bincount(cell[labels == 1], minlength=n_cells).astype(float)
    n = len(labels)
    c = float(labels.mean())
    total = orig + syn
    p = syn / total
    pmse = float(np.sum(total * (p - c) ** 2) / n)
    expected = (n_cells - 1) * c * (1 - c) / n
    tvd = 0.5 * float(np.abs(orig / orig.sum() - syn / syn.sum()).sum())
    return TableUtility(names, pmse, pmse / expected if expected > 0 else float("nan"), tvd, int(n_cells))


__all__ = ["MODELS", "PropensityScore", "PropensityUtility", "TableUtility", "propensity_utility"]
