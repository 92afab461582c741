"""Analysis potential of a release: the deviation checks of docs/method/utility.md and the utility profile.

The handbook's deviation thresholds (docs/method/utility.md) are evaluated per *case* — a variable for a
whole-file statistic, a variable × subpopulation for subpopulation statistics, a variable pair for
correlations, a coefficient for regressions — and summarised per *family* as the share of cases
over the threshold; a family passes when that share is at most the tolerance (10%). Rules
(docs/method/utility.md):

* relative deviation ``|m^a − m| / |m|`` exceeds iff ``> 0.10`` (exactly 10% is within;
  deviations within 1e-12 of a threshold count as equal to it, to absorb binary rounding);
* zero original: the case is reported with reason "zero original"; it is an exceedance iff
  ``|m^a| > ε`` (ε = 0) and otherwise n/a (left out of the share's denominator);
* a statistic undefined on the original (e.g. the SD of a one-unit subpopulation) is n/a; one
  defined on the original but not on the release (the subpopulation vanished) is an exceedance
  [Proposal: a check the release no longer supports is not passed];
* correlations: absolute deviations; a sign change needs ``r · r^a < 0`` (a zero is no change);
* t-tests: Welch two-sample test of equal means, exceedance iff ``p < 0.10``; with weights the
  weighted means are tested with linearised variances
  ``n/(n−1) · Σ w²(x − x̄_w)² / (Σw)²`` [Proposal];
* structural zeros and signs are "preserved", so that family's tolerance is 0.

The profile also carries the information-loss measures of docs/method/utility.md
(``attack.information_loss``) and, with unit identity, interval disclosure (docs/method/utility.md,
``attack.anonymity``). Risk and utility are never merged into one number (docs/method/utility.md): the
profile only reports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
import pandas as pd
from annotated_types import Ge
from scipy import stats

from attack.errors import InputError
from attack.io.columns import number_columns, warn_unshared, weight_plausibility
from attack.io.notices import gathered
from attack.io.readers import (
    Table,
    as_table,
    frame_of,
    id_column,
    numeric_column,
    require_columns,
    source_name,
)
from attack.io.rules import checked
from attack.report.attack import MIN_CELL_COUNT
from attack.report.notebook import result_html
from attack.risk.evaluation import default_targets
from attack.utility.anonymity import (
    IntervalDisclosure,
    category_codes,
    interval_disclosure,
)
from attack.utility.information_loss import (
    DEFAULT_CR,
    CategoricalLoss,
    Description,
    Scores,
    categorical_loss,
    describe,
    il1s,
    information_loss_scores,
    json_float,
)
from attack.utility.propensity import PropensityUtility, propensity_utility
from attack.utility.recoverable import Recoverable, recoverable
from attack.utility.regression import Model, ModelComparison, compare_model

if TYPE_CHECKING:  # scikit-learn's models are imported only when the ML utility runs
    from attack.utility.ml import MlUtility

WITHIN, EXCEEDS, NA = "within", "exceeds", "n/a"
SLACK = 1e-12
WHOLE_FILE = "all"


@dataclass(frozen=True)
class Thresholds:
    """Deviation thresholds and the per-family tolerance (docs/method/utility.md)."""

    relative: float = 0.10
    pearson: float = 0.10
    spearman: float = 0.05
    alpha: float = 0.10
    tolerance: float = 0.10
    zero_epsilon: float = 0.0
    variance: float = 0.30

    def __post_init__(self) -> None:
        for name in ("relative", "pearson", "spearman", "alpha", "variance"):
            if not getattr(self, name) > 0:
                raise InputError(f"threshold {name} must be positive")
        if not 0 <= self.tolerance <= 1:
            raise InputError("the tolerance share must lie in [0, 1]")
        if self.zero_epsilon < 0:
            raise InputError("the zero tolerance ε must not be negative")

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Case:
    """One compared statistic. ``deviation`` is the compared quantity of the family (relative or
    absolute deviation, p-value for tests, share of changed values); ``status`` is within,
    exceeds or n/a."""

    variable: str
    scope: str
    original: float | None
    release: float | None
    deviation: float | None
    status: str
    reason: str | None = None
    n_original: int | None = None
    n_release: int | None = None

    def to_dict(self) -> dict:
        """JSON-ready; a case resting on fewer than ``MIN_CELL_COUNT`` original units (the
        minimum cell size of the risk reports) shows its status only: its values and deviation
        would disclose those units' values."""
        out = {k: json_float(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}
        if self.n_original is not None and self.n_original < MIN_CELL_COUNT:
            out.update(original=None, release=None, deviation=None,
                       suppressed=f"fewer than {MIN_CELL_COUNT} original units")
        return out


@dataclass(frozen=True)
class Family:
    """A check family and its cases; ``kind`` says how ``deviation`` reads (relative, absolute,
    share, p-value; sign and band families have none)."""

    name: str
    measure: str
    kind: str
    threshold: float | None
    tolerance: float
    cases: tuple[Case, ...]

    @property
    def exceedances(self) -> int:
        return sum(c.status == EXCEEDS for c in self.cases)

    @property
    def not_applicable(self) -> int:
        return sum(c.status == NA for c in self.cases)

    @property
    def share(self) -> float | None:
        evaluated = len(self.cases) - self.not_applicable
        return self.exceedances / evaluated if evaluated else None

    @property
    def passed(self) -> bool | None:
        share = self.share
        return None if share is None else share <= self.tolerance + SLACK

    def summary(self) -> dict:
        deviations = [
            c.deviation
            for c in self.cases
            if c.status != NA and c.deviation is not None and math.isfinite(c.deviation)
        ]
        averaged = self.kind in ("relative", "absolute", "share") and deviations
        return {
            "measure": self.measure,
            "threshold": self.threshold,
            "tolerance": self.tolerance,
            "cases": len(self.cases),
            "exceedances": self.exceedances,
            "not_applicable": self.not_applicable,
            "zero_original": sum(c.reason == "zero original" for c in self.cases),
            "share": json_float(self.share),
            "passed": self.passed,
            "mean_deviation": json_float(np.mean(deviations)) if averaged else None,
            "max_deviation": json_float(np.max(deviations)) if averaged else None,
        }


# --- classification of cases (docs/method/utility.md) -----------------------------------------------


def _classify(
    original: np.ndarray, release: np.ndarray, exceeds: np.ndarray
) -> tuple[list[str], list[str | None]]:
    """Status and reason per case from the comparison already made; undefined statistics first."""
    status = np.where(exceeds, EXCEEDS, WITHIN).astype(object)
    reason = np.full(len(status), None, dtype=object)
    undefined_r = ~np.isfinite(release)
    undefined_o = ~np.isfinite(original)
    status[undefined_r] = EXCEEDS
    reason[undefined_r] = "undefined in release"
    status[undefined_o] = NA
    reason[undefined_o] = "undefined in original"
    return list(status), list(reason)


def relative_status(
    original: np.ndarray, release: np.ndarray, threshold: float, epsilon: float = 0.0
) -> tuple[np.ndarray, list[str], list[str | None]]:
    """Relative deviations with the zero-original rule (docs/method/utility.md; worked example 7 (docs/reference/worked-examples.md))."""
    o = np.asarray(original, dtype=float)
    r = np.asarray(release, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        deviation = np.where(o != 0, np.abs(r - o) / np.abs(o), np.nan)
    status, reason = _classify(o, r, deviation > threshold + SLACK)
    for i in np.flatnonzero((o == 0) & np.isfinite(r)):
        status[i] = EXCEEDS if abs(r[i]) > epsilon else NA
        reason[i] = "zero original"
    return deviation, status, reason


def absolute_status(
    original: np.ndarray, release: np.ndarray, threshold: float
) -> tuple[np.ndarray, list[str], list[str | None]]:
    """Absolute deviations ``|r^a − r|`` (correlations, docs/method/utility.md)."""
    o = np.asarray(original, dtype=float)
    r = np.asarray(release, dtype=float)
    deviation = np.abs(r - o)
    return (deviation, *_classify(o, r, deviation > threshold + SLACK))


def sign_status(original: np.ndarray, release: np.ndarray) -> tuple[list[str], list[str | None]]:
    """Sign change iff ``m · m^a < 0`` (an exact zero is no change)."""
    o = np.asarray(original, dtype=float)
    r = np.asarray(release, dtype=float)
    return _classify(o, r, o * r < 0)


def welch_p(
    mean1: np.ndarray,
    var1: np.ndarray,
    df1: np.ndarray,
    mean2: np.ndarray,
    var2: np.ndarray,
    df2: np.ndarray,
) -> np.ndarray:
    """Two-sided Welch p-values from means, variances of the means and per-sample degrees of
    freedom (n − 1); NaN where a sample is too small; equal constant samples give p = 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        total = var1 + var2
        t = (mean2 - mean1) / np.sqrt(total)
        dof = total**2 / (
            np.where(var1 > 0, var1**2 / df1, 0) + np.where(var2 > 0, var2**2 / df2, 0)
        )
        p = 2 * stats.t.sf(np.abs(t), dof)
    p = np.where(total == 0, np.where(mean1 == mean2, 1.0, 0.0), p)
    return np.where((df1 >= 1) & (df2 >= 1) & np.isfinite(total), p, np.nan)


# --- data preparation -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scope:
    """Subpopulations of one scope: cell labels and each file's row → cell index (−1 none)."""

    name: str
    labels: tuple[str, ...]
    cells_original: np.ndarray
    cells_release: np.ndarray


def _category_codes(
    original: pd.DataFrame, release: pd.DataFrame, column: str
) -> tuple[np.ndarray, np.ndarray]:
    """Codes of both files' rows (original rows first; −1 missing) into the sorted union of
    their category labels, and those labels."""
    codes_o, labels_o = category_codes(original, column)
    codes_r, labels_r = category_codes(release, column)
    union = np.unique(np.concatenate([labels_o, labels_r]).astype(str))
    remap_o = np.append(np.searchsorted(union, labels_o.astype(str)), -1)
    remap_r = np.append(np.searchsorted(union, labels_r.astype(str)), -1)
    return np.concatenate([remap_o[codes_o], remap_r[codes_r]]), union


def _scope(
    columns: Sequence[str], coded: dict[str, tuple[np.ndarray, np.ndarray]], n_original: int
) -> _Scope:
    """Cells of the cross-classification of ``columns`` (coded by ``_category_codes``),
    sorted by label; rows with a missing category belong to no cell."""
    first = coded[columns[0]][0]
    keys = np.zeros(first.size, dtype=np.int64)
    missing = np.zeros(first.size, dtype=bool)
    radix = 1
    for column in columns:
        codes, union = coded[column]
        missing |= codes < 0
        if radix * len(union) > 2**40:  # keep the mixed-radix key far from overflow
            keys = np.unique(keys, return_inverse=True)[1]
            radix = int(keys.max()) + 1
        keys = keys * len(union) + np.maximum(codes, 0)
        radix *= len(union)
    cells, first_row, inverse = np.unique(keys[~missing], return_index=True, return_inverse=True)
    index = np.full(keys.size, -1, dtype=np.int64)
    index[~missing] = inverse
    rows = np.flatnonzero(~missing)[first_row]
    labels = tuple(
        ", ".join(f"{c}={coded[c][1][coded[c][0][row]]}" for c in columns) for row in rows
    )
    return _Scope("*".join(columns), labels, index[:n_original], index[n_original:])


def _whole_file(original: pd.DataFrame, release: pd.DataFrame) -> _Scope:
    return _Scope(
        WHOLE_FILE,
        (WHOLE_FILE,),
        np.zeros(len(original), dtype=np.int64),
        np.zeros(len(release), dtype=np.int64),
    )


def _matrix(frame: Table | pd.DataFrame, variables: Sequence[str]) -> np.ndarray:
    """Numeric columns as a column-major matrix (contiguous columns for per-variable work)."""
    x = np.empty((len(frame), len(variables)), order="F")
    for j, v in enumerate(variables):
        x[:, j] = numeric_column(frame, v)
    return x


def _weights(frame: Table | pd.DataFrame, column: str) -> np.ndarray:
    w = numeric_column(frame, column)
    bad = np.flatnonzero(~(w >= 0))
    if bad.size:
        raise InputError(
            f"expected a non-negative weight, found {frame_of(frame)[column].iloc[bad[0]]!r}",
            file=source_name(frame),
            column=column,
            row=int(bad[0]) + 1,
        )
    weight_plausibility(source_name(frame), column, w)
    return w


# --- group statistics --------------------------------------------------------------------------


def _moments(x: np.ndarray, cells: np.ndarray, n_cells: int) -> dict[str, np.ndarray]:
    """Count, mean, median and sample SD per cell (rows) and variable (columns)."""
    key = pd.Categorical.from_codes(cells, categories=pd.RangeIndex(n_cells))
    groups = pd.DataFrame(x, copy=False).groupby(key, observed=False)
    return {
        "n": groups.count().to_numpy(dtype=float),
        "mean": groups.mean().to_numpy(dtype=float),
        "median": groups.median().to_numpy(dtype=float),
        "sd": groups.std(ddof=1).to_numpy(dtype=float),
    }


def _weighted(
    x: np.ndarray, w: np.ndarray, cells: np.ndarray, n_cells: int
) -> dict[str, np.ndarray]:
    """Weighted mean, linearised variance of the weighted mean and n per cell and variable."""
    out = {k: np.empty((n_cells, x.shape[1])) for k in ("mean", "var", "n")}
    for j in range(x.shape[1]):
        ok = (cells >= 0) & ~np.isnan(x[:, j])
        c = np.where(ok, cells, n_cells)  # invalid rows go to an extra, discarded cell
        wj = np.where(ok, w, 0.0)
        xj = np.where(ok, x[:, j], 0.0)
        n = np.bincount(c, minlength=n_cells + 1)[:n_cells].astype(float)
        weight = np.bincount(c, weights=wj, minlength=n_cells + 1)[:n_cells]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.bincount(c, weights=wj * xj, minlength=n_cells + 1)[:n_cells] / weight
            spread = (wj * (xj - np.append(mean, 0.0)[c])) ** 2
            spread = np.bincount(c, weights=spread, minlength=n_cells + 1)[:n_cells]
            out["var"][:, j] = n / (n - 1) * spread / weight**2
        out["mean"][:, j], out["n"][:, j] = mean, n
    return out


def _cases(
    variables: Sequence[str],
    labels: Sequence[str],
    original: np.ndarray,
    release: np.ndarray,
    deviation: np.ndarray,
    status: Sequence[str],
    reason: Sequence[str | None],
    n_original: np.ndarray | None = None,
    n_release: np.ndarray | None = None,
) -> list[Case]:
    """Cases from flattened (variable-major) arrays of len(variables) × len(labels) entries."""
    out = []
    for i in range(len(variables) * len(labels)):
        v, cell = divmod(i, len(labels))
        out.append(
            Case(
                variable=variables[v],
                scope=labels[cell],
                original=json_float(original[i]),
                release=json_float(release[i]),
                deviation=json_float(deviation[i]),
                status=status[i],
                reason=reason[i],
                n_original=None if n_original is None else int(n_original[i]),
                n_release=None if n_release is None else int(n_release[i]),
            )
        )
    return out


def _flat(a: np.ndarray) -> np.ndarray:
    """cells × variables → variable-major flat vector."""
    return np.asarray(a, dtype=float).T.ravel()


def _subpopulation_cases(
    scopes: Sequence[_Scope],
    variables: Sequence[str],
    x_o: np.ndarray,
    x_r: np.ndarray,
    w_o: np.ndarray | None,
    w_r: np.ndarray | None,
    th: Thresholds,
) -> dict[str, list[Case]]:
    """Means, medians, SDs, variances, t-tests (and weighted means / t-tests) per variable and
    cell of every scope (docs/method/utility.md)."""
    out: dict[str, list[Case]] = {}

    def add(name: str, cases: list[Case]) -> None:
        out.setdefault(name, []).extend(cases)

    for scope in scopes:
        g = len(scope.labels)
        mo = _moments(x_o, scope.cells_original, g)
        mr = _moments(x_r, scope.cells_release, g)
        n_o, n_r = _flat(mo["n"]), _flat(mr["n"])
        for stat, minimum in (("mean", 1), ("median", 1), ("sd", 2)):
            o = np.where(n_o >= minimum, _flat(mo[stat]), np.nan)
            r = np.where(n_r >= minimum, _flat(mr[stat]), np.nan)
            add(
                f"{stat}s",
                _cases(
                    variables,
                    scope.labels,
                    o,
                    r,
                    *relative_status(o, r, th.relative, th.zero_epsilon),
                    n_o,
                    n_r,
                ),
            )
            if stat == "sd":
                add(
                    "variances",
                    _cases(
                        variables,
                        scope.labels,
                        o**2,
                        r**2,
                        *relative_status(o**2, r**2, th.variance, th.zero_epsilon),
                        n_o,
                        n_r,
                    ),
                )
        mean_o, mean_r = _flat(mo["mean"]), _flat(mr["mean"])
        with np.errstate(invalid="ignore", divide="ignore"):
            p = welch_p(
                mean_o,
                _flat(mo["sd"]) ** 2 / n_o,
                n_o - 1,
                mean_r,
                _flat(mr["sd"]) ** 2 / n_r,
                n_r - 1,
            )
        add("t_tests", _test_cases(variables, scope.labels, mean_o, mean_r, p, n_o, n_r, th))
        if w_o is not None and w_r is not None:
            wo = _weighted(x_o, w_o, scope.cells_original, g)
            wr = _weighted(x_r, w_r, scope.cells_release, g)
            o, r = _flat(wo["mean"]), _flat(wr["mean"])
            n_o, n_r = _flat(wo["n"]), _flat(wr["n"])
            add(
                "weighted_means",
                _cases(
                    variables,
                    scope.labels,
                    o,
                    r,
                    *relative_status(o, r, th.relative, th.zero_epsilon),
                    n_o,
                    n_r,
                ),
            )
            p = welch_p(o, _flat(wo["var"]), n_o - 1, r, _flat(wr["var"]), n_r - 1)
            add("weighted_t_tests", _test_cases(variables, scope.labels, o, r, p, n_o, n_r, th))
    return out


def _test_cases(
    variables: Sequence[str],
    labels: Sequence[str],
    mean_o: np.ndarray,
    mean_r: np.ndarray,
    p: np.ndarray,
    n_o: np.ndarray,
    n_r: np.ndarray,
    th: Thresholds,
) -> list[Case]:
    """t-test cases: deviation is the p-value; fewer than 2 units → undefined on that side."""
    status, reason = _classify(
        np.where(n_o >= 2, 0.0, np.nan), np.where(n_r >= 2, 0.0, np.nan), p < th.alpha
    )
    return _cases(variables, labels, mean_o, mean_r, p, status, reason, n_o, n_r)


def _paired_cases(
    scopes: Sequence[_Scope],
    variables: Sequence[str],
    x_o: np.ndarray,
    x_r: np.ndarray,
    rows_o: np.ndarray,
    rows_r: np.ndarray,
    th: Thresholds,
) -> list[Case]:
    """Paired t-tests on per-unit differences of aligned units (cells from the original); the
    case shows the means of the aligned values in each file."""
    a, b = x_o[rows_o], x_r[rows_r]
    out = []
    for scope in scopes:
        g = len(scope.labels)
        cells = scope.cells_original[rows_o]
        m = _moments(b - a, cells, g)
        mean_o = _flat(_moments(a, cells, g)["mean"])
        mean_r = _flat(_moments(b, cells, g)["mean"])
        n, mean, sd = _flat(m["n"]), _flat(m["mean"]), _flat(m["sd"])
        zero = np.zeros_like(mean)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = welch_p(zero, zero, n, mean, sd**2 / n, n - 1)
        status, reason = _classify(np.where(n >= 2, 0.0, np.nan), zero, p < th.alpha)
        out += _cases(variables, scope.labels, mean_o, mean_r, p, status, reason, n, n)
    return out


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean of their positions) of a vector without NaN."""
    order = np.argsort(x)
    s = x[order]
    new = np.empty(s.size, dtype=bool)
    new[:1] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    tie = np.cumsum(new) - 1
    counts = np.bincount(tie)
    average = np.cumsum(counts) - (counts - 1) / 2
    out = np.empty(x.size)
    out[order] = average[tie]
    return out


def _correlations(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson and Spearman matrices on pairwise complete rows (NaN where undefined)."""
    p = x.shape[1]
    pearson, spearman = np.full((p, p), np.nan), np.full((p, p), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        if not np.isnan(x).any():
            if x.shape[0] >= 2:
                pearson = np.atleast_2d(np.corrcoef(x, rowvar=False))
                ranks = np.column_stack([_ranks(x[:, j]) for j in range(p)])
                spearman = np.atleast_2d(np.corrcoef(ranks, rowvar=False))
            return pearson, spearman
        for i in range(p):
            for j in range(i + 1, p):
                ok = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
                if ok.sum() >= 2:
                    a, b = x[ok, i], x[ok, j]
                    pearson[i, j] = pearson[j, i] = np.corrcoef(a, b)[0, 1]
                    ranks = np.corrcoef(_ranks(a), _ranks(b))[0, 1]
                    spearman[i, j] = spearman[j, i] = ranks
    return pearson, spearman


def _correlation_families(
    variables: Sequence[str], x_o: np.ndarray, x_r: np.ndarray, th: Thresholds
) -> list[Family]:
    """Pearson (|Δ| > 0.10), Spearman (|Δ| > 0.05) and their signs, per variable pair."""
    pairs = np.triu_indices(len(variables), k=1)
    names = [f"{variables[i]}, {variables[j]}" for i, j in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True)]
    (p_o, s_o), (p_r, s_r) = _correlations(x_o), _correlations(x_r)
    families, signs = [], []
    for kind, o, r, limit in (
        ("pearson", p_o[pairs], p_r[pairs], th.pearson),
        ("spearman", s_o[pairs], s_r[pairs], th.spearman),
    ):
        cases = _cases(names, [WHOLE_FILE], o, r, *absolute_status(o, r, limit))
        families.append(
            Family(kind, f"|r^a − r| ({kind})", "absolute", limit, th.tolerance, tuple(cases))
        )
        nan = np.full(o.shape, np.nan)
        signs += _cases(names, [kind], o, r, nan, *sign_status(o, r))
    families.append(
        Family(
            "correlation_signs",
            "sign change r · r^a < 0 (pearson and spearman)",
            "sign",
            None,
            th.tolerance,
            tuple(signs),
        )
    )
    return families


def _frequency_cases(scopes: Sequence[_Scope], th: Thresholds) -> list[Case]:
    """Row counts per cell of every scope, relative deviation (docs/method/utility.md)."""
    out = []
    for scope in scopes:
        g = len(scope.labels)
        o = np.bincount(scope.cells_original[scope.cells_original >= 0], minlength=g).astype(float)
        r = np.bincount(scope.cells_release[scope.cells_release >= 0], minlength=g).astype(float)
        out += _cases(
            [scope.name], scope.labels, o, r, *relative_status(o, r, th.relative, th.zero_epsilon), o, r
        )
    return out


@dataclass(frozen=True)
class ValueChange:
    """Per-value comparison of one variable over aligned units (docs/method/utility.md, footnote 63)."""

    variable: str
    n: int
    evaluated: int
    exceedances: int
    zero_original: int
    zero_to_nonzero: int
    nonzero_to_zero: int
    sign_flips: int

    @property
    def share(self) -> float | None:
        return self.exceedances / self.evaluated if self.evaluated else None

    @property
    def structural_changes(self) -> int:
        return self.zero_to_nonzero + self.nonzero_to_zero + self.sign_flips

    def to_dict(self) -> dict:
        return {
            **self.__dict__,
            "share": json_float(self.share),
            "structural_changes": self.structural_changes,
        }


def value_changes(
    variable: str, original: np.ndarray, release: np.ndarray, threshold: float, epsilon: float = 0.0
) -> ValueChange:
    """Share of values with ``|x^a − x| / |x| > threshold`` (zero rule as for statistics: a zero
    original counts as exceeding iff ``|x^a| > ε``, else it is not evaluated) and the
    structural-zero and sign changes, over pairs with both values present."""
    ok = ~np.isnan(original) & ~np.isnan(release)
    a, b = original[ok], release[ok]
    zero = a == 0
    over = np.abs(b - a) > (threshold + SLACK) * np.abs(a)
    zero_excluded = int((zero & ~(np.abs(b) > epsilon)).sum())
    return ValueChange(
        variable=variable,
        n=int(ok.sum()),
        evaluated=int(ok.sum()) - zero_excluded,
        exceedances=int((over & ~zero).sum()) + int(zero.sum()) - zero_excluded,
        zero_original=int(zero.sum()),
        zero_to_nonzero=int((zero & (b != 0)).sum()),
        nonzero_to_zero=int((~zero & (b == 0)).sum()),
        sign_flips=int((a * b < 0).sum()),
    )


def _structural_cases(
    variables: Sequence[str],
    x_o: np.ndarray,
    x_r: np.ndarray,
    changes: Sequence[ValueChange] | None,
) -> list[Case]:
    """Structural zeros and signs per variable: per value with identity, else by counts."""
    out = []
    for j, v in enumerate(variables):
        a, b = x_o[:, j], x_r[:, j]
        zeros_o, zeros_r = int((a == 0).sum()), int((b == 0).sum())
        if changes is not None:
            c = changes[j]
            changed = c.structural_changes
            status = NA if c.n == 0 else (EXCEEDS if changed else WITHIN)
            reason = (
                f"zero→non-zero {c.zero_to_nonzero}, non-zero→zero {c.nonzero_to_zero}, "
                f"sign flips {c.sign_flips} among {c.n} aligned values"
            )
            deviation = changed / c.n if c.n else None
        else:
            neg_o, neg_r = int((a < 0).sum()), int((b < 0).sum())
            status = EXCEEDS if (zeros_o, neg_o) != (zeros_r, neg_r) else WITHIN
            reason = f"zeros {zeros_o}→{zeros_r}, negatives {neg_o}→{neg_r} (no unit identity)"
            deviation = None
        out.append(Case(v, WHOLE_FILE, float(zeros_o), float(zeros_r), deviation, status, reason))
    return out


def _regression_families(comparisons: Sequence[ModelComparison], th: Thresholds) -> list[Family]:
    """Coefficients (relative deviation), their signs and significance bands (docs/method/utility.md)."""
    rows = [(m.model.label, c) for m in comparisons for c in m.coefficients]
    if not rows:
        return []
    terms = [c.term for _, c in rows]
    models = [label for label, _ in rows]
    b = np.array([c.original for _, c in rows], dtype=float)
    a = np.array([np.nan if c.release is None else c.release for _, c in rows])
    p_o = np.array([np.nan if c.p_original is None else c.p_original for _, c in rows])
    p_r = np.array([np.nan if c.p_release is None else c.p_release for _, c in rows])
    band = np.array([bool(c.band_change) for _, c in rows])
    nan = np.full(b.shape, np.nan)

    def cases(o: np.ndarray, r: np.ndarray, deviation: np.ndarray, status: Sequence[str],
              reason: Sequence[str | None]) -> tuple[Case, ...]:
        return tuple(
            Case(
                terms[i],
                models[i],
                json_float(o[i]),
                json_float(r[i]),
                json_float(deviation[i]),
                status[i],
                reason[i],
            )
            for i in range(len(rows))
        )

    return [
        Family(
            "coefficients",
            "|b^a − b| / |b|",
            "relative",
            th.relative,
            th.tolerance,
            cases(b, a, *relative_status(b, a, th.relative, th.zero_epsilon)),
        ),
        Family(
            "coefficient_signs",
            "sign change b · b^a < 0",
            "sign",
            None,
            th.tolerance,
            cases(b, a, nan, *sign_status(b, a)),
        ),
        Family(
            "significance",
            "p-value band change (<0.01, <0.05, <0.10, >=0.10)",
            "band",
            None,
            th.tolerance,
            cases(p_o, p_r, nan, *_classify(p_o, p_r, band)),
        ),
    ]


@dataclass(frozen=True)
class PerRecord:
    """Measures that need unit identity (docs/method/utility.md per-value share)."""

    id_columns: tuple[str, str]
    matched: int
    deleted: int
    added: int
    complete: int
    il1s: float | None
    il1s_population: float | None
    il1s_skipped: tuple[str, ...]
    values: tuple[ValueChange, ...]
    scores: Scores | None
    interval: IntervalDisclosure | None

    def to_dict(self) -> dict:
        return {
            "id_columns": list(self.id_columns),
            "matched_units": self.matched,
            "deleted_units": self.deleted,
            "added_units": self.added,
            "complete_units": self.complete,
            "il1s": {
                "sample_sd": json_float(self.il1s),
                "population_sd": json_float(self.il1s_population),
                "skipped_constant": list(self.il1s_skipped),
            },
            "values": [v.to_dict() for v in self.values],
            "scores": None if self.scores is None else self.scores.to_dict(),
            "interval_disclosure": None if self.interval is None else self.interval.to_dict(),
        }


def _align(
    original: Table | pd.DataFrame, release: Table | pd.DataFrame, id_columns: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray]:
    """Row positions (original, release) of the units present in both, in original order."""
    ids_o = id_column(original, id_columns[0])
    ids_r = id_column(release, id_columns[1])
    position = pd.Index(ids_o).get_indexer(ids_r)
    rows_r = np.flatnonzero(position >= 0)
    rows_o = position[rows_r]
    order = np.argsort(rows_o, kind="stable")
    return rows_o[order], rows_r[order]


def _per_record(
    variables: Sequence[str],
    x_o: np.ndarray,
    x_r: np.ndarray,
    id_columns: tuple[str, str],
    rows: tuple[np.ndarray, np.ndarray],
    th: Thresholds,
    cov_range: str,
    interval_k: float,
) -> PerRecord:
    """Per-value changes on aligned units; IL1s, scores and interval disclosure on the aligned
    units complete in every variable."""
    a, b = x_o[rows[0]], x_r[rows[1]]
    values = tuple(
        value_changes(v, a[:, j], b[:, j], th.relative, th.zero_epsilon)
        for j, v in enumerate(variables)
    )
    complete = ~np.isnan(a).any(axis=1) & ~np.isnan(b).any(axis=1)
    a, b = a[complete], b[complete]
    sample, skipped = il1s(a, b, ddof=1)
    population, _ = il1s(a, b, ddof=0)
    enough = a.shape[0] >= 2
    return PerRecord(
        id_columns=id_columns,
        matched=int(rows[0].size),
        deleted=int(x_o.shape[0] - rows[0].size),
        added=int(x_r.shape[0] - rows[1].size),
        complete=int(complete.sum()),
        il1s=sample,
        il1s_population=population,
        il1s_skipped=tuple(variables[j] for j in skipped),
        values=values,
        scores=information_loss_scores(a, b, cov_range) if enough else None,
        interval=interval_disclosure(a, b, variables, interval_k) if enough else None,
    )


@dataclass(frozen=True)
class UtilityProfile:
    """The utility profile of a release: check families side by side, never one score."""

    n_original: int
    n_release: int
    variables: tuple[str, ...]
    scopes: tuple[str, ...]
    weights: str | None
    thresholds: Thresholds
    missing: dict[str, tuple[int, int]]
    families: tuple[Family, ...]
    descriptive: dict[str, tuple[Description, Description]]
    categorical: tuple[CategoricalLoss, ...]
    models: tuple[ModelComparison, ...]
    per_record: PerRecord | None
    propensity: PropensityUtility | None = None
    ml: MlUtility | None = None
    recoverable: Recoverable | None = None

    def family(self, name: str) -> Family:
        for f in self.families:
            if f.name == name:
                return f
        raise KeyError(name)

    def summary(self) -> dict[str, dict]:
        """Per family: cases, exceedances, n/a, share and passed."""
        return {f.name: f.summary() for f in self.families}

    def __repr__(self) -> str:
        kept = sum(f.passed is True for f in self.families)
        lost = [f.name for f in self.families if f.passed is False]
        return (f"UtilityProfile({self.n_original} original and {self.n_release} release rows, "
                f"{len(self.variables)} variables; {kept} of {len(self.families)} families within "
                f"tolerance" + (f"; exceeded: {', '.join(lost)}" if lost else "") + ")")

    def table(self) -> pd.DataFrame:
        """One row per check family: within tolerance, cases, exceedances, share and tolerance."""
        return pd.DataFrame([{"passed": f.passed, "family": f.name, "cases": len(f.cases),
                              "exceeding": f.exceedances, "not_applicable": f.not_applicable,
                              "share": f.share, "tolerance": f.tolerance} for f in self.families])

    def _repr_html_(self) -> str:
        kept = sum(f.passed is True for f in self.families)
        return result_html(
            "Utility profile", None,
            [f"{self.n_original} original and {self.n_release} release rows, {len(self.variables)} variables",
             f"{kept} of {len(self.families)} families within tolerance",
             "share: cases beyond the family's threshold (lower is better); reported beside the risk verdict"],
            self.table(), failing=[f.passed is False for f in self.families], full=".table(), .to_dict()")

    def to_dict(self) -> dict:
        return {
            "n_original": self.n_original,
            "n_release": self.n_release,
            "variables": list(self.variables),
            "subpopulation_scopes": list(self.scopes),
            "weights": self.weights,
            "thresholds": self.thresholds.to_dict(),
            "missing_values": {
                v: {"original": o, "release": r} for v, (o, r) in self.missing.items()
            },
            "families": self.summary(),
            "cases": {f.name: [c.to_dict() for c in f.cases] for f in self.families},
            "descriptive": {
                v: {"original": o.to_dict(), "release": r.to_dict()}
                for v, (o, r) in self.descriptive.items()
            },
            "categorical": [c.to_dict() for c in self.categorical],
            "models": [m.to_dict() for m in self.models],
            "per_record": None if self.per_record is None else self.per_record.to_dict(),
            "propensity": None if self.propensity is None else self.propensity.to_dict(),
            "ml": None if self.ml is None else self.ml.to_dict(),
            "recoverable": None if self.recoverable is None else self.recoverable.to_dict(),
            "note": "utility is reported per family; it is never combined with risk into a score",
        }


# family → (measure, kind of deviation, Thresholds field of its threshold; None = 0, any change)
FAMILY_MEASURES: dict[str, tuple[str, str, str | None]] = {
    "means": ("|m^a − m| / |m| of arithmetic means", "relative", "relative"),
    "medians": ("|m^a − m| / |m| of medians", "relative", "relative"),
    "sds": ("|s^a − s| / |s| of sample standard deviations", "relative", "relative"),
    "variances": ("|v^a − v| / |v| of sample variances (Table 35.25)", "relative", "variance"),
    "t_tests": ("Welch t-test p-value, exceedance iff p < alpha", "p-value", "alpha"),
    "weighted_means": ("|m^a − m| / |m| of weighted means", "relative", "relative"),
    "weighted_t_tests": ("Welch t-test p-value on weighted means", "p-value", "alpha"),
    "paired_t_tests": ("paired t-test p-value on per-unit differences", "p-value", "alpha"),
    "frequencies": ("|c^a − c| / |c| of cell counts", "relative", "relative"),
    "structural_zeros": ("share of values whose zero status or sign changed", "share", None),
}


@dataclass(frozen=True)
class _ProfilePlan:
    """What a profile compares, read and checked once from the inputs: both files (tables name
    their files in messages, the measures work on their frames), the compared variables as
    matrices, the weights, the subpopulation scopes and, with unit identity, the aligned rows."""

    tables: tuple[Table, Table]
    variables: tuple[str, ...]
    x_o: np.ndarray
    x_r: np.ndarray
    w_o: np.ndarray | None
    w_r: np.ndarray | None
    scopes: tuple[_Scope, ...]
    id_columns: tuple[str, str] | None
    rows: tuple[np.ndarray, np.ndarray] | None

    @property
    def original(self) -> pd.DataFrame:
        return self.tables[0].frame

    @property
    def release(self) -> pd.DataFrame:
        return self.tables[1].frame


def _checked_crosses(crosses: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    out = [tuple(c) for c in crosses]
    for cross in out:
        if len(cross) < 2 or len(set(cross)) != len(cross):
            raise InputError(f"a cross needs two or more distinct variables, got {list(cross)}")
    return out


def _id_columns(per_record: str | tuple[str, str] | None, paired: bool) -> tuple[str, str] | None:
    id_columns = (per_record, per_record) if isinstance(per_record, str) else per_record
    if paired and id_columns is None:
        raise InputError("paired t-tests need unit identity (per_record id columns)")
    return id_columns


def _compared_variables(
    tables: tuple[Table, Table], variables: Sequence[str] | None, excluded: list[str]
) -> list[str]:
    """The named variables, or the numeric ones both files share outside ``excluded``."""
    if variables is None:
        warn_unshared(*tables, "release", number_columns(tables[0].frame, excluded))
        variables = default_targets(tables[1], tables[0], exclude=excluded)
        if not variables:
            raise InputError("no numeric variable common to both files; name them explicitly")
    return list(dict.fromkeys(variables))


def _profile_plan(
    original: Table | pd.DataFrame,
    release: Table | pd.DataFrame,
    variables: Sequence[str] | None,
    by: Sequence[str],
    crosses: Sequence[Sequence[str]],
    weights: str | None,
    per_record: str | tuple[str, str] | None,
    paired: bool,
    concentration: Sequence[int],
) -> _ProfilePlan:
    tables = as_table(original), as_table(release)
    frames = tables[0].frame, tables[1].frame
    checked = _checked_crosses(crosses)
    categorical = list(dict.fromkeys([*by, *(c for cross in checked for c in cross)]))
    id_columns = _id_columns(per_record, paired)
    if any(k < 1 for k in concentration):
        raise InputError("concentration ratios need k ≥ 1")
    weighting = [weights] if weights else []
    compared = _compared_variables(tables, variables, [*categorical, *weighting, *(id_columns or ())])
    for table, ids in ((tables[0], 0), (tables[1], 1)):
        extra = [id_columns[ids]] if id_columns else []
        require_columns(table, [*compared, *categorical, *weighting, *extra])
    x_o, x_r = _matrix(tables[0], compared), _matrix(tables[1], compared)
    w_o = _weights(tables[0], weights) if weights else None
    w_r = _weights(tables[1], weights) if weights else None
    coded = {c: _category_codes(*frames, c) for c in categorical}
    scopes = (
        _whole_file(*frames),
        *(_scope([c], coded, len(frames[0])) for c in dict.fromkeys(by)),
        *(_scope(list(c), coded, len(frames[0])) for c in dict.fromkeys(checked)),
    )
    rows = _align(*tables, id_columns) if id_columns else None
    return _ProfilePlan(tables, tuple(compared), x_o, x_r, w_o, w_r, scopes, id_columns, rows)


def _case_families(grouped: Mapping[str, list[Case]], th: Thresholds) -> list[Family]:
    """The case families (``FAMILY_MEASURES``) with their thresholds and tolerances."""
    families = []
    for name, cases in grouped.items():
        measure, kind, setting = FAMILY_MEASURES[name]
        threshold = getattr(th, setting) if setting else 0.0
        tolerance = th.tolerance if setting else 0.0  # structural zeros: "preserved"
        families.append(Family(name, measure, kind, threshold, tolerance, tuple(cases)))
    return families


def _grouped_cases(plan: _ProfilePlan, th: Thresholds, paired: bool) -> dict[str, list[Case]]:
    """Subpopulation statistics, paired t-tests (with ``paired``) and cell counts, per family."""
    grouped = _subpopulation_cases(plan.scopes, plan.variables, plan.x_o, plan.x_r, plan.w_o, plan.w_r, th)
    if paired and plan.rows is not None:  # paired without ids was refused by the plan
        grouped["paired_t_tests"] = _paired_cases(plan.scopes, plan.variables, plan.x_o, plan.x_r, *plan.rows, th)
    grouped["frequencies"] = _frequency_cases(plan.scopes, th)
    return grouped


def _per_record_of(plan: _ProfilePlan, th: Thresholds, cov_range: str, interval_k: float) -> PerRecord | None:
    if plan.rows is None or plan.id_columns is None:
        return None
    return _per_record(plan.variables, plan.x_o, plan.x_r, plan.id_columns, plan.rows, th, cov_range,
                       interval_k)


def _missing(plan: _ProfilePlan) -> dict[str, tuple[int, int]]:
    return {v: (int(np.isnan(plan.x_o[:, j]).sum()), int(np.isnan(plan.x_r[:, j]).sum()))
            for j, v in enumerate(plan.variables)}


def _descriptive(plan: _ProfilePlan, concentration: Sequence[int]) -> dict[str, tuple[Description, Description]]:
    return {v: (describe(plan.x_o[:, j], concentration), describe(plan.x_r[:, j], concentration))
            for j, v in enumerate(plan.variables)}


@gathered
@checked
def utility_profile(
    original: Table | pd.DataFrame,
    release: Table | pd.DataFrame,
    *,
    variables: Sequence[str] | None = None,
    by: Sequence[str] = (),
    crosses: Sequence[Sequence[str]] = (),
    weights: str | None = None,
    models: Sequence[Model | str] = (),
    thresholds: Thresholds | None = None,
    per_record: str | tuple[str, str] | None = None,
    paired: bool = False,
    cov_range: Literal["i<j", "i<=j"] = "i<j",
    interval_k: Annotated[float, Ge(0)] = 0.05,
    concentration: Sequence[int] = DEFAULT_CR,
    propensity: bool | Mapping[str, Any] = False,
    ml: str | Mapping[str, Any] | None = None,
    protection_log: Mapping[str, Any] | None = None,
) -> UtilityProfile:
    """Compare a release with its original on the handbook's deviation checks (docs/method/utility.md).

    ``by`` names categorical variables whose categories are subpopulations; ``crosses`` lists
    cross-classifications of categorical variables (e.g. ``[("nace", "region")]``) whose cells
    are subpopulations too. ``weights`` names an extrapolation-factor column (present in both
    files) for weighted means and t-tests. ``models`` are reference regressions (a plain string
    is an OLS formula). ``per_record`` = id column (same name in both files) or (original id,
    release id) enables per-value measures, IL1s, Score I/II, interval disclosure and, with
    ``paired``, paired t-tests. Missing values are left out per statistic (correlations:
    pairwise; per-record summaries: complete aligned units) and counted in ``missing``.
    ``propensity`` (True, or the keyword arguments of
    ``attack.utility.propensity.propensity_utility``) adds the propensity-score measures
    (pMSE, S_pMSE, two-way tables) over the columns both files share. ``ml`` (a target, or the
    keyword arguments of ``attack.utility.ml.ml_utility`` with ``target``) adds the
    machine-learning utility and its family ``ml_prediction`` (one case per model; the unit ids
    of ``per_record`` align the files unless ``ids`` is given). ``protection_log`` (the log of
    ``attack protect``) adds what an analyst can recover with it
    (``attack.utility.recoverable.recoverable``; the ML target is the regression target).
    """
    th = thresholds or Thresholds()
    plan = _profile_plan(original, release, variables, by, crosses, weights, per_record, paired, concentration)
    grouped = _grouped_cases(plan, th, paired)
    record = _per_record_of(plan, th, cov_range, interval_k)
    grouped["structural_zeros"] = _structural_cases(
        plan.variables, plan.x_o, plan.x_r, None if record is None else record.values
    )
    families = _case_families(grouped, th)
    families += _correlation_families(plan.variables, plan.x_o, plan.x_r, th)
    comparisons = tuple(
        compare_model(*plan.tables, m if isinstance(m, Model) else Model(m), plan.rows) for m in models
    )
    families += _regression_families(comparisons, th)
    learned = _ml(plan.original, plan.release, ml, plan.id_columns)
    if learned is not None:
        families.append(ml_family(learned))
    return UtilityProfile(
        n_original=len(plan.original),
        n_release=len(plan.release),
        variables=plan.variables,
        scopes=tuple(s.name for s in plan.scopes),
        weights=weights,
        thresholds=th,
        missing=_missing(plan),
        families=tuple(families),
        descriptive=_descriptive(plan, concentration),
        categorical=tuple(
            categorical_loss(s.name, s.cells_original, s.cells_release, plan.rows) for s in plan.scopes[1:]
        ),
        models=comparisons,
        per_record=record,
        propensity=_propensity(plan.original, plan.release, propensity),
        ml=learned,
        recoverable=None if protection_log is None else recoverable(
            plan.original, plan.release, protection_log, None if learned is None else learned.target),
    )


def _propensity(original: pd.DataFrame, release: pd.DataFrame,
                settings: bool | Mapping[str, Any]) -> PropensityUtility | None:
    if settings is False:
        return None
    options = {} if settings is True else dict(settings)
    return propensity_utility(original, release, **options)


def _ml(original: pd.DataFrame, release: pd.DataFrame, settings: str | Mapping[str, Any] | None,
        id_columns: tuple[str, str] | None) -> MlUtility | None:
    if settings is None:
        return None
    options: dict[str, Any] = {"target": settings} if isinstance(settings, str) else dict(settings)
    if "target" not in options:
        raise InputError("the ML utility needs a target variable")
    options.setdefault("ids", id_columns)
    from attack.utility.ml import ml_utility

    return ml_utility(original, release, **options)


def ml_family(learned: MlUtility) -> Family:
    """The ML utility as a check family: one case per model, the deviation its relative loss of
    the verdict metric, exceeding beyond the model's tolerance; every model must keep its
    utility (tolerance share 0)."""
    cases = []
    for m in learned.models:
        status = NA if m.passed is None else (WITHIN if m.passed else EXCEEDS)
        ratio = m.ratio
        interval = "" if ratio.low is None else f" [{ratio.low:.3g}, {ratio.high:.3g}]"
        reason = (None if ratio.mean is None else
                  f"ratio {ratio.mean:.4g}{interval}, tolerance {m.tolerance:g}")
        cases.append(Case(m.model, learned.target, json_float(m.original[m.metric].mean),
                          json_float(m.release[m.metric].mean), json_float(m.loss), status, reason))
    tolerances = {m.tolerance for m in learned.models}
    return Family("ml_prediction",
                  f"relative loss of the {learned.metric} on held-out original rows "
                  "(model trained on the release against one trained on the original)",
                  "relative", tolerances.pop() if len(tolerances) == 1 else None, 0.0,
                  tuple(cases))
