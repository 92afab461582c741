"""Microaggregation: units grouped, values replaced by group statistics (docs/method/protection.md).

One public function per method; each returns a new frame with the listed columns as float and
leaves its input, all other columns and the row order untouched (values are written back to
their original rows). Diagnostics a caller may want to log come from companion functions that
recompute them from the same input: ``separate_group_sizes``, ``hoehne_size_search``,
``correlation_groups`` and ``punctual_unprotectable_cells``.

Sorting and ties follow docs/method/protection.md: a seeded random key per unit (never the row
position) breaks ties, so with the same seed the result does not depend on the row order
wherever the values themselves do not tie.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.protect.mdav_index import mdav_groups
from attack.protect.registry import REQUIRED, Param, protection_method
from attack.protect.validated import validated

__all__ = [
    "GroupSizes",
    "SizeSearch",
    "bootstrap_microaggregation",
    "correlation_groups",
    "grouped_microaggregation",
    "grouped_step",
    "hoehne_joint_microaggregation",
    "hoehne_microaggregation",
    "hoehne_size_search",
    "mdav",
    "punctual_microaggregation",
    "punctual_unprotectable_cells",
    "random_microaggregation",
    "separate_group_sizes",
    "separate_microaggregation",
]


HANDBOOK_MIN_K = 3
"""Smallest group size of the handbook's production rules (§3)."""
SDCMICRO_MIN_K = 2
"""Smallest group size of the joint methods that reproduce sdcMicro's examples (groups of two)."""
GROUP_SIZE = Param("int", 3, help="group size", ge=HANDBOOK_MIN_K)
GROUP_SIZE_SDCMICRO = Param("int", 3, help="group size", ge=SDCMICRO_MIN_K)

# --- shared input handling ------------------------------------------------------------------------


