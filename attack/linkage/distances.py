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

Each key type builds its own component (``Key.component`` in ``attack.linkage.keys``); this
module holds the component kinds and combines the components of a run.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Protocol, Self

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process
from rapidfuzz.distance import DamerauLevenshtein, JaroWinkler, Levenshtein

from attack.errors import InputError
from attack.io.readers import source_name
from attack.linkage.dates import date_distance

STANDARDISATIONS: tuple[str, ...] = ("maxmin", "range", "sd", "none")
METRIC_DISTANCES: tuple[str, ...] = ("squared", "absolute")

#: String keys get exact max–min extremes when the distinct values span at most this many pairs;
#: beyond it the natural range [0, 1] of the normalised string distance is used and reported.
STRING_EXTREMES_MAX_PAIRS = 20_000_000


class DistanceKey(Protocol):
    """What the distance code needs of a key (``attack.linkage.keys.Key``)."""

    @property
    def name(self) -> str:
        """The key's release column."""

    @property
    def weight(self) -> float:
        """Its weight λ."""

    @property
    def missing(self) -> str:
        """``"max"`` or ``"skip"``."""

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """The key with the fields in ``update`` changed (e.g. a learned weight)."""

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> Component:
        """The key's raw distances between the two files."""

    def to_dict(self) -> dict:
        """JSON-ready description for results and certificates."""


@dataclass(frozen=True)
class ComponentOptions:
    """What a key needs beyond its own settings to build its component: the two file names (for
    error messages), the run's default metric distance and the screen of metric values
    (``"stop"``, ``"winsorise"`` or None, ``attack.linkage.outliers``)."""

    files: tuple[str, str]
    metric_distance: str = "squared"
    screen: str | None = None


class Component(ABC):
    """Raw distances of one key between external and release rows, and their scale.

    ``a`` and ``b`` hold the key's prepared values of the external and the release rows.
    """

    notes: tuple[str, ...] = ()
    a: np.ndarray
    b: np.ndarray

    @abstractmethod
    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Raw component distances, NaN where either value is missing."""

    @abstractmethod
    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Raw distances of the pairs ``(ext[k], rel[k])``, elementwise; equal bit for bit to
        the matching entries of ``raw``."""

    @abstractmethod
    def subset(self, ext: np.ndarray, rel: np.ndarray) -> Component:
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


class MetricComponent(Component):
    def __init__(self, a: np.ndarray, b: np.ndarray, power: int) -> None:
        self.a, self.b, self.power = a, b, power
        self._a = a[~np.isnan(a)]
        self._b = b[~np.isnan(b)]

    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return self._distance(self.a[ext][:, None] - self.b[rel][None, :])

    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return self._distance(self.a[ext] - self.b[rel])

    def _distance(self, diff: np.ndarray) -> np.ndarray:
        return np.multiply(diff, diff, out=diff) if self.power == 2 else np.abs(diff, out=diff)

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> MetricComponent:
        return MetricComponent(self.a[ext], self.b[rel], self.power)

    def extremes(self) -> tuple[float, float]:
        if self._a.size == 0 or self._b.size == 0:
            return 0.0, 0.0
        high = max(abs(self._a.max() - self._b.min()), abs(self._b.max() - self._a.min()))
        return _min_gap(self._a, self._b) ** self.power, high**self.power

    def range_scale(self) -> float:
        pooled = np.concatenate([self._a, self._b])
        return float(pooled.max() - pooled.min()) ** self.power if pooled.size else 0.0

    def sd_scale(self) -> float:
        pooled = np.concatenate([self._a, self._b])
        return float(pooled.std(ddof=1)) ** self.power if pooled.size > 1 else 0.0


class CodeComponent(Component):
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

    def _distances(self) -> np.ndarray:
        """The code-by-code distance table of a hierarchical key."""
        if self.table is None:
            raise TypeError("only a hierarchical key has a distance table")
        return self.table

    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        a = self.a[ext]
        b = self.b[rel]
        if self.kind == "nominal":
            out = (a[:, None] != b[None, :]).astype(np.float64)
        elif self.kind == "ordinal":
            out = np.abs(a[:, None] - b[None, :]) / self.divisor
        else:
            out = self._distances()[np.ix_(np.maximum(a, 0), np.maximum(b, 0))]
        if (a < 0).any() or (b < 0).any():
            out[a < 0, :] = np.nan
            out[:, b < 0] = np.nan
        return out

    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        a = self.a[ext]
        b = self.b[rel]
        if self.kind == "nominal":
            out = (a != b).astype(np.float64)
        elif self.kind == "ordinal":
            out = np.abs(a - b) / self.divisor
        else:
            out = self._distances()[np.maximum(a, 0), np.maximum(b, 0)]
        out[(a < 0) | (b < 0)] = np.nan
        return out

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> CodeComponent:
        return CodeComponent(
            self.a[ext], self.b[rel], kind=self.kind, divisor=self.divisor, table=self.table,
            scale=self.scale,
        )

    @cached_property
    def has_missing(self) -> bool:
        return bool((self.a < 0).any() or (self.b < 0).any())

    def extremes(self) -> tuple[float, float]:
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
        sub = self._distances()[np.ix_(present_a, present_b)]
        return float(sub.min()), float(sub.max())

    def range_scale(self) -> float:
        return self.scale


