"""Anonymeter-style attacks on a synthetic release: singling out, linkability and inference
(docs/method/synthetic-attacks.md, after Giomi et al. 2022).

Every attack runs three times: against training records (*main*), against holdout records the
generator never saw (*control*) and as a naive random intruder (*baseline*). Success counts become
Wilson rates; the residual risk of main over control, clipped to [0, 1] with its error band,
is the risk; without a control set the main rate is. The τ verdict uses the **upper** bound of the
risk interval. The pitfalls of docs/method/synthetic-attacks.md are avoided: the numeric inference tolerance
divides by the true value (strict ``<`` with a zero rule), and singling-out rates divide by the
number of queries actually generated.

Singling-out queries are data, not strings: a batch of ``a``-predicate conjunctions is three
``(n_queries, a)`` arrays (column position, operator code, encoded value). Each data set is held as
a column-wise sorted index, so the rows satisfying one predicate form one slice of that index; a
query is counted by scanning the rows of its narrowest predicate and checking the others there.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import ClassVar

import numpy as np
import pandas as pd

from attack.errors import InputError, did_you_mean
from attack.io.columns import is_number
from attack.io.readers import code_column, numeric_column
from attack.io.serial import Serialised
from attack.risk.stats import (
    UNDEFINED_RESIDUAL,
    Estimate,
    Rate,
    residual_risk,
    success_rate,
    z_quantile,
)
from attack.synthetic_attacks.space import Preparation, nearest_neighbours, prepare
from attack.verdict import below_tau

UNTRUSTED = "baseline rate is at least the attack rate: results cannot be trusted"

# Predicate operators; values of categorical columns are integer codes (``==``/``!=`` only).
EQ, NE, LT, GT, LE, GE, ISNULL, NOTNULL = range(8)
OPERATORS: tuple[str, ...] = ("==", "!=", "<", ">", "<=", ">=", "is null", "is not null")
NUMERIC_RANDOM_OPS = np.array([EQ, NE, LT, GT, LE, GE])
CATEGORICAL_RANDOM_OPS = np.array([EQ, NE])
NULL_RANDOM_OPS = np.array([ISNULL, NOTNULL])

CHUNK_ROWS = 1 << 21  # candidate (query, row) pairs examined at once
GENERATION_BATCH = 10_000  # multivariate query attempts per batch
CORRECTION_SIZES = 10  # control subsample sizes for the size correction …
CORRECTION_REPEATS = 5  # … and subsamples per size
CORRECTION_BOOTSTRAPS = 100  # refits of the size model for the factor's interval
EXAMPLES = 10  # successful queries quoted in the parameters


# --------------------------------------------------------------------------------------------
# One attack's rates and risk (the statistics: attack.risk.stats)


@dataclass(frozen=True)
class AttackRisk(Serialised):
    """One attack's rates (main, control, baseline), its risk and the τ verdict.

    ``risk_basis`` is ``"residual"`` (main over control) or ``"main"`` (no control set: the main
    rate is the risk). ``passed`` is None without τ, else ``risk.high < tau`` (docs/method/synthetic-attacks.md);
    an undefined residual risk never passes."""

    document_order: ClassVar[tuple[str, ...]] = ("attack", "main", "control", "baseline", "risk", "risk_basis",
                                                 "confidence", "tau", "passed", "warnings", "parameters")

    attack: str
    main: Rate
    baseline: Rate
    control: Rate | None
    risk: Estimate | None
    risk_basis: str
    confidence: float
    tau: float | None
    passed: bool | None
    warnings: tuple[str, ...]
    parameters: Mapping[str, object] = field(default_factory=dict, compare=False)


def _assess(
    attack: str,
    main: Rate,
    baseline: Rate,
    control: Rate | None,
    *,
    confidence: float,
    tau: float | None,
    parameters: Mapping[str, object],
    notes: Sequence[str] = (),
) -> AttackRisk:
    """Risk, warnings and verdict of one attack (docs/method/synthetic-attacks.md)."""
    notes = list(notes)
    if control is None:
        risk: Estimate | None = main.estimate()
    else:
        risk = residual_risk(main, control)
        if risk is None:
            notes.append(UNDEFINED_RESIDUAL)
    if baseline.rate >= main.rate:
        notes.append(UNTRUSTED)
    passed = None if tau is None else bool(below_tau(None if risk is None else risk.high, tau))
    return AttackRisk(attack, main, baseline, control, risk,
                        "main" if control is None else "residual", confidence, tau, passed,
                        tuple(notes), parameters)


def _check_common(n_attacks: int, confidence: float, tau: float | None) -> None:
    if not (isinstance(n_attacks, int | np.integer) and n_attacks >= 1):
        raise InputError(f"n_attacks must be a positive integer, got {n_attacks!r}")
    z_quantile(confidence)
    if tau is not None and not 0 < tau <= 1:
        raise InputError(f"τ must lie in (0, 1], got {tau}")


def _rngs(seed: int, n: int) -> list[np.random.Generator]:
    """Independent generators for the random steps of one attack, spawned from one seed."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


# --------------------------------------------------------------------------------------------
# Data sets as encoded matrices


