"""Per-variable distances, standardisation and the weighted total distance.

Implements docs/method/linkage.md (handbook §13.1): metric (squared or absolute difference, optional
``log(1 + x)`` transform), nominal (eq. 13.1), ordinal (eq. 13.2), hierarchical (eq. 13.3 in the
normative form of docs/method/linkage.md) and string (rapidfuzz normalised edit distance or
Jaro–Winkler) components; standardisation ``maxmin`` (eq. 13.4 over all pairs A × B, computed
without building A × B), ``range`` (divide by the largest value the component can take on the
pooled values of both files, as Gower's distance in sdcMicro's ``recordLinkage()``), ``sd``
(metric values divided by their pooled standard deviation) or ``none``; weights λ_i (eq. 13.5).

Missing values (docs/method/linkage.md): by default a component with a missing value on either side takes
its largest standardised value over A × B; with ``missing="skip"`` the component is dropped for
that pair and the other weights are scaled up to the full weight.

Hierarchical distance. Codes have a level ℓ (1 = coarsest) and ancestors ``anc(c, k)``. With
``p(a, b)`` the deepest level at which both codes have the same ancestor (0 when only the root is
shared) and ``L`` the number of levels::

    d_H(a, b) = 0              if p = min(ℓ(a), ℓ(b))   (equal, or one is an ancestor of the other)
    d_H(a, b) = (L - p) / L    otherwise                 (mode "compatible_zero", the default)

Mode ``"lca"`` uses ``(L - p) / L`` for compatible codes at different depth as well. Levels come
either from prefix lengths (``levels=(2, 3, 4)``: "15" → "151" → "1511"; by default the distinct
code lengths present) or from an explicit parent map (``{"1511": "151", "151": "15", "15": "D"}``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process
from rapidfuzz.distance import DamerauLevenshtein, JaroWinkler, Levenshtein

from attack.errors import InputError
from attack.io.readers import code_column, numeric_column, source_name
from attack.linkage.dates import date_distance, date_parts
from attack.linkage.names import prepare
from attack.linkage.outliers import check_key_values
from attack.linkage.phonetic import ENCODINGS

KeyType = Literal["metric", "nominal", "ordinal", "hierarchical", "string", "date"]
KEY_TYPES: tuple[str, ...] = ("metric", "nominal", "ordinal", "hierarchical", "string", "date")
STANDARDISATIONS: tuple[str, ...] = ("maxmin", "range", "sd", "none")
METRIC_DISTANCES: tuple[str, ...] = ("squared", "absolute")
STRING_METHODS: tuple[str, ...] = ("levenshtein", "jaro_winkler", "damerau", "token_set")
HIERARCHY_MODES: tuple[str, ...] = ("compatible_zero", "lca")
MISSING_RULES: tuple[str, ...] = ("max", "skip")

#: String keys get exact max–min extremes when the distinct values span at most this many pairs;
#: beyond it the natural range [0, 1] of the normalised string distance is used and reported.
STRING_EXTREMES_MAX_PAIRS = 20_000_000


@dataclass(frozen=True)
class KeySpec:
    """One overlap variable that enters the distance (docs/method/linkage.md).

    ``name`` is the release column, ``external_name`` the external column (default: the same).
    ``metric_distance`` None means the run's default.
    """

    name: str
    type: KeyType
    weight: float = 1.0
    external_name: str | None = None
    metric_distance: str | None = None
    log: bool = False
    order: tuple[str, ...] | None = None
    levels: tuple[int, ...] | None = None
    parents: Mapping[str, str] | None = field(default=None, hash=False, compare=False)
    hierarchy_mode: str = "compatible_zero"
    string_method: str = "levenshtein"
    missing: str = "max"
    #: String keys: fold case, diacritics, punctuation and spaces first (``attack.linkage.names``).
    normalise: bool = False
    #: String keys: compare the phonetic codes (``"soundex"`` or ``"cologne"``) of the values.
    encoding: str | None = None
    #: Fellegi–Sunter, string and nominal keys: weigh exact agreement by the value's frequency
    #: (``attack.linkage.term_frequency``).
    tf: bool = False
    #: String keys: the other name column (same name in both files); the key compares the two
    #: names straight and crossed and takes the better (given and family name swapped).
    swap_with: str | None = None

    def __post_init__(self) -> None:
        if self.type not in KEY_TYPES:
            raise InputError(
                f"unknown key type {self.type!r} for key {self.name!r}; "
                f"expected one of {', '.join(KEY_TYPES)}"
            )
        if not np.isfinite(self.weight) or self.weight < 0:
            raise InputError(f"key {self.name!r}: weight must be a non-negative number")
        for value, allowed, what in (
            (self.metric_distance, METRIC_DISTANCES + (None,), "metric distance"),
            (self.hierarchy_mode, HIERARCHY_MODES, "hierarchy mode"),
            (self.string_method, STRING_METHODS, "string method"),
            (self.missing, MISSING_RULES, "missing-value rule"),
        ):
            if value not in allowed:
                raise InputError(f"key {self.name!r}: unknown {what} {value!r}")
        if self.order is not None and len(set(self.order)) != len(self.order):
            raise InputError(f"key {self.name!r}: an ordinal category is listed twice")
        if self.log and self.type != "metric":
            raise InputError(f"key {self.name!r}: the log transform applies to metric keys only")
        if self.encoding is not None and self.encoding not in ENCODINGS:
            raise InputError(f"key {self.name!r}: unknown encoding {self.encoding!r}; expected one of "
                             f"{', '.join(ENCODINGS)}")
        if self.tf and self.type not in ("string", "nominal"):
            raise InputError(f"key {self.name!r}: the term-frequency adjustment applies to string and nominal keys")
        if self.swap_with is not None and (self.type != "string" or self.tf or self.swap_with == self.name):
            raise InputError(f"key {self.name!r}: swap_with pairs a string key with another name column "
                             "(no term-frequency adjustment)")
        if (self.normalise or self.encoding) and self.type != "string":
            raise InputError(f"key {self.name!r}: normalising and phonetic encoding apply to string keys only")

    @property
    def external_column(self) -> str:
        return self.external_name or self.name

    @property
    def columns(self) -> tuple[str, ...]:
        """The release columns the key reads (with ``swap_with`` two)."""
        return (self.name, self.swap_with) if self.swap_with else (self.name,)

    @property
    def external_columns(self) -> tuple[str, ...]:
        """The external columns the key reads."""
        return (self.external_column, self.swap_with) if self.swap_with else (self.external_column,)

    def describe(self) -> dict:
        """JSON-ready description for results and certificates."""
        out: dict = {"name": self.name, "type": self.type, "weight": self.weight}
        if self.external_name and self.external_name != self.name:
            out["external_name"] = self.external_name
        if self.type == "metric":
            out["log"] = self.log
        if self.metric_distance:
            out["metric_distance"] = self.metric_distance
        if self.order is not None:
            out["order"] = list(self.order)
        if self.type == "hierarchical":
            out["hierarchy_mode"] = self.hierarchy_mode
            out["hierarchy"] = "parent map" if self.parents else f"prefix levels {self.levels or 'auto'}"
        if self.type == "string":
            out["string_method"] = self.string_method
            if self.normalise:
                out["normalise"] = True
            if self.encoding:
                out["encoding"] = self.encoding
        if self.tf:
            out["tf"] = True
        if self.swap_with:
            out["swap_with"] = self.swap_with
        out["missing"] = self.missing
        return out


class _Component(ABC):
    """Raw distances of one key between external and release rows, and their scale."""

    notes: tuple[str, ...] = ()

    @abstractmethod
    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Raw component distances, NaN where either value is missing."""

    @abstractmethod
    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Raw distances of the pairs ``(ext[k], rel[k])``, elementwise; equal bit for bit to
        the matching entries of ``raw``."""

    @abstractmethod
    def subset(self, ext: np.ndarray, rel: np.ndarray) -> _Component:
        """The same component restricted to the given external and release rows."""

    @abstractmethod
    def extremes(self) -> tuple[float, float]:
        """Smallest and largest raw distance over all pairs A × B of non-missing values."""

    @cached_property
    def has_missing(self) -> bool:
        """Whether a value is missing on either side (then distances can be NaN)."""
        return bool(pd.isna(self.a).any() or pd.isna(self.b).any())

    def range_scale(self) -> float:
        """Largest value the component can take on the pooled values (``range`` scaling)."""
        return 1.0

    def sd_scale(self) -> float:
        """Divisor of the ``sd`` standardisation (1 for non-metric components)."""
        return 1.0


def _min_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Smallest |x − y| for x in a, y in b (both non-empty), by a merge of the sorted values."""
    a = np.unique(a)
    b = np.unique(b)
    pos = np.searchsorted(b, a)
    best = np.inf
    left = pos > 0
    if left.any():
        best = min(best, float(np.min(a[left] - b[pos[left] - 1])))
    right = pos < b.size
    if right.any():
        best = min(best, float(np.min(b[pos[right]] - a[right])))
    return best


