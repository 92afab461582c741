"""Refilling one record's candidate list, compiled (:mod:`attack.linkage.candidates`).

When the certified candidates of an external record have all been taken, its list is filled
again with more neighbours among the still free release records. Done one record at a time
through SciPy this costs tens of microseconds of call overhead per record; here a k-d tree over
the free release records (median splits, leaves of at most :data:`LEAF`), the k-nearest query,
the exact distances and their order run in one compiled call.

The exact distances repeat :meth:`attack.linkage.distances.DistanceModel.pair_cost` operation
by operation for the distances that embed (squared metric differences and nominal mismatches,
no missing value): per key the raw distance, minus its offset when there is one, over its
divisor (0 for a key without spread), times its weight unless that is 1, summed over the keys
in order. The same IEEE operations in the same order give the same bits, so ties are broken
exactly as in the dense matrix.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from attack.linkage.distances import DistanceModel, _MetricComponent

LEAF = 8


class ExactCost:
    """The keys of an embeddable model as arrays for the compiled exact distance."""

    def __init__(self, model: DistanceModel) -> None:
        used = [(key, comp, off, scale) for key, comp, off, scale
                in zip(model.keys, model.components, model.offsets, model.scales) if key.weight != 0]
        self.metric = np.array([isinstance(comp, _MetricComponent) for _, comp, _, _ in used], dtype=np.bool_)
        n_ext, n_rel = model.sizes
        self.a = np.array([comp.a for _, comp, _, _ in used], dtype=np.float64).reshape(len(used), n_ext)
        self.b = np.array([comp.b for _, comp, _, _ in used], dtype=np.float64).reshape(len(used), n_rel)
        self.offset = np.array([off for _, _, off, _ in used], dtype=np.float64)
        self.scale = np.array([scale for _, _, _, scale in used], dtype=np.float64)
        self.weight = np.array([key.weight for key, _, _, _ in used], dtype=np.float64)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.metric, self.a, self.b, self.offset, self.scale, self.weight


class FreeTree:
    """A compiled k-d tree over the release records ``rows`` (positions in ``points``)."""

    def __init__(self, points: np.ndarray, rows: np.ndarray) -> None:
        self.rows = rows
        self.n = rows.size
        self.points = np.ascontiguousarray(points[rows])
        self.arrays = _kernels()[0](self.points, LEAF)

    def refill(self, query: np.ndarray, k: int, row: int, exact: ExactCost) -> tuple[np.ndarray, np.ndarray, float]:
        """The ``k`` nearest free release records of external row ``row`` (embedded point
        ``query``) ordered by exact distance, then record: ``(records, distances, the k-th
        embedded squared distance)``."""
        return _kernels()[1](query, k, row, self.points, self.rows, *self.arrays, *exact.arrays())


def first_lists(cols: np.ndarray, exact: ExactCost) -> tuple[np.ndarray, np.ndarray]:
    """Exact distances of every external row to its candidates ``cols`` (n × k, rows in
    order), each row ordered by distance, then record: ``(records, distances)``."""
    cols = np.ascontiguousarray(cols, dtype=np.int64).copy()
    return cols, _kernels()[2](cols, *exact.arrays())


@cache
def _kernels():
    """Compile the tree, the query and the exact distance (numba; cached on disk)."""
    from numba import njit

    @njit(cache=True)
    def build(points, leaf):  # pragma: no cover - compiled
        m, d = points.shape
        capacity = 2 * (m // ((leaf + 1) // 2) + 1) + 1
        perm = np.arange(m)
        start = np.zeros(capacity, np.int64)
        end = np.zeros(capacity, np.int64)
        left = np.full(capacity, -1, np.int64)
        right = np.full(capacity, -1, np.int64)
        todo = np.empty(capacity, np.int64)
        values = np.empty(m)
        scratch = np.empty(m, np.int64)
        end[0] = m
        nodes, top = 1, 1
        todo[0] = 0
        while top > 0:
            top -= 1
            node = todo[top]
            s, e = start[node], end[node]
            if e - s <= leaf:
                continue
            dim, widest = 0, -1.0
            for c in range(d):
                low, high = np.inf, -np.inf
                for i in range(s, e):
                    v = points[perm[i], c]
                    low = min(low, v)
                    high = max(high, v)
                if high - low > widest:
                    dim, widest = c, high - low
            if widest <= 0.0:
                continue  # identical points: one leaf
            half = (e - s) // 2
            for i in range(s, e):
                values[i - s] = points[perm[i], dim]
            median = np.partition(values[: e - s], half)[half]
            at = 0
            for side in range(3):  # below, at and above the median
                for i in range(s, e):
                    v = points[perm[i], dim]
                    if (side == 0 and v < median) or (side == 1 and v == median) or (side == 2 and v > median):
                        scratch[at] = perm[i]
                        at += 1
            perm[s:e] = scratch[: e - s]
            left[node], right[node] = nodes, nodes + 1
            start[nodes], end[nodes] = s, s + half
            start[nodes + 1], end[nodes + 1] = s + half, e
            todo[top], todo[top + 1] = nodes, nodes + 1
            top += 2
            nodes += 2
        lo = np.empty((nodes, d))
        hi = np.empty((nodes, d))
        for node in range(nodes - 1, -1, -1):  # children were made after their parent
            if left[node] < 0:
                for c in range(d):
                    lo[node, c], hi[node, c] = np.inf, -np.inf
                for i in range(start[node], end[node]):
                    for c in range(d):
                        lo[node, c] = min(lo[node, c], points[perm[i], c])
                        hi[node, c] = max(hi[node, c], points[perm[i], c])
            else:
                for c in range(d):
                    lo[node, c] = min(lo[left[node], c], lo[right[node], c])
                    hi[node, c] = max(hi[left[node], c], hi[right[node], c])
        return perm, start[:nodes].copy(), end[:nodes].copy(), left[:nodes].copy(), right[:nodes].copy(), lo, hi

    @njit(cache=True)
    def gap_to(query, lo, hi, node):  # pragma: no cover - compiled
        gap = 0.0
        for c in range(query.size):
            if query[c] < lo[node, c]:
                g = lo[node, c] - query[c]
                gap += g * g
            elif query[c] > hi[node, c]:
                g = query[c] - hi[node, c]
                gap += g * g
        return gap

    @njit(cache=True)
    def nearest(query, k, points, perm, start, end, left, right, lo, hi):  # pragma: no cover - compiled
        """Positions of the ``k`` nearest points and the k-th squared distance."""
        d = points.shape[1]
        best_d = np.full(k, np.inf)
        best_i = np.full(k, -1, np.int64)
        filled = 0
        stack = np.empty(256, np.int64)
        bounds = np.empty(256)
        stack[0], bounds[0] = 0, 0.0
        top = 1
        while top > 0:
            top -= 1
            node, bound = stack[top], bounds[top]
            if filled == k and bound > best_d[k - 1]:
                continue
            if left[node] < 0:
                for t in range(start[node], end[node]):
                    i = perm[t]
                    dist = 0.0
                    for c in range(d):
                        diff = points[i, c] - query[c]
                        dist += diff * diff
                    if filled == k and dist >= best_d[k - 1]:
                        continue
                    at = filled if filled < k else k - 1
                    while at > 0 and best_d[at - 1] > dist:
                        if at < k:
                            best_d[at], best_i[at] = best_d[at - 1], best_i[at - 1]
                        at -= 1
                    best_d[at], best_i[at] = dist, i
                    if filled < k:
                        filled += 1
                continue
            near, far = left[node], right[node]
            near_gap, far_gap = gap_to(query, lo, hi, near), gap_to(query, lo, hi, far)
            if near_gap > far_gap:
                near, far, near_gap, far_gap = far, near, far_gap, near_gap
            for child, gap in ((far, far_gap), (near, near_gap)):  # the nearer child comes off first
                if filled < k or gap <= best_d[k - 1]:
                    stack[top], bounds[top] = child, gap
                    top += 1
        return best_i[:filled].copy(), best_d[filled - 1]

    @njit(cache=True)
    def cost(row, j, metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
        total = 0.0
        for key in range(metric.size):
            if metric[key]:
                diff = a[key, row] - b[key, j]
                part = diff * diff
            else:
                part = 1.0 if a[key, row] != b[key, j] else 0.0
            if scale[key] > 0:
                if offset[key] != 0.0:
                    part -= offset[key]
                part /= scale[key]
            else:
                part = 0.0
            if weight[key] != 1.0:
                part *= weight[key]
            total = part if key == 0 else total + part
        return total

    @njit(cache=True)
    def order(cols, costs):  # pragma: no cover - compiled
        """Sort one list in place by distance, then record (insertion: lists are short or
        nearly sorted, the tree returns them by embedded distance)."""
        for t in range(1, cols.size):
            c, j = costs[t], cols[t]
            at = t
            while at > 0 and (costs[at - 1] > c or (costs[at - 1] == c and cols[at - 1] > j)):
                costs[at], cols[at] = costs[at - 1], cols[at - 1]
                at -= 1
            costs[at], cols[at] = c, j

    @njit(cache=True)
    def refill(query, k, row, points, rows, perm, start, end, left, right, lo, hi,
               metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
        found, reach = nearest(query, k, points, perm, start, end, left, right, lo, hi)
        cols = rows[found]
        costs = np.empty(cols.size)
        for t in range(cols.size):
            costs[t] = cost(row, cols[t], metric, a, b, offset, scale, weight)
        order(cols, costs)
        return cols, costs, reach

    @njit(cache=True)
    def first(cols, metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
        n, k = cols.shape
        costs = np.empty((n, k))
        for i in range(n):
            for t in range(k):
                costs[i, t] = cost(i, cols[i, t], metric, a, b, offset, scale, weight)
            order(cols[i], costs[i])
        return costs

    return build, refill, first