def _check_size(value: object, name: str, minimum: int) -> int:
    """``value`` as an int >= ``minimum``; bools, floats and strings are rejected."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"group size {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _distinct(columns: Sequence[str]) -> list[str]:
    columns = list(columns)
    if len(set(columns)) != len(columns):
        raise InputError("each column may be microaggregated only once")
    return columns


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


def _complete_matrix(data: pd.DataFrame, columns: list[str], method: str) -> np.ndarray:
    """n × p matrix of the listed columns for a joint method, which needs complete records
    (a record cannot be grouped on part of its values, and leaving it out would publish its
    other values unchanged)."""
    if not columns:
        raise InputError(f"{method} needs at least one column")
    x = np.column_stack([_numeric_values(data, column) for column in columns])
    missing = np.isnan(x)
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise InputError(f"{method} needs complete records; impute or drop missing values first",
                         column=columns[col], row=int(row) + 1)
    return x


def _tiebreak(seed: int, n: int) -> np.ndarray:
    """The seeded random tiebreak key of every row (docs/method/protection.md)."""
    return np.random.default_rng(np.random.SeedSequence(seed)).random(n)


def _with_group_means(data: pd.DataFrame, columns: list[str], x: np.ndarray,
                      group: np.ndarray) -> pd.DataFrame:
    """Copy of ``data`` whose listed columns (values ``x``, n × p) hold their group means."""
    result = data.copy()
    if x.shape[0] == 0:
        for column in columns:
            result[column] = result[column].astype("float64")
        return result
    sizes = np.bincount(group)
    for j, column in enumerate(columns):
        result[column] = (np.bincount(group, weights=x[:, j], minlength=sizes.size) / sizes)[group]
    return result


def _consecutive_groups(n: int, k: int) -> np.ndarray:
    """Group label of each of ``n`` ordered positions: groups of ``k``, the ``n mod k``
    remainder joining the last group (docs/method/protection.md)."""
    return np.minimum(np.arange(n) // k, max(n // k - 1, 0))


@dataclass(frozen=True)
class GroupSizes:
    """How many groups of each size one grouping produced."""

    variables: tuple[str, ...]
    counts: dict[int, int]

    def to_dict(self) -> dict:
        return {
            "variables": list(self.variables),
            "groups": sum(self.counts.values()),
            "units": sum(size * count for size, count in self.counts.items()),
            "sizes": {str(size): count for size, count in sorted(self.counts.items())},
        }


def _size_counts(sizes: np.ndarray) -> dict[int, int]:
    values, counts = np.unique(sizes, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


# --- separate microaggregation -------------------------------------------------------


def _gap_group_sizes(values: list[float], k: int, min_gap: float, k_max: int) -> list[int]:
    """Group sizes along descending ``values`` under the minimum-gap rule (docs/method/protection.md).

    A group grows while the relative distance between its mean and the mean of the next ``k``
    values is below ``min_gap`` (undefined, hence too small, for a zero mean) and it has fewer
    than ``k_max`` members; a tail of fewer than ``k`` values joins the group before it.
    """
    n = len(values)
    sizes = []
    start = 0
    while start < n:
        end = start + k                      # exclusive end of the tentative group
        total = sum(values[start:end])
        while True:
            if n - end < k:
                end = n
                break
            size = end - start
            current = total / size
            following = sum(values[end:end + k]) / k
            if current != 0 and abs(current - following) / abs(current) >= min_gap:
                break
            if size >= k_max:
                break
            total += values[end]
            end += 1
        sizes.append(end - start)
        start = end
    return sizes


def _separate_plan(
    data: pd.DataFrame, columns: Sequence[str], k: int, seed: int, min_gap: float | None,
    k_max: int | None,
) -> Iterator[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Per column: its values, the rows in descending order and the group of each position."""
    k = _check_size(k, "k", HANDBOOK_MIN_K)
    if min_gap is not None and (isinstance(min_gap, bool) or not isinstance(min_gap, Real)
                                or not 0 <= min_gap < math.inf):
        raise InputError(f"min_gap must be a finite number >= 0, got {min_gap!r}")
    if k_max is not None:
        k_max = _check_size(k_max, "k_max", k)
    columns = _distinct(columns)
    values = {column: _numeric_values(data, column) for column in columns}
    tiebreak = _tiebreak(seed, len(data))
    for column, x in values.items():
        rows = np.flatnonzero(~np.isnan(x))
        n = rows.size
        if 0 < n < k:
            raise InputError(f"only {n} non-missing values, fewer than the group size {k}",
                             column=column)
        order = rows[np.lexsort((tiebreak[rows], -x[rows]))]
        if not min_gap:                         # no gap to enforce: the production rule
            group = _consecutive_groups(n, k)
        else:
            sizes = _gap_group_sizes(x[order].tolist(), k, float(min_gap), k_max or n)
            group = np.repeat(np.arange(len(sizes)), sizes)
        yield column, x, order, group


@protection_method(
    "separate-ma", family="microaggregation",
    summary="each variable separately, groups of k, last group k..2k-1",
    params={"k": GROUP_SIZE, "min_gap": Param("float", 0.0, help="minimum relative gap between group means", ge=0)})
def separate_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0,
    min_gap: float | None = None, k_max: int | None = None,
) -> pd.DataFrame:
    """Separate (univariate) microaggregation, handbook production rule (docs/method/protection.md).

    For each column on its own: sort the non-missing values descending (ties broken by a seeded
    random key per unit), cut into consecutive groups of ``k`` with the ``n mod k`` remainder
    added to the last (smallest) group, and replace every value by its group mean (MA33G).

    With ``min_gap`` = g (e.g. 0.07 or 0.15 for MA33G_7p / _15p) a group is enlarged, one value
    at a time, until its mean differs from the mean of the next ``k`` values by at least g
    relative to its own mean, or it reaches ``k_max`` members (default: no cap); a tail of fewer
    than ``k`` values joins the last group. ``min_gap=0`` gives the production rule. The group
    sizes are reported by ``separate_group_sizes``.

    Missing values stay missing; the listed columns become float.
    """
    result = data.copy()
    for column, x, order, group in _separate_plan(data, columns, k, seed, min_gap, k_max):
        out = x.copy()
        if order.size:
            out[order] = (np.bincount(group, weights=x[order]) / np.bincount(group))[group]
        result[column] = out
    return result


