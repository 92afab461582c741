"""Secondary disclosure indicators of a release (docs/method/utility.md): k-anonymity and l-diversity on
exact key combinations (worked example 11 (docs/reference/worked-examples.md)) and sdcMicro-style interval disclosure on aligned
records. They are reported beside the utility profile and are not part of the certificate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import code_column, require_columns


def category_codes(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (−1 missing) and their labels, with :func:`code_column`'s normalisation
    applied to the distinct values only (fast on large files); also the basis of the
    subpopulation cells of :mod:`attack.utility`."""
    raw_codes, uniques = pd.factorize(frame[column], use_na_sentinel=True)
    labels = code_column(pd.DataFrame({column: pd.Series(uniques)}), column)
    merged, names = pd.factorize(pd.Series(labels, dtype=object), use_na_sentinel=True)
    lookup = np.append(merged, -1)
    return lookup[raw_codes], np.asarray(names, dtype=object)


# --- interval disclosure on aligned records (docs/method/utility.md) -----------------------------------


@dataclass(frozen=True)
class IntervalDisclosure:
    """Interval disclosure (docs/method/utility.md): per variable the share of original values
    inside the SD-based interval ``x^a ± k·sd(x^a)`` and inside the rank-based interval (the
    released values within ``⌊k·n⌋`` ranks of ``x^a``); records whose values are all inside the
    SD-based interval, up to ``max_outside`` values outside."""

    k: float
    max_outside: int
    n: int
    at_risk: int
    inside_share: dict[str, float | None]
    rank_inside_share: dict[str, float | None] = field(default_factory=dict)

    @property
    def share(self) -> float | None:
        return self.at_risk / self.n if self.n else None

    @property
    def value_share(self) -> dict[str, float | None]:
        """Share of all values inside, SD-based and rank-based (mean over the variables)."""
        return {name: float(np.mean(list(shares.values()))) if shares and self.n >= 2 else None
                for name, shares in (("sd", self.inside_share), ("rank", self.rank_inside_share))}

    def as_dict(self) -> dict:
        return {**self.__dict__, "share": self.share, "value_share": self.value_share}


def rank_interval_inside(original: np.ndarray, release: np.ndarray, k: float) -> np.ndarray:
    """Whether each original value lies in the rank interval of its released value: with the
    released values sorted, ``s_1 ≤ … ≤ s_n``, and ``h = ⌊k·n⌋``, the interval runs from
    ``s`` at the lowest rank of ``x^a`` minus h to ``s`` at its highest rank plus h (ties take
    the whole run of equal values; ranks clipped to 1…n). Rows must be complete."""
    x = np.asarray(original, dtype=float)
    s = np.sort(np.asarray(release, dtype=float))
    n = s.size
    h = math.floor(k * n)
    low = s[np.maximum(np.searchsorted(s, release, side="left") - h, 0)]
    high = s[np.minimum(np.searchsorted(s, release, side="right") - 1 + h, n - 1)]
    return (low <= x) & (x <= high)


def interval_disclosure(
    original: np.ndarray,
    release: np.ndarray,
    names: Sequence[str],
    k: float = 0.05,
    max_outside: int = 0,
) -> IntervalDisclosure:
    """sdcMicro ``dRisk``-style interval disclosure on complete aligned rows: a value is inside
    when ``|x − x^a| ≤ k · sd(x^a)`` (sample SD of the released column); a record is at risk when
    at most ``max_outside`` of its values are outside. The spec counts a record only when all
    values are inside (``max_outside=0``); sdcMicro's code allows one outside (``1``). The
    rank-based shares use :func:`rank_interval_inside` with the same ``k``."""
    x = np.asarray(original, dtype=float)
    xa = np.asarray(release, dtype=float)
    n = x.shape[0]
    if n < 2:
        empty = {v: None for v in names}
        return IntervalDisclosure(k, max_outside, n, 0, empty, dict(empty))
    inside = np.abs(x - xa) <= k * xa.std(axis=0, ddof=1)
    at_risk = int(((~inside).sum(axis=1) <= max_outside).sum())
    shares = {v: float(inside[:, j].mean()) for j, v in enumerate(names)}
    ranked = {v: float(rank_interval_inside(x[:, j], xa[:, j], k).mean())
              for j, v in enumerate(names)}
    return IntervalDisclosure(k, max_outside, n, at_risk, shares, ranked)


# --- secondary indicators on exact key combinations (docs/method/utility.md) ---------------------------


def _key_groups(data: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Group number of each row's exact key combination; a missing value is its own value."""
    if not keys:
        raise InputError("at least one key variable is needed")
    require_columns(data, keys)
    frame = pd.DataFrame({k: category_codes(data, k)[0] for k in keys})
    return frame.groupby(list(keys), sort=False).ngroup().to_numpy()


@dataclass(frozen=True)
class KAnonymity:
    """Sample frequencies ``f_k`` of the key combinations; records with ``f_k < k`` violate."""

    keys: tuple[str, ...]
    k: int
    frequencies: np.ndarray = field(repr=False)

    @property
    def violating(self) -> int:
        return int((self.frequencies < self.k).sum())

    def as_dict(self) -> dict:
        n = int(self.frequencies.size)
        return {
            "keys": list(self.keys),
            "k": self.k,
            "records": n,
            "violating": self.violating,
            "share": self.violating / n if n else None,
            "sample_uniques": int((self.frequencies == 1).sum()),
        }


def k_anonymity(data: pd.DataFrame, keys: Sequence[str], k: int = 2) -> KAnonymity:
    """k-anonymity on exact key combinations (worked example 11 (docs/reference/worked-examples.md), Table 1)."""
    if k < 1:
        raise InputError("k must be at least 1")
    group = _key_groups(data, keys)
    return KAnonymity(tuple(keys), k, np.bincount(group)[group])


@dataclass(frozen=True)
class LDiversity:
    """Distinct sensitive values ``l`` per key combination, per record."""

    keys: tuple[str, ...]
    sensitive: str
    diversity: np.ndarray = field(repr=False)

    def as_dict(self) -> dict:
        values, counts = np.unique(self.diversity, return_counts=True)
        return {
            "keys": list(self.keys),
            "sensitive": self.sensitive,
            "records": int(self.diversity.size),
            "min_l": int(values[0]) if values.size else None,
            "records_by_l": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
        }


def l_diversity(data: pd.DataFrame, keys: Sequence[str], sensitive: str) -> LDiversity:
    """l-diversity on exact key combinations; missing sensitive values are not counted as a
    value (worked example 11 (docs/reference/worked-examples.md), Table 2)."""
    group = _key_groups(data, keys)
    require_columns(data, [sensitive])
    codes = pd.Series(category_codes(data, sensitive)[0])
    distinct = codes.where(codes >= 0).groupby(group).nunique().to_numpy()
    return LDiversity(tuple(keys), sensitive, distinct[group])
