"""Procedure II on Fellegi–Sunter match weights without the block's full cost matrix.

A match weight is a sum of per-key level weights, so a block has few distinct costs: one per
combination of levels (at most the product of the keys' level counts, missing included). Procedure
II takes pairs in ascending ``(cost, external row, release row)``; taken cost by cost ("tiers",
exactly equal costs form one tier), that is: for every tier, the external rows still free in
ascending order, each takes the first free release row (in release order) whose pair falls in the
tier. After the tiers of lower cost no free pair of lower cost is left, so the rows of a tier are
found without listing the block's pairs:

* a level that is exact (metric or code), near (metric) or missing (the release value) selects
  release rows by value: an equal range or a relative-difference window of the release values
  sorted once, or the list of missing release values; the combination is checked on each of them;
* a combination of only far or different levels (and of keys missing on the external side, which
  compare as missing with every release record) is searched along the free release rows in
  release order: the first whose pair lies in the tier is taken — when that combination has the
  largest cost, as with ordinary weights, the first free release row.

Ties are counted the same way: the release rows of the link's cost (within ``TIE_TOLERANCE``) per
combination, by its value window, or for an all-far combination as the block's release rows less
those that come near on some key. Links and tie counts equal those of the dense Procedure II
(``attack.linkage.assignment.greedy``); the tests check it on random blocks full of ties. Keys
whose levels are not metric or plain codes (strings, hierarchical codes) leave the block to the
solvers that compute every pair.
"""

from __future__ import annotations

import itertools

import numpy as np

from attack._loops import njit
from attack.linkage import fellegi_sunter
from attack.linkage.assignment import TIE_TOLERANCE
from attack.linkage.fellegi_sunter import MatchWeights

#: Kinds of a key's levels: metric (exact / near / far) or a code (exact / different).
_METRIC, _CODE = 0, 1
#: Relative widening of a near window before every release value in it is checked exactly.
_WIDEN = 1e-9


def level_greedy(model: MatchWeights) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Links ``(rows, cols, cost, n_best)`` of Procedure II on the block of ``model``, or None
    when a key's levels are not metric or plain codes, or the links' costs are not the model's
    own (then the block needs every pair)."""
    prepared = _prepare(model)
    if prepared is None:
        return None
    kinds, ext, rel, combos, radix, tiers, tier_cost = prepared
    place = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
    order, sorted_values, n_present = _sorted_release(rel)
    tier_of = np.full(int(np.prod(radix)), -1, dtype=np.int64)
    tier_of[(combos + 1) @ place] = tiers
    near = float(fellegi_sunter.METRIC_NEAR)
    rows, cols = _greedy(kinds, ext, rel, order, sorted_values, n_present, combos, tiers, tier_of,
                         place, near)
    chosen = tier_of[_codes(kinds, ext[:, rows], rel[:, cols], place, near)]
    cost = tier_cost[chosen]
    if not np.array_equal(cost, model.pair_cost(rows, cols)):
        return None  # the model's levels or weights are not the ones taken here: compute every pair
    tied = np.abs(tier_cost[tiers][None, :] - cost[:, None]) <= TIE_TOLERANCE  # links × combos
    n_best = _tie_counts(kinds, ext, rel, order, sorted_values, n_present, combos, place, near,
                         rows, tied)
    return rows, cols, cost, n_best


def _prepare(model: MatchWeights):
    """Keys as float rows (NaN missing), every level combination with its exact cost, and the
    tier (rank of distinct cost) of each combination; None for keys of other kinds or with
    term-frequency weights."""
    if any(v is not None for v in getattr(model, "value_weights", ())):
        return None  # term-frequency weights of exact agreement differ from value to value
    kinds, ext, rel, level_counts = [], [], [], []
    metric_labels = ("exact", f"near (<= {fellegi_sunter.METRIC_NEAR:g})", "far")
    for comparison, w in zip(model.comparisons, model.weights, strict=True):
        kind = comparison.key.kind
        if kind == "metric" and comparison.labels == metric_labels and comparison.a.ndim == 1:
            kinds.append(_METRIC)
            ext.append(np.asarray(comparison.a, dtype=float))
            rel.append(np.asarray(comparison.b, dtype=float))
        elif kind in ("nominal", "ordinal") and comparison.labels == ("exact", "different") and comparison.a.ndim == 1:
            kinds.append(_CODE)
            ext.append(np.where(comparison.a < 0, np.nan, comparison.a).astype(float))
            rel.append(np.where(comparison.b < 0, np.nan, comparison.b).astype(float))
        else:
            return None
        level_counts.append(len(w))
    if not 0 <= fellegi_sunter.METRIC_NEAR < 1:
        return None
    combos = np.array(list(itertools.product(*(range(-1, n) for n in level_counts))), dtype=np.int64)
    total = None
    for k, w in enumerate(model.weights):  # the same sum, in the same order, as MatchWeights.weight
        part = np.concatenate([w, [0.0]])[combos[:, k]]
        total = part if total is None else total + part
    assert total is not None  # the model compares at least one key
    cost = model.top - total
    tier_cost, tiers = np.unique(cost, return_inverse=True)
    return (np.array(kinds, dtype=np.int64), np.stack(ext), np.stack(rel), combos,
            np.array([n + 1 for n in level_counts], dtype=np.int64), tiers.astype(np.int64),
            tier_cost)


def _sorted_release(rel: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per key, release rows by (value, row) with the missing values last, the sorted values and
    the number of present values."""
    order = np.empty(rel.shape, dtype=np.int64)
    values = np.empty(rel.shape)
    n_present = np.empty(rel.shape[0], dtype=np.int64)
    rows = np.arange(rel.shape[1])
    for k in range(rel.shape[0]):
        order[k] = np.lexsort((rows, np.nan_to_num(rel[k]), np.isnan(rel[k])))
        values[k] = rel[k][order[k]]
        n_present[k] = int((~np.isnan(rel[k])).sum())
    return order, values, n_present