class _MetricComponent(_Component):
    def __init__(self, a: np.ndarray, b: np.ndarray, power: int) -> None:
        self.a, self.b, self.power = a, b, power
        self._a = a[~np.isnan(a)]
        self._b = b[~np.isnan(b)]

    def raw(self, ext, rel):
        return self._distance(self.a[ext][:, None] - self.b[rel][None, :])

    def raw_pairs(self, ext, rel):
        return self._distance(self.a[ext] - self.b[rel])

    def _distance(self, diff: np.ndarray) -> np.ndarray:
        return np.multiply(diff, diff, out=diff) if self.power == 2 else np.abs(diff, out=diff)

    def subset(self, ext, rel):
        return _MetricComponent(self.a[ext], self.b[rel], self.power)

    def extremes(self):
        if self._a.size == 0 or self._b.size == 0:
            return 0.0, 0.0
        high = max(abs(self._a.max() - self._b.min()), abs(self._b.max() - self._a.min()))
        return _min_gap(self._a, self._b) ** self.power, high**self.power

    def range_scale(self):
        pooled = np.concatenate([self._a, self._b])
        return float(pooled.max() - pooled.min()) ** self.power if pooled.size else 0.0

    def sd_scale(self):
        pooled = np.concatenate([self._a, self._b])
        return float(pooled.std(ddof=1)) ** self.power if pooled.size > 1 else 0.0


