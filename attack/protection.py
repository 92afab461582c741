"""Protection methods that turn an original file into a candidate release (PROTECTION.md).

One public function per method. Each returns a new frame and leaves its input untouched. The
``unit_id`` column is kept as hidden provenance (METHOD.md §2); separating it from what the
intruder sees is the caller's job.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.errors import InputError

__all__ = ["formal_release", "separate_microaggregation"]


def formal_release(
    original: pd.DataFrame, seed: int, identifiers: Sequence[str] = ()
) -> pd.DataFrame:
    """FORMAL release: direct identifiers dropped, rows seeded-shuffled (PROTECTION.md §0).

    Every other column, including ``unit_id``, is kept unchanged; the index is reset.
    """
    missing = [name for name in identifiers if name not in original.columns]
    if missing:
        raise InputError("identifier column not found in the original", column=missing[0])
    order = np.random.default_rng(np.random.SeedSequence(seed)).permutation(len(original))
    return original.drop(columns=list(identifiers)).iloc[order].reset_index(drop=True)


def _numeric_values(data: pd.DataFrame, column: str) -> np.ndarray:
    """Column as float64 with NaN for missing; rejects non-numeric, boolean and infinite data."""
    if column not in data.columns:
        raise InputError("column not found", column=column)
    series = data[column]
    if not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        raise InputError(f"microaggregation needs a numeric column, got dtype {series.dtype}",
                         column=column)
    values = series.to_numpy(dtype="float64", na_value=np.nan)
    if np.isinf(values).any():
        raise InputError("infinite values cannot be microaggregated", column=column,
                         row=int(np.flatnonzero(np.isinf(values))[0]) + 1)
    return values


def separate_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0
) -> pd.DataFrame:
    """Separate (univariate) microaggregation, handbook production rule (PROTECTION.md §3.1-3.2).

    For each column on its own: sort the non-missing values descending (ties broken by a seeded
    random key per unit), cut into consecutive groups of ``k`` with the ``n mod k`` remainder added
    to the last (smallest) group, and replace every value by its group mean. Missing values stay
    missing; the listed columns become float, all others and the row order are unchanged.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 3:
        raise InputError(f"group size k must be an integer >= 3, got {k!r}")
    if len(set(columns)) != len(columns):
        raise InputError("each column may be microaggregated only once")
    values = {column: _numeric_values(data, column) for column in columns}
    tiebreak = np.random.default_rng(np.random.SeedSequence(seed)).random(len(data))

    result = data.copy()
    for column, x in values.items():
        rows = np.flatnonzero(~np.isnan(x))
        n = rows.size
        if 0 < n < k:
            raise InputError(f"only {n} non-missing values, fewer than the group size {k}",
                             column=column)
        order = rows[np.lexsort((tiebreak[rows], -x[rows]))]
        group = np.minimum(np.arange(n) // k, n // k - 1)
        means = np.bincount(group, weights=x[order]) / np.bincount(group)
        out = x.copy()
        out[order] = means[group]
        result[column] = out
    return result
