"""The CAP family of attribute-disclosure measures for synthetic data (docs/method/synthetic-attacks.md).

* ``table_measures`` — the synthpop identity and attribute disclosure measures computed from
  the cross-tabulation of a composite key ``q`` against a target ``t``;
* ``cap_scores`` — SDMetrics' CategoricalCAP, CategoricalZeroCAP and
  CategoricalGeneralizedCAP, reported as mean correct attribution probabilities;
* ``disclosure_protection`` and ``disclosure_protection_estimate`` — SDMetrics'
  DisclosureProtection(Estimate) with ``None`` where SDMetrics returns 0 or 1 (NaN since
  sdmetrics 0.32) for an undefined value;
* ``knn_attribution`` — Papavasiliou (2020) inverse-distance-weighted attribution over the
  synthetic records, with its naive baselines;
* ``Binning`` — explicit grouping of numeric keys and targets, fitted on the training
  original only and recorded in every result.

In the table measures and the SDMetrics metrics, categorical values are compared as they are
(``1`` and ``"1"`` differ) and a missing value is a level of its own. Everything is computed on
integer codes with numpy and pandas group operations, never record by record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Literal, TypedDict

import numpy as np
import pandas as pd
from scipy import sparse

from attack.errors import InputError
from attack.io.readers import code_column, numeric_column, source_name
from attack.risk.stats import wilson_interval
from attack.synthetic_attacks import space as synth_space

CapMethod = Literal["cap", "zero_cap", "generalized_cap"]
CAP_METHODS: tuple[str, ...] = ("cap", "zero_cap", "generalized_cap")

# Relative cost of one row in a group-by against one element comparison of the Hamming matrix;
# decides how GeneralizedCAP searches beyond exact key matches (see _hamming_pool).
GROUPBY_COST = 50
# Elements of one block of a query × reference matrix (Hamming or key distances).
BLOCK_ELEMENTS = 1 << 22
# Summed vote weights closer than this to the largest count as tied (docs/method/synthetic-attacks.md).
VOTE_TIE = 1e-12
# A weighted mean this close to zero, relative to the largest |value| averaged, is zero.
ROUNDING = 1e-12


# ------------------------------------------------------------------------------------------
# Binning (docs/method/synthetic-attacks.md)


@dataclass(frozen=True)
class Binning:
    """How one numeric key or target is grouped before tabulation (docs/method/synthetic-attacks.md).

    ``quantile(k)``: edges at the k-quantiles of the training original (ties merge bins);
    ``equal_width(k)``: k equal-width bins over the original's range, as ``pandas.cut`` places
    them, with the outer bins open; ``breaks(...)``: the user's inner break points. Outer bins
    are always open, so synthetic values outside the original's range fall into the end bins.
    Intervals are ``(a, b]`` (``closed="right"``) or ``[a, b)`` (``closed="left"``).
    """

    kind: Literal["quantile", "equal_width", "breaks"]
    bins: int | None = None
    edges: tuple[float, ...] = ()
    closed: Literal["right", "left"] = "right"

    def __post_init__(self) -> None:
        if self.kind not in ("quantile", "equal_width", "breaks"):
            raise InputError(
                f"binning kind must be quantile, equal_width or breaks, got {self.kind!r}"
            )
        if self.closed not in ("right", "left"):
            raise InputError(f"binning closed must be 'right' or 'left', got {self.closed!r}")
        if self.kind == "breaks":
            edges = np.asarray(self.edges, dtype=float)
            if edges.size == 0 or not np.isfinite(edges).all() or (np.diff(edges) <= 0).any():
                raise InputError("break points must be finite and strictly increasing")
        elif not isinstance(self.bins, int) or self.bins < 1:
            raise InputError(f"{self.kind} binning needs a positive whole number of bins")

    @classmethod
    def quantile(cls, bins: int) -> Binning:
        return cls("quantile", bins=bins)

    @classmethod
    def equal_width(cls, bins: int) -> Binning:
        return cls("equal_width", bins=bins)

    @classmethod
    def breaks(cls, edges: Sequence[float], closed: Literal["right", "left"] = "right") -> Binning:
        return cls("breaks", edges=tuple(float(e) for e in edges), closed=closed)

    def fit(self, values: np.ndarray, column: str) -> FittedBinning:
        """Inner edges from the training original's values (missing values ignored)."""
        present = values[~np.isnan(values)]
        if self.kind == "breaks":
            return FittedBinning(self, self.edges)
        if present.size == 0:
            raise InputError("cannot fit bins: the original has no values", column=column)
        if not np.isfinite(present).all():
            raise InputError("cannot fit bins on infinite values", column=column)
        bins = self.bins
        assert bins is not None  # __post_init__ requires bins for quantile and equal_width
        if self.kind == "quantile":
            inner = np.unique(np.quantile(present, np.arange(1, bins) / bins))
        else:
            _, full = pd.cut(present, bins, retbins=True)
            inner = full[1:-1]
        return FittedBinning(self, tuple(float(e) for e in inner))


