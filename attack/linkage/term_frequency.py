"""Term-frequency adjustment of Fellegi–Sunter weights: agreeing on a rare value weighs more.

Two records of different units agree on a surname by chance with the probability of drawing
that surname: often for "Smith", rarely for "Kowalczyk". The u-probability of exact agreement,
one number ``u_k(0)`` per key, averages over all values; with the adjustment (Winkler 1990,
2000; as Splink's term-frequency adjustment) exact agreement on the value ``v`` uses the share
``f_v`` of release records with value ``v`` instead (docs/method/intruder-confidence.md,
"Rare values weigh more")::

    u_k(0 | v) = f_v = n_v / n,        W_k(0 | v) = log2( m_k(0) / f_v )

(``n_v`` release records carry ``v``, ``n`` carry any value; ``f_v`` at least ``FLOOR``). The
m-probabilities, the other levels and λ stay as EM estimated them. Opt-in per key (``tf``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["adjust", "value_shares", "value_weights"]

#: Shares are kept at least this far from 0 (weights stay finite).
FLOOR = 1e-6


def value_shares(release_codes: np.ndarray, n_values: int) -> np.ndarray:
    """Share ``f_v`` of every value code among the release's present codes (−1 = missing)."""
    present = release_codes[release_codes >= 0]
    counts = np.bincount(present, minlength=n_values).astype(float)
    return counts / max(present.size, 1)


def value_weights(m_exact: float, shares: np.ndarray) -> np.ndarray:
    """``W(0 | v) = log2(m(0) / f_v)`` for every value code."""
    return np.log2(m_exact / np.maximum(shares, FLOOR))


def adjust(part: np.ndarray, levels: np.ndarray, codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``part`` (the weights of the pairs' levels) with exact agreement (level 0) weighed by its
    value: ``codes`` are the external values' codes, broadcast to ``levels``' shape."""
    exact = levels == 0
    part[exact] = weights[np.broadcast_to(codes, levels.shape)[exact]]
    return part
