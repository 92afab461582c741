"""Secondary disclosure indicators of a release (docs/method/utility.md): k-anonymity and l-diversity on
exact key combinations (worked example 11 (docs/reference/worked-examples.md)) and sdcMicro-style interval disclosure on aligned
records. They are reported beside the utility profile and are not part of the certificate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
    """Records whose original values lie within ``x^a ± k·sd(x^a)`` (docs/method/utility.md)."""

    k: float
    max_outside: int
    n: int
    at_risk: int
    inside_share: dict[str, float | None]

    @property
    def share(self) -> float | None:
        return self.at_risk / self.n if self.n else None

    def as_dict(self) -> dict:
        return {**self.__dict__, "share": self.share}


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
    values are inside (``max_outside=0``); sdcMicro's code allows one outside (``1``)."""
    x = np.asarray(original, dtype=float)
    xa = np.asarray(release, dtype=float)
    n = x.shape[0]
    if n < 2:
        return IntervalDisclosure(k, max_outside, n, 0, {v: None for v in names})
    inside = np.abs(x - xa) <= k * xa.std(axis=0, ddof=1)
    at_risk = int(((~inside).sum(axis=1) <= max_outside).sum())
    shares = {v: float(inside[:, j].mean()) for j, v in enumerate(names)}
    return IntervalDisclosure(k, max_outside, n, at_risk, shares)