def separate_group_sizes(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0,
    min_gap: float | None = None, k_max: int | None = None,
) -> list[GroupSizes]:
    """Group-size distribution, per column, of ``separate_microaggregation`` with the same
    arguments (docs/method/protection.md: "report the resulting group-size distribution")."""
    return [GroupSizes((column,), _size_counts(np.bincount(group)))
            for column, _, _, group in _separate_plan(data, columns, k, seed, min_gap, k_max)]


# --- Höhne variance-preserving one-dimensional microaggregation ----------------------------

_REMAINDERS = ("merge_last", "own_group")


def _partition(n: int, m: int, remainder: str) -> np.ndarray:
    """Group sizes of ``n`` sorted values cut into groups of ``m``; the ``n mod m`` remainder
    joins the last group or forms its own (Höhne (2008), step 2)."""
    full, rest = divmod(n, m)
    if full == 0:
        return np.array([n])
    sizes = np.full(full, m)
    if rest and remainder == "own_group":
        return np.append(sizes, rest)
    sizes[-1] += rest
    return sizes


def _group_moments(x: np.ndarray, label: np.ndarray,
                   sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of every group."""
    mean = np.bincount(label, weights=x, minlength=sizes.size) / sizes
    variance = np.bincount(label, weights=np.square(x - mean[label]), minlength=sizes.size) / sizes
    return mean, variance


def _bigger_share(sizes: np.ndarray) -> np.ndarray:
    """b = rint(n_g / 2) (half to even), at least 1: the size of each "bigger values" subgroup."""
    return np.maximum(np.rint(sizes / 2), 1)


def _spread(x: np.ndarray, label: np.ndarray, sizes: np.ndarray, is_big: np.ndarray,
            up: np.ndarray, down: np.ndarray) -> np.ndarray:
    """Höhne's replacement: μ_g + up_g·σ_g for the bigger subgroup, μ_g − down_g·σ_g for the
    rest (μ, σ: group mean and population SD)."""
    mean, variance = _group_moments(x, label, sizes)
    sd = np.sqrt(variance)
    return np.where(is_big, (mean + up * sd)[label], (mean - down * sd)[label])


def _preserving_factors(sizes: np.ndarray, bigger: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """√((n_g − b)/b) and √(b/(n_g − b)) (0 without a smaller subgroup): these keep each
    group's mean and population variance."""
    smaller = sizes - bigger
    down = np.sqrt(np.divide(bigger, smaller, out=np.zeros_like(bigger), where=smaller > 0))
    return np.sqrt(smaller / bigger), down


@dataclass(frozen=True)
class SizeSearch:
    """Höhne's group-size search for one column (Höhne (2008), docs/method/protection.md)."""

    column: str
    sizes: tuple[int, ...]
    variance_sums: tuple[float, ...]            # Σ_g σ_g² (the criterion)
    weighted_variance_sums: tuple[float, ...]   # Σ_g n_g σ_g² (within-group sum of squares)
    chosen: int

    def to_dict(self) -> dict:
        return {"column": self.column, "sizes": list(self.sizes),
                "variance_sums": list(self.variance_sums),
                "weighted_variance_sums": list(self.weighted_variance_sums),
                "chosen": self.chosen}


def _size_search(column: str, x_sorted: np.ndarray, m: int, remainder: str) -> SizeSearch:
    sizes, sums, weighted = [], [], []
    best, chosen = math.inf, m
    for size in range(m, 2 * m):
        if size > x_sorted.size:
            break
        groups = _partition(x_sorted.size, size, remainder)
        _, variance = _group_moments(x_sorted, np.repeat(np.arange(groups.size), groups), groups)
        total = math.fsum(variance)
        sizes.append(size)
        sums.append(total)
        weighted.append(math.fsum(groups * variance))
        if total < best:                       # strictly smaller: ties keep the smaller size
            best, chosen = total, size
    return SizeSearch(column, tuple(sizes), tuple(sums), tuple(weighted), chosen)


def _hoehne_checks(data: pd.DataFrame, columns: Sequence[str], m: int,
                   remainder: str) -> tuple[int, dict[str, np.ndarray]]:
    m = _check_size(m, "m", HANDBOOK_MIN_K)
    if remainder not in _REMAINDERS:
        raise InputError(f"remainder must be one of {', '.join(_REMAINDERS)}, got {remainder!r}")
    columns = _distinct(columns)
    values = {column: _numeric_values(data, column) for column in columns}
    for column, x in values.items():
        n = int((~np.isnan(x)).sum())
        if 0 < n < m:
            raise InputError(f"only {n} non-missing values, fewer than the group size {m}",
                             column=column)
    return m, values


def hoehne_size_search(
    data: pd.DataFrame, columns: Sequence[str], m: int = 3, remainder: str = "merge_last",
) -> list[SizeSearch]:
    """Höhne's variable group size, per column: for every size in [m, 2m − 1] the unweighted sum
    of the groups' population variances (and, for information, the sum weighted by group size);
    the chosen size is the first strict minimum (docs/method/protection.md; docs/reference/worked-examples.md F-MA-001d).
    The partition uses the given remainder policy, as the microaggregation itself does.
    """
    m, values = _hoehne_checks(data, columns, m, remainder)
    return [_size_search(column, np.sort(x[~np.isnan(x)])[::-1], m, remainder)
            for column, x in values.items()]


@validated
@protection_method(
    "hoehne-ma", family="microaggregation", summary="Höhne's variance-preserving one-dimensional MA (Höhne (2008))",
    params={"m": Param("int", 3, help="(initial) group size", ge=HANDBOOK_MIN_K),
            "variable_size": Param("bool", False, help="search the size in [m, 2m-1]"),
            "variant": Param("str", "hoehne", ("hoehne", "documented")),
            "remainder": Param("str", None, ("merge_last", "own_group"),
                               "default: merge_last, own_group for the documented variant")})
def hoehne_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], m: int = 3, variable_size: bool = False,
    variant: str = "hoehne", remainder: str | None = None, legacy_shuffle: bool = False,
    seed: int = 0,
) -> pd.DataFrame:
    """Höhne's variance-preserving one-dimensional microaggregation (Höhne (2008); Höhne 2008;
    docs/method/protection.md; worked example 5.1 (docs/reference/worked-examples.md)).

    Per column: sort the non-missing values descending (seeded tiebreak), cut into groups of
    ``m`` (with ``variable_size``, the size in [m, 2m − 1] chosen by ``hoehne_size_search``),
    and split each group of n_g values with mean μ and population SD σ into its b = rint(n_g/2)
    largest values (half to even; b = 1 for a single value), which become μ + √((n_g − b)/b)·σ,
    and the rest, which become μ − √(b/(n_g − b))·σ. This keeps every group's mean and population
    variance. ``remainder``: ``"merge_last"`` (default) adds the ``n mod m`` remainder to the
    last group; ``"own_group"`` keeps it as a smaller group of its own (as Höhne (2008)).

    ``variant="documented"`` reproduces the documented Java output (F-MA-001a): integer division
    with the nominal ``m`` inside the roots, √((m − b) div b) and √(b div (m − b)); it preserves
    neither mean nor variance and implies ``remainder="own_group"``. ``legacy_shuffle`` then
    permutes each column's released values over its non-missing rows, as the documentation does;
    by default values go back to their own rows and the release-wide row shuffle applies.
    """
    if remainder is None:
        remainder = "own_group" if variant == "documented" else "merge_last"
    elif variant == "documented" and remainder != "own_group":
        raise InputError("the documented variant keeps the remainder as its own group; "
                         "use remainder='own_group'")
    m, values = _hoehne_checks(data, columns, m, remainder)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    tiebreak = rng.random(len(data))
    result = data.copy()
    for column, x in values.items():
        rows = np.flatnonzero(~np.isnan(x))
        order = rows[np.lexsort((tiebreak[rows], -x[rows]))]
        x_sorted = x[order]
        size = m
        if variable_size and order.size:
            size = _size_search(column, x_sorted, m, remainder).chosen
        out = x.copy()
        if order.size:
            sizes = _partition(order.size, size, remainder)
            label = np.repeat(np.arange(sizes.size), sizes)
            bigger = _bigger_share(sizes)
            if variant == "documented":
                up = np.sqrt((size - bigger) // bigger)
                down = np.sqrt(bigger // (size - bigger))
            else:
                up, down = _preserving_factors(sizes, bigger)
            is_big = np.arange(order.size) - (np.cumsum(sizes) - sizes)[label] < bigger[label]
            out[order] = _spread(x_sorted, label, sizes, is_big, up, down)
            if legacy_shuffle:
                out[order] = out[order][rng.permutation(order.size)]
        result[column] = out
    return result


# --- joint microaggregation by MDAV --------------------------------------------------------


@protection_method(
    "mdav", family="microaggregation", summary="joint MA of all listed variables by MDAV on z-scores, as sdcMicro",
    params={"k": GROUP_SIZE_SDCMICRO})
def mdav(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0,
    standardise: bool = True,
) -> pd.DataFrame:
    """Joint microaggregation by MDAV, as sdcMicro's ``microaggregation(method="mdav")``
    (docs/method/protection.md; worked example 5.3 (docs/reference/worked-examples.md)).

    All listed columns are grouped together: while at least ``3k`` records remain, take the
    centroid ``c`` of the remaining records, the record ``r`` farthest from ``c``; ``r`` and its
    ``k - 1`` nearest remaining records form a group and are removed; then the record ``s``
    farthest from ``r`` among those left and its ``k - 1`` nearest form the next. If ``2k`` to
    ``3k - 1`` records are left, the one farthest from their centroid and its ``k - 1`` nearest
    form a group and the rest the last one; ``k`` to ``2k - 1`` left records form the last group.
    So every group has ``k`` to ``2k - 1`` records. Each record's values are then replaced, in
    every listed column, by its group's means of the original (unstandardised) values.

    Distances are squared Euclidean on z-scores when ``standardise`` (the default), on the raw
    values otherwise. The z-scores use the population standard deviation, as sdcMicro, which
    weights squared differences by 1 / population variance; constant columns are centred only.
    The centroid is the correctly rounded column sum divided by the count, so it does not depend
    on the order of the records. Ties in "farthest" and "nearest" are broken by a seeded random
    key per record (docs/method/protection.md), never by row position; with no ties the groups do not
    depend on the row order or seed.

    Agreement with sdcMicro (``src/Mdav.h``, function ``Mdav``, called by ``R/mdav.R`` from
    ``micro_mdav`` in ``R/microaggregation.R``): same loop, group sizes, weights and means.
    sdcMicro differs only where distances tie or nearly tie: it accumulates distances in single
    precision (``TDist`` is ``float``), takes the first record in row order among equally far
    ones and, among equally near ones, the later rows first; it picks ``s`` before removing
    ``r``'s group (the same record unless distances tie). For a single column sdcMicro's
    ``microaggregation()`` ignores ``method`` and runs ``mafast`` (sorted consecutive groups).
    A port of ``Mdav`` (in the tests) gives the same groups as this function on sdcMicro's
    CASCrefmicrodata and Tarragona data; R itself was not run.

    Records with a missing value in a listed column are rejected. ``k >= 2`` is accepted to
    reproduce sdcMicro's fixtures; the handbook minimum is 3 (§3). The searches use an exact
    compiled index (``attack.protect.mdav_index``): the groups are those of the direct
    O(n²/k) scan, found faster.
    """
    k = _check_size(k, "k", SDCMICRO_MIN_K)
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "joint microaggregation (MDAV)")
    n = x.shape[0]
    if 0 < n < k:
        raise InputError(f"only {n} records, fewer than the group size {k}")
    group = np.zeros(n, dtype=np.int64)
    if n:
        z = _standardised(x) if standardise else x
        group = _mdav_groups(z, k, _tiebreak(seed, n))
    return _with_group_means(data, columns, x, group)


def _standardised(x: np.ndarray) -> np.ndarray:
    """z-scores with the population SD; constant columns are centred but not scaled. Columns
    whose squares overflow (values beyond about 1e154) are first divided by their largest
    absolute value."""
    with np.errstate(over="ignore"):
        sd = x.std(axis=0)
    huge = ~np.isfinite(sd)
    if huge.any():
        x = x.copy()
        x[:, huge] /= np.abs(x[:, huge]).max(axis=0)
        sd[huge] = x[:, huge].std(axis=0)
    sd[~(sd > 0)] = 1.0
    return (x - x.mean(axis=0)) / sd


def _mdav_groups(z: np.ndarray, k: int, tiebreak: np.ndarray) -> np.ndarray:
    """MDAV group label of every row of ``z`` (n × p, finite); see ``mdav``."""
    if np.abs(z).max(initial=0.0) >= 1e150:
        raise InputError("values of 1e150 or more (after standardising) cannot be grouped by "
                         "MDAV: their squared distances overflow; rescale the columns")
    return mdav_groups(z, k, tiebreak)


def hoehne_joint_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], k: int = 4, seed: int = 0,
) -> pd.DataFrame:
    """Höhne's variance-preserving joint microaggregation, MA1G_var (docs/method/protection.md).

    Units are grouped jointly by MDAV (``mdav``'s groups, ``k`` to ``2k − 1`` units, default
    4). Within each group the units are ranked by their score on the first principal component
    of the z-scored columns (oriented so that its loadings sum to a positive number; ties: seeded
    key); the b = rint(n_g/2) highest become μ + √((n_g − b)/b)·σ and the others
    μ − √(b/(n_g − b))·σ in every column (groups of four: μ ± σ). Each group keeps its mean and
    population variance per column. [Proposal] for the ranking, as the handbook only asks to
    keep the correlations as well as possible.
    """
    k = _check_size(k, "k", HANDBOOK_MIN_K)
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "joint Höhne microaggregation")
    n = x.shape[0]
    if 0 < n < k:
        raise InputError(f"only {n} records, fewer than the group size {k}")
    result = data.copy()
    if n == 0:
        return _with_group_means(data, columns, x, np.zeros(0, dtype=np.int64))
    z = _standardised(x)
    tiebreak = _tiebreak(seed, n)
    label = _mdav_groups(z, k, tiebreak)
    loading = np.linalg.eigh(z.T @ z)[1][:, -1]
    if loading.sum() < 0 or (loading.sum() == 0 and loading[np.flatnonzero(loading)[0]] < 0):
        loading = -loading
    order = np.lexsort((tiebreak, z @ loading, label))   # by group, then ascending score
    sizes = np.bincount(label)
    bigger = _bigger_share(sizes)
    up, down = _preserving_factors(sizes, bigger)
    rank = np.arange(n) - (np.cumsum(sizes) - sizes)[label[order]]
    is_big = np.empty(n, dtype=bool)
    is_big[order] = rank >= (sizes - bigger)[label[order]]
    for j, column in enumerate(columns):
        result[column] = _spread(x[:, j], label, sizes, is_big, up, down)
    return result


