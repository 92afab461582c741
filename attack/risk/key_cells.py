"""Key cells of a microdata file: the integer coding of categorical keys, k-anonymity and
l-diversity on exact key combinations (worked example 11 (docs/reference/worked-examples.md)).
Shared by the frequency risk (``attack.risk.frequency``) and the utility profile's secondary
disclosure indicators (``attack.utility.anonymity``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import code_column, require_columns


def category_codes(frame: pd.DataFrame, column: str, warn: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (−1 missing) and their labels, with ``code_column``'s normalisation
    applied to the distinct values only (fast on large files); also the basis of the
    subpopulation cells of ``attack.utility``. ``warn`` as in ``code_column``."""
    raw_codes, uniques = pd.factorize(frame[column], use_na_sentinel=True)
    labels = code_column(pd.DataFrame({column: pd.Series(uniques)}), column, warn=warn)
    merged, names = pd.factorize(pd.Series(labels, dtype=object), use_na_sentinel=True)
    lookup = np.append(merged, -1)
    return lookup[raw_codes], np.asarray(names, dtype=object)


def key_groups(data: pd.DataFrame, keys: Sequence[str], warn: bool = True) -> np.ndarray:
    """Group number of each row's exact key combination; a missing value is its own value."""
    if not keys:
        raise InputError("at least one key variable is needed")
    require_columns(data, keys)
    frame = pd.DataFrame({k: category_codes(data, k, warn)[0] for k in keys})
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

    def to_dict(self) -> dict:
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
    group = key_groups(data, keys)
    return KAnonymity(tuple(keys), k, np.bincount(group)[group])


@dataclass(frozen=True)
class LDiversity:
    """Distinct sensitive values ``l`` per key combination, per record."""

    keys: tuple[str, ...]
    sensitive: str
    diversity: np.ndarray = field(repr=False)

    def to_dict(self) -> dict:
        values, counts = np.unique(self.diversity, return_counts=True)
        return {
            "keys": list(self.keys),
            "sensitive": self.sensitive,
            "records": int(self.diversity.size),
            "min_l": int(values[0]) if values.size else None,
            "records_by_l": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
        }


def l_diversity(data: pd.DataFrame, keys: Sequence[str], sensitive: str, warn: bool = True) -> LDiversity:
    """l-diversity on exact key combinations; missing sensitive values are not counted as a
    value (worked example 11 (docs/reference/worked-examples.md), Table 2)."""
    group = key_groups(data, keys, warn)
    require_columns(data, [sensitive])
    codes = pd.Series(category_codes(data, sensitive, warn)[0])
    distinct = codes.where(codes >= 0).groupby(group).nunique().to_numpy()
    return LDiversity(tuple(keys), sensitive, distinct[group])
