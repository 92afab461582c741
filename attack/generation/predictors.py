"""Model inputs from already synthesised columns: the same encoding for original and synthetic rows.

For trees a categorical predictor becomes one column of integer codes. When the target is a
number or has two categories, the codes follow the target's mean in each category; a split on
such codes is then as good as the best split into any two groups of categories (Breiman et al.
1984, §9.4), which is how rpart, and so synthpop, treat factors. For a target with more
categories the predictor is one-hot coded when it has at most ``MAX_ONE_HOT`` categories,
else coded by frequency. For linear and logistic models categories are one-hot coded (first
category dropped), numbers standardised, and a missing number is set to the mean with an
indicator column beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

MAX_ONE_HOT = 20


@dataclass(frozen=True)
class Feature:
    """One predictor on both sides: ``kind`` is ``"numeric"`` or ``"categorical"``."""

    kind: str
    observed: np.ndarray
    synthetic: np.ndarray


def tree_design(features: Sequence[Feature], target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(X_observed, X_synthetic)`` for a tree model predicting ``target`` (observed rows)."""
    numeric_target = target.dtype.kind == "f"
    two_classes = not numeric_target and len(pd.unique(target)) <= 2
    obs, syn = [], []
    for feature in features:
        if feature.kind == "numeric":
            obs.append(feature.observed[:, None])
            syn.append(feature.synthetic[:, None])
            continue
        codes, levels = pd.factorize(feature.observed)
        if numeric_target or two_classes:
            y = target.astype(float) if numeric_target else (target == target[0]).astype(float)
            order = np.argsort(np.bincount(codes, weights=y) / np.bincount(codes), kind="stable")
        elif len(levels) <= MAX_ONE_HOT:
            obs.append(_one_hot(feature.observed, levels))
            syn.append(_one_hot(feature.synthetic, levels))
            continue
        else:
            order = np.argsort(-np.bincount(codes), kind="stable")
        rank = np.empty(len(levels))
        rank[order] = np.arange(len(levels))
        obs.append(rank[codes][:, None])
        syn.append(_lookup(levels, rank, feature.synthetic)[:, None])
    return _stack(obs, len(target)), _stack(syn, len(features[0].synthetic) if features else 0)


def linear_design(features: Sequence[Feature]) -> tuple[np.ndarray, np.ndarray]:
    """``(X_observed, X_synthetic)`` for a linear or logistic model, without the intercept."""
    obs, syn = [], []
    for feature in features:
        if feature.kind == "categorical":
            levels = pd.factorize(feature.observed)[1]
            obs.append(_one_hot(feature.observed, levels)[:, 1:])
            syn.append(_one_hot(feature.synthetic, levels)[:, 1:])
            continue
        x, xs = feature.observed, feature.synthetic
        known = ~np.isnan(x)
        mean = float(x[known].mean()) if known.any() else 0.0
        sd = float(x[known].std()) if known.sum() > 1 else 0.0
        sd = sd if sd > 0 else 1.0
        obs.append(((np.where(known, x, mean) - mean) / sd)[:, None])
        syn.append(((np.where(np.isnan(xs), mean, xs) - mean) / sd)[:, None])
        if not known.all():
            obs.append((~known).astype(float)[:, None])
            syn.append(np.isnan(xs).astype(float)[:, None])
    n_obs = len(features[0].observed) if features else 0
    n_syn = len(features[0].synthetic) if features else 0
    return _stack(obs, n_obs), _stack(syn, n_syn)


def _one_hot(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    index = {v: i for i, v in enumerate(levels)}
    out = np.zeros((len(values), len(levels)))
    rows = np.array([index.get(v, -1) for v in values])
    known = rows >= 0
    out[np.flatnonzero(known), rows[known]] = 1.0
    return out


def _lookup(levels: np.ndarray, rank: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The code of each value; NaN for a category the model never saw."""
    index = {v: r for v, r in zip(levels, rank, strict=True)}
    return np.array([index.get(v, np.nan) for v in values], dtype=float)


def _stack(parts: list[np.ndarray], n: int) -> np.ndarray:
    return np.hstack(parts) if parts else np.zeros((n, 0))


__all__ = ["MAX_ONE_HOT", "Feature", "linear_design", "tree_design"]
