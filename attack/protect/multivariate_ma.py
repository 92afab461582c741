"""Joint microaggregation by sdcMicro's ``pca`` and ``rmd`` methods (docs/method/protection.md).

Both group all listed columns together and replace every value by its group's mean, like
``attack.protect.microaggregation.mdav``; they differ in how the groups are formed:

* ``pca``: the records sorted by their score on the first principal component of the
  standardised columns, consecutive groups of ``k`` with the remainder in the last group;
* ``rmd``: repeatedly the remaining record with the largest robust Mahalanobis distance (from a
  minimum covariance determinant estimate of location and scatter) and its ``k − 1`` nearest
  remaining records (Euclidean on the standardised columns) form a group; the last
  ``k`` to ``2k − 1`` records form the last group.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.protect.microaggregation import (
    GROUP_SIZE_SDCMICRO,
    SDCMICRO_MIN_K,
    _check_size,
    _complete_matrix,
    _consecutive_groups,
    _distinct,
    _tiebreak,
    _with_group_means,
)
from attack.protect.registry import protection_method

__all__ = ["pca_microaggregation", "rmd_microaggregation"]


def _scaled(x: np.ndarray) -> np.ndarray:
    """Columns centred and divided by their sample SD (R's ``scale``); constant columns centred only."""
    sd = x.std(axis=0, ddof=1) if x.shape[0] > 1 else np.zeros(x.shape[1])
    sd[~(sd > 0)] = 1.0
    return (x - x.mean(axis=0)) / sd


def _prepared(data: pd.DataFrame, columns: Sequence[str], k: int, method: str) -> tuple[list[str], np.ndarray, int]:
    k = _check_size(k, "k", SDCMICRO_MIN_K)
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, method)
    if 0 < x.shape[0] < k:
        raise InputError(f"only {x.shape[0]} records, fewer than the group size {k}")
    return columns, x, k


def first_component_scores(z: np.ndarray) -> np.ndarray:
    """Scores of the rows of ``z`` on its first principal component, the loading vector's
    largest entry (in absolute value, the first of equal ones) made positive so that the order
    does not depend on the eigensolver's sign."""
    centred = z - z.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred)
    loading = vectors[:, -1]
    if loading[np.argmax(np.abs(loading))] < 0:
        loading = -loading
    return centred @ loading


@protection_method(
    "pca-ma", family="microaggregation",
    summary="joint MA of consecutive records in the order of the first principal component (sdcMicro pca)",
    params={"k": GROUP_SIZE_SDCMICRO})
def pca_microaggregation(data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0) -> pd.DataFrame:
    """Joint microaggregation in the order of the first principal component, as sdcMicro's
    ``microaggregation(method="pca")``: standardise the columns, sort the records by their
    first-component score (ties by a seeded random key), groups of ``k`` consecutive records
    with the remainder in the last group, every listed column replaced by its group means."""
    columns, x, k = _prepared(data, columns, k, "pca microaggregation")
    n = x.shape[0]
    group = np.zeros(n, dtype=np.int64)
    if n:
        order = np.lexsort((_tiebreak(seed, n), first_component_scores(_scaled(x))))
        group[order] = _consecutive_groups(n, k)
    return _with_group_means(data, columns, x, group)


@protection_method(
    "rmd-ma", family="microaggregation",
    summary="joint MA around the records with the largest robust Mahalanobis distance (sdcMicro rmd)",
    params={"k": GROUP_SIZE_SDCMICRO})
def rmd_microaggregation(data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0) -> pd.DataFrame:
    """Joint microaggregation around robust outliers, as sdcMicro's ``microaggregation(method="rmd")``.

    The columns are standardised; the squared robust Mahalanobis distance of every record comes
    from scikit-learn's minimum covariance determinant estimate (``MinCovDet`` with
    ``random_state=seed``; sdcMicro uses robustbase's ``covMcd``, whose reweighting differs in
    detail). ``⌊n/k⌋ − 1`` times, the remaining record with the largest robust distance and its
    ``k − 1`` nearest remaining records form a group (ties by a seeded random key; the record
    itself comes first among those at distance 0); the rest is the last group. Takes
    ``O(n²/k)`` distance evaluations."""
    from sklearn.covariance import MinCovDet

    columns, x, k = _prepared(data, columns, k, "rmd microaggregation")
    n = x.shape[0]
    group = np.zeros(n, dtype=np.int64)
    if n >= 2 * k:
        z = _scaled(x)
        try:
            robust = MinCovDet(random_state=seed).fit(z).mahalanobis(z)
        except ValueError as exc:
            raise InputError(f"rmd microaggregation: no robust covariance estimate ({exc})") from None
        tiebreak = _tiebreak(seed, n)
        remaining = np.ones(n, dtype=bool)
        for label in range(n // k - 1):
            candidates = np.flatnonzero(remaining)
            centre = candidates[np.lexsort((-tiebreak[candidates], robust[candidates]))[-1]]
            distance = ((z[candidates] - z[centre]) ** 2).sum(axis=1)
            nearest = candidates[np.lexsort((tiebreak[candidates], candidates != centre, distance))[:k]]
            group[nearest] = label
            remaining[nearest] = False
        group[remaining] = n // k - 1
    return _with_group_means(data, columns, x, group)
