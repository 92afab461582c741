"""Swapping: rank swapping of metric variables and random swapping within groups
(docs/method/protection.md).

Both return a new frame (input untouched, row order and other columns unchanged) and use one
random stream per listed column, spawned from ``seed`` in the order given (docs/method/protection.md).
Missing values stay where they are and take no part in a swap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.protect.noise import checked_numeric, column_list, seeded_streams
from attack.protect.registry import REQUIRED, Param, protection_method

__all__ = ["group_swap", "rank_swap", "swap_partners", "swap_window"]


def swap_window(p: float, n: int) -> int:
    """Rank window ``w = max(1, floor(p·n/100))`` for a swapping percentage ``0 < p <= 100``."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.number)) or not 0 < p <= 100:
        raise InputError(f"rank-swapping percentage p must lie in (0, 100], got {p!r}")
    return max(1, math.floor(p * n / 100))


def swap_partners(n: int, w: int, u: np.ndarray) -> np.ndarray:
    """Partner rank of every rank 0…n−1 (−1 when unswapped), docs/method/protection.md [Proposal].

    Ranks are visited in ascending order; a still unswapped rank ``r`` is paired with the
    unswapped rank among ``r+1 … r+w`` at position ``floor(u[r]·|C|)`` of that candidate list
    (``u[r]`` uniform in [0, 1), so the choice is uniform).
    """
    partner = [-1] * n
    taken = bytearray(n)
    ahead = list(range(1, min(w, n - 1) + 1))      # free ranks in (r, r + w], ascending
    draws = np.asarray(u, dtype="float64").tolist()
    for r in range(n - 1):
        if r > 0:
            if ahead and ahead[0] == r:
                ahead.pop(0)
            if r + w < n:
                ahead.append(r + w)                # nobody before r can have taken it
        if taken[r] or not ahead:
            continue
        j = ahead.pop(int(draws[r] * len(ahead)))
        partner[r], partner[j] = j, r
        taken[j] = 1
    return np.array(partner, dtype=np.int64)


@protection_method("rank-swap", family="swapping", summary="swap values between ranks at most p% apart",
                   params={"p": Param("float", REQUIRED, help="rank window, percent of the present values",
                                      gt=0, le=100)})
def rank_swap(
    data: pd.DataFrame, columns: Sequence[str], p: float, seed: int = 0
) -> pd.DataFrame:
    """Rank swapping with window ``p`` percent of the present values (docs/method/protection.md).

    Per column: rank the present values ascending (ties by a seeded random key), pair ranks by
    ``swap_partners`` and exchange the paired values. Each column keeps exactly its values
    (its sorted values are unchanged); pairs differ in rank by at most ``w``. Listed columns
    become float.
    """
    names, x = checked_numeric(data, columns, "rank swapping")
    out = x.copy()
    for j, rng in enumerate(seeded_streams(seed, len(names))):
        rows = np.flatnonzero(~np.isnan(x[:, j]))
        n = rows.size
        w = swap_window(p, n)
        ranked = rows[np.lexsort((rng.random(n), x[rows, j]))]
        partner = swap_partners(n, w, rng.random(n))
        swapped = partner >= 0
        out[ranked[swapped], j] = x[ranked[partner[swapped]], j]
    result = data.copy()
    for j, name in enumerate(names):
        result[name] = out[:, j]
    return result


def group_swap(
    data: pd.DataFrame, columns: Sequence[str], by: str | Sequence[str], seed: int = 0
) -> pd.DataFrame:
    """Permute each listed column's values at random within groups of ``by`` (docs/method/protection.md).

    Each column is permuted separately (own stream), among the units of a group whose value is
    present; a missing ``by`` value forms a group of its own. Any column type; dtypes are kept.
    """
    names = column_list(data, columns)
    groups = column_list(data, by)
    overlap = set(names) & set(groups)
    if overlap:
        raise InputError("a grouping column cannot be swapped", column=sorted(overlap)[0])
    group = data.groupby(groups, dropna=False, sort=False).ngroup().to_numpy()
    result = data.copy()
    for name, rng in zip(names, seeded_streams(seed, len(names)), strict=True):
        values = data[name].to_numpy(copy=True)
        rows = np.flatnonzero(data[name].notna().to_numpy())
        keys = rng.random(rows.size)
        target = rows[np.lexsort((rows, group[rows]))]
        source = rows[np.lexsort((keys, group[rows]))]
        values[target] = data[name].to_numpy()[source]
        result[name] = pd.Series(values, index=data.index, dtype=data[name].dtype)
    return result