class _CodeComponent(_Component):
    """Nominal, ordinal and hierarchical keys on integer codes (−1 = missing).

    ``table`` (hierarchical keys) holds the distance between every pair of distinct codes;
    without it the distance is ``|a − b| / divisor`` of the codes (ordinal ranks, eq. 13.2) or
    their inequality (nominal, eq. 13.1).
    """

    def __init__(
        self,
        a_codes: np.ndarray,
        b_codes: np.ndarray,
        *,
        kind: str,
        divisor: float = 1.0,
        table: np.ndarray | None = None,
        scale: float = 1.0,
    ) -> None:
        self.a, self.b, self.kind = a_codes, b_codes, kind
        self.divisor, self.table, self.scale = divisor, table, scale

    def raw(self, ext, rel):
        a = self.a[ext]
        b = self.b[rel]
        if self.kind == "nominal":
            out = (a[:, None] != b[None, :]).astype(np.float64)
        elif self.kind == "ordinal":
            out = np.abs(a[:, None] - b[None, :]) / self.divisor
        else:
            out = self.table[np.ix_(np.maximum(a, 0), np.maximum(b, 0))]
        if (a < 0).any() or (b < 0).any():
            out[a < 0, :] = np.nan
            out[:, b < 0] = np.nan
        return out

    def raw_pairs(self, ext, rel):
        a = self.a[ext]
        b = self.b[rel]
        if self.kind == "nominal":
            out = (a != b).astype(np.float64)
        elif self.kind == "ordinal":
            out = np.abs(a - b) / self.divisor
        else:
            out = self.table[np.maximum(a, 0), np.maximum(b, 0)]
        out[(a < 0) | (b < 0)] = np.nan
        return out

    def subset(self, ext, rel):
        return _CodeComponent(
            self.a[ext], self.b[rel], kind=self.kind, divisor=self.divisor, table=self.table,
            scale=self.scale,
        )

    @cached_property
    def has_missing(self) -> bool:
        return bool((self.a < 0).any() or (self.b < 0).any())

    def extremes(self):
        present_a = np.unique(self.a[self.a >= 0])
        present_b = np.unique(self.b[self.b >= 0])
        if present_a.size == 0 or present_b.size == 0:
            return 0.0, 0.0
        if self.kind == "nominal":
            shared = np.intersect1d(present_a, present_b).size > 0
            differ = not (present_a.size == 1 and present_b.size == 1 and shared)
            return (0.0 if shared else 1.0), (1.0 if differ else 0.0)
        if self.kind == "ordinal":
            high = max(present_a.max() - present_b.min(), present_b.max() - present_a.min())
            return _min_gap(present_a, present_b) / self.divisor, abs(high) / self.divisor
        sub = self.table[np.ix_(present_a, present_b)]
        return float(sub.min()), float(sub.max())

    def range_scale(self):
        return self.scale