# --- grouped (partially joint) microaggregation --------------------------------------------


def correlation_groups(data: pd.DataFrame, columns: Sequence[str]) -> list[list[str]]:
    """Variable groups of MA11G (docs/method/protection.md, [Proposal] rule).

    While at least six variables are left: take the pair with the largest Pearson correlation,
    add the variable with the largest sum of correlations with both, and remove the triple. The
    last three to five variables form the last group. Ties go to the earlier listed column; an
    undefined correlation (a constant column) counts as the lowest.
    """
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "grouped microaggregation")
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.atleast_2d(np.corrcoef(x, rowvar=False)) if x.shape[0] > 1 else \
            np.full((len(columns),) * 2, np.nan)
    r = np.where(np.isnan(r), -np.inf, r)
    np.fill_diagonal(r, -np.inf)
    left = list(range(len(columns)))
    groups = []
    while len(left) >= 6:
        sub = r[np.ix_(left, left)]
        i, j = np.unravel_index(int(np.argmax(sub)), sub.shape)
        score = sub[i] + sub[j]
        score[[i, j]] = -np.inf
        triple = sorted(left[t] for t in (i, j, int(np.argmax(score))))
        groups.append([columns[t] for t in triple])
        left = [t for t in left if t not in triple]
    if left:
        groups.append([columns[t] for t in left])
    return groups


