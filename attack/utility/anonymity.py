"""Secondary disclosure indicators of a release (docs/method/utility.md): k-anonymity and l-diversity on
exact key combinations (worked example 11 (docs/reference/worked-examples.md)) and sdcMicro-style interval disclosure on aligned
records. They are reported beside the utility profile and are not part of the certificate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from attack.risk.key_cells import (  # noqa: F401  (re-exported for the utility profile)
    KAnonymity,
    LDiversity,
    category_codes,
    k_anonymity,
    l_diversity,
)

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

    def to_dict(self) -> dict:
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
    rank-based shares use ``rank_interval_inside`` with the same ``k``."""
    x = np.asarray(original, dtype=float)
    xa = np.asarray(release, dtype=float)
    n = x.shape[0]
    if n < 2:
        empty: dict[str, float | None] = {v: None for v in names}
        return IntervalDisclosure(k, max_outside, n, 0, empty, dict(empty))
    inside = np.abs(x - xa) <= k * xa.std(axis=0, ddof=1)
    at_risk = int(((~inside).sum(axis=1) <= max_outside).sum())
    shares: dict[str, float | None] = {v: float(inside[:, j].mean()) for j, v in enumerate(names)}
    ranked: dict[str, float | None] = {v: float(rank_interval_inside(x[:, j], xa[:, j], k).mean())
              for j, v in enumerate(names)}
    return IntervalDisclosure(k, max_outside, n, at_risk, shares, ranked)