@dataclass(frozen=True)
class FittedBinning:
    """A ``Binning`` with its inner edges; bin ``i`` lies between edges ``i − 1`` and ``i``."""

    spec: Binning
    edges: tuple[float, ...]

    def codes(self, values: np.ndarray) -> np.ndarray:
        """Bin numbers 0..len(edges); missing values get the extra code len(edges) + 1."""
        side: Literal["left", "right"] = "left" if self.spec.closed == "right" else "right"
        out = np.searchsorted(np.asarray(self.edges, dtype=float), values, side=side)
        out[np.isnan(values)] = len(self.edges) + 1
        return out.astype(np.int64)

    def to_dict(self) -> dict:
        return {
            "kind": self.spec.kind,
            "bins_requested": self.spec.bins,
            "n_bins": len(self.edges) + 1,
            "inner_edges": list(self.edges),
            "closed": self.spec.closed,
            "outer_bins": "open",
            "missing": "own level",
            "fitted_on": "original",
        }


# ------------------------------------------------------------------------------------------
# Encoding both files into shared integer codes


@dataclass(frozen=True)
class _Encoded:
    """Per-column codes over the union of both files (equal values → equal codes)."""

    keys: np.ndarray  # (n_original, n_keys)
    synthetic_keys: np.ndarray  # (n_synthetic, n_keys)
    target: np.ndarray  # (n_original, n_target_columns)
    synthetic_target: np.ndarray  # (n_synthetic, n_target_columns)
    binning: Mapping[str, FittedBinning]

    def take(self, original_rows: np.ndarray, synthetic_rows: np.ndarray) -> _Encoded:
        return _Encoded(
            self.keys[original_rows],
            self.synthetic_keys[synthetic_rows],
            self.target[original_rows],
            self.synthetic_target[synthetic_rows],
            self.binning,
        )


def _names(columns: str | Sequence[str], what: str) -> tuple[str, ...]:
    names = (columns,) if isinstance(columns, str) else tuple(columns)
    if not names:
        raise InputError(f"at least one {what} column is needed")
    if len(set(names)) != len(names):
        raise InputError(f"a {what} column is listed twice")
    return names


def _check_frame(frame: pd.DataFrame, role: str, columns: Sequence[str]) -> None:
    name = source_name(frame)
    file = role if name == "<data>" else name
    if len(frame) == 0:
        raise InputError(f"the {role} data have no records", file=file)
    for column in columns:
        if column not in frame.columns:
            raise InputError(f"column is missing from the {role} data", file=file, column=column)


def _encode(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: tuple[str, ...],
    target: tuple[str, ...],
    binning: Mapping[str, Binning] | None,
) -> _Encoded:
    """Codes per column; binned columns via bins fitted on ``original`` (docs/method/synthetic-attacks.md)."""
    overlap = set(keys) & set(target)
    if overlap:
        raise InputError("a column cannot be both key and target", column=sorted(overlap)[0])
    binning = dict(binning or {})
    for column in binning:
        if column not in keys and column not in target:
            raise InputError("binning given for a column that is neither key nor target",
                             column=column)
    _check_frame(original, "original", keys + target)
    _check_frame(synthetic, "synthetic", keys + target)
    n = len(original)
    fitted: dict[str, FittedBinning] = {}
    codes = []
    for column in keys + target:
        if column in binning:
            values = numeric_column(original, column)
            fitted[column] = binning[column].fit(values, column)
            both = np.concatenate(
                [fitted[column].codes(values),
                 fitted[column].codes(numeric_column(synthetic, column))]
            )
        else:
            both = pd.concat([original[column], synthetic[column]], ignore_index=True)
        codes.append(pd.factorize(both, use_na_sentinel=False)[0].astype(np.int64))
    table = np.column_stack(codes)
    m = len(keys)
    return _Encoded(table[:n, :m], table[n:, :m], table[:n, m:], table[n:, m:], fitted)


def _combine(columns: np.ndarray) -> np.ndarray:
    """Dense codes 0..k−1 of the rows of an integer matrix (one code per distinct row)."""
    if columns.shape[1] == 0:
        return np.zeros(columns.shape[0], dtype=np.int64)
    code = pd.factorize(columns[:, 0])[0].astype(np.int64)
    for j in range(1, columns.shape[1]):
        column = columns[:, j]
        code = pd.factorize(code * (int(column.max()) + 1) + column)[0].astype(np.int64)
    return code


