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

__all__ = ["formal_release", "mdav", "separate_microaggregation"]


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


def mdav(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0,
    standardise: bool = True,
) -> pd.DataFrame:
    """Joint microaggregation by MDAV, as sdcMicro's ``microaggregation(method="mdav")``
    (PROTECTION.md §3.6; FIXTURES.md §5.3).

    All listed columns are grouped together: while at least ``3k`` records remain, take the
    centroid ``c`` of the remaining records, the record ``r`` farthest from ``c`` and the record
    ``s`` farthest from ``r``; ``r`` and its ``k - 1`` nearest remaining records form a group and
    are removed, then ``s`` and its ``k - 1`` nearest remaining records. If ``2k`` to ``3k - 1``
    records are left, the one farthest from their centroid and its ``k - 1`` nearest form a group
    and the rest the last one; ``k`` to ``2k - 1`` left records form the last group. So every group
    has ``k`` to ``2k - 1`` records. Each record's values are then replaced, in every listed
    column, by its group's means of the original (unstandardised) values.

    Distances are squared Euclidean on z-scores when ``standardise`` (the default), on the raw
    values otherwise. The z-scores use the sample standard deviation (``n - 1``, R's ``scale()``,
    which sdcMicro uses); the population SD only rescales every column by the same factor and gives
    the same groups. Constant columns are centred but not scaled (they add nothing to distances).
    Ties in "farthest" and "nearest" are broken by a seeded random key per record (PROTECTION.md
    §3.1), never by row position; with no ties the groups do not depend on the row order or seed.

    Records with a missing value in a listed column are rejected (a record cannot be grouped
    jointly on part of its values, and leaving it out would publish its other values unchanged).
    ``k >= 2`` is accepted to reproduce sdcMicro's fixtures; the handbook minimum is 3 (§3).
    The listed columns become float; all other columns and the row order are unchanged.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise InputError(f"group size k must be an integer >= 2, got {k!r}")
    columns = list(columns)
    if not columns:
        raise InputError("MDAV needs at least one column")
    if len(set(columns)) != len(columns):
        raise InputError("each column may be microaggregated only once")
    x = np.column_stack([_numeric_values(data, column) for column in columns])
    missing = np.isnan(x)
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise InputError("joint microaggregation (MDAV) needs complete records; impute or drop "
                         "missing values first", column=columns[col], row=int(row) + 1)
    n = x.shape[0]
    if 0 < n < k:
        raise InputError(f"only {n} records, fewer than the group size {k}")

    result = data.copy()
    if n == 0:
        for column in columns:
            result[column] = result[column].astype("float64")
        return result
    z = x
    if standardise:
        sd = x.std(axis=0, ddof=1) if n > 1 else np.zeros(x.shape[1])
        sd[~(sd > 0)] = 1.0
        z = (x - x.mean(axis=0)) / sd
    tiebreak = np.random.default_rng(np.random.SeedSequence(seed)).random(n)

    group = _mdav_groups(z, int(k), tiebreak)
    sizes = np.bincount(group)
    for j, column in enumerate(columns):
        means = np.bincount(group, weights=x[:, j], minlength=sizes.size) / sizes
        result[column] = means[group]
    return result


def _mdav_groups(z: np.ndarray, k: int, tiebreak: np.ndarray) -> np.ndarray:
    """MDAV group label of every row of ``z`` (n × p, finite); see :func:`mdav`."""
    n = z.shape[0]
    group = np.full(n, -1, dtype=np.int64)
    # Rows still ungrouped, with their points (p × m, one contiguous row per column: distances
    # then accumulate column by column, fast and in a fixed order) and tiebreak keys alongside.
    rows = np.arange(n)
    points = np.ascontiguousarray(z.T)
    keys = tiebreak
    label = 0

    def distances(reference: np.ndarray) -> np.ndarray:
        d = np.square(points[0] - reference[0])
        for j in range(1, points.shape[0]):
            d += np.square(points[j] - reference[j])
        return d

    def farthest(reference: np.ndarray) -> int:
        """Position (in ``rows``) of the remaining record farthest from ``reference``."""
        d = distances(reference)
        ties = np.flatnonzero(d == d.max())
        return int(ties[np.argmax(keys[ties])])

    def take_group(centre: int) -> None:
        """Group the record at position ``centre`` with its k − 1 nearest remaining records."""
        nonlocal rows, points, keys, label
        d = distances(points[:, centre])
        d[centre] = -1.0                           # the centre itself always belongs
        kth = np.partition(d, k - 1)[k - 1]
        chosen = d < kth
        ties = np.flatnonzero(d == kth)
        need = k - int(chosen.sum())
        chosen[ties[np.argsort(keys[ties], kind="stable")[:need]]] = True
        group[rows[chosen]] = label
        label += 1
        keep = ~chosen
        rows, points, keys = rows[keep], points[:, keep], keys[keep]

    while rows.size >= 3 * k:
        r = farthest(points.mean(axis=1))
        r_point = points[:, r].copy()
        take_group(r)
        take_group(farthest(r_point))
    if rows.size >= 2 * k:
        take_group(farthest(points.mean(axis=1)))
    if rows.size:
        group[rows] = label
    return group