#: The rapidfuzz scorer of each string method; all but ``token_set`` give a normalised distance
#: in [0, 1], ``token_set`` a similarity in [0, 100] that ``string_distances`` turns into
#: ``1 − score / 100`` (docs/method/linkage.md, "Comparing names").
STRING_SCORERS: dict[str, Any] = {
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


class StringComponent(Component):
    def __init__(self, a: np.ndarray, b: np.ndarray, method: str) -> None:
        self.a, self.b, self.method = a, b, method

    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        a = self.a[ext]
        b = self.b[rel]
        out = string_distances([x or "" for x in a], [y or "" for y in b], self.method)
        out[pd.isna(a), :] = np.nan
        out[:, pd.isna(b)] = np.nan
        return out

    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        a = self.a[ext]
        b = self.b[rel]
        out = string_distances([x or "" for x in a], [y or "" for y in b], self.method, pairs=True)
        out[pd.isna(a) | pd.isna(b)] = np.nan
        return out

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> StringComponent:
        return StringComponent(self.a[ext], self.b[rel], self.method)

    def extremes(self) -> tuple[float, float]:
        ua = pd.unique(self.a[~pd.isna(self.a)])
        ub = pd.unique(self.b[~pd.isna(self.b)])
        return _distinct_extremes(self, ua, ub, "strings", lambda x, y: string_distances(
            list(x), list(y), self.method, dtype=np.float32))


def _distinct_extremes(component: Component, ua: np.ndarray, ub: np.ndarray, what: str,
                       distance: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> tuple[float, float]:
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


class SwappedNamesComponent(Component):
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

    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return self._total(self.a[ext], self.b[rel], False)

    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return self._total(self.a[ext], self.b[rel], True)

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> SwappedNamesComponent:
        return SwappedNamesComponent(self.a[ext], self.b[rel], self.method)

    @cached_property
    def has_missing(self) -> bool:
        return bool(pd.isna(self.a).all(axis=1).any() or pd.isna(self.b).all(axis=1).any())

    def extremes(self) -> tuple[float, float]:
        return 0.0, 1.0


class DateComponent(Component):
    """A date key on its parts (``attack.linkage.dates``; a row of −1 is a missing date)."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        self.a, self.b = a, b

    def raw(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return date_distance(self.a[ext][:, None, :], self.b[rel][None, :, :])

    def raw_pairs(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return date_distance(self.a[ext], self.b[rel])

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> DateComponent:
        return DateComponent(self.a[ext], self.b[rel])

    @cached_property
    def has_missing(self) -> bool:
        return bool((self.a < 0).all(axis=1).any() or (self.b < 0).all(axis=1).any())

    def extremes(self) -> tuple[float, float]:
        ua = np.unique(self.a[~(self.a < 0).all(axis=1)], axis=0)
        ub = np.unique(self.b[~(self.b < 0).all(axis=1)], axis=0)
        return _distinct_extremes(self, ua, ub, "dates", lambda x, y: date_distance(x[:, None, :], y[None, :, :]))


def factorize_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint integer codes for two object arrays (−1 for missing) and the distinct values."""
    codes, uniques = pd.factorize(np.concatenate([a, b]), use_na_sentinel=True)
    return codes[: a.size], codes[a.size :], np.asarray(uniques, dtype=object)


@dataclass
class DistanceModel:
    """Standardised, weighted distance between external and release records (eq. 13.4–13.5).

    Build it with ``build_distance_model``; ``cost`` gives the total distance matrix for
    any subset of external and release rows (a block).
    """

    keys: tuple[DistanceKey, ...]
    components: tuple[Component, ...]
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

    def to_dict(self) -> dict:
        return {
            "standardise": self.standardise,
            "keys": [k.to_dict() for k in self.keys],
            "notes": list(self.notes),
        }


def build_distance_model(
    external: pd.DataFrame,
    release: pd.DataFrame,
    keys: Sequence[DistanceKey],
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
    options = ComponentOptions(files=(source_name(external), source_name(release)), metric_distance=metric_distance,
                               screen="winsorise" if winsorise else ("stop" if standardise != "none" else None))
    components: list[Component] = []
    offsets: list[float] = []
    scales: list[float] = []
    fills: list[float] = []
    notes: list[str] = []
    for key in keys:
        comp = key.component(external, release, options)
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