#: The rapidfuzz scorer of each string method; all but ``token_set`` give a normalised distance
#: in [0, 1], ``token_set`` a similarity in [0, 100] that ``string_distances`` turns into
#: ``1 − score / 100`` (docs/method/linkage.md, "Comparing names").
STRING_SCORERS = {
    "levenshtein": Levenshtein.normalized_distance,
    "jaro_winkler": JaroWinkler.normalized_distance,
    "damerau": DamerauLevenshtein.normalized_distance,
    "token_set": fuzz.token_set_ratio,
}


def string_distances(
    a: Sequence[str], b: Sequence[str], method: str, pairs: bool = False, dtype: type = np.float64
) -> np.ndarray:
    """Normalised distances (in [0, 1]) of the strings ``a × b``, or with ``pairs`` of
    ``(a[k], b[k])``."""
    out = (process.cpdist if pairs else process.cdist)(a, b, scorer=STRING_SCORERS[method], dtype=dtype)
    if method == "token_set":
        out = np.subtract(1.0, out / 100.0, out=out)
    return out


class _StringComponent(_Component):
    def __init__(self, a: np.ndarray, b: np.ndarray, method: str) -> None:
        self.a, self.b, self.method = a, b, method

    def raw(self, ext, rel):
        a = self.a[ext]
        b = self.b[rel]
        out = string_distances([x or "" for x in a], [y or "" for y in b], self.method)
        out[pd.isna(a), :] = np.nan
        out[:, pd.isna(b)] = np.nan
        return out

    def raw_pairs(self, ext, rel):
        a = self.a[ext]
        b = self.b[rel]
        out = string_distances([x or "" for x in a], [y or "" for y in b], self.method, pairs=True)
        out[pd.isna(a) | pd.isna(b)] = np.nan
        return out

    def subset(self, ext, rel):
        return _StringComponent(self.a[ext], self.b[rel], self.method)

    def extremes(self):
        ua = pd.unique(self.a[~pd.isna(self.a)])
        ub = pd.unique(self.b[~pd.isna(self.b)])
        return _distinct_extremes(self, ua, ub, "strings", lambda x, y: string_distances(
            list(x), list(y), self.method, dtype=np.float32))


