"""Data preparation and exact nearest-neighbour search for synthetic-data attacks.

docs/method/synthetic-attacks.md: the preparation (column roles, scaling, categorical coding, metric, missing
rule) is fitted on the **training original** only, applied unchanged to every other file and
recorded (``Preparation.to_dict``) so that a third party can recompute every distance.

Per-column terms ``t_c`` for a pair of values ``a`` (query) and ``b`` (reference):

* numeric, ``euclidean``/``l1``: ``|a − b| / scale_c`` (squared for ``euclidean``); the scale is
  1 for ``scaling="none"`` and for columns whose divisor is 0 (left unscaled and reported);
* numeric, Gower forms: ``|a − b| / range_c`` with the training range, clipped at 1 for
  ``gower_mean`` (SDMetrics) and not clipped for ``gower_sum`` (Anonymeter); a column with zero
  training range uses ``1[a ≠ b]``;
* categorical: 0 when equal, otherwise the mismatch cost — 1 for ``mismatch`` coding, 2 for
  ``dummy`` coding (one-hot: a mismatch adds 2 to an L1 distance and 2 to a squared Euclidean one,
  i.e. √2 to the Euclidean distance).

Row distance: ``euclidean`` = ``sqrt(Σ t_c)``, ``l1`` and ``gower_sum`` = ``Σ t_c``,
``gower_mean`` = ``Σ t_c / p`` over the ``p`` prepared columns, summed in column order.

Missing values (docs/method/synthetic-attacks.md pitfall 6): a missing value against a present one costs the
column's full mismatch — 1 in the Gower forms and for categorical columns under ``mismatch``
(2 under ``dummy``); for a numeric column under ``euclidean``/``l1`` the **missing cost** is the
training range in scaled units, ``range_c / scale_c`` (1 under ``minmax_range``; 1 for a column
with zero range), squared for ``euclidean``. Two missing values cost 0 only with ``na_equal``,
otherwise the same full mismatch. No NaN ever reaches a distance.

Search (``nearest_neighbours``) is exact: the distances are those of the formulas above and
ties go to the lower reference row, as a brute-force scan would give. KD-trees (scipy cKDTree,
p = 2 for ``euclidean``, p = 1 otherwise) propose candidates, whose exact distances are then
computed, and a row's answer is accepted only when a lower bound on the distance of every
record not proposed exceeds it (see ``_TreeSpace``); rows that cannot be certified are
scanned against the full reference in chunks of about ``MEMORY_BUDGET``. The reference is
never subsampled (docs/method/synthetic-attacks.md pitfalls 3–4). The handbook distance (docs/method/linkage.md) is not
offered here: its standardisation is fitted on the pooled files, not on the training original.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from attack.errors import InputError, did_you_mean
from attack.io.columns import is_number
from attack.io.readers import Table, code_column, frame_of, numeric_column, source_name
from attack.synthetic_attacks.choices import METRICS, SCALINGS

CATEGORICAL_MODES: tuple[str, ...] = ("dummy", "mismatch")
GOWER: tuple[str, ...] = ("gower_mean", "gower_sum")

#: Memory budget of one chunk of the exact scan (query block × full reference).
MEMORY_BUDGET = 256 * 2**20
#: Tree candidates per query are raised up to this many before a row falls back to the scan.
MAX_CANDIDATES = 1024
#: Most values of a left-out attribute that stage-1 trees code one-hot.
MAX_ONE_HOT = 32
#: Most trees (choices of free attributes) in one search stage.
MAX_TREES_PER_STAGE = 6
#: Rows left × reference rows below which the exact scan is cheaper than the next stage's trees.
SCAN_PAIRS = 2_000_000
#: A KD-tree over the reference rows of one group and the query points in its coordinates.
_Tree = tuple[cKDTree, np.ndarray]


@dataclass(frozen=True)
class Preparation:
    """Column roles, fitted scaling and distance settings (docs/method/synthetic-attacks.md).

    Per numeric column (in the order of ``numeric``): ``centres`` and ``scales`` of the scaling
    ``(x − centre) / scale``, training ``minima`` and ``maxima``. ``unscaled`` lists numeric
    columns whose divisor was 0 (scale 1 used), ``constant`` those with zero training range.
    ``levels`` holds the training categories of each categorical column.
    """

    columns: tuple[str, ...]
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    scaling: str
    categorical_mode: str
    metric: str
    na_equal: bool
    centres: tuple[float, ...] = ()
    scales: tuple[float, ...] = ()
    minima: tuple[float, ...] = ()
    maxima: tuple[float, ...] = ()
    unscaled: tuple[str, ...] = ()
    constant: tuple[str, ...] = ()
    levels: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    @property
    def ranges(self) -> tuple[float, ...]:
        """Training range ``max − min`` per numeric column."""
        return tuple(hi - lo for lo, hi in zip(self.minima, self.maxima, strict=True))

    @property
    def mismatch_cost(self) -> float:
        """Term of a categorical mismatch (2 under dummy coding, else 1)."""
        return 2.0 if self.categorical_mode == "dummy" else 1.0

    @cached_property
    def missing_costs(self) -> tuple[float, ...]:
        """Term of a numeric column when a value is missing (see the module docstring)."""
        if self.metric in GOWER:
            return tuple(1.0 for _ in self.numeric)
        out = []
        for rng, scale in zip(self.ranges, self.scales, strict=True):
            cost = rng / scale if rng > 0 else 1.0
            out.append(cost * cost if self.metric == "euclidean" else cost)
        return tuple(out)

    @cached_property
    def divisors(self) -> tuple[float, ...]:
        """Divisor of ``|a − b|`` per numeric column: training range (Gower) or scale."""
        if self.metric in GOWER:
            return self.ranges
        return self.scales

    def subset(self, columns: Sequence[str]) -> Preparation:
        """The same fitted preparation restricted to ``columns`` (in that order)."""
        columns = _unique_columns(columns)
        for name in columns:
            if name not in self.columns:
                raise InputError("column is not part of the preparation", column=name)
        num = [i for i, c in enumerate(self.numeric) if c in columns]
        cat = [i for i, c in enumerate(self.categorical) if c in columns]
        pick = lambda values, idx: tuple(values[i] for i in idx)  # noqa: E731
        return replace(
            self,
            columns=tuple(columns),
            numeric=pick(self.numeric, num),
            categorical=pick(self.categorical, cat),
            centres=pick(self.centres, num),
            scales=pick(self.scales, num),
            minima=pick(self.minima, num),
            maxima=pick(self.maxima, num),
            unscaled=tuple(c for c in self.unscaled if c in columns),
            constant=tuple(c for c in self.constant if c in columns),
            levels=pick(self.levels, cat),
        )

    def to_dict(self) -> dict:
        """How the distances are computed (JSON-ready), for shared reports: the fitted extremes
        of the original (minimum, maximum, range, and the divisors and centres derived from
        them) are confidential (the largest firm's turnover) and left out; a mean and standard
        deviation or a median and IQR of the whole original are kept."""
        aggregates = self.scaling in ("zscore", "robust")
        numeric = [
            {
                "name": name,
                **({"centre": self.centres[i], "scale": self.scales[i]} if aggregates else {}),
                "unscaled": name in self.unscaled,
                "constant": name in self.constant,
            }
            for i, name in enumerate(self.numeric)
        ]
        categorical = [
            {"name": name, "levels": list(self.levels[i]), "mismatch_cost": self.mismatch_cost}
            for i, name in enumerate(self.categorical)
        ]
        return {
            "columns": list(self.columns),
            "scaling": self.scaling,
            "categorical_mode": self.categorical_mode,
            "metric": self.metric,
            "na_equal": self.na_equal,
            "numeric": numeric,
            "categorical": categorical,
            "term": _TERM_TEXT[self.metric],
            "missing_rule": (
                "one missing value: the column's missing cost (numeric) or mismatch cost "
                "(categorical); two missing values: "
                + ("0" if self.na_equal else "the same cost (not equal)")
            ),
            "fitted_on": "training original",
        }


_TERM_TEXT = {
    "euclidean": "sqrt(sum over columns of (|a-b|/scale)^2, categorical mismatch cost)",
    "l1": "sum over columns of |a-b|/scale, categorical mismatch cost",
    "gower_mean": "mean over columns of min(|a-b|/range, 1), categorical 0/1; range 0: 1[a!=b]",
    "gower_sum": "sum over columns of |a-b|/range, categorical 0/1; range 0: 1[a!=b]",
}


def _unique_columns(columns: Sequence[str]) -> list[str]:
    columns = [str(c) for c in columns]
    seen: set[str] = set()
    for name in columns:
        if name in seen:
            raise InputError("column is listed twice", column=name)
        seen.add(name)
    if not columns:
        raise InputError("no columns to compare")
    return columns


def _choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise InputError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")
    return value


def _numeric_values(frame: Table | pd.DataFrame, column: str) -> np.ndarray:
    """Numeric column as float64 with NaN for missing; datetimes as nanoseconds."""
    values = frame_of(frame)[column]
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        stamps = values.dt.tz_localize(None) if values.dt.tz is not None else values
        out = stamps.to_numpy(dtype="datetime64[ns]").astype("int64").astype("float64")
        out[stamps.isna().to_numpy()] = np.nan
        return out
    return numeric_column(frame, column)


def _require(frame: Table | pd.DataFrame, columns: Sequence[str]) -> None:
    for name in columns:
        if name not in frame_of(frame).columns:
            raise InputError(f"column is missing{did_you_mean(name, frame_of(frame).columns)}",
                             file=source_name(frame), column=name)


def prepare(
    data: Table | pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    categorical: Sequence[str] | None = None,
    scaling: str = "minmax_range",
    categorical_mode: str = "mismatch",
    metric: str = "gower_mean",
    na_equal: bool = False,
) -> Preparation:
    """Fit the preparation on the training original (docs/method/synthetic-attacks.md).

    ``columns`` None uses every column. Categorical columns are those of non-numeric dtype (see
    ``attack.io.columns.is_number``) and, among the numeric ones, those named in
    ``categorical`` (codes such as NACE). Scalings: ``zscore``
    ``(x − mean) / sd`` (sd with n − 1), ``minmax_range`` ``x / (max − min)``, ``robust``
    ``(x − median) / IQR`` (linear-interpolation quartiles), ``none``. The Gower metrics imply
    ``minmax_range`` and ``mismatch`` coding; other combinations raise ``InputError``.
    """
    scaling, categorical_mode, metric = _coding(scaling, categorical_mode, metric)
    name, training = source_name(data), frame_of(data)
    if len(training) == 0:
        raise InputError("the training original has no rows", file=name)
    columns = _unique_columns(training.columns if columns is None else columns)
    _require(data, columns)
    numeric, cats = _roles(training, columns, categorical)
    fit = _fit_numeric(data, numeric, scaling, name)
    return Preparation(
        columns=tuple(columns), numeric=numeric, categorical=cats, scaling=scaling,
        categorical_mode=categorical_mode, metric=metric, na_equal=bool(na_equal),
        centres=fit.centres, scales=fit.scales, minima=fit.minima, maxima=fit.maxima,
        unscaled=fit.unscaled, constant=fit.constant, levels=_levels(data, cats, name),
    )


def _coding(scaling: str, categorical_mode: str, metric: str) -> tuple[str, str, str]:
    """The scaling, coding and metric by their canonical names, refused when they do not fit."""
    scaling = _choice(scaling, SCALINGS, "scaling")
    categorical_mode = _choice(categorical_mode, CATEGORICAL_MODES, "categorical coding")
    metric = _choice(metric, METRICS, "metric")
    if metric in GOWER and (scaling != "minmax_range" or categorical_mode != "mismatch"):
        raise InputError(
            f"metric {metric!r} uses per-column ranges and 0/1 mismatches; "
            "expected scaling='minmax_range' and categorical_mode='mismatch'"
        )
    return scaling, categorical_mode, metric


def _roles(training: pd.DataFrame, columns: Sequence[str],
           categorical: Sequence[str] | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The numeric and the categorical columns, each in the order of ``columns``: text is never a
    number, and the named ``categorical`` columns count as categories too."""
    cat_set = {c for c in columns if not is_number(training, c)}
    for c in map(str, categorical or ()):
        if c not in columns:
            raise InputError("categorical column is not among the compared columns", column=c)
        cat_set.add(c)
    return tuple(c for c in columns if c not in cat_set), tuple(c for c in columns if c in cat_set)


@dataclass(frozen=True)
class _NumericFit:
    """Per numeric column: centre, divisor, extremes; the columns left unscaled and the constant ones."""

    centres: tuple[float, ...]
    scales: tuple[float, ...]
    minima: tuple[float, ...]
    maxima: tuple[float, ...]
    unscaled: tuple[str, ...]
    constant: tuple[str, ...]


def _fit_numeric(data: Table | pd.DataFrame, numeric: Sequence[str], scaling: str, name: str) -> _NumericFit:
    centres, scales, minima, maxima, unscaled, constant = [], [], [], [], [], []
    for c in numeric:
        x = _numeric_values(data, c)
        x = x[~np.isnan(x)]
        if x.size == 0:
            raise InputError("every value is missing in the training original", file=name, column=c)
        lo, hi = float(x.min()), float(x.max())
        centre, scale = _scaling(x, scaling, lo, hi)
        if not scale > 0:
            centre, scale = (0.0 if scaling in ("none", "minmax_range") else centre), 1.0
            unscaled.append(c)
        if hi == lo:
            constant.append(c)
        centres.append(centre)
        scales.append(scale)
        minima.append(lo)
        maxima.append(hi)
    return _NumericFit(tuple(centres), tuple(scales), tuple(minima), tuple(maxima), tuple(unscaled), tuple(constant))


def _levels(data: Table | pd.DataFrame, cats: Sequence[str], name: str) -> tuple[tuple[str, ...], ...]:
    """The sorted observed categories of each categorical column."""
    levels = []
    for c in cats:
        codes = code_column(data, c)
        present = codes[~pd.isna(codes)]
        if present.size == 0:
            raise InputError("every value is missing in the training original", file=name, column=c)
        levels.append(tuple(sorted(set(present.tolist()))))
    return tuple(levels)


def _scaling(x: np.ndarray, scaling: str, lo: float, hi: float) -> tuple[float, float]:
    """Centre and divisor of one numeric column (divisor 0 when undefined)."""
    if scaling == "zscore":
        sd = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
        return float(np.mean(x)), sd
    if scaling == "robust":
        q1, med, q3 = np.percentile(x, [25, 50, 75])
        return float(med), float(q3 - q1)
    if scaling == "minmax_range":
        return 0.0, hi - lo
    return 0.0, 1.0


# ---------------------------------------------------------------------------------------------
# Encoding and exact distances


@dataclass(frozen=True)
class Encoded:
    """One file in the prepared space: raw numeric values (NaN = missing) and categorical codes
    (−1 = missing) shared by every file encoded in the same ``encode`` call."""

    numeric: np.ndarray  # (n, len(prep.numeric)) float64
    codes: np.ndarray  # (n, len(prep.categorical)) int64

    def __len__(self) -> int:
        return self.numeric.shape[0]

    def take(self, rows: np.ndarray) -> Encoded:
        """The rows ``rows`` (positions) as a new encoded file."""
        return Encoded(self.numeric[rows], self.codes[rows])


def encode(prep: Preparation, *frames: pd.DataFrame) -> tuple[Encoded, ...]:
    """Encode ``frames`` with common category codes (a category missing from the training
    original still gets a code of its own, equal across the frames)."""
    for frame in frames:
        _require(frame, prep.columns)
    numeric = [
        np.column_stack([_numeric_values(f, c) for c in prep.numeric])
        if prep.numeric
        else np.zeros((len(f), 0))
        for f in frames
    ]
    sizes = [len(f) for f in frames]
    codes = np.zeros((sum(sizes), len(prep.categorical)), dtype=np.int64)
    for j, c in enumerate(prep.categorical):
        codes[:, j] = _common_codes([f[c] for f in frames])
    bounds = np.cumsum([0, *sizes])
    return tuple(
        Encoded(np.asarray(num, dtype=np.float64), codes[lo:hi])
        for num, lo, hi in zip(numeric, bounds[:-1], bounds[1:], strict=True)
    )


def _common_codes(columns: Sequence[pd.Series]) -> np.ndarray:
    """Codes (−1 = missing) of the concatenated columns; values are compared as the strings
    ``attack.readers.code_column`` makes of them, converting each distinct value once."""
    local, texts = [], []
    for col in columns:
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
        local.append(codes)
        texts.append(code_column(pd.DataFrame({"v": uniques}), "v"))
    text = np.concatenate(texts) if texts else np.array([], dtype=object)
    table = pd.factorize(pd.Series(text, dtype=object), use_na_sentinel=True)[0]
    out, offset = [], 0
    for codes, uniques in zip(local, texts, strict=True):
        mapped = np.append(table[offset : offset + len(uniques)], -1)
        out.append(mapped[codes])  # code −1 picks the appended −1
        offset += len(uniques)
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


def group_ids(matrix: np.ndarray) -> np.ndarray:
    """Row ids of a 2-D array: equal rows get equal ids, numbered by first appearance (NaN rows
    are equal to each other, −0.0 equals 0.0)."""
    n = matrix.shape[0]
    gid = np.zeros(n, dtype=np.int64)
    for col in matrix.T:
        values = col + 0.0 if col.dtype.kind == "f" else col
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        gid = pd.factorize(gid * len(uniques) + codes)[0]
    return gid


def distances(
    prep: Preparation, query: Encoded, reference: Encoded, q: np.ndarray, r: np.ndarray, pairs: bool
) -> np.ndarray:
    """Exact distances of query rows ``q`` to reference rows ``r``: elementwise pairs when
    ``pairs``, else the ``len(q) × len(r)`` block. Same arithmetic in both forms, so the values
    agree bit for bit."""
    total: np.ndarray | None = None
    num_index = {c: i for i, c in enumerate(prep.numeric)}
    cat_index = {c: i for i, c in enumerate(prep.categorical)}
    for name in prep.columns:
        if name in num_index:
            j = num_index[name]
            a, b = query.numeric[q, j], reference.numeric[r, j]
        else:
            j = cat_index[name]
            a, b = query.codes[q, j], reference.codes[r, j]
        if not pairs:
            a, b = a[:, None], b[None, :]
        term = _numeric_term(prep, j, a, b) if name in num_index else _categorical_term(prep, a, b)
        if total is None:
            total = term
        else:
            total += term
    assert total is not None  # prepare() refuses an empty column list
    if prep.metric == "euclidean":
        np.sqrt(total, out=total)
    elif prep.metric == "gower_mean":
        total /= len(prep.columns)
    return total


def _numeric_term(prep: Preparation, j: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    term = np.abs(a - b)
    divisor = prep.divisors[j]
    if prep.metric in GOWER and divisor == 0:
        term = (term != 0).astype(np.float64)
    else:
        if divisor != 1:
            term /= divisor
        if prep.metric == "gower_mean":
            np.minimum(term, 1.0, out=term)
        elif prep.metric == "euclidean":
            term *= term
    a_nan, b_nan = np.isnan(a), np.isnan(b)
    if a_nan.any() or b_nan.any():
        term[a_nan | b_nan] = prep.missing_costs[j]
        if prep.na_equal:
            term[a_nan & b_nan] = 0.0
    return term


def _categorical_term(prep: Preparation, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    term = (a != b).astype(np.float64)
    cost = prep.mismatch_cost
    if cost != 1:
        term *= cost
    if not prep.na_equal:
        a_nan, b_nan = a < 0, b < 0
        if a_nan.any() and b_nan.any():
            term[a_nan & b_nan] = cost
    return term


# ---------------------------------------------------------------------------------------------
# Nearest neighbours


@dataclass(frozen=True)
class Neighbours:
    """The ``k`` nearest reference rows of every query row, ascending; ties to the lower row."""

    distances: np.ndarray  # (n_query, k) float64
    indices: np.ndarray  # (n_query, k) int64 positions in the reference


def nearest_neighbours(
    prep: Preparation, query: pd.DataFrame, reference: pd.DataFrame, k: int = 1
) -> Neighbours:
    """Exact ``k`` nearest reference rows of every query row (docs/method/synthetic-attacks.md)."""
    if query is reference:
        (enc,) = encode(prep, query)
        return search(prep, enc, enc, k)
    q, r = encode(prep, query, reference)
    return search(prep, q, r, k)


def pair_distances(
    prep: Preparation,
    query: pd.DataFrame,
    reference: pd.DataFrame,
    query_rows: np.ndarray,
    reference_rows: np.ndarray,
) -> np.ndarray:
    """Distances of the pairs ``(query_rows[i], reference_rows[i])`` (row positions)."""
    query_rows = np.asarray(query_rows, dtype=np.int64)
    reference_rows = np.asarray(reference_rows, dtype=np.int64)
    if query_rows.shape != reference_rows.shape:
        raise InputError("query_rows and reference_rows must have the same length")
    q, r = encode(prep, query, reference)
    for rows, enc, what in ((query_rows, q, "query"), (reference_rows, r, "reference")):
        if rows.size and (rows.min() < 0 or rows.max() >= len(enc)):
            raise InputError(f"{what} row position out of range")
    return distances(prep, q, r, query_rows, reference_rows, pairs=True)


def search(prep: Preparation, query: Encoded, reference: Encoded, k: int = 1) -> Neighbours:
    """``nearest_neighbours`` on encoded files (see the module docstring for the method)."""
    if len(reference) == 0:
        raise InputError("the reference file has no rows")
    if not 1 <= k <= len(reference):
        raise InputError(f"k must be between 1 and the {len(reference)} reference rows, got {k}")
    n = len(query)
    out_d = np.empty((n, k))
    out_i = np.empty((n, k), dtype=np.int64)
    todo = np.arange(n)
    if n:
        space = _TreeSpace(prep, query, reference, k)
        done, dist, idx = space.run(todo)
        out_d[done], out_i[done] = dist, idx
        left = np.ones(n, dtype=bool)
        left[done] = False
        todo = np.flatnonzero(left)
    if todo.size:
        out_d[todo], out_i[todo] = _scan(prep, query, reference, todo, k)
    return Neighbours(out_d, out_i)


def search_many(prep: Preparation, reference: Encoded, queries: Sequence[tuple[Encoded, int]]) -> list[Neighbours]:
    """``search`` for several query files against one reference, in one pass (the trees
    over the reference are built once): the ``k`` nearest for each ``(query, k)``. The answers
    are those of separate searches: neighbours are ordered by distance, ties to the lower row."""
    k = max(kk for _, kk in queries)
    joined = Encoded(np.concatenate([q.numeric for q, _ in queries]), np.concatenate([q.codes for q, _ in queries]))
    found = search(prep, joined, reference, k)
    out, start = [], 0
    for query, kk in queries:
        end = start + len(query)
        out.append(Neighbours(found.distances[start:end, :kk], found.indices[start:end, :kk]))
        start = end
    return out


def _scan(
    prep: Preparation, query: Encoded, reference: Encoded, rows: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest by scanning query blocks against the full reference (bounded memory)."""
    m = len(reference)
    step = max(1, MEMORY_BUDGET // (32 * m))
    all_ref = np.arange(m)
    out_d = np.empty((rows.size, k))
    out_i = np.empty((rows.size, k), dtype=np.int64)
    for start in range(0, rows.size, step):
        block = distances(prep, query, reference, rows[start : start + step], all_ref, pairs=False)
        pos = np.arange(block.shape[0])
        for t in range(k):
            best = block.argmin(axis=1)  # first minimum: ties go to the lower reference row
            out_d[start : start + step, t] = block[pos, best]
            out_i[start : start + step, t] = best
            block[pos, best] = np.inf
    return out_d, out_i


class _TreeSpace:
    """Certified KD-tree candidates for the exact search.

    Categorical columns, zero-range columns of the Gower forms and the missingness of numeric
    columns with missing values are *attributes*; numeric columns are coordinates
    ``(x − min) / divisor`` (clamped to the training range for ``gower_mean``, so that no
    coordinate difference exceeds the clipped term). Stage ``s`` searches trees in which the
    records are separated by all attributes but ``s`` free ones (a group coordinate larger than
    any distance within a group); free attributes enter as indicator coordinates at their exact
    cost (one-hot up to ``MAX_ONE_HOT`` values, else left out). Within a group the tree
    distance is therefore a lower bound of the exact distance (missing coordinates are 0 on
    both sides), and a record outside every group of stage ``s`` differs in at least ``s + 1``
    attributes, which bounds its distance from below by the ``s + 1`` smallest attribute costs.
    Distinct reference rows are searched once and expanded to their identical copies (lower
    rows first). A query row is certified when its k-th exact distance, plus a rounding margin,
    lies below both bounds; otherwise it gets more candidates or goes on to the next stage.
    """

    def __init__(self, prep: Preparation, query: Encoded, reference: Encoded, k: int):
        self.prep, self.query, self.reference, self.k = prep, query, reference, k
        self.power = 2 if prep.metric == "euclidean" else 1
        self.unique, self.inverse = _unique_rows(reference)
        counts = np.bincount(self.inverse, minlength=len(self.unique))
        self.member_order = np.argsort(self.inverse, kind="stable")
        self.member_start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.member_count = counts
        self._build_features(query, self.unique)

    def _build_features(self, query: Encoded, unique: Encoded) -> None:
        prep = self.prep
        coords: list[np.ndarray] = []
        attrs: list[np.ndarray] = []
        costs: list[float] = []
        coord_of_attr: list[int | None] = []
        for j in range(len(prep.numeric)):
            a, b = query.numeric[:, j], unique.numeric[:, j]
            divisor = prep.divisors[j]
            if prep.metric in GOWER and divisor == 0:
                values = np.concatenate([a, b]) + 0.0  # -0.0 and 0.0 are the same value
                attrs.append(pd.factorize(values, use_na_sentinel=True)[0])
                costs.append(1.0)
                coord_of_attr.append(None)
                continue
            x = np.concatenate([a, b])
            if prep.metric == "gower_mean":  # clamping makes |Δx| ≤ min(|a − b|, range)
                x = np.clip(x, prep.minima[j], prep.maxima[j])
            x = (x - prep.minima[j]) / (divisor if divisor > 0 else 1.0)
            missing = np.isnan(x)
            if missing.any():
                attrs.append(missing.astype(np.int64))
                costs.append(prep.missing_costs[j])
                coord_of_attr.append(len(coords))
                x[missing] = 0.0
            coords.append(x)
        for j in range(len(prep.categorical)):
            attrs.append(np.concatenate([query.codes[:, j], unique.codes[:, j]]))
            costs.append(prep.mismatch_cost)
            coord_of_attr.append(None)
        n_all = len(query) + len(unique)
        self.coords = np.column_stack(coords) if coords else np.zeros((n_all, 0))
        self.attrs = np.column_stack(attrs) if attrs else np.zeros((n_all, 0), dtype=np.int64)
        self.attr_costs = np.array(costs)
        self.coord_of_attr = coord_of_attr
        span = np.abs(self.coords).max(axis=0).sum() if coords else 0.0
        self.margin = 1e-9 * (1.0 + span)  # bound on rounding differences, tree units
        # Group separation: more than twice any distance within a group (coordinates and
        # indicators), so that a tree returning fewer points than asked has exhausted the group.
        self.big = 4.0 * (2.0 * span + float(np.sum(self.attr_costs + 1.0)) + 1.0)
        self.n_query = len(query)

    def _tree(self, keep: list[int], indicators: list[int]) -> _Tree:
        """KD-tree over the unique reference rows grouped by the attributes ``keep``. Each
        attribute in ``indicators`` enters as coordinates whose distance is its exact cost: the
        missingness of a numeric column as a flag (its value coordinate is then dropped), another
        attribute one-hot when it has at most ``MAX_ONE_HOT`` values, else not at all."""
        group = group_ids(self.attrs[:, keep]) if keep else np.zeros(len(self.attrs), np.int64)
        n_all, n_coords = self.coords.shape
        codes = {a: pd.factorize(self.attrs[:, a])[0] for a in indicators}
        widths = [1 if self.coord_of_attr[a] is not None else
                  (int(codes[a].max()) + 1 if codes[a].max() < MAX_ONE_HOT else 0) for a in indicators]
        points = np.zeros((n_all, n_coords + 1 + sum(widths)))
        points[:, :n_coords] = self.coords
        points[:, n_coords] = group * self.big
        rows, at = np.arange(n_all), n_coords + 1
        for a, width in zip(indicators, widths, strict=True):
            cost, values = self.attr_costs[a], codes[a]
            if self.coord_of_attr[a] is not None:  # the flag replaces the value coordinate
                points[:, self.coord_of_attr[a]] = 0.0
                points[:, at] = values * cost ** (1 / self.power)
            elif width:  # one-hot at the exact cost of a mismatch
                points[rows, at + values] = cost / 2 if self.power == 1 else np.sqrt(cost / 2)
            at += width
        n_q = self.n_query
        return cKDTree(points[n_q:], balanced_tree=False, compact_nodes=False), points[:n_q]

    def _stages(self) -> Iterator[tuple[Callable[[], list[_Tree]], float]]:
        """(trees, outside bound) per stage. Stage ``s`` groups by all attributes but ``s`` free
        ones, one tree per choice of free attributes (stages with more than
        ``MAX_TREES_PER_STAGE`` trees are skipped); a record outside every group differs in
        at least ``s + 1`` attributes. The last stage leaves every attribute free."""
        n_attr = self.attrs.shape[1]
        every = list(range(n_attr))
        costs = np.sort(self.attr_costs)
        for free in range(n_attr + 1):
            choices = list(itertools.combinations(every, free))
            if len(choices) > MAX_TREES_PER_STAGE:
                continue
            outside = float(costs[: free + 1].sum()) if free < n_attr else np.inf
            yield partial(self._trees, every, choices), outside

    def _trees(self, every: list[int], choices: list[tuple[int, ...]]) -> list[_Tree]:
        """One tree per choice of free attributes (the others group the records)."""
        return [self._tree([b for b in every if b not in c], list(c)) for c in choices]

    def run(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Certified neighbours of ``rows``: (rows done, distances, indices). Rows held back by
        the tree bound get more candidates (up to ``MAX_CANDIDATES``), rows held back by the
        attribute bound go on to the next stage; the caller scans whatever is left."""
        done_rows: list[np.ndarray] = []
        done_d: list[np.ndarray] = []
        done_i: list[np.ndarray] = []
        cap = min(MAX_CANDIDATES, len(self.unique))
        for make_trees, outside in self._stages():
            if rows.size == 0 or (done_rows and rows.size * len(self.reference) <= SCAN_PAIRS):
                break  # a few rows left: the caller's scan is cheaper than building trees
            trees = make_trees()
            wanted, passed = min(self.k + 3, cap), []
            while rows.size:
                ok, dist, idx, tree_limited = self._certify(rows, trees, wanted, outside)
                done_rows.append(rows[ok])
                done_d.append(dist[ok])
                done_i.append(idx[ok])
                rest, grow = rows[~ok], tree_limited[~ok]
                passed.append(rest[~grow])
                rows = rest[grow] if wanted < cap else rows[:0]
                wanted = min(wanted * 8, cap)
            rows = np.concatenate(passed) if passed else rows
        if not done_rows:
            return rows[:0], np.empty((0, self.k)), np.empty((0, self.k), dtype=np.int64)
        return np.concatenate(done_rows), np.concatenate(done_d), np.concatenate(done_i)

    def _certify(self, rows: np.ndarray, trees: list[_Tree], wanted: int,
                 outside: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Query ``wanted`` candidates per tree, compute exact distances, keep the k best and
        test them against the lower bound of everything not returned."""
        cand_q, cand_u = [], []
        inside = np.full(rows.size, np.inf)
        for tree, points in trees:
            kk = min(wanted, tree.n)
            dist, idx = tree.query(points[rows], k=kk, p=self.power, workers=-1,
                                   distance_upper_bound=self.big / 2)
            dist, idx = dist.reshape(rows.size, kk), idx.reshape(rows.size, kk)
            found = np.isfinite(dist)
            full = found[:, -1]
            inside[full] = np.minimum(inside[full], dist[full, -1])
            pos = np.nonzero(found)
            cand_q.append(pos[0])
            cand_u.append(idx[pos])
        q_pos = np.concatenate(cand_q)
        u = np.concatenate(cand_u)
        if len(trees) > 1:  # the same record may come from several trees
            pair = np.unique(q_pos * len(self.unique) + u)
            q_pos, u = pair // len(self.unique), pair % len(self.unique)
        # Expand each unique row to its first k members (identical rows, lower rows first).
        reps = np.minimum(self.member_count[u], self.k)
        q_pos = np.repeat(q_pos, reps)
        offsets = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
        ref = self.member_order[np.repeat(self.member_start[u], reps) + offsets]
        d = distances(self.prep, self.query, self.reference, rows[q_pos], ref, pairs=True)
        order = np.lexsort((ref, d, q_pos))
        q_pos, ref, d = q_pos[order], ref[order], d[order]
        starts = np.searchsorted(q_pos, np.arange(rows.size))
        counts = np.diff(np.append(starts, q_pos.size))
        enough = counts >= self.k
        take = starts[enough][:, None] + np.arange(self.k)
        dist = np.full((rows.size, self.k), np.inf)
        idx = np.full((rows.size, self.k), -1, dtype=np.int64)
        dist[enough], idx[enough] = d[take], ref[take]
        kth = self._summed(dist[:, -1])
        inside_sum = np.where(
            np.isfinite(inside), np.maximum(inside - self.margin, 0.0) ** self.power, np.inf
        )
        slack = self.margin * (1.0 + kth)  # covers 2·N·margin when summing squares
        ok = enough & (kth + slack < np.minimum(inside_sum, outside))
        tree_limited = inside_sum <= outside
        return ok, dist, idx, tree_limited

    def _summed(self, d: np.ndarray) -> np.ndarray:
        """Row distance back in summed-term units (the unit of the bounds)."""
        if self.prep.metric == "euclidean":
            return d * d
        if self.prep.metric == "gower_mean":
            return d * len(self.prep.columns)
        return d


def _unique_rows(enc: Encoded) -> tuple[Encoded, np.ndarray]:
    """Distinct rows (missing values equal to each other) numbered by first appearance, and
    each row's distinct-row number."""
    inverse = group_ids(np.column_stack([enc.numeric, enc.codes]))
    first = np.flatnonzero(np.diff(np.concatenate([[-1], np.maximum.accumulate(inverse)])) > 0)
    return enc.take(first), inverse