def _codes(kinds, ext, rel, place, near) -> np.ndarray:
    """Combination codes of the pairs ``(ext[:, p], rel[:, p])``."""
    out = np.zeros(ext.shape[1], dtype=np.int64)
    for k in range(ext.shape[0]):
        a, b = ext[k], rel[k]
        with np.errstate(invalid="ignore", divide="ignore"):
            relative = np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))
        far = 2 if kinds[k] == _METRIC else 1
        lev = np.where(a == b, 0, np.where((kinds[k] == _METRIC) & (relative <= near), 1, far))
        lev[np.isnan(a) | np.isnan(b)] = -1
        out += (lev + 1) * place[k]
    return out


@njit()
def _level(kind, a, b, near):  # pragma: no cover - compiled
    """The level of one key, as ``Comparison.levels`` computes it."""
    if np.isnan(a) or np.isnan(b):
        return -1
    if a == b:
        return 0
    if kind == 1:
        return 1
    if abs(a - b) / max(abs(a), abs(b)) <= near:
        return 1
    return 2


@njit()
def _code(kinds, ext, rel, i, j, place, near):  # pragma: no cover - compiled
    out = 0
    for k in range(kinds.size):
        out += (_level(kinds[k], ext[k, i], rel[k, j], near) + 1) * place[k]
    return out


@njit()
def _window(kind, level, a, values, n_present, near):  # pragma: no cover - compiled
    """Positions ``[lo, hi)`` in a key's sorted release values of every value that can compare at
    ``level`` with ``a`` (exact, near, or missing); (−1, −1) when the level selects no window."""
    if np.isnan(a):
        return -1, -1
    if level == -1:
        return n_present, values.size
    if level == 0:
        lo = np.searchsorted(values[:n_present], a, side="left")
        return lo, np.searchsorted(values[:n_present], a, side="right")
    if level == 1 and kind == 0:
        if a >= 0:
            low, high = a * (1.0 - near), a / (1.0 - near)
        else:
            low, high = a / (1.0 - near), a * (1.0 - near)
        pad = abs(a) * 1e-9
        lo = np.searchsorted(values[:n_present], low - pad, side="left")
        return lo, np.searchsorted(values[:n_present], high + pad, side="right")
    return -1, -1


@njit()
def _driver(kinds, ext, i, combo, values, n_present, near):  # pragma: no cover - compiled
    """The key whose window for combination ``combo`` and external row ``i`` is narrowest:
    ``(key, lo, hi)``; key −1 when no key selects a window, −2 when the row cannot show the
    combination (a key missing on the external side compares as missing with every record)."""
    best, best_lo, best_hi = -1, 0, 0
    for k in range(kinds.size):
        a = ext[k, i]
        if np.isnan(a):
            if combo[k] != -1:
                return -2, 0, 0
            continue
        lo, hi = _window(kinds[k], combo[k], a, values[k], n_present[k], near)
        if lo >= 0 and (best == -1 or hi - lo < best_hi - best_lo):
            best, best_lo, best_hi = k, lo, hi
    return best, best_lo, best_hi