def grouped_microaggregation(
    data: pd.DataFrame, groups: list[list[str]] | None = None, k: int = 3, seed: int = 0,
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Grouped (partially joint) microaggregation (docs/method/protection.md): each variable group is
    microaggregated jointly by ``mdav`` (z-scores of its own variables, groups of k to
    2k − 1 units), so different variable groups get different unit groupings.

    ``groups``: user-defined variable groups (MA8G, MA10G, MA9G). With ``groups=None`` the
    groups are the correlation triples of ``correlation_groups`` over ``columns`` (MA11G).
    """
    if groups is None:
        if columns is None:
            raise InputError("grouped microaggregation needs either groups or columns")
        groups = correlation_groups(data, columns)
    elif columns is not None:
        raise InputError("give either groups or columns, not both")
    if not groups or any(not group for group in groups):
        raise InputError("grouped microaggregation needs non-empty variable groups")
    _distinct([column for group in groups for column in group])
    result = data
    for group in groups:
        result = mdav(result, group, k=k, seed=seed)
    return result


@protection_method(
    "grouped-ma", family="microaggregation",
    summary="joint MA within variable groups; correlation triples when no groups are given",
    params={"k": GROUP_SIZE_SDCMICRO,
            "groups": Param("list", None, help="groups as a|b|c;d|e, together exactly the listed columns")})
def grouped_step(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, groups: list[str] | list[list[str]] | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """``grouped_microaggregation`` of the listed ``columns`` as ``attack protect`` runs it: in
    the given ``groups`` (one group may be written ``a|b``), which must hold every listed column
    once, or else in correlation triples."""
    if groups is None:
        return grouped_microaggregation(data, k=k, seed=seed, columns=columns)
    single = all(isinstance(group, str) for group in groups)  # one group, written a|b
    nested = [[str(c) for c in groups]] if single else [[str(c) for c in group] for group in groups]
    if sorted(c for group in nested for c in group) != sorted(columns):
        raise InputError("the groups must hold each listed column exactly once, got "
                         f"{';'.join('|'.join(g) for g in nested)} for {', '.join(columns)}")
    return grouped_microaggregation(data, nested, k=k, seed=seed)


# --- stochastic microaggregation -----------------------------------------------------------


@protection_method("random-ma", family="microaggregation", summary="joint MA of random groups (MA1G_stoch)",
                   params={"k": GROUP_SIZE})
def random_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0,
) -> pd.DataFrame:
    """Random joint microaggregation, MA1G_stoch (Lechner & Pohlmeier 2003; docs/method/protection.md):
    complete records in a seeded random order, consecutive groups of ``k`` with the remainder in
    the last group, every listed column replaced by its group means. Overall means are kept."""
    k = _check_size(k, "k", HANDBOOK_MIN_K)
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "random microaggregation")
    n = x.shape[0]
    if 0 < n < k:
        raise InputError(f"only {n} records, fewer than the group size {k}")
    group = np.empty(n, dtype=np.int64)
    group[np.random.default_rng(np.random.SeedSequence(seed)).permutation(n)] = \
        _consecutive_groups(n, k)
    return _with_group_means(data, columns, x, group)


@protection_method("bootstrap-ma", family="microaggregation",
                   summary="each unit averaged with two units drawn with replacement (MA1G_BS)")
def bootstrap_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], k: int = 3, seed: int = 0,
) -> pd.DataFrame:
    """Bootstrap microaggregation, MA1G_BS (docs/method/protection.md): each record becomes the mean of
    itself and ``k − 1`` records drawn with replacement from all records (itself included), the
    same draws for every listed column. Overall means are not kept in general."""
    k = _check_size(k, "k", 2)
    columns = _distinct(columns)
    x = _complete_matrix(data, columns, "bootstrap microaggregation")
    n = x.shape[0]
    draws = np.random.default_rng(np.random.SeedSequence(seed)).integers(0, max(n, 1),
                                                                         size=(n, k - 1))
    total = x.copy()
    for j in range(k - 1):
        total += x[draws[:, j]]
    result = data.copy()
    for j, column in enumerate(columns):
        result[column] = total[:, j] / k
    return result


# --- punctual microaggregation of market leaders ------------------------------------------


def _cells(data: pd.DataFrame, by: Sequence[str]) -> np.ndarray:
    by = list(by)
    missing = [column for column in by if column not in data.columns]
    if missing:
        raise InputError("cell column not found", column=missing[0])
    if not by:
        return np.zeros(len(data), dtype=np.int64)
    return data.groupby(by, dropna=False, sort=True).ngroup().to_numpy()


def _leaders(data: pd.DataFrame, by: Sequence[str], rank_by: str, k: int,
             seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cell of every row, cell sizes (rows with a ranking value) and the mask of the k largest
    ranking values in every cell of at least k such rows (ties: seeded key)."""
    cell = _cells(data, by)
    rank = _numeric_values(data, rank_by)
    ranked = np.flatnonzero(~np.isnan(rank))
    size = np.bincount(cell[ranked], minlength=int(cell.max(initial=-1)) + 1)
    order = ranked[np.lexsort((_tiebreak(seed, len(data))[ranked], -rank[ranked],
                               cell[ranked]))]
    first = np.searchsorted(cell[order], cell[order], side="left")
    leader = np.zeros(len(data), dtype=bool)
    leader[order[(np.arange(order.size) - first < k) & (size[cell[order]] >= k)]] = True
    return cell, size, leader


@protection_method(
    "punctual-ma", family="microaggregation", summary="joint mean of the k market leaders per cell, with a flag",
    params={"by": Param("list", REQUIRED, help="cell variables, e.g. nace|east_west"),
            "rank_by": Param("str", REQUIRED, help="defining variable, e.g. turnover"),
            "k": GROUP_SIZE, "flag": Param("str", "punctual_ma")})
def punctual_microaggregation(
    data: pd.DataFrame, columns: Sequence[str], by: Sequence[str], rank_by: str, k: int = 3,
    flag: str = "punctual_ma", seed: int = 0,
) -> pd.DataFrame:
    """Punctual microaggregation of market leaders (USt/EHS; docs/method/protection.md).

    In every cell of ``by`` (e.g. industry × region) the ``k`` units with the largest
    ``rank_by`` values (ties: seeded key; missing values never lead) form one group; each listed
    column is replaced, for those units, by the mean of their non-missing values. The ``flag``
    column is set to 1 for them (created as 0/1 if absent; an existing flag keeps its ones, so
    several passes can be chained). Cells with fewer than ``k`` ranked units are left unchanged;
    ``punctual_unprotectable_cells`` lists them for the log. To rank by original values while
    averaging the current stage's values, put the original ranking variable in its own column.
    """
    k = _check_size(k, "k", HANDBOOK_MIN_K)
    columns = _distinct(columns)
    values = {column: _numeric_values(data, column) for column in columns}
    cell, _, leader = _leaders(data, by, rank_by, k, seed)
    result = data.copy()
    for column, x in values.items():
        lead = leader & ~np.isnan(x)
        totals = np.bincount(cell[lead], weights=x[lead], minlength=cell.max(initial=-1) + 1)
        counts = np.bincount(cell[lead], minlength=totals.size)
        out = x.copy()
        out[lead] = totals[cell[lead]] / counts[cell[lead]]
        result[column] = out
    if flag in result.columns:
        previous = result[flag].to_numpy()
        if not np.isin(previous, (0, 1)).all():
            raise InputError("an existing flag column must hold only 0 and 1", column=flag)
        leader = leader | (previous == 1)
    result[flag] = leader.astype(np.int64)
    return result


def punctual_unprotectable_cells(
    data: pd.DataFrame, by: Sequence[str], rank_by: str, k: int = 3,
) -> list[dict]:
    """Cells that ``punctual_microaggregation`` leaves unchanged because they hold fewer than
    ``k`` units with a ranking value (docs/method/protection.md [Proposal]): one JSON-ready entry per
    cell, ``{"cell": {column: value}, "units": count}``, in sorted cell order."""
    k = _check_size(k, "k", HANDBOOK_MIN_K)
    cell, size, _ = _leaders(data, by, rank_by, k, 0)
    if not len(data):
        return []
    first_row = np.unique(cell, return_index=True)[1]
    cells = []
    for c, row in enumerate(first_row):
        if size[c] < k:
            key = {column: _plain(data[column].iloc[row]) for column in by}
            cells.append({"cell": key, "units": int(size[c])})
    return cells


def _plain(value: object) -> object:
    """A cell code as a JSON-ready scalar (None for missing)."""
    if pd.isna(value):
        return None
    return value.item() if isinstance(value, np.generic) else value
