"""Assignment of external to release records within one block, from a dense cost matrix.

Rows of the cost matrix are external records in input order, columns release records in
release order. Every function returns ``(rows, cols)``: the assigned pairs, sorted by row.

* ``hungarian`` – exact minimum total distance (handbook eq. 13.7). A rectangular problem
  is solved directly, which picks the same real pairs as padding with dummy records at the
  maximum distance (eq. 13.6, docs/method/linkage.md).
* ``greedy`` – Procedure II (handbook §13.3, docs/method/linkage.md): pairs in ascending order of
  ``(distance, external row, release row)``, each taken when both records are still free.
* ``sequential`` – Procedure I (docs/method/linkage.md): external records in the given order, each
  to its nearest free release record (ties: first in release order).
* ``nearest`` – nearest-neighbour attack, not one-to-one (docs/method/linkage.md): each external record
  to its nearest release record (ties: first in release order).
"""

from __future__ import annotations

import numpy as np

METHODS: tuple[str, ...] = ("hungarian", "greedy", "sequential", "nearest")

#: Distances within this absolute tolerance of a link's distance count as ties (docs/method/linkage.md).
TIE_TOLERANCE = 1e-12


def hungarian(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact one-to-one assignment of minimum total distance (eq. 13.7)."""
    if cost.size == 0:
        return _empty()
    from scipy.optimize import (
        linear_sum_assignment,  # imported on use: a noticeable share of start-up
    )

    rows, cols = linear_sum_assignment(cost)
    return rows.astype(np.int64), cols.astype(np.int64)


def greedy(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Procedure II with ties broken by external row, then release row.

    With that strict order on pairs the sorted-pairs result equals the one obtained by taking,
    round after round, every pair that is the best free pair of both its row and its column
    (a locally dominant pair). Each round is one vectorised pass over the free part of the
    matrix, so no list of all pairs is sorted.
    """
    n_rows, n_cols = cost.shape
    free_rows = np.arange(n_rows)
    free_cols = np.arange(n_cols)
    out_rows, out_cols = [], []
    while free_rows.size and free_cols.size:
        whole = free_rows.size == n_rows and free_cols.size == n_cols
        sub = cost if whole else cost[np.ix_(free_rows, free_cols)]  # no copy in the first round
        row_best = sub.argmin(axis=1)  # first minimum: smallest release row among ties
        col_best = sub.argmin(axis=0)  # first minimum: smallest external row among ties
        local = np.flatnonzero(col_best[row_best] == np.arange(free_rows.size))
        take_rows, take_cols = local, row_best[local]
        out_rows.append(free_rows[take_rows])
        out_cols.append(free_cols[take_cols])
        keep_rows = np.ones(free_rows.size, dtype=bool)
        keep_rows[take_rows] = False
        keep_cols = np.ones(free_cols.size, dtype=bool)
        keep_cols[take_cols] = False
        free_rows, free_cols = free_rows[keep_rows], free_cols[keep_cols]
    return sorted_pairs(out_rows, out_cols)


def sequential(cost: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Procedure I: external records in ``order`` (default: input order) take their nearest free
    release record; stops when the release records are used up."""
    n_rows, n_cols = cost.shape
    order = np.arange(n_rows) if order is None else np.asarray(order)
    taken = np.zeros(n_cols, dtype=bool)
    out_rows, out_cols = [], []
    for row in order[: n_cols]:
        j = int(np.argmin(np.where(taken, np.inf, cost[row])))
        taken[j] = True
        out_rows.append(row)
        out_cols.append(j)
    return sorted_pairs([np.array(out_rows, dtype=np.int64)], [np.array(out_cols, dtype=np.int64)])


def nearest(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each external record to its nearest release record; release records may repeat."""
    if cost.size == 0:
        return _empty()
    return np.arange(cost.shape[0], dtype=np.int64), cost.argmin(axis=1).astype(np.int64)


def assign(
    cost: np.ndarray, method: str, order: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Dispatch to the assignment ``method`` (one of ``METHODS``)."""
    if method == "hungarian":
        return hungarian(cost)
    if method == "greedy":
        return greedy(cost)
    if method == "sequential":
        return sequential(cost, order)
    if method == "nearest":
        return nearest(cost)
    raise ValueError(f"unknown assignment method {method!r}")


def _empty() -> tuple[np.ndarray, np.ndarray]:
    return np.array([], dtype=np.int64), np.array([], dtype=np.int64)


def sorted_pairs(rows: list[np.ndarray], cols: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate pieces of assigned pairs and sort them by row."""
    if not rows:
        return _empty()
    r = np.concatenate(rows).astype(np.int64)
    c = np.concatenate(cols).astype(np.int64)
    order = np.argsort(r, kind="stable")
    return r[order], c[order]