@njit()
def _greedy(kinds, ext, rel, order, values, n_present, combos, tiers, tier_of, place,
            near):  # pragma: no cover - compiled
    n_ext, n_rel = ext.shape[1], rel.shape[1]
    row_free = np.ones(n_ext, dtype=np.bool_)
    col_free = np.ones(n_rel, dtype=np.bool_)
    skip = np.arange(n_rel + 1)  # next free release row at or after j (path-halving jumps)
    rows = np.empty(min(n_ext, n_rel), dtype=np.int64)
    cols = np.empty(min(n_ext, n_rel), dtype=np.int64)
    taken = 0
    for tier in range(tiers.max() + 1):
        members = np.flatnonzero(tiers == tier)
        for i in range(n_ext):
            if taken == n_rel:
                break
            if not row_free[i]:
                continue
            best = n_rel
            for c in members:
                key, lo, hi = _driver(kinds, ext, i, combos[c], values, n_present, near)
                if key == -2:
                    continue
                if key >= 0:
                    by_row = combos[c, key] != 1  # an exact or missing window lists rows in order
                    for p in range(lo, hi):
                        j = order[key, p]
                        if j >= best and by_row:
                            break
                        if j < best and col_free[j] and tier_of[_code(kinds, ext, rel, i, j, place, near)] == tier:
                            best = j
                            if by_row:
                                break
                    continue
                j = _next_free(skip, 0)
                while j < best:
                    if tier_of[_code(kinds, ext, rel, i, j, place, near)] == tier:
                        best = j
                        break
                    j = _next_free(skip, j + 1)
            if best < n_rel:
                row_free[i] = False
                col_free[best] = False
                skip[best] = best + 1
                rows[taken], cols[taken] = i, best
                taken += 1
    rows, cols = rows[:taken], cols[:taken]
    ordered = np.argsort(rows)
    return rows[ordered], cols[ordered]


@njit()
def _next_free(skip, j):  # pragma: no cover - compiled
    root = j
    while skip[root] != root:
        root = skip[root]
    while skip[j] != root:  # compress the path
        following = skip[j]
        skip[j] = root
        j = following
    return root


@njit()
def _tie_counts(kinds, ext, rel, order, values, n_present, combos, place, near, rows,
                tied):  # pragma: no cover - compiled
    """Release rows of the block at each link's cost: per tied combination, counted in its
    window, or for a combination without one as the release rows far on every present key."""
    n_rel = rel.shape[1]
    out = np.zeros(rows.size, dtype=np.int64)
    for t in range(rows.size):
        i = rows[t]
        for c in range(combos.shape[0]):
            if not tied[t, c]:
                continue
            target = 0
            for k in range(kinds.size):
                target += (combos[c, k] + 1) * place[k]
            key, lo, hi = _driver(kinds, ext, i, combos[c], values, n_present, near)
            if key == -2:
                continue
            if key >= 0:
                for p in range(lo, hi):
                    if _code(kinds, ext, rel, i, order[key, p], place, near) == target:
                        out[t] += 1
                continue
            out[t] += n_rel - _not_far(kinds, ext, rel, order, values, n_present, i, near)
    return out


@njit()
def _not_far(kinds, ext, rel, order, values, n_present, i, near):  # pragma: no cover - compiled
    """Release rows that compare at a level other than far (or different) on some key present in
    external row ``i``; each counted once, under the first such key."""
    count = 0
    for k in range(kinds.size):
        a = ext[k, i]
        if np.isnan(a):
            continue
        far = 2 if kinds[k] == 0 else 1
        for level in (-1, 0, 1):
            lo, hi = _window(kinds[k], level, a, values[k], n_present[k], near)
            if lo < 0 or (level == 1 and kinds[k] != 0):
                continue
            for p in range(lo, hi):
                j = order[k, p]
                lev = _level(kinds[k], a, rel[k, j], near)
                if lev == far or (level == 1 and lev == 0):  # the exact window counts those once
                    continue
                first = True
                for q in range(k):
                    if not np.isnan(ext[q, i]) and _level(kinds[q], ext[q, i], rel[q, j], near) != (2 if kinds[q] == 0 else 1):
                        first = False
                        break
                if first:
                    count += 1
    return count