def _distinct(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the first occurrence of each distinct row, and each row's distinct number
    (numbers follow the order of first occurrence)."""
    code = _combine(columns)
    first = np.flatnonzero(~pd.Series(code).duplicated().to_numpy())
    return first, code


def _joint(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shared dense row codes for two integer matrices with the same columns."""
    code = _combine(np.concatenate([a, b]))
    return code[: len(a)], code[len(a):]


# ------------------------------------------------------------------------------------------
# synthpop table measures (docs/method/synthetic-attacks.md)


@dataclass(frozen=True)
class TableMeasures:
    """synthpop's disclosure measures (docs/method/synthetic-attacks.md).

    Fields ending in ``_pct`` are percentages (of ``n_original`` unless stated: ``dsyn_pct`` of
    ``n_synthetic``, ``tcap_b_pct`` of ``n_b``, ``tcap_pct`` of the original records whose key
    has a disclosive synthetic target); the CAP measures are proportions in [0, 1].
    ``None`` marks a measure whose denominator is zero.
    """

    keys: tuple[str, ...]
    target: tuple[str, ...]
    n_original: int  # N_d
    n_synthetic: int  # N_s
    n_b: int  # original records whose key occurs in the synthetic data
    uio_pct: float
    uis_pct: float
    uiois_pct: float
    repu_pct: float
    dorig_pct: float
    dsyn_pct: float
    is_pct: float
    iso_pct: float
    dis_pct: float
    disco_pct: float
    disdio_pct: float
    base_capd: float
    capd: float
    caps: float
    dcap_d: float
    dcap_s: float
    dcap_b: float | None
    tcap_b_pct: float | None
    tcap_pct: float | None
    binning: Mapping[str, FittedBinning] = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["keys"], out["target"] = list(self.keys), list(self.target)
        out["binning"] = {column: b.to_dict() for column, b in self.binning.items()}
        out["units"] = "_pct fields in %, CAP fields (base_capd … dcap_b) as proportions"
        return out


def _ratio(numerator: float, denominator: float, scale: float = 1.0) -> float | None:
    return None if denominator == 0 else float(scale * numerator / denominator)


def table_measures(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str | Sequence[str],
    *,
    binning: Mapping[str, Binning] | None = None,
) -> TableMeasures:
    """Tabulate ``d_tq`` and ``s_tq`` over the observed cells and derive every synthpop measure
    (docs/method/synthetic-attacks.md; worked example 9.1 (docs/reference/worked-examples.md)). Several target columns act as one joint target."""
    keys, target = _names(keys, "key"), _names(target, "target")
    enc = _encode(original, synthetic, keys, target, binning)
    q_o, q_s = _joint(enc.keys, enc.synthetic_keys)
    t_o, t_s = _joint(enc.target, enc.synthetic_target)
    n_d, n_s = len(q_o), len(q_s)
    n_t = int(max(t_o.max(), t_s.max())) + 1
    cells, index = np.unique(np.concatenate([q_o * n_t + t_o, q_s * n_t + t_s]),
                             return_inverse=True)
    d = np.bincount(index[:n_d], minlength=len(cells))
    s = np.bincount(index[n_d:], minlength=len(cells))
    q = cells // n_t
    n_q = int(q.max()) + 1
    d_q = np.bincount(q, weights=d, minlength=n_q).astype(np.int64)
    s_q = np.bincount(q, weights=s, minlength=n_q).astype(np.int64)
    d_cell, s_cell = d_q[q], s_q[q]
    pd_cell = np.divide(d, d_cell, out=np.zeros(len(d)), where=d_cell > 0)
    ps_cell = np.divide(s, s_cell, out=np.zeros(len(s)), where=s_cell > 0)
    syn_disclosive = (s > 0) & (s == s_cell)  # ps_tq = 1
    orig_disclosive = (d > 0) & (d == d_cell)  # pd_tq = 1
    q_syn_disclosive = np.bincount(q, weights=syn_disclosive, minlength=n_q) > 0
    unique_q = d_q == 1
    n_b = int(d_q[s_q > 0].sum())
    disco = int(d[syn_disclosive].sum())
    dis = int(d_q[q_syn_disclosive].sum())
    target_shares = np.bincount(t_o) / n_d
    dcap = float((ps_cell * d).sum())

    def pct(count: float, n: int = n_d) -> float:
        return 100.0 * float(count) / n

    return TableMeasures(
        keys=keys,
        target=target,
        n_original=n_d,
        n_synthetic=n_s,
        n_b=n_b,
        uio_pct=pct(unique_q.sum()),
        uis_pct=pct(s_q[unique_q].sum()),
        uiois_pct=pct((unique_q & (s_q > 0)).sum()),
        repu_pct=pct((unique_q & (s_q == 1)).sum()),
        dorig_pct=pct(d[orig_disclosive].sum()),
        dsyn_pct=pct(s[syn_disclosive].sum(), n_s),
        is_pct=pct(n_b),
        iso_pct=pct(d[s > 0].sum()),
        dis_pct=pct(dis),
        disco_pct=pct(disco),
        disdio_pct=pct(d[syn_disclosive & orig_disclosive].sum()),
        base_capd=float((target_shares**2).sum()),
        capd=float((pd_cell * d).sum()) / n_d,
        caps=float((ps_cell * s).sum()) / n_s,
        dcap_d=dcap / n_d,
        dcap_s=dcap / n_s,
        dcap_b=_ratio(dcap, n_b),
        tcap_b_pct=_ratio(disco, n_b, 100.0),
        tcap_pct=_ratio(disco, dis, 100.0),
        binning=enc.binning,
    )


# ------------------------------------------------------------------------------------------
# SDMetrics CategoricalCAP, CategoricalZeroCAP, CategoricalGeneralizedCAP (docs/method/synthetic-attacks.md)


@dataclass(frozen=True)
class _Pairs:
    """Distinct (key tuple, target) combinations of one file with their record counts."""

    keys: np.ndarray  # (n_pairs, n_keys) codes
    target: np.ndarray  # (n_pairs,) joint target code
    weight: np.ndarray  # (n_pairs,) number of records


def _pairs(enc: _Encoded) -> tuple[_Pairs, _Pairs]:
    t_o, t_s = _joint(enc.target, enc.synthetic_target)
    out = []
    for keys, target in ((enc.keys, t_o), (enc.synthetic_keys, t_s)):
        first, code = _distinct(np.column_stack([keys, target]))
        out.append(_Pairs(keys[first], target[first], np.bincount(code).astype(np.int64)))
    return out[0], out[1]


def _pooled_counts(
    original: _Pairs, synthetic: _Pairs, columns: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """For each original pair: the number of synthetic records that agree with it on
    ``columns``, and how many of those also carry its target."""
    cols = list(columns)
    a_o, a_s = _joint(original.keys[:, cols], synthetic.keys[:, cols])
    n_a = int(max(a_o.max(initial=0), a_s.max(initial=0))) + 1
    total = np.bincount(a_s, weights=synthetic.weight, minlength=n_a)[a_o]
    n_t = int(max(original.target.max(), synthetic.target.max())) + 1
    cells, index = np.unique(a_s * n_t + synthetic.target, return_inverse=True)
    cell_weight = np.bincount(index, weights=synthetic.weight)
    wanted = a_o * n_t + original.target
    at = np.minimum(np.searchsorted(cells, wanted), len(cells) - 1)
    correct = np.where(cells[at] == wanted, cell_weight[at], 0.0)
    return total, correct


def _hamming_pool(
    original: _Pairs, synthetic: _Pairs, total: np.ndarray, correct: np.ndarray
) -> None:
    """Fill ``total``/``correct`` for original pairs without an exact key match (total 0) from
    all synthetic records whose key tuples are at the minimal Hamming distance (ties pooled).

    Level by level, distance ``d`` is searched by grouping on every set of ``m − d`` agreeing
    key columns (each synthetic tuple at exactly distance ``d`` agrees on exactly one such set),
    unless comparing the remaining distinct original tuples with all distinct synthetic tuples
    in blocks is cheaper; that finishes every remaining level at once.
    """
    m = original.keys.shape[1]
    n_syn = len(_distinct(synthetic.keys)[0])
    for d in range(1, m + 1):
        open_rows = np.flatnonzero(total == 0)
        if open_rows.size == 0:
            return
        n_open = len(_distinct(original.keys[open_rows])[0])
        subset_cost = comb(m, d) * (n_open + n_syn) * GROUPBY_COST
        if n_open * n_syn * m <= subset_cost:
            _hamming_blocks(original, synthetic, open_rows, total, correct)
            return
        sub = _Pairs(original.keys[open_rows], original.target[open_rows],
                     original.weight[open_rows])
        for columns in combinations(range(m), m - d):
            t, c = _pooled_counts(sub, synthetic, columns)
            total[open_rows] += t
            correct[open_rows] += c


def _hamming_blocks(
    original: _Pairs, synthetic: _Pairs, rows: np.ndarray, total: np.ndarray, correct: np.ndarray
) -> None:
    """Minimal-Hamming pools for original pairs ``rows``, distinct tuples against distinct
    tuples in blocks of at most BLOCK_ELEMENTS comparisons."""
    o_first, o_index = _distinct(original.keys[rows])
    s_first, s_index = _distinct(synthetic.keys)
    o_tuples, s_tuples = original.keys[rows][o_first], synthetic.keys[s_first]
    n_t = int(max(original.target.max(), synthetic.target.max())) + 1
    by_target = sparse.csr_matrix(
        (synthetic.weight.astype(float), (s_index, synthetic.target)),
        shape=(len(s_tuples), n_t),
    )
    s_weight = np.asarray(by_target.sum(axis=1)).ravel()
    order = np.argsort(o_index, kind="stable")
    starts = np.searchsorted(o_index[order], np.arange(len(o_tuples) + 1))
    step = max(1, BLOCK_ELEMENTS // max(1, len(s_tuples)))
    for lo in range(0, len(o_tuples), step):
        hi = min(lo + step, len(o_tuples))
        distance = np.zeros((hi - lo, len(s_tuples)), dtype=np.int32)
        for j in range(o_tuples.shape[1]):
            distance += o_tuples[lo:hi, j, None] != s_tuples[None, :, j]
        pool = distance == distance.min(axis=1, keepdims=True)
        pooled = (sparse.csr_matrix(pool, dtype=float) @ by_target).tocsr()
        members = order[starts[lo]: starts[hi]]
        local = o_index[members] - lo
        total[rows[members]] = (pool @ s_weight)[local]
        correct[rows[members]] = np.asarray(
            pooled[local, original.target[rows[members]]]
        ).ravel()


def _mean_scores(enc: _Encoded, methods: Sequence[str]) -> tuple[dict[str, float | None], int]:
    """Mean correct attribution probability per method over the original records, and the
    number of records CategoricalCAP scores (key found in the synthetic data)."""
    original, synthetic = _pairs(enc)
    total, correct = _pooled_counts(original, synthetic, range(original.keys.shape[1]))
    found = total > 0
    exact = np.divide(correct, total, out=np.zeros(len(total)), where=found)
    n_scored = int(original.weight[found].sum())
    n_records = int(original.weight.sum())
    out: dict[str, float | None] = {}
    if "cap" in methods:
        out["cap"] = _ratio(float((original.weight * exact)[found].sum()), n_scored)
    if "zero_cap" in methods:
        out["zero_cap"] = float((original.weight * exact).sum() / n_records)
    if "generalized_cap" in methods:
        _hamming_pool(original, synthetic, total, correct)
        out["generalized_cap"] = float((original.weight * correct / total).sum() / n_records)
    return out, n_scored


def _one_minus(value: float | None) -> float | None:
    return None if value is None else 1.0 - value


@dataclass(frozen=True)
class CapScores:
    """Mean correct attribution probabilities of SDMetrics' three CAP attackers
    (docs/method/synthetic-attacks.md). ``cap`` averages over the ``n_scored`` original records whose key
    occurs in the synthetic data (``None`` if there is none); ``zero_cap`` and
    ``generalized_cap`` over all ``n_original`` records. SDMetrics reports 1 minus these."""

    keys: tuple[str, ...]
    sensitive: tuple[str, ...]
    n_original: int
    n_synthetic: int
    n_scored: int
    cap: float | None
    zero_cap: float | None
    generalized_cap: float | None
    binning: Mapping[str, FittedBinning] = field(default_factory=dict)

    @property
    def sdmetrics_cap_score(self) -> float | None:
        return _one_minus(self.cap)

    @property
    def sdmetrics_zero_cap_score(self) -> float | None:
        return _one_minus(self.zero_cap)

    @property
    def sdmetrics_generalized_cap_score(self) -> float | None:
        return _one_minus(self.generalized_cap)

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["keys"], out["sensitive"] = list(self.keys), list(self.sensitive)
        out["binning"] = {column: b.to_dict() for column, b in self.binning.items()}
        for name in ("cap", "zero_cap", "generalized_cap"):
            out[f"sdmetrics_{name}_score"] = getattr(self, f"sdmetrics_{name}_score")
        return out


def cap_scores(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    sensitive: str | Sequence[str],
    *,
    binning: Mapping[str, Binning] | None = None,
) -> CapScores:
    """SDMetrics' CategoricalCAP, ZeroCAP and GeneralizedCAP as attribution probabilities
    (docs/method/synthetic-attacks.md; worked example 9.1 (docs/reference/worked-examples.md)). Several sensitive columns act as one tuple."""
    keys, sensitive = _names(keys, "key"), _names(sensitive, "sensitive")
    enc = _encode(original, synthetic, keys, sensitive, binning)
    scores, n_scored = _mean_scores(enc, CAP_METHODS)
    return CapScores(keys, sensitive, len(original), len(synthetic), n_scored,
                     scores["cap"], scores["zero_cap"], scores["generalized_cap"], enc.binning)


# ------------------------------------------------------------------------------------------
# SDMetrics DisclosureProtection and DisclosureProtectionEstimate (docs/method/synthetic-attacks.md)


@dataclass(frozen=True)
class DisclosureProtection:
    """SDMetrics' DisclosureProtection (docs/method/synthetic-attacks.md): ``score = min(cap_protection /
    baseline_protection, 1)`` with ``cap_protection`` = 1 − mean correct attribution
    probability. ``None`` where undefined (no key found, or a baseline of 0). For the estimate,
    the subsample settings are filled and ``cap_protection`` averages the iterations in which it
    was defined (``n_iterations_defined``); ``n_scored`` sums the scored records over them."""

    method: str
    keys: tuple[str, ...]
    sensitive: tuple[str, ...]
    score: float | None
    cap_protection: float | None
    baseline_protection: float
    n_scored: int
    binning: Mapping[str, FittedBinning] = field(default_factory=dict)
    num_rows_subsample: int | None = None
    num_iterations: int | None = None
    n_iterations_defined: int | None = None
    seed: int | None = None

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["keys"], out["sensitive"] = list(self.keys), list(self.sensitive)
        out["binning"] = {column: b.to_dict() for column, b in self.binning.items()}
        return out


def _protection_inputs(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    sensitive: str | Sequence[str],
    method: str,
    continuous: Sequence[str],
    num_discrete_bins: int,
) -> tuple[tuple[str, ...], tuple[str, ...], _Encoded, float]:
    """Names, codes (continuous columns in equal-width bins of the original) and baseline
    ``1 − 1 / Π nunique`` of the sensitive columns in the original, missing counted."""
    if method not in CAP_METHODS:
        raise InputError(f"method must be one of {', '.join(CAP_METHODS)}, got {method!r}")
    keys, sensitive = _names(keys, "key"), _names(sensitive, "sensitive")
    binning = {column: Binning.equal_width(num_discrete_bins) for column in continuous}
    enc = _encode(original, synthetic, keys, sensitive, binning)
    levels = np.prod([len(np.unique(enc.target[:, j])) for j in range(len(sensitive))],
                     dtype=float)
    return keys, sensitive, enc, float(1.0 - 1.0 / levels)


def _protection_score(cap_protection: float | None, baseline: float) -> float | None:
    if cap_protection is None or baseline == 0:
        return None
    return min(float(cap_protection / baseline), 1.0)


def disclosure_protection(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    sensitive: str | Sequence[str],
    *,
    method: CapMethod = "cap",
    continuous: Sequence[str] = (),
    num_discrete_bins: int = 10,
) -> DisclosureProtection:
    """SDMetrics' DisclosureProtection on all records (docs/method/synthetic-attacks.md)."""
    keys, sensitive, enc, baseline = _protection_inputs(
        original, synthetic, keys, sensitive, method, continuous, num_discrete_bins
    )
    scores, n_scored = _mean_scores(enc, (method,))
    cap_protection = _one_minus(scores[method])
    return DisclosureProtection(
        method, keys, sensitive, _protection_score(cap_protection, baseline), cap_protection,
        baseline, n_scored, enc.binning,
    )


def disclosure_protection_estimate(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    sensitive: str | Sequence[str],
    *,
    method: CapMethod = "cap",
    continuous: Sequence[str] = (),
    num_discrete_bins: int = 10,
    num_rows_subsample: int = 1000,
    num_iterations: int = 10,
    seed: int = 0,
) -> DisclosureProtection:
    """SDMetrics' DisclosureProtectionEstimate (docs/method/synthetic-attacks.md): bins and baseline from all
    records, then ``cap_protection`` averaged over ``num_iterations`` seeded subsamples of
    ``num_rows_subsample`` rows drawn without replacement from both files."""
    for name, value in (("num_rows_subsample", num_rows_subsample),
                        ("num_iterations", num_iterations)):
        if not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be a positive whole number, got {value!r}")
    keys, sensitive, enc, baseline = _protection_inputs(
        original, synthetic, keys, sensitive, method, continuous, num_discrete_bins
    )
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    n_o, n_s = len(enc.keys), len(enc.synthetic_keys)
    protections, n_scored = [], 0
    for _ in range(num_iterations):
        rows_o = rng.choice(n_o, size=min(num_rows_subsample, n_o), replace=False)
        rows_s = rng.choice(n_s, size=min(num_rows_subsample, n_s), replace=False)
        scores, scored = _mean_scores(enc.take(rows_o, rows_s), (method,))
        score = scores[method]
        if score is not None:
            protections.append(1.0 - score)
            n_scored += scored
    cap_protection = float(np.mean(protections)) if protections else None
    return DisclosureProtection(
        method, keys, sensitive, _protection_score(cap_protection, baseline), cap_protection,
        baseline, n_scored, enc.binning, num_rows_subsample, num_iterations, len(protections),
        seed,
    )


# ------------------------------------------------------------------------------------------
# Papavasiliou (2020): inverse-distance-weighted kNN attribution (docs/method/synthetic-attacks.md)


def inverse_distance_weights(distances: np.ndarray) -> np.ndarray:
    """Per row, weights ``(1/δ_j) / Σ_l (1/δ_l)``; a row with a zero distance puts equal weight
    on its zero-distance entries only (docs/method/synthetic-attacks.md [Proposal]; worked example 9.2 (docs/reference/worked-examples.md))."""
    distances = np.asarray(distances, dtype=float)
    zero = distances == 0
    exact = zero.any(axis=-1)
    with np.errstate(divide="ignore"):
        weights = np.reciprocal(distances)
    if exact.any():
        weights[exact] = zero[exact]
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights


def weighted_vote(weights: np.ndarray, categories: np.ndarray, n_categories: int) -> np.ndarray:
    """Per row, the category code with the largest summed weight; sums within VOTE_TIE of the
    largest tie, and a tie goes to the lowest code (the fixed category order)."""
    weights = np.atleast_2d(weights)
    categories = np.broadcast_to(categories, weights.shape)
    rows = np.arange(weights.shape[0])[:, None] * n_categories
    sums = np.bincount((rows + categories).ravel(), weights=weights.ravel(),
                       minlength=weights.shape[0] * n_categories).reshape(-1, n_categories)
    return np.argmax(sums >= sums.max(axis=1, keepdims=True) - VOTE_TIE, axis=1)


def _idw_predict(
    prep: synth_space.Preparation,
    query: synth_space.Encoded,
    reference: synth_space.Encoded,
    values: np.ndarray,
    k: int | None,
    n_categories: int | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Predictions for every query row and whether the zero-distance rule applied.

    ``k`` None (or at least the reference size) weighs every reference record, in query blocks
    of full distance rows; otherwise the exact k nearest. A row whose k nearest are all at
    distance 0 is redone against the full reference, so that every exact match is used.
    A weighted mean within rounding error of zero (``ROUNDING`` times the largest |value|
    averaged) is 0, so that the zero rule does not depend on the summation order."""

    def predict(weights: np.ndarray, targets: np.ndarray) -> np.ndarray:
        if n_categories is None:
            mean = (weights * targets).sum(axis=1)
            scale = np.abs(np.broadcast_to(targets, weights.shape)).max(axis=1)
            return np.where(np.abs(mean) <= ROUNDING * scale, 0.0, mean)
        return weighted_vote(weights, targets, n_categories)

    n_ref = len(reference)
    out = np.empty(len(query), dtype=float if n_categories is None else np.int64)
    exact = np.zeros(len(query), dtype=bool)
    full_rows = np.arange(len(query))
    if k is not None and k < n_ref:
        found = synth_space.search(prep, query, reference, k)
        out[:] = predict(inverse_distance_weights(found.distances), values[found.indices])
        exact[:] = found.distances[:, 0] == 0
        full_rows = np.flatnonzero(found.distances[:, -1] == 0)
    step = max(1, BLOCK_ELEMENTS // n_ref)
    everyone = np.arange(n_ref)
    for lo in range(0, len(full_rows), step):
        rows = full_rows[lo: lo + step]
        block = synth_space.distances(prep, query, reference, rows, everyone, pairs=False)
        out[rows] = predict(inverse_distance_weights(block), values[None, :])
        exact[rows] = (block == 0).any(axis=1)
    return out, exact


def _useful(
    prediction: np.ndarray, truth: np.ndarray, gamma: float, zero_tolerance: float
) -> np.ndarray:
    """``|ŷ − y| / |y| < γ``; for ``y = 0`` useful iff ``|ŷ| ≤ zero_tolerance`` (docs/method/risk.md)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.abs(prediction - truth) / np.abs(truth)
    return np.where(truth == 0, np.abs(prediction) <= zero_tolerance, relative < gamma)


@dataclass(frozen=True)
class KnnAttribution:
    """Papavasiliou's (2020) inverse-distance-weighted attribution with its naive baselines
    (docs/method/synthetic-attacks.md pitfall 10).

    Categorical target: ``accuracy`` against the majority class of the synthetic target and the
    expected accuracy of a draw from its marginal. Numeric target: ``mse`` against the
    synthetic mean, and the share of useful predictions (docs/method/risk.md) for both. Intervals
    are Wilson 95%. Fields of the other target type are ``None``.
    """

    keys: tuple[str, ...]
    target: str
    target_type: str
    k: int | None  # None: every synthetic record (Papavasiliou (2020))
    n_attacks: int | None  # None: every original record
    seed: int | None
    n_attacked: int
    n_evaluated: int  # attacked records with a known target value
    n_synthetic_used: int  # synthetic records with a known target value
    n_exact: int  # attacked records predicted from zero-distance matches only
    preparation: Mapping = field(default_factory=dict)
    accuracy: float | None = None
    accuracy_interval: list[float] | None = None
    majority_class: str | None = None
    baseline_majority_accuracy: float | None = None
    baseline_marginal_accuracy: float | None = None
    mse: float | None = None
    baseline_mse: float | None = None
    gamma: float | None = None
    zero_tolerance: float | None = None
    useful_share: float | None = None
    useful_interval: list[float] | None = None
    baseline_useful_share: float | None = None

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["keys"], out["preparation"] = list(self.keys), dict(self.preparation)
        return out


class _KnnCommon(TypedDict):
    """The ``KnnAttribution`` fields both target types fill in the same way."""

    keys: tuple[str, ...]
    target: str
    target_type: str
    k: int | None
    n_attacks: int | None
    seed: int | None
    n_attacked: int
    preparation: Mapping


def knn_attribution(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str,
    *,
    target_type: Literal["categorical", "numeric"],
    categorical: Sequence[str] | None = None,
    k: int | None = None,
    scaling: str = "zscore",
    categorical_mode: str = "dummy",
    metric: str = "euclidean",
    na_equal: bool = False,
    n_attacks: int | None = None,
    seed: int = 0,
    gamma: float = 0.10,
    zero_tolerance: float = 0.0,
) -> KnnAttribution:
    """Predict ``target`` of original records from the synthetic records weighted by inverse
    key distance (docs/method/synthetic-attacks.md, Papavasiliou (2020)) and score the predictions.

    Keys are prepared by ``attack.synth_space.prepare`` fitted on ``original`` (recorded).
    ``k`` None weighs all synthetic records (cost: attacked × synthetic distances), otherwise
    the exact k nearest. ``n_attacks`` attacks a seeded sample of original records. Categorical
    target values are compared as text; the category order for vote ties is the sorted text,
    missing last. Synthetic records with a missing numeric target are left out."""
    keys = _names(keys, "key")
    _check_knn(keys, target, target_type, k, gamma, zero_tolerance)
    _check_frame(original, "original", (*keys, target))
    _check_frame(synthetic, "synthetic", (*keys, target))
    attacked = _attacked_rows(len(original), n_attacks, seed)
    prep = synth_space.prepare(original, keys, categorical=categorical, scaling=scaling,
                               categorical_mode=categorical_mode, metric=metric,
                               na_equal=na_equal)
    common = _KnnCommon(keys=keys, target=target, target_type=target_type, k=k,
                        n_attacks=n_attacks, seed=seed if n_attacks is not None else None,
                        n_attacked=len(attacked), preparation=prep.to_dict())
    if target_type == "categorical":
        return _knn_categorical(prep, original, synthetic, target, attacked, k, common)
    return _knn_numeric(prep, original, synthetic, target, attacked, k, common, gamma, zero_tolerance)


def _check_knn(keys: Sequence[str], target: str, target_type: str, k: int | None, gamma: float,
               zero_tolerance: float) -> None:
    if target in keys:
        raise InputError("the target cannot also be a key", column=target)
    if target_type not in ("categorical", "numeric"):
        raise InputError(f"target_type must be categorical or numeric, got {target_type!r}")
    if k is not None and (not isinstance(k, int) or k < 1):
        raise InputError(f"k must be a positive whole number or None (all), got {k!r}")
    if not gamma > 0 or zero_tolerance < 0:
        raise InputError("γ must be positive and the zero tolerance non-negative")


def _attacked_rows(n_original: int, n_attacks: int | None, seed: int) -> np.ndarray:
    """Every original row, or a seeded sample of ``n_attacks`` of them."""
    if n_attacks is None:
        return np.arange(n_original)
    if not isinstance(n_attacks, int) or not 1 <= n_attacks <= n_original:
        raise InputError(f"n_attacks must be between 1 and {n_original}, got {n_attacks!r}")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    return np.sort(rng.choice(n_original, size=n_attacks, replace=False))


def _knn_categorical(prep: synth_space.Preparation, original: pd.DataFrame, synthetic: pd.DataFrame, target: str,
                     attacked: np.ndarray, k: int | None, common: _KnnCommon) -> KnnAttribution:
    """The vote of the nearest synthetic records on a categorical target, against the majority
    and marginal baselines."""
    enc_o, enc_s = synth_space.encode(prep, original, synthetic)
    both = pd.Series(np.concatenate([code_column(original, target),
                                     code_column(synthetic, target)]), dtype=object)
    codes, levels = pd.factorize(both, sort=True, use_na_sentinel=False)
    truth, values = codes[attacked], codes[len(original):]
    guess, exact = _idw_predict(prep, enc_o.take(attacked), enc_s, values, k, len(levels))
    share = np.bincount(values, minlength=len(levels)) / len(values)
    majority = int(np.argmax(share))
    hits = int((guess == truth).sum())
    return KnnAttribution(
        **common, n_evaluated=len(truth), n_synthetic_used=len(values),
        n_exact=int(exact.sum()), accuracy=hits / len(truth),
        accuracy_interval=wilson_interval(hits, len(truth)),
        majority_class=None if pd.isna(levels[majority]) else str(levels[majority]),
        baseline_majority_accuracy=float((truth == majority).mean()),
        baseline_marginal_accuracy=float(share[truth].mean()),
    )


def _knn_numeric(prep: synth_space.Preparation, original: pd.DataFrame, synthetic: pd.DataFrame, target: str,
                 attacked: np.ndarray, k: int | None, common: _KnnCommon, gamma: float,
                 zero_tolerance: float) -> KnnAttribution:
    """The inverse-distance weighted mean of the nearest synthetic records on a numeric target,
    against the synthetic mean: squared error and the share within γ."""
    enc_o, enc_s = synth_space.encode(prep, original, synthetic)
    truth_all = numeric_column(original, target)[attacked]
    values = numeric_column(synthetic, target)
    kept = np.flatnonzero(~np.isnan(values))
    if kept.size == 0:
        raise InputError("every synthetic target value is missing", column=target)
    guess, exact = _idw_predict(prep, enc_o.take(attacked), enc_s.take(kept), values[kept], k,
                                None)
    known = ~np.isnan(truth_all)
    truth, guess = truth_all[known], guess[known]
    mean = float(values[kept].mean())
    useful = _useful(guess, truth, gamma, zero_tolerance)
    n = len(truth)
    return KnnAttribution(
        **common, n_evaluated=n, n_synthetic_used=len(kept), n_exact=int(exact.sum()),
        mse=float(np.mean((guess - truth) ** 2)) if n else None,
        baseline_mse=float(np.mean((mean - truth) ** 2)) if n else None,
        gamma=gamma, zero_tolerance=zero_tolerance,
        useful_share=float(useful.mean()) if n else None,
        useful_interval=wilson_interval(int(useful.sum()), n),
        baseline_useful_share=float(_useful(np.full(n, mean), truth, gamma,
                                            zero_tolerance).mean()) if n else None,
    )