def _distinct_extremes(component: _Component, ua: np.ndarray, ub: np.ndarray, what: str, distance) -> tuple:
    """Smallest and largest ``distance(ua-slice, ub)`` over the distinct values of both files, in
    slices of rows; beyond ``STRING_EXTREMES_MAX_PAIRS`` pairs the natural range [0, 1], noted
    on ``component``."""
    if len(ua) == 0 or len(ub) == 0:
        return 0.0, 0.0
    if len(ua) * len(ub) > STRING_EXTREMES_MAX_PAIRS:
        component.notes = ((f"{len(ua)} x {len(ub)} distinct {what}: max-min extremes taken as the "
                            "natural range [0, 1] instead of being computed over all pairs"),)
        return 0.0, 1.0
    low, high = np.inf, -np.inf
    step = max(1, STRING_EXTREMES_MAX_PAIRS // 20 // len(ub))
    for start in range(0, len(ua), step):
        block = distance(ua[start : start + step], ub)
        low, high = min(low, float(block.min())), max(high, float(block.max()))
    return low, high


class _SwappedNamesComponent(_Component):
    """Two name columns (``a``, ``b``: shape (n, 2)) compared straight and crossed:
    ``min(d(g, g') + d(f, f'), d(g, f') + d(f, g')) / 2`` with the key's string distance ``d``;
    one missing name counts 1, a record without both names is missing (docs/method/linkage.md)."""

    notes = ("max-min extremes of a swapped-names key taken as its natural range [0, 1]",)

    def __init__(self, a: np.ndarray, b: np.ndarray, method: str) -> None:
        self.a, self.b, self.method = a, b, method

    def _part(self, x: np.ndarray, y: np.ndarray, pairs: bool) -> np.ndarray:
        out = string_distances([v or "" for v in x], [v or "" for v in y], self.method, pairs)
        if pairs:
            out[pd.isna(x) | pd.isna(y)] = 1.0
        else:
            out[pd.isna(x), :] = 1.0
            out[:, pd.isna(y)] = 1.0
        return out

    def _total(self, a: np.ndarray, b: np.ndarray, pairs: bool) -> np.ndarray:
        straight = self._part(a[:, 0], b[:, 0], pairs) + self._part(a[:, 1], b[:, 1], pairs)
        crossed = self._part(a[:, 0], b[:, 1], pairs) + self._part(a[:, 1], b[:, 0], pairs)
        out = np.minimum(straight, crossed) / 2.0
        gone_a, gone_b = pd.isna(a).all(axis=1), pd.isna(b).all(axis=1)
        if pairs:
            out[gone_a | gone_b] = np.nan
        else:
            out[gone_a, :] = np.nan
            out[:, gone_b] = np.nan
        return out

    def raw(self, ext, rel):
        return self._total(self.a[ext], self.b[rel], False)

    def raw_pairs(self, ext, rel):
        return self._total(self.a[ext], self.b[rel], True)

    def subset(self, ext, rel):
        return _SwappedNamesComponent(self.a[ext], self.b[rel], self.method)

    @cached_property
    def has_missing(self) -> bool:
        return bool(pd.isna(self.a).all(axis=1).any() or pd.isna(self.b).all(axis=1).any())

    def extremes(self):
        return 0.0, 1.0


class _DateComponent(_Component):
    """A date key on its parts (``attack.linkage.dates``; a row of −1 is a missing date)."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        self.a, self.b = a, b

    def raw(self, ext, rel):
        return date_distance(self.a[ext][:, None, :], self.b[rel][None, :, :])

    def raw_pairs(self, ext, rel):
        return date_distance(self.a[ext], self.b[rel])

    def subset(self, ext, rel):
        return _DateComponent(self.a[ext], self.b[rel])

    @cached_property
    def has_missing(self) -> bool:
        return bool((self.a < 0).all(axis=1).any() or (self.b < 0).all(axis=1).any())

    def extremes(self):
        ua = np.unique(self.a[~(self.a < 0).all(axis=1)], axis=0)
        ub = np.unique(self.b[~(self.b < 0).all(axis=1)], axis=0)
        return _distinct_extremes(self, ua, ub, "dates", lambda x, y: date_distance(x[:, None, :], y[None, :, :]))


def _factorize_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint integer codes for two object arrays (−1 for missing) and the distinct values."""
    codes, uniques = pd.factorize(np.concatenate([a, b]), use_na_sentinel=True)
    return codes[: a.size], codes[a.size :], np.asarray(uniques, dtype=object)


def _nominal(a: np.ndarray, b: np.ndarray) -> _CodeComponent:
    ca, cb, _ = _factorize_pair(a, b)
    return _CodeComponent(ca, cb, kind="nominal")


def _ordinal(a: np.ndarray, b: np.ndarray, key: KeySpec, names: tuple[str, str]) -> _CodeComponent:
    order = key.order
    if order is None:
        present = pd.unique(np.concatenate([a, b]))
        order = tuple(sorted((v for v in present if v is not None), key=_natural_key))
    codes = []
    for values, file, column in ((a, names[0], key.external_column), (b, names[1], key.name)):
        ranks = pd.Index(list(order)).get_indexer(values).astype(np.int64)
        unknown = np.flatnonzero((ranks < 0) & ~pd.isna(values))
        if unknown.size:
            raise InputError(
                f"value {values[unknown[0]]!r} is not one of the declared ordinal categories",
                file=file,
                column=column,
                row=int(unknown[0]) + 1,
            )
        codes.append(ranks)
    r = max(len(order), 1)
    # eq. 13.2: categories from the smaller up to (excluding) the larger value, over r
    return _CodeComponent(codes[0], codes[1], kind="ordinal", divisor=r, scale=(r - 1) / r or 1.0)


def _natural_key(value: str) -> tuple:
    try:
        return (0, float(value), value)
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def _ancestors_by_prefix(code: str, levels: Sequence[int]) -> list[str]:
    return [code[:n] for n in levels if n <= len(code)]


def _ancestors_by_parents(code: str, parents: Mapping[str, str]) -> list[str]:
    chain = [code]
    while chain[-1] in parents:
        chain.append(parents[chain[-1]])
        if len(chain) > 64:
            raise InputError(f"hierarchy parent map has a cycle through {code!r}")
    return chain[::-1]


def hierarchy_distance_table(
    codes_a: Sequence[str],
    codes_b: Sequence[str],
    *,
    levels: Sequence[int] | None = None,
    parents: Mapping[str, str] | None = None,
    mode: str = "compatible_zero",
) -> np.ndarray:
    """Distances d_H between every code of ``codes_a`` and every code of ``codes_b``.

    docs/method/linkage.md (normative form of handbook eq. 13.3); see the module docstring.
    """
    everything = list(codes_a) + list(codes_b)
    if parents:
        paths = {c: _ancestors_by_parents(c, parents) for c in [*parents, *everything]}
    else:
        lengths = sorted(set(levels) if levels else {len(c) for c in everything})
        paths = {}
        for c in everything:
            path = _ancestors_by_prefix(c, lengths)
            if not path or path[-1] != c:
                raise InputError(
                    f"hierarchical code {c!r} has a length that is not one of the levels {lengths}"
                )
            paths[c] = path
    depth = max(len(p) for p in paths.values())  # L: levels of the whole hierarchy
    table = np.empty((len(codes_a), len(codes_b)))
    for i, ca in enumerate(codes_a):
        pa = paths[ca]
        for j, cb in enumerate(codes_b):
            pb = paths[cb]
            shallow = min(len(pa), len(pb))
            common = 0
            while common < shallow and pa[common] == pb[common]:
                common += 1
            compatible = common == shallow
            if compatible and (mode == "compatible_zero" or len(pa) == len(pb)):
                table[i, j] = 0.0
            else:
                table[i, j] = (depth - common) / depth
    return table


def _hierarchical(a: np.ndarray, b: np.ndarray, key: KeySpec) -> _CodeComponent:
    ca, cb, uniques = _factorize_pair(a, b)
    codes = [str(u) for u in uniques]
    table = hierarchy_distance_table(
        codes, codes, levels=key.levels, parents=key.parents, mode=key.hierarchy_mode
    )
    if table.size == 0:
        table = np.zeros((1, 1))
    return _CodeComponent(ca, cb, kind="hierarchical", table=table)


@dataclass
class DistanceModel:
    """Standardised, weighted distance between external and release records (eq. 13.4–13.5).

    Build it with ``build_distance_model``; ``cost`` gives the total distance matrix for
    any subset of external and release rows (a block).
    """

    keys: tuple[KeySpec, ...]
    components: tuple[_Component, ...]
    offsets: np.ndarray
    scales: np.ndarray
    missing_values: np.ndarray
    standardise: str
    notes: tuple[str, ...] = ()

    def cost(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Total distance matrix of shape (len(ext), len(rel)), float64."""
        return self._total(ext, rel, pairs=False)

    def pair_cost(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Total distance of the pairs ``(ext[k], rel[k])``; bit for bit the entries of
        ``cost``, so candidate-based matchers break ties exactly as dense ones."""
        return self._total(ext, rel, pairs=True)

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> DistanceModel:
        """The model restricted to a block (local row numbers from 0), standardisation kept."""
        return replace(self, components=tuple(c.subset(ext, rel) for c in self.components))

    @property
    def sizes(self) -> tuple[int, int]:
        """Numbers of external and release rows the model covers."""
        first = self.components[0]
        return len(first.a), len(first.b)

    def _total(self, ext: np.ndarray, rel: np.ndarray, pairs: bool) -> np.ndarray:
        """Σ λ_i d̃_i (eq. 13.5) as a matrix or, with ``pairs``, for aligned index pairs.

        Each component is standardised step by step as eq. 13.4 writes it, so the extremes come
        out as exactly 0 and 1; in-place steps keep memory to two matrices, and steps that do
        nothing (offset 0, weight 1, no missing value) are skipped. Missing values follow
        docs/method/linkage.md.
        """
        shape = (len(ext),) if pairs else (len(ext), len(rel))
        total = None
        skip_weight = None
        full_weight = 0.0
        for key, comp, off, scale, fill in zip(
            self.keys, self.components, self.offsets, self.scales, self.missing_values, strict=True
        ):
            if key.weight == 0:
                continue
            full_weight += key.weight
            part = comp.raw_pairs(ext, rel) if pairs else comp.raw(ext, rel)  # a fresh array
            if scale > 0:
                if off:
                    part -= off
                part /= scale
            else:
                part[~np.isnan(part)] = 0.0
            if comp.has_missing:
                missing = np.isnan(part)
                if key.missing == "skip":
                    if skip_weight is None:
                        skip_weight = np.zeros(shape)
                    skip_weight += np.where(missing, key.weight, 0.0)
                    part[missing] = 0.0
                else:
                    part[missing] = fill
            if key.weight != 1:
                part *= key.weight
            if total is None:
                total = part
            else:
                total += part
        if total is None:
            return np.zeros(shape)
        if skip_weight is not None:
            present = full_weight - skip_weight
            with np.errstate(divide="ignore", invalid="ignore"):
                total = np.where(present > 0, total * (full_weight / present), full_weight)
        return total

    def describe(self) -> dict:
        return {
            "standardise": self.standardise,
            "keys": [k.describe() for k in self.keys],
            "notes": list(self.notes),
        }


def build_distance_model(
    external: pd.DataFrame,
    release: pd.DataFrame,
    keys: Sequence[KeySpec],
    *,
    standardise: str = "maxmin",
    metric_distance: str = "squared",
    winsorise: bool = False,
) -> DistanceModel:
    """Prepare the components of every key over the whole files (docs/method/linkage.md).

    Extremes for ``maxmin`` are taken over all pairs A × B of the two files, before blocking,
    without building the pairs (docs/method/linkage.md). Under a standardisation, a metric value
    that alone spans its key's range stops the run, or with ``winsorise`` is set to the nearest
    value that does not (``attack.linkage.outliers``).
    """
    if standardise not in STANDARDISATIONS:
        raise InputError(
            f"unknown standardisation {standardise!r}; expected one of {', '.join(STANDARDISATIONS)}"
        )
    if metric_distance not in METRIC_DISTANCES:
        raise InputError(f"unknown metric distance {metric_distance!r}; expected squared or absolute")
    if not keys:
        raise InputError("at least one distance key is needed")
    names = (source_name(external), source_name(release))
    components, offsets, scales, fills, notes = [], [], [], [], []
    screen = "winsorise" if winsorise else ("stop" if standardise != "none" else None)
    for key in keys:
        comp = _component(external, release, key, names, metric_distance, screen)
        with np.errstate(over="ignore"):  # an overflow is reported below, by the key's name
            low, high = comp.extremes()
        if not (np.isfinite(low) and np.isfinite(high)):
            raise InputError("the distances of this key overflow (its values are too large to compare); "
                             "rescale the variable, e.g. to thousands, or use its log (:log)", column=key.name)
        if standardise == "maxmin":
            offset, scale = low, high - low
        elif standardise == "range":
            offset, scale = 0.0, comp.range_scale()
        elif standardise == "sd":
            offset, scale = 0.0, comp.sd_scale()
        else:
            offset, scale = 0.0, 1.0
        scale = scale if scale > 0 and np.isfinite(scale) else 0.0
        # a missing value counts as maximal disagreement: the component's largest standardised
        # value (1 under maxmin; 1 also when the non-missing values never disagree)
        fill = (high - offset) / scale if scale > 0 else 1.0
        components.append(comp)
        offsets.append(offset)
        scales.append(scale)
        fills.append(fill)
        notes.extend(f"key {key.name!r}: {n}" for n in comp.notes)
    return DistanceModel(
        keys=tuple(keys),
        components=tuple(components),
        offsets=np.array(offsets, dtype=float),
        scales=np.array(scales, dtype=float),
        missing_values=np.array(fills, dtype=float),
        standardise=standardise,
        notes=tuple(notes),
    )


def _component(
    external: pd.DataFrame,
    release: pd.DataFrame,
    key: KeySpec,
    names: tuple[str, str],
    metric_distance: str,
    screen: str | None = None,
) -> _Component:
    ext_col, rel_col = key.external_column, key.name
    if key.type == "metric":
        a = numeric_column(external, ext_col, required=True)
        b = numeric_column(release, rel_col, required=True)
        if key.log:
            for values, frame, column in ((a, external, ext_col), (b, release, rel_col)):
                negative = np.flatnonzero(values < 0)
                if negative.size:
                    raise InputError(
                        "the log transform needs non-negative values",
                        file=source_name(frame),
                        column=column,
                        row=int(negative[0]) + 1,
                    )
            a, b = np.log1p(a), np.log1p(b)
        notes = []
        if screen is not None:
            checked = []
            for values, name, column in ((a, names[0], ext_col), (b, names[1], rel_col)):
                values, changed = check_key_values(values, file=name, column=column, winsorise=screen == "winsorise")
                checked.append(values)
                if changed:
                    notes.append(f"{changed} value(s) in {Path(name).name} winsorised: each alone spanned the range")
            a, b = checked
        power = 2 if (key.metric_distance or metric_distance) == "squared" else 1
        component = _MetricComponent(a, b, power)
        component.notes = tuple(notes)
        return component
    a = code_column(external, ext_col, required=True)
    b = code_column(release, rel_col, required=True)
    if key.type == "nominal":
        return _nominal(a, b)
    if key.type == "ordinal":
        return _ordinal(a, b, key, names)
    if key.type == "hierarchical":
        return _hierarchical(a, b, key)
    if key.type == "date":
        return _DateComponent(date_parts(a, file=names[0], column=ext_col), date_parts(b, file=names[1], column=rel_col))
    a, b = (prepare(v, normalise=key.normalise, encoding=key.encoding) for v in (a, b))
    if key.swap_with:
        a2, b2 = (prepare(code_column(frame, key.swap_with, required=True), normalise=key.normalise,
                          encoding=key.encoding) for frame in (external, release))
        return _SwappedNamesComponent(np.stack([a, a2], axis=1), np.stack([b, b2], axis=1), key.string_method)
    return _StringComponent(a, b, key.string_method)