def _frames(original: pd.DataFrame, synthetic: pd.DataFrame,
            control: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    frames = {"original": original, "synthetic": synthetic}
    if control is not None:
        frames["control"] = control
    for role, frame in frames.items():
        if len(frame) == 0:
            raise InputError(f"the {role} data set has no rows")
    return frames


def _require_columns(frames: Mapping[str, pd.DataFrame], columns: Sequence[str]) -> None:
    for column in columns:
        for role, frame in frames.items():
            if column not in frame.columns:
                raise InputError(f"column not found in the {role} data set{did_you_mean(column, frame.columns)}",
                                 column=column)


def _numeric_columns(frames: Mapping[str, pd.DataFrame], columns: Sequence[str],
                     categorical: Sequence[str]) -> np.ndarray:
    """True for columns compared as numbers: numeric in every data set and not declared
    categorical. A column numeric in some data sets only is an input error."""
    out = []
    for column in columns:
        kinds = {role: is_number(f, column) for role, f in frames.items()}
        if column in categorical:
            out.append(False)
        elif len(set(kinds.values())) > 1:
            numeric = [r for r, k in kinds.items() if k]
            raise InputError(f"column is numeric in the {' and '.join(numeric)} data only; convert "
                             "it or declare it categorical", column=column)
        else:
            out.append(next(iter(kinds.values())))
    return np.array(out, dtype=bool)


def _values(frame: pd.DataFrame, column: str, numeric: bool) -> np.ndarray:
    """Numbers as float (NaN missing) or codes as trimmed strings (None missing)."""
    return numeric_column(frame, column) if numeric else code_column(frame, column)


def _encode(frames: Sequence[pd.DataFrame], columns: Sequence[str],
            numeric: np.ndarray) -> tuple[list[np.ndarray], dict[int, np.ndarray]]:
    """Float matrices (rows × columns, NaN = missing) for several data sets: numbers as they are,
    codes as integers shared across the data sets. Returns the matrices and, per categorical
    column position, its codes."""
    sizes = [len(f) for f in frames]
    matrices = [np.empty((n, len(columns))) for n in sizes]
    categories: dict[int, np.ndarray] = {}
    bounds = np.cumsum([0, *sizes])
    for j, column in enumerate(columns):
        if numeric[j]:
            parts = [numeric_column(f, column) for f in frames]
        else:
            codes, uniques = pd.factorize(np.concatenate([code_column(f, column) for f in frames]))
            codes = np.where(codes < 0, np.nan, codes.astype(float))
            parts = [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
            categories[j] = np.asarray(uniques, dtype=object)
        for matrix, part in zip(matrices, parts, strict=True):
            matrix[:, j] = part
    return matrices, categories


def _distinct_rows(matrix: np.ndarray) -> np.ndarray:
    """The matrix without repeated rows (first occurrences kept; missing equals missing)."""
    return matrix[~pd.DataFrame(matrix).duplicated().to_numpy()]


@dataclass(frozen=True)
class _Table:
    """One data set as an encoded matrix with, per column, the row order by value (missing
    last), the values in that order, each row's position in that order and the number of
    present values."""

    values: np.ndarray
    order: np.ndarray
    ordered: np.ndarray
    rank: np.ndarray
    n_present: np.ndarray

    @classmethod
    def build(cls, values: np.ndarray) -> _Table:
        n, p = values.shape
        order = np.argsort(values, axis=0, kind="stable").T.copy()
        ordered = np.take_along_axis(values.T, order, axis=1)
        rank = np.empty((p, n), dtype=np.int64)
        np.put_along_axis(rank, order, np.arange(n), axis=1)
        return cls(values, order, ordered, rank, (~np.isnan(values)).sum(axis=0))

    @property
    def n_rows(self) -> int:
        return self.values.shape[0]


# --------------------------------------------------------------------------------------------
# Singling-out queries


@dataclass(frozen=True)
class _Queries:
    """Conjunctions of predicates ``column op value``: arrays of shape (queries, predicates)."""

    columns: np.ndarray
    ops: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return self.columns.shape[0]

    def take(self, rows: np.ndarray) -> _Queries:
        return _Queries(self.columns[rows], self.ops[rows], self.values[rows])


def _canonical(columns: np.ndarray, ops: np.ndarray, values: np.ndarray) -> _Queries:
    """Predicates sorted by column, null tests without a value, so equal queries compare equal."""
    by_column = np.argsort(columns, axis=1, kind="stable")
    columns = np.take_along_axis(columns, by_column, axis=1)
    ops = np.take_along_axis(ops, by_column, axis=1)
    values = np.take_along_axis(values, by_column, axis=1)
    values = np.where((ops == ISNULL) | (ops == NOTNULL), 0.0, values)
    return _Queries(columns.astype(np.int64), ops.astype(np.int8), values)


def _predicate_ranges(table: _Table, queries: _Queries) -> tuple[np.ndarray, np.ndarray]:
    """Per predicate, the slice [lo, hi) of its column's value order that holds the rows it
    selects — exact for every operator except ``!=``, whose slice is all present values."""
    lo = np.zeros(queries.columns.shape, dtype=np.int64)
    hi = np.zeros(queries.columns.shape, dtype=np.int64)
    n = table.n_rows
    for c in np.unique(queries.columns):
        at = queries.columns == c
        m = int(table.n_present[c])
        present = table.ordered[c, :m]
        ops, values = queries.ops[at], queries.values[at]
        left = np.searchsorted(present, values, side="left")
        right = np.searchsorted(present, values, side="right")
        lo[at] = np.select([ops == EQ, ops == GT, ops == GE, ops == ISNULL],
                           [left, right, left, m], 0)
        hi[at] = np.select([ops == EQ, ops == LT, ops == LE, ops == ISNULL],
                           [right, left, right, n], m)
    return lo, hi


def _chunks(lengths: np.ndarray, budget: int) -> Iterator[tuple[int, int]]:
    """Consecutive query ranges whose candidate rows add up to about ``budget``."""
    total = np.cumsum(lengths)
    a = 0
    while a < len(lengths):
        before = int(total[a - 1]) if a else 0
        b = max(a + 1, int(np.searchsorted(total, before + budget, side="right")))
        yield a, b
        a = b


def _count_matches(table: _Table, queries: _Queries, subsets: np.ndarray | None = None) -> np.ndarray:
    """Number of rows of ``table`` each query selects; with ``subsets`` (a boolean matrix,
    subsets × rows) the counts within each subset, shape (subsets, queries).

    Candidates are the rows in the narrowest predicate's slice; a candidate satisfies another
    predicate iff its rank in that column lies in the predicate's slice (and, for ``!=``, its
    value differs)."""
    nq, n_predicates = queries.columns.shape
    n = table.n_rows
    lo, hi = _predicate_ranges(table, queries)
    size = hi - lo
    pick = np.argmin(size, axis=1)
    at = np.arange(nq)
    length = size[at, pick]
    unequal = queries.ops == NE
    if n_predicates == 1 and not unequal.any() and subsets is None:
        return length
    start = queries.columns[at, pick] * n + lo[at, pick]
    order, rank = table.order.ravel(), table.rank.ravel()
    counts = np.zeros((1 if subsets is None else len(subsets), nq), dtype=np.int64)
    for a, b in _chunks(length, CHUNK_ROWS):
        lengths = length[a:b]
        query = np.repeat(np.arange(a, b), lengths)
        offset = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        rows = order[np.repeat(start[a:b], lengths) + offset]
        for j in range(n_predicates):
            check = (pick[query] != j) | unequal[query, j]
            q, r = query[check], rows[check]
            c = queries.columns[q, j]
            position = rank[c * n + r]
            ok = (lo[q, j] <= position) & (position < hi[q, j])
            ne = unequal[q, j]
            if ne.any():
                ok[ne] &= table.values[r[ne], c[ne]] != queries.values[q[ne], j]
            keep = ~check
            keep[check] = ok
            query, rows = query[keep], rows[keep]
        if subsets is None:
            counts[0, a:b] = np.bincount(query - a, minlength=b - a)
        else:
            for i, subset in enumerate(subsets):
                counts[i, a:b] = np.bincount(query - a, weights=subset[rows], minlength=b - a)
    return counts[0] if subsets is None else counts


def _singles_out(table: _Table, queries: _Queries) -> np.ndarray:
    """Whether each query selects exactly one row of ``table``: the candidates of its narrowest
    predicate are checked against the others in compiled code, stopping at the second match."""
    if len(queries) == 0:
        return np.zeros(0, dtype=bool)
    lo, hi = _predicate_ranges(table, queries)
    pick = np.argmin(hi - lo, axis=1)
    kernel = _singles_out_kernel()
    return kernel(table.order, table.rank, table.values, queries.columns, queries.ops.astype(np.int64),
                  queries.values, lo, hi, pick)


@cache
def _singles_out_kernel() -> Callable[..., np.ndarray]:
    """The compiled scan of ``_singles_out`` (numba, compiled once and cached on disk)."""
    from attack._loops import njit

    @njit()
    def scan(order: np.ndarray, rank: np.ndarray, values: np.ndarray, columns: np.ndarray,  # pragma: no cover - compiled
             ops: np.ndarray, qvalues: np.ndarray, lo: np.ndarray, hi: np.ndarray,
             pick: np.ndarray) -> np.ndarray:
        nq, a = columns.shape
        out = np.zeros(nq, dtype=np.bool_)
        for q in range(nq):
            j0 = pick[q]
            c0 = columns[q, j0]
            found = 0
            for k in range(lo[q, j0], hi[q, j0]):
                row = order[c0, k]
                ok = True
                for j in range(a):
                    c = columns[q, j]
                    position = rank[c, row]
                    if position < lo[q, j] or position >= hi[q, j]:
                        ok = False
                        break
                    if ops[q, j] == 1 and values[row, c] == qvalues[q, j]:  # NE
                        ok = False
                        break
                if ok:
                    found += 1
                    if found > 1:
                        break
            out[q] = found == 1
        return out

    return scan


def _univariate_queries(table: _Table, numeric: np.ndarray, n_attacks: int,
                        rng: np.random.Generator) -> _Queries:
    """Single-predicate queries from rare synthetic values (docs/method/synthetic-attacks.md): ``is null`` when
    exactly one value is missing, ``<= min`` and ``>= max`` for numeric columns, ``== v`` for
    every value that occurs once; shuffled, kept if they select one synthetic record."""
    columns, ops, values = [], [], []
    for j in range(table.values.shape[1]):
        m = int(table.n_present[j])
        present = table.ordered[j, :m]
        if table.n_rows - m == 1:
            columns.append(j)
            ops.append(ISNULL)
            values.append(0.0)
        if numeric[j] and m:
            columns += [j, j]
            ops += [LE, GE]
            values += [present[0], present[-1]]
        distinct, count = np.unique(present, return_counts=True)
        rare = distinct[count == 1]
        columns += [j] * len(rare)
        ops += [EQ] * len(rare)
        values += rare.tolist()
    shuffle = rng.permutation(len(columns))
    queries = _Queries(np.array(columns, dtype=np.int64)[shuffle, None],
                       np.array(ops, dtype=np.int8)[shuffle, None],
                       np.array(values, dtype=float)[shuffle, None])
    return queries.take(np.flatnonzero(_count_matches(table, queries) == 1)[:n_attacks])


def _multivariate_queries(table: _Table, numeric: np.ndarray, n_attacks: int, n_cols: int,
                          max_attempts: int, rng: np.random.Generator) -> tuple[_Queries, int]:
    """Queries built from random synthetic records on ``n_cols`` random columns
    (docs/method/synthetic-attacks.md): numeric ``>= v`` above the synthetic median, else ``<= v``; categorical ``== v``;
    missing ``is null``. Distinct queries selecting exactly one synthetic record are kept until
    ``n_attacks`` are found or ``max_attempts`` were made. Returns the queries and the attempts."""
    n, p = table.values.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-missing column
        median = np.nanmedian(table.values, axis=0)
    kept: list[_Queries] = []
    seen: set[bytes] = set()
    attempts = 0
    while len(seen) < n_attacks and attempts < max_attempts:
        size = min(GENERATION_BATCH, max_attempts - attempts)
        attempts += size
        records = rng.integers(0, n, size)
        columns = np.argsort(rng.random((size, p)), axis=1)[:, :n_cols]
        x = table.values[records[:, None], columns]
        ops = np.where(np.isnan(x), ISNULL,
                       np.where(numeric[columns], np.where(x > median[columns], GE, LE), EQ))
        batch = _canonical(columns, ops, x)
        fresh = []
        for i in np.flatnonzero(_singles_out(table, batch)):
            key = batch.columns[i].tobytes() + batch.ops[i].tobytes() + batch.values[i].tobytes()
            if key not in seen:
                seen.add(key)
                fresh.append(i)
                if len(seen) == n_attacks:
                    break
        kept.append(batch.take(np.array(fresh, dtype=np.int64)))
    return _Queries(*(np.concatenate([getattr(q, f) for q in kept])
                      for f in ("columns", "ops", "values"))), attempts


def _random_queries(table: _Table, numeric: np.ndarray, n_queries: int, n_predicates: int,
                    rng: np.random.Generator) -> _Queries:
    """Baseline queries (docs/method/synthetic-attacks.md): distinct random columns, a value drawn uniformly from
    the column's distinct synthetic values, a random operator — numeric ``== != < > <= >=``,
    categorical ``== !=``, and ``is null``/``is not null`` when the drawn value is missing."""
    p = table.values.shape[1]
    distinct = [np.unique(table.ordered[j, :table.n_present[j]]) for j in range(p)]
    distinct = [np.append(d, np.nan) if table.n_present[j] < table.n_rows else d
                for j, d in enumerate(distinct)]
    offsets = np.cumsum([0] + [len(d) for d in distinct])
    pool = np.concatenate(distinct)
    columns = np.argsort(rng.random((n_queries, p)), axis=1)[:, :n_predicates]
    pick = (rng.random(columns.shape) * np.diff(offsets)[columns]).astype(np.int64)
    values = pool[offsets[columns] + pick]
    u = rng.random(columns.shape)
    ops = np.where(
        np.isnan(values), NULL_RANDOM_OPS[(u * 2).astype(np.int64)],
        np.where(numeric[columns], NUMERIC_RANDOM_OPS[(u * 6).astype(np.int64)],
                 CATEGORICAL_RANDOM_OPS[(u * 2).astype(np.int64)]))
    return _canonical(columns, ops, values)


def singling_out_probability_integral(n: float | np.ndarray, w_min: float,
                                      w_max: float | np.ndarray) -> float | np.ndarray:
    """∫ P(w, n) dw over [w_min, w_max] with ``P(w, n) = n·w·(1 − w)^(n−1)`` (Cohen & Nissim
    2020; docs/method/synthetic-attacks.md, worked example 9.4 (docs/reference/worked-examples.md))."""
    n = np.asarray(n, dtype=float)

    def term(w: float | np.ndarray) -> np.ndarray:
        return (n * w + 1) * np.exp(n * np.log1p(-np.asarray(w, dtype=float)))

    return (term(w_min) - term(w_max)) / (n + 1)


def _size_model(n: np.ndarray, w_eff: float, norm: float) -> np.ndarray:
    """``F(n) = norm · ∫_0^{w_eff} P(w, n) dw`` (docs/method/synthetic-attacks.md)."""
    return norm * np.asarray(singling_out_probability_integral(n, 0.0, w_eff))


def _control_size_correction(table: _Table, queries: _Queries, n_original: int,
                             rng: np.random.Generator) -> tuple[float | None, dict]:
    """Factor ``F(n_original)/F(n_control)`` for the control success count (docs/method/synthetic-attacks.md).

    ``norm`` and ``w_eff`` are fitted by bounded non-linear least squares
    (``scipy.optimize.curve_fit``, 0 ≤ w_eff ≤ 1, norm ≥ 0) to the numbers of queries that single
    out a record in random control subsamples: 10 sizes evenly spaced from
    ``min(1000, ⌈n_control/10⌉)`` to ``n_control``, 5 subsamples per size (Anonymeter starts at
    ``min(1000, n_control)``, which leaves nothing to fit for small control sets). Returns None
    (no correction) with the reason when the fit is impossible."""
    n = table.n_rows
    sizes = np.repeat(np.linspace(min(1000, -(-n // 10)), n, CORRECTION_SIZES).astype(np.int64),
                      CORRECTION_REPEATS)
    subsets = np.zeros((len(sizes), n), dtype=bool)
    for subset, size in zip(subsets, sizes, strict=True):
        subset[rng.choice(n, size, replace=False)] = True
    successes = (_count_matches(table, queries, subsets) == 1).sum(axis=1)
    info: dict = {"subsample_sizes": sizes.tolist(), "subsample_successes": successes.tolist()}
    if np.unique(sizes).size < 2 or not successes.any():
        return None, info | {"reason": "control too small or no success to fit the size model"}
    w_guess = 1.0 / n
    p0 = (w_guess, 1.0 / float(singling_out_probability_integral(n, 0.0, w_guess)))
    from scipy import (
        optimize,  # imported here only: it is a noticeable share of a run's start
    )

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optimize.OptimizeWarning)
            (w_eff, norm), _ = optimize.curve_fit(_size_model, sizes.astype(float),
                                                  successes.astype(float), p0=p0,
                                                  bounds=(0.0, (1.0, np.inf)))
    except (RuntimeError, ValueError) as exc:
        return None, info | {"reason": f"size model fit failed: {exc}"}
    at_control = float(_size_model(np.array(n, dtype=float), w_eff, norm))
    if not at_control > 0:
        return None, info | {"reason": "fitted size model is zero at the control size"}
    factor = float(_size_model(np.array(n_original, dtype=float), w_eff, norm)) / at_control
    spread = _factor_interval(sizes, successes, n, n_original, (w_eff, norm), rng, optimize)
    return factor, info | {"w_eff": float(w_eff), "norm": float(norm), "factor": factor,
                           "factor_interval": spread, "fit_bootstraps": CORRECTION_BOOTSTRAPS}


def _factor_interval(sizes: np.ndarray, successes: np.ndarray, n: int, n_original: int, start: tuple,
                     rng: np.random.Generator, optimize: ModuleType) -> list[float] | None:
    """95 % percentile interval of the correction factor: the (size, successes) points resampled
    with replacement and the size model refitted ``CORRECTION_BOOTSTRAPS`` times (fits that
    fail or vanish at the control size are left out; None when fewer than half succeed)."""
    factors = []
    for _ in range(CORRECTION_BOOTSTRAPS):
        pick = rng.integers(0, sizes.size, sizes.size)
        if np.unique(sizes[pick]).size < 2 or not successes[pick].any():
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optimize.OptimizeWarning)
                (w, norm), _ = optimize.curve_fit(_size_model, sizes[pick].astype(float), successes[pick].astype(float),
                                                  p0=start, bounds=(0.0, (1.0, np.inf)))
        except (RuntimeError, ValueError):
            continue
        at_control = float(_size_model(np.array(n, dtype=float), w, norm))
        if at_control > 0:
            factors.append(float(_size_model(np.array(n_original, dtype=float), w, norm)) / at_control)
    if len(factors) < CORRECTION_BOOTSTRAPS // 2:
        return None
    low, high = np.percentile(factors, [2.5, 97.5])
    return [float(low), float(high)]


def _beside_the_correction(parameters: dict, main: Rate, control_k: float, factor: float,
                           factor_interval: list[float] | None, n: int, confidence: float) -> None:
    """The residual risk without the size correction, and the risk interval that also covers the
    factor's bootstrap interval (the smallest low and largest high of the risks at the factor's
    bounds and its point) — reported beside the decision, which uses the point factor."""
    def risk_at(f: float) -> Estimate | None:
        return residual_risk(main, success_rate(min(control_k * f, float(n)), n, confidence))

    plain = risk_at(1.0)
    parameters["risk_without_correction"] = None if plain is None else plain.to_dict()
    if factor_interval is None:
        parameters["risk_interval_with_fit"] = None
        return
    risks = [r for r in (risk_at(f) for f in (factor_interval[0], factor, factor_interval[1])) if r is not None]
    parameters["risk_interval_with_fit"] = [min(r.low for r in risks), max(r.high for r in risks)] if risks else None


def _describe(queries: _Queries, i: int, names: Sequence[str],
              categories: Mapping[int, np.ndarray]) -> str:
    """A query as readable text, e.g. ``age >= 61 & sex == 'F'``."""
    parts = []
    for c, op, v in zip(queries.columns[i], queries.ops[i], queries.values[i], strict=True):
        if op in (ISNULL, NOTNULL):
            parts.append(f"{names[c]} {OPERATORS[op]}")
            continue
        value = categories[c][int(v)] if c in categories else (int(v) if v.is_integer() else v)
        parts.append(f"{names[c]} {OPERATORS[op]} {value!r}")
    return " & ".join(parts)


def _check_mode(mode: str, max_attempts: int) -> None:
    if mode not in ("univariate", "multivariate"):
        raise InputError(f"singling-out mode must be 'univariate' or 'multivariate', got {mode!r}")
    if max_attempts < 1:
        raise InputError(f"max_attempts must be at least 1, got {max_attempts}")


def _query_width(frames: Mapping[str, pd.DataFrame], columns: Sequence[str], categorical: Sequence[str],
                 mode: str, n_cols: int) -> int:
    """The predicates per query, once the columns are known to every file and the width fits them."""
    if not columns:
        raise InputError("singling out needs at least one column")
    _require_columns(frames, [*columns, *categorical])
    n_predicates = n_cols if mode == "multivariate" else 1
    if not 1 <= n_predicates <= len(columns):
        raise InputError(f"n_cols must lie between 1 and the {len(columns)} columns, got {n_cols}")
    return n_predicates


def _singling_queries(table: _Table, numeric: np.ndarray, mode: str, n_attacks: int, n_cols: int,
                      max_attempts: int, rng: np.random.Generator) -> tuple[_Queries, int | None]:
    """The queries that single out one synthetic record, and the attempts it took (None for
    univariate queries); an InputError when there is none."""
    if mode == "univariate":
        queries, attempts = _univariate_queries(table, numeric, n_attacks, rng), None
    else:
        queries, attempts = _multivariate_queries(table, numeric, n_attacks, n_cols, max_attempts, rng)
    if len(queries) == 0:
        raise InputError(f"no {mode} query singles out a synthetic record "
                         f"(attempts: {attempts}); use fewer columns per query or more attempts")
    return queries, attempts


def _control_rate(tables: Mapping[str, _Table], queries: _Queries, main_k: int, confidence: float,
                  rng: np.random.Generator, parameters: dict, notes: list[str]) -> Rate:
    """The control's success rate, size-corrected when the control and the original differ in
    size; the raw count, the correction and its notes join ``parameters`` and ``notes``."""
    n_queries = len(queries)
    control_k: float = int(_singles_out(tables["control"], queries).sum())
    parameters["control_successes_raw"] = control_k
    n_original, n_control = tables["original"].n_rows, tables["control"].n_rows
    if n_control != n_original and control_k > 0:
        factor, info = _control_size_correction(tables["control"], queries, n_original, rng)
        parameters["control_size_correction"] = info
        main_raw = success_rate(main_k, n_queries, confidence)
        if factor is None:
            notes.append(f"control size correction not applied: {info['reason']}")
        else:
            _beside_the_correction(parameters, main_raw, control_k, factor, info.get("factor_interval"),
                                   n_queries, confidence)
            control_k *= factor
        if control_k > n_queries:
            notes.append(f"size-corrected control successes {control_k:.3f} exceed the "
                         f"{n_queries} queries; clipped")
            control_k = float(n_queries)
    return success_rate(control_k, n_queries, confidence)


def singling_out(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    *,
    mode: str = "multivariate",
    n_attacks: int = 500,
    n_cols: int = 3,
    max_attempts: int = 1_000_000,
    columns: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
    confidence: float = 0.95,
    tau: float | None = None,
    seed: int = 0,
    quote_examples: bool = False,
) -> AttackRisk:
    """Singling-out attack (docs/method/synthetic-attacks.md): queries that select exactly one synthetic record
    are checked for selecting exactly one training record (main) and one control record
    (control, size-corrected when the sizes differ); the baseline uses random queries.

    Duplicate rows (over ``columns``, default all synthetic columns) are removed from each data
    set first. Rates divide by the number of queries generated, which may fall short of
    ``n_attacks`` (reported with a warning, docs/method/synthetic-attacks.md pitfall 7). ``max_attempts`` caps the
    multivariate generation attempts (10⁶; Anonymeter's default is 10⁷: about 4 s per 10⁶
    attempts on 50,000 rows here).
    ``quote_examples`` adds up to ten successful queries as text to the parameters; they single
    out real records, so they are confidential and left out by default.
    Raises InputError when no query could be generated."""
    _check_common(n_attacks, confidence, tau)
    _check_mode(mode, max_attempts)
    frames = _frames(original, synthetic, control)
    columns = list(synthetic.columns if columns is None else columns)
    n_predicates = _query_width(frames, columns, categorical, mode, n_cols)
    numeric = _numeric_columns(frames, columns, categorical)
    matrices, categories = _encode(list(frames.values()), columns, numeric)
    tables = {role: _Table.build(_distinct_rows(m))
              for role, m in zip(frames, matrices, strict=True)}
    generate, guess, subsample = _rngs(seed, 3)
    synthetic_table = tables["synthetic"]
    queries, attempts = _singling_queries(synthetic_table, numeric, mode, n_attacks, n_cols, max_attempts, generate)
    n_queries = len(queries)
    notes = []
    if n_queries < n_attacks:
        notes.append(f"only {n_queries} of the {n_attacks} requested queries could be generated; "
                     "rates divide by the number generated")

    main_hits = _singles_out(tables["original"], queries)
    random_queries = _random_queries(synthetic_table, numeric, n_queries, n_predicates, guess)
    baseline_k = int(_singles_out(tables["original"], random_queries).sum())
    parameters: dict = {
        "mode": mode, "n_attacks_requested": int(n_attacks), "n_queries": n_queries,
        "n_attempts": attempts, "max_attempts": int(max_attempts) if attempts else None,
        "n_cols": n_predicates, "columns": columns,
        "numeric_columns": [c for c, k in zip(columns, numeric, strict=True) if k],
        "rows_after_deduplication": {role: t.n_rows for role, t in tables.items()},
        "seed": int(seed),
    }
    if quote_examples:  # the queries single out real records: confidential, off by default
        parameters["examples"] = [_describe(queries, int(i), columns, categories)
                                  for i in np.flatnonzero(main_hits)[:EXAMPLES]]
    control_rate = None if control is None else _control_rate(
        tables, queries, int(main_hits.sum()), confidence, subsample, parameters, notes)
    main = success_rate(int(main_hits.sum()), n_queries, confidence)
    baseline = success_rate(baseline_k, n_queries, confidence)
    return _assess(f"singling_out_{mode}", main, baseline, control_rate, confidence=confidence,
                   tau=tau, parameters=parameters, notes=notes)


# --------------------------------------------------------------------------------------------
# Linkability and inference (nearest synthetic records, docs/method/synthetic-attacks.md)


def _aux_space(space: Preparation | None, frames: Mapping[str, pd.DataFrame],
               columns: Sequence[str], categorical: Sequence[str]) -> Preparation:
    """The distance preparation restricted to ``columns``: the caller's (fitted on the training
    original) or synth_space's defaults fitted on the training original, with the column roles
    decided as for singling out (``_numeric_columns``)."""
    if space is None:
        numeric = _numeric_columns(frames, columns, categorical)
        space = prepare(frames["original"], columns=list(columns),
                        categorical=[c for c, k in zip(columns, numeric, strict=True) if not k])
    return space.subset(columns)


def _targets(frame: pd.DataFrame, n_attacks: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n_attacks`` distinct records drawn at random (all of them when the set is smaller)."""
    n = min(n_attacks, len(frame))
    return frame.iloc[rng.choice(len(frame), n, replace=False)]


def _shortfall(role: str, n: int, n_attacks: int) -> list[str]:
    if n < n_attacks:
        return [f"the {role} data set has only {n} records: {n} attacks instead of {n_attacks}"]
    return []


def _linked(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, whether the neighbour index sets ``a[i]`` and ``b[i]`` intersect."""
    return (a[:, :, None] == b[:, None, :]).any(axis=(1, 2))


def linkability(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    *,
    aux_columns: tuple[Sequence[str], Sequence[str]],
    n_attacks: int = 500,
    n_neighbors: int = 1,
    space: Preparation | None = None,
    categorical: Sequence[str] = (),
    confidence: float = 0.95,
    tau: float | None = None,
    seed: int = 0,
) -> AttackRisk:
    """Linkability attack (docs/method/synthetic-attacks.md): the intruder holds the target's columns ``A`` in
    one file and ``B`` in another; the target is linked when its ``n_neighbors`` nearest
    synthetic records on ``A`` and on ``B`` share a record. Targets are drawn from the training
    original (main) and the control set; the baseline draws the neighbours at random (without
    repetition within a set). Distances: ``space`` (attack.synth_space, fitted on the training
    original), by default ``prepare(original, columns=A + B)``."""
    _check_common(n_attacks, confidence, tau)
    first, second = (list(c) for c in aux_columns)
    if not first or not second:
        raise InputError("linkability needs two non-empty sets of auxiliary columns")
    for column in first:
        if column in second:
            raise InputError("column is in both auxiliary sets; they must be disjoint",
                             column=column)
    frames = _frames(original, synthetic, control)
    _require_columns(frames, [*first, *second, *categorical])
    if not 1 <= n_neighbors <= len(synthetic):
        raise InputError(f"n_neighbors must lie between 1 and the {len(synthetic)} synthetic "
                         f"records, got {n_neighbors}")
    space = _aux_space(space, frames, first + second, categorical)
    halves = space.subset(first), space.subset(second)
    pick_main, pick_control, guess = _rngs(seed, 3)

    def attack(frame: pd.DataFrame, rng: np.random.Generator) -> tuple[int, int]:
        targets = _targets(frame, n_attacks, rng)
        a, b = (nearest_neighbours(half, targets, synthetic, n_neighbors).indices
                for half in halves)
        return int(_linked(a, b).sum()), len(targets)

    main_k, n_main = attack(original, pick_main)
    notes = _shortfall("original", n_main, n_attacks)
    random_sets = [np.array([guess.choice(len(synthetic), n_neighbors, replace=False)
                             for _ in range(n_main)]) for _ in range(2)]
    baseline = success_rate(int(_linked(*random_sets).sum()), n_main, confidence)
    control_rate = None
    if control is not None:
        control_k, n_control = attack(control, pick_control)
        notes += _shortfall("control", n_control, n_attacks)
        control_rate = success_rate(control_k, n_control, confidence)
    parameters = {"aux_columns": [first, second], "n_attacks_requested": int(n_attacks),
                  "n_neighbors": int(n_neighbors), "space": space.to_dict(), "seed": int(seed)}
    main = success_rate(main_k, n_main, confidence)
    return _assess("linkability", main, baseline, control_rate, confidence=confidence, tau=tau,
                   parameters=parameters, notes=notes)


def correct_guesses(guesses: np.ndarray, secrets: np.ndarray, *, numeric: bool,
                    gamma: float) -> np.ndarray:
    """Whether each guess of a secret is correct (docs/method/synthetic-attacks.md pitfalls 1–2).

    Categorical: equal values; numeric: ``|ŷ − y| / |y| < γ`` with the TRUE value ``y`` in the
    denominator (never the guess), strict; a true zero is guessed only by an exact zero (the
    docs/method/risk.md zero rule with tolerance 0). Two missing values count as equal; a missing
    value against a present one is wrong."""
    if numeric:
        guess = np.asarray(guesses, dtype=float)
        truth = np.asarray(secrets, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            close = np.where(truth == 0, guess == 0, np.abs(guess - truth) / np.abs(truth) < gamma)
        return np.where(np.isnan(truth) | np.isnan(guess), np.isnan(truth) & np.isnan(guess),
                        close)
    codes, _ = pd.factorize(pd.concat([pd.Series(guesses, dtype=object),
                                       pd.Series(secrets, dtype=object)], ignore_index=True))
    return codes[:len(guesses)] == codes[len(guesses):]


def inference(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    *,
    aux_columns: Sequence[str],
    secret: str,
    n_attacks: int = 500,
    gamma: float = 0.10,
    space: Preparation | None = None,
    categorical: Sequence[str] = (),
    confidence: float = 0.95,
    tau: float | None = None,
    seed: int = 0,
) -> AttackRisk:
    """Inference attack (docs/method/synthetic-attacks.md): the intruder knows a target's ``aux_columns`` and
    guesses ``secret`` as the value of the nearest synthetic record on them; the baseline guesses
    the secret of a random synthetic record (drawn with replacement). Correctness by
    ``correct_guesses``; the secret is numeric when it is numeric in every data set (in text
    files: all values numbers) and not declared ``categorical``. γ defaults to the handbook's
    0.10 (docs/method/risk.md), not Anonymeter's fixed 5%. Distances: ``space`` as in
    ``linkability``, by default ``prepare(original, columns=aux_columns)``."""
    _check_common(n_attacks, confidence, tau)
    aux = list(aux_columns)
    if not aux:
        raise InputError("inference needs at least one auxiliary column")
    if secret in aux:
        raise InputError("the secret must not be an auxiliary column", column=secret)
    if not gamma > 0:
        raise InputError(f"tolerance γ must be positive, got {gamma}", column=secret)
    frames = _frames(original, synthetic, control)
    _require_columns(frames, [*aux, secret, *categorical])
    numeric = bool(_numeric_columns(frames, [secret], categorical)[0])
    space = _aux_space(space, frames, aux, categorical)
    pick_main, pick_control, guess = _rngs(seed, 3)

    synthetic_secrets = _values(synthetic, secret, numeric)

    def rate(truth: np.ndarray, guesses: np.ndarray) -> Rate:
        hits = correct_guesses(guesses, truth, numeric=numeric, gamma=gamma)
        return success_rate(int(hits.sum()), len(truth), confidence)

    def attack(frame: pd.DataFrame, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        targets = _targets(frame, n_attacks, rng)
        nearest = nearest_neighbours(space, targets, synthetic, 1).indices[:, 0]
        return _values(targets, secret, numeric), synthetic_secrets[nearest]

    truth, guesses = attack(original, pick_main)
    notes = _shortfall("original", len(truth), n_attacks)
    baseline = rate(truth, synthetic_secrets[guess.integers(0, len(synthetic), len(truth))])
    control_rate = None
    if control is not None:
        control_truth, control_guesses = attack(control, pick_control)
        notes += _shortfall("control", len(control_truth), n_attacks)
        control_rate = rate(control_truth, control_guesses)
    parameters = {"aux_columns": aux, "secret": secret, "secret_numeric": numeric,
                  "gamma": float(gamma) if numeric else None,
                  "zero_rule": "true 0 needs a guess of exactly 0" if numeric else None,
                  "n_attacks_requested": int(n_attacks), "space": space.to_dict(),
                  "seed": int(seed)}
    return _assess("inference", rate(truth, guesses), baseline, control_rate,
                   confidence=confidence, tau=tau, parameters=parameters, notes=notes)
