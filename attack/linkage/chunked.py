"""Exact assignment of large blocks whose distance has no embedding, in bounded memory.

The cost matrix is never held whole: it is recomputed in row chunks that fit the memory
budget. Procedure II uses the same rounds of locally dominant pairs as the dense method
(``attack.assignment.greedy``), each round one pass over the chunks of free rows and
columns; Procedure I and the nearest-neighbour attack need one chunk pass per row or one in all.
"""

from __future__ import annotations

import numpy as np

from attack.linkage.assignment import TIE_TOLERANCE, sorted_pairs
from attack.linkage.distances import DistanceModel


def _chunk_rows(n_cols: int, budget: int) -> int:
    """Rows per chunk so that a chunk and its temporaries (about four copies) fit ``budget``."""
    return max(1, budget // (32 * max(n_cols, 1)))


def chunked(model: DistanceModel, method: str, order: np.ndarray | None, budget: int):
    """Links ``(rows, cols, distance, n_best)`` of one block by ``method`` (not hungarian)."""
    n_ext, n_rel = model.sizes
    if method == "greedy":
        rows, cols = _greedy(model, budget)
    elif method == "sequential":
        rows, cols = _sequential(model, order)
    else:
        rows, cols = _nearest(model, budget)
    dist = model.pair_cost(rows, cols)
    n_best = np.zeros(rows.size, dtype=np.int64)
    step = _chunk_rows(n_rel, budget)
    all_cols = np.arange(n_rel)
    for start in range(0, rows.size, step):
        part = slice(start, start + step)
        cost = model.cost(rows[part], all_cols)
        n_best[part] = np.sum(np.abs(cost - dist[part, None]) <= TIE_TOLERANCE, axis=1)
    return rows, cols, dist, n_best


def _greedy(model: DistanceModel, budget: int) -> tuple[np.ndarray, np.ndarray]:
    n_ext, n_rel = model.sizes
    free_rows, free_cols = np.arange(n_ext), np.arange(n_rel)
    out_rows, out_cols = [], []
    while free_rows.size and free_cols.size:
        row_best = np.empty(free_rows.size, dtype=np.int64)
        col_value = np.full(free_cols.size, np.inf)
        col_best = np.zeros(free_cols.size, dtype=np.int64)
        step = _chunk_rows(free_cols.size, budget)
        for start in range(0, free_rows.size, step):
            cost = model.cost(free_rows[start : start + step], free_cols)
            row_best[start : start + step] = cost.argmin(axis=1)
            chunk_min = cost.min(axis=0)
            better = chunk_min < col_value  # strict: an earlier row keeps a tie
            col_value[better] = chunk_min[better]
            col_best[better] = start + cost.argmin(axis=0)[better]
        local = np.flatnonzero(col_best[row_best] == np.arange(free_rows.size))
        out_rows.append(free_rows[local])
        out_cols.append(free_cols[row_best[local]])
        keep_rows = np.ones(free_rows.size, dtype=bool)
        keep_rows[local] = False
        keep_cols = np.ones(free_cols.size, dtype=bool)
        keep_cols[row_best[local]] = False
        free_rows, free_cols = free_rows[keep_rows], free_cols[keep_cols]
    return sorted_pairs(out_rows, out_cols)


def _sequential(model: DistanceModel, order: np.ndarray | None):
    n_ext, n_rel = model.sizes
    order = np.arange(n_ext) if order is None else order
    taken = np.zeros(n_rel, dtype=bool)
    all_cols = np.arange(n_rel)
    rows, cols = [], []
    for row in order[:n_rel]:
        cost = model.cost(np.array([row]), all_cols)[0]
        cost[taken] = np.inf
        j = int(np.argmin(cost))
        taken[j] = True
        rows.append(int(row))
        cols.append(j)
    return sorted_pairs([np.array(rows, dtype=np.int64)], [np.array(cols, dtype=np.int64)])


def _nearest(model: DistanceModel, budget: int):
    n_ext, n_rel = model.sizes
    cols = np.empty(n_ext, dtype=np.int64)
    step = _chunk_rows(n_rel, budget)
    all_cols = np.arange(n_rel)
    for start in range(0, n_ext, step):
        cols[start : start + step] = model.cost(np.arange(start, min(start + step, n_ext)), all_cols).argmin(axis=1)
    return np.arange(n_ext, dtype=np.int64), cols
