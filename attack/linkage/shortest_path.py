"""Minimum-cost assignment of a sparse bipartite graph by successive shortest paths.

Every row must be assigned, a column takes at most one row. Rows are assigned one at a time
along a shortest augmenting path of the residual graph (Dijkstra with reduced costs, as in
Jonker and Volgenant 1987, on the edges of the graph only). The column potentials ``v`` are
the dual solution: every edge keeps its reduced cost ``c_ij − u_i − v_j ≥ 0``, matched edges
have it 0 (``u_i = c_i,m(i) − v_m(i)``), ``v ≤ 0`` and a free column has ``v = 0``, so the
assignment is optimal on the graph (complementary slackness of the rectangular problem).

The matching and the potentials survive a change of the graph: ``warm_start`` frees the rows
whose new edges break dual feasibility (and the rows that lose theirs when a freed column's
potential returns to 0), and only those are assigned again.
"""

from __future__ import annotations

import numpy as np

from attack._loops import njit, njit_inner


class Assignment:
    """A matching of a sparse graph and its column potentials, updated as edges are added.

    ``n_rows`` rows and ``n_cols`` columns; every row needs an edge to a column no other row
    has (its "no link" column) so that a full assignment always exists.
    """

    def __init__(self, n_rows: int, n_cols: int):
        self.potential = np.zeros(n_cols)
        self.row_of_col = np.full(n_cols, -1, dtype=np.int64)
        self.col_of_row = np.full(n_rows, -1, dtype=np.int64)
        self.keys = np.zeros(0, dtype=np.int64)  # row · n_cols + column of every edge, sorted

    def solve(self, edge_row: np.ndarray, edge_col: np.ndarray, edge_cost: np.ndarray) -> None:
        """Assign every row optimally on the graph of the given edges (no pair twice),
        starting from the current matching and potentials."""
        n_rows, n_cols = self.col_of_row.size, self.potential.size
        key = edge_row.astype(np.int64) * n_cols + edge_col
        order = np.argsort(key)
        self.keys = key[order]
        row, col = edge_row[order].astype(np.int64), edge_col[order].astype(np.int64)
        cost = edge_cost[order].astype(np.float64)
        ptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=n_rows), out=ptr[1:])
        self._warm_start(row, col, cost)
        todo = np.flatnonzero(self.col_of_row < 0)
        augment(ptr, col, cost, self.potential, self.row_of_col, self.col_of_row, todo)

    def contains(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Whether each pair is an edge of the graph last solved."""
        key = rows.astype(np.int64) * self.potential.size + cols
        at = np.minimum(np.searchsorted(self.keys, key), self.keys.size - 1)
        return self.keys[at] == key

    def _warm_start(self, row: np.ndarray, col: np.ndarray, cost: np.ndarray) -> None:
        """Free the matched rows with an edge of negative reduced cost, and give a freed column
        the potential 0 again: then the edges into it may break, and so on until none does."""
        v, matched = self.potential, self.col_of_row
        u = np.full(matched.size, -np.inf)  # free rows carry no constraint
        on = matched[row] == col
        u[row[on]] = cost[on] - v[col[on]]
        by_col = np.argsort(col, kind="stable")
        col_ptr = np.zeros(v.size + 1, dtype=np.int64)
        np.cumsum(np.bincount(col, minlength=v.size), out=col_ptr[1:])
        edges = np.arange(row.size)
        while edges.size:
            slack = cost[edges] - v[col[edges]] - u[row[edges]]
            broken = np.unique(row[edges[slack < -1e-12 * (1.0 + np.abs(cost[edges]))]])
            freed = matched[broken]
            matched[broken], u[broken] = -1, -np.inf
            self.row_of_col[freed] = -1
            v[freed] = 0.0
            count = col_ptr[freed + 1] - col_ptr[freed]  # the edges into the freed columns
            first = np.repeat(col_ptr[freed] - np.cumsum(count) + count, count)
            edges = by_col[first + np.arange(count.sum())]


@njit()
def augment(ptr: np.ndarray, col: np.ndarray, cost: np.ndarray, v: np.ndarray, row_of_col: np.ndarray,  # pragma: no cover - compiled
            col_of_row: np.ndarray, todo: np.ndarray) -> None:
    """Assign each row of ``todo`` along a shortest augmenting path (columns labelled by
    Dijkstra with a heap ordered by (distance, column)); ``v``, ``row_of_col`` and
    ``col_of_row`` are updated in place."""
    n_cols = v.size
    dist = np.full(n_cols, np.inf)
    pred = np.full(n_cols, -1, np.int64)
    done = np.zeros(n_cols, np.bool_)
    touched = np.empty(n_cols, np.int64)
    matched_cost = np.zeros(col_of_row.size)
    for i in range(col_of_row.size):
        if col_of_row[i] >= 0:
            matched_cost[i] = edge_cost(ptr, col, cost, i, col_of_row[i], 0.0)
    heap_d = np.empty(col.size + 1)
    heap_j = np.empty(col.size + 1, np.int64)
    for f in todo:
        end, delta, n_touched = shortest_path(f, ptr, col, cost, v, row_of_col, matched_cost,
                                              dist, pred, done, touched, heap_d, heap_j)
        settle(v, dist, done, touched, n_touched, delta)
        if end >= 0:
            flip_path(f, end, ptr, col, cost, pred, row_of_col, col_of_row, matched_cost)


@njit_inner()
def edge_cost(ptr: np.ndarray, col: np.ndarray, cost: np.ndarray, i: int, j: int,  # pragma: no cover - compiled
              default: float) -> float:
    """The cost of the edge (i, j), ``default`` when there is none."""
    found = default
    for e in range(ptr[i], ptr[i + 1]):
        if col[e] == j:
            found = cost[e]
    return found


@njit_inner()
def shortest_path(f: int, ptr: np.ndarray, col: np.ndarray, cost: np.ndarray, v: np.ndarray,  # pragma: no cover - compiled
                  row_of_col: np.ndarray, matched_cost: np.ndarray, dist: np.ndarray, pred: np.ndarray,
                  done: np.ndarray, touched: np.ndarray, heap_d: np.ndarray,
                  heap_j: np.ndarray) -> tuple[int, float, int]:
    """Dijkstra from the free row ``f`` until a free column is done: that column and its
    distance (-1 and 0 when none is reachable) and how many columns were labelled (the first of
    ``touched``); ``dist``, ``pred`` and ``done`` hold the labels."""
    n_touched, size = 0, 0
    i, u_i = f, 0.0
    while True:
        n_touched, size = label_row(i, u_i, ptr, col, cost, v, dist, pred, done, touched, n_touched,
                                    heap_d, heap_j, size)
        j, d, size = nearest_open(heap_d, heap_j, size, done, dist)
        if j < 0:
            return -1, 0.0, n_touched  # no free column reachable (a row without edges)
        done[j] = True
        if row_of_col[j] < 0:
            return j, d, n_touched
        i = row_of_col[j]
        u_i = matched_cost[i] - v[j] - d  # the row's dual, less the column's distance


@njit_inner()
def label_row(i: int, u_i: float, ptr: np.ndarray, col: np.ndarray, cost: np.ndarray,  # pragma: no cover - compiled
              v: np.ndarray, dist: np.ndarray, pred: np.ndarray, done: np.ndarray, touched: np.ndarray,
              n_touched: int, heap_d: np.ndarray, heap_j: np.ndarray, size: int) -> tuple[int, int]:
    """Label the columns of row ``i`` not yet done whose distance through it is shorter;
    returns the counts of labelled columns and of heap entries."""
    for e in range(ptr[i], ptr[i + 1]):
        k = col[e]
        if done[k]:
            continue
        nd = cost[e] - v[k] - u_i  # d + the reduced cost of (i, k)
        if nd < dist[k]:
            if dist[k] == np.inf:
                touched[n_touched] = k
                n_touched += 1
            dist[k], pred[k] = nd, i
            size = heap_push(heap_d, heap_j, size, nd, k)
    return n_touched, size


@njit_inner()
def heap_push(heap_d: np.ndarray, heap_j: np.ndarray, size: int, nd: float,  # pragma: no cover - compiled
              k: int) -> int:
    """Push (nd, k) onto the heap of ``size`` entries (sift up); returns the new size."""
    at = size
    while at > 0:
        up = (at - 1) // 2
        if heap_d[up] < nd or (heap_d[up] == nd and heap_j[up] < k):
            break
        heap_d[at], heap_j[at] = heap_d[up], heap_j[up]
        at = up
    heap_d[at], heap_j[at] = nd, k
    return size + 1


@njit_inner()
def nearest_open(heap_d: np.ndarray, heap_j: np.ndarray, size: int, done: np.ndarray,  # pragma: no cover - compiled
                 dist: np.ndarray) -> tuple[int, float, int]:
    """Pop the heap down to the nearest column not yet done whose entry is its current distance:
    the column, its distance and the heap's new size (column -1 when the heap runs out)."""
    while size > 0:
        top_d, top_j = heap_d[0], heap_j[0]
        size -= 1
        last_d, last_j = heap_d[size], heap_j[size]
        at = 0
        while True:  # sift the last entry down from the top
            child = 2 * at + 1
            if child >= size:
                break
            if child + 1 < size and (heap_d[child + 1] < heap_d[child] or (
                    heap_d[child + 1] == heap_d[child] and heap_j[child + 1] < heap_j[child])):
                child += 1
            if last_d < heap_d[child] or (last_d == heap_d[child] and last_j < heap_j[child]):
                break
            heap_d[at], heap_j[at] = heap_d[child], heap_j[child]
            at = child
        if size > 0:
            heap_d[at], heap_j[at] = last_d, last_j
        if not done[top_j] and top_d <= dist[top_j]:
            return top_j, top_d, size
    return -1, 0.0, size


@njit_inner()
def settle(v: np.ndarray, dist: np.ndarray, done: np.ndarray, touched: np.ndarray,  # pragma: no cover - compiled
           n_touched: int, delta: float) -> None:
    """Lower the potentials of the done columns by how much nearer than ``delta`` they are, and
    reset the labels of every labelled column."""
    for t in range(n_touched):
        k = touched[t]
        if done[k]:  # dist ≤ delta but for rounding (reduced costs of -1e-16): v stays ≤ 0
            v[k] += min(dist[k] - delta, 0.0)
        dist[k], done[k] = np.inf, False


@njit_inner()
def flip_path(f: int, end: int, ptr: np.ndarray, col: np.ndarray, cost: np.ndarray,  # pragma: no cover - compiled
              pred: np.ndarray, row_of_col: np.ndarray, col_of_row: np.ndarray,
              matched_cost: np.ndarray) -> None:
    """Match the columns of the path from row ``f`` to the free column ``end`` to their
    predecessors, each row to the next column along it."""
    j = end
    while True:
        i = pred[j]
        previous = col_of_row[i]
        col_of_row[i], row_of_col[j] = j, i
        matched_cost[i] = edge_cost(ptr, col, cost, i, j, matched_cost[i])
        if i == f:
            break
        j = previous
