"""The compiled loops of the candidate search (numba; compiled once per machine, kept on disk).

:func:`greedy_heap` runs Procedure II's heap for :func:`attack.linkage.candidates.tree_greedy`;
:func:`build_tree`, :func:`refill` and :func:`first_lists` are the k-d tree over the free release
records, the refill of one candidate list and the costing of the first lists
(:mod:`attack.linkage.refill`). The functions live at module level so that numba can keep them
in its disk cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def before(c1, r1, k1, c2, r2, k2):  # pragma: no cover - compiled
    return c1 < c2 or (c1 == c2 and (r1 < r2 or (r1 == r2 and k1 < k2)))


@njit(cache=True)
def push(cost, row, col, size, c, r, k):  # pragma: no cover - compiled
    at = size
    while at > 0:
        up = (at - 1) // 2
        if not before(c, r, k, cost[up], row[up], col[up]):
            break
        cost[at], row[at], col[at] = cost[up], row[up], col[up]
        at = up
    cost[at], row[at], col[at] = c, r, k
    return size + 1


@njit(cache=True)
def pop(cost, row, col, size):  # pragma: no cover - compiled
    size -= 1
    c, r, k = cost[size], row[size], col[size]
    at = 0
    while True:
        child = 2 * at + 1
        if child >= size:
            break
        if child + 1 < size and before(cost[child + 1], row[child + 1], col[child + 1],
                                       cost[child], row[child], col[child]):
            child += 1
        if not before(cost[child], row[child], col[child], c, r, k):
            break
        cost[at], row[at], col[at] = cost[child], row[child], col[child]
        at = child
    if size > 0:
        cost[at], row[at], col[at] = c, r, k
    return size


@njit(cache=True)
def greedy(heap_cost, heap_row, heap_col, cols, costs, used, start, end, pointer, bound, taken, neighbours,
           requeried, full_list, x_ext, x_rel, constant, metric, a, b, offset, scale, weight,
           limit, tolerance, initial, leaf, out_row, out_col, out_cost):  # pragma: no cover - compiled
    """Procedure II's heap over certified candidate lists, refilling a list from a k-d tree of
    the free release rows when it runs out (the rules of
    :class:`attack.linkage.candidates.CandidateLists`). Returns ``(links made, candidate
    records, their distances, slots used)``: the store grows with the refills."""
    size, made, m = heap_cost.size, 0, x_rel.shape[0]
    tree_rows = np.arange(m)
    points = x_rel
    tree = build_tree(points, leaf)
    built, taken_in_tree = False, 0
    while size > 0 and made < limit:
        c, i, j = heap_cost[0], heap_row[0], heap_col[0]
        size = pop(heap_cost, heap_row, heap_col, size)
        if j >= 0 and not taken[j]:  # the smallest entry: a link when its column is free
            taken[j] = True
            taken_in_tree += 1
            out_row[made], out_col[made], out_cost[made] = i, j, c
            made += 1
            continue
        while True:  # else the row's next certified free candidate, refilling its list as needed
            p = pointer[i]
            while p < end[i] and taken[cols[p]]:
                p += 1
            pointer[i] = p
            if p < end[i] and costs[p] + tolerance < bound[i]:
                size = push(heap_cost, heap_row, heap_col, size, costs[p], i, cols[p])
                break
            if bound[i] == np.inf and p >= end[i]:
                return -1, cols, costs, used  # no free release row left
            if not built:
                built = True
            elif taken_in_tree * 2 > tree_rows.size and made < m:
                tree_rows = np.flatnonzero(~taken)
                points = np.ascontiguousarray(x_rel[tree_rows])
                tree = build_tree(points, leaf)
                taken_in_tree = 0
            k = min(max(4 * neighbours[i], initial), tree_rows.size)
            neighbours[i] = k
            found, found_costs, reach = refill(x_ext[i], k, i, points, tree_rows, tree[0], tree[1], tree[2],
                                               tree[3], tree[4], tree[5], tree[6], metric, a, b, offset, scale,
                                               weight)
            if used + k > cols.size:
                grow = max(used + k, 2 * cols.size)
                more_cols = np.zeros(grow, np.int64)
                more_costs = np.zeros(grow)
                more_cols[:used] = cols[:used]
                more_costs[:used] = costs[:used]
                cols, costs = more_cols, more_costs
            cols[used:used + k] = found
            costs[used:used + k] = found_costs
            start[i], end[i], pointer[i] = used, used + k, used
            used += k
            if k >= tree_rows.size:
                bound[i] = np.inf
            else:
                bound[i] = reach - constant - 1e-9 * (1.0 + reach + abs(constant))
            full_list[i] = tree_rows.size == m
            requeried[i] = True
    return made, cols, costs, used


@njit(cache=True)
def build_tree(points, leaf):  # pragma: no cover - compiled
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
def first_lists(cols, metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
    n, k = cols.shape
    costs = np.empty((n, k))
    for i in range(n):
        for t in range(k):
            costs[i, t] = cost(i, cols[i, t], metric, a, b, offset, scale, weight)
        order(cols[i], costs[i])
    return costs
