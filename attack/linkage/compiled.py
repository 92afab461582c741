"""The compiled loops of the candidate search (numba; compiled once per machine, kept on disk).

``greedy`` runs Procedure II over groups of identical key values and ``tie_counts``
counts its ties, for ``attack.linkage.candidates.tree_greedy``; ``build_tree``,
``refill`` and ``first_lists`` are the k-d tree over the free release records, the refill
of one candidate list and the costing of the first lists (``attack.linkage.refill``). The functions live at module level so that numba can keep them
in its disk cache.
"""

from __future__ import annotations

import numpy as np

from attack._loops import njit, njit_inner


@njit_inner()
def before(c1, r1, k1, c2, r2, k2):  # pragma: no cover - compiled
    return c1 < c2 or (c1 == c2 and (r1 < r2 or (r1 == r2 and k1 < k2)))


@njit_inner()
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


@njit_inner()
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


@njit_inner()
def lower_cost(emb, constant, margin):  # pragma: no cover - compiled
    """A lower bound of the exact distance of every pair whose embedded squared distance is at
    least ``emb``; ``margin`` from ``attack.linkage.candidates.rounding`` (the bound is
    taken at ``margin[3]`` or above, where it grows with ``emb``)."""
    e = max(emb, margin[3])
    return e - constant - (margin[0] * (e + abs(constant)) + margin[1] * np.sqrt(e) + margin[2])


@njit_inner()
def upper_cost(emb, constant, margin):  # pragma: no cover - compiled
    """An upper bound of the exact distance of every pair whose embedded squared distance is at
    most ``emb``."""
    return emb - constant + margin[0] * (emb + abs(constant)) + margin[1] * np.sqrt(emb) + margin[2]


@njit_inner()
def squared(p, q):  # pragma: no cover - compiled
    dist = 0.0
    for c in range(p.size):
        diff = p[c] - q[c]
        dist += diff * diff
    return dist


@njit_inner()
def best_group(g, query, points, perm, start, end, left, right, lo, hi, alive, front, rows, ptr, rep_e, rep_r,
               constant, margin, metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
    """The nearest release value group with free records for external group ``g``: ``(exact
    distance, its first free record, the group, whether no other free group has that distance)``.
    Among groups at the same distance the one whose first free record comes first wins; a
    subtree is skipped when it holds no free group or its bound exceeds the best distance."""
    stack, gaps, top = np.zeros(256, np.int64), np.zeros(256), 1  # the root, at gap 0, first
    best_c, best_j, best_h, ties = np.inf, -1, -1, 0
    while top > 0:
        top -= 1
        node = stack[top]
        if alive[node] == 0 or lower_cost(gaps[top], constant, margin) > best_c:
            continue
        if left[node] < 0:
            for t in range(start[node], end[node]):
                h = perm[t]
                if front[h] >= ptr[h + 1]:
                    continue
                if lower_cost(squared(points[h], query), constant, margin) > best_c:
                    continue
                c = cost(rep_e[g], rep_r[h], metric, a, b, offset, scale, weight)
                j = rows[front[h]]
                if c < best_c:
                    best_c, best_j, best_h, ties = c, j, h, 1
                elif c == best_c:
                    ties += 1
                    if j < best_j:
                        best_j, best_h = j, h
            continue
        far, far_gap, near, near_gap = children(query, lo, hi, left, right, node)
        for child, gap in ((far, far_gap), (near, near_gap)):  # the nearer child comes off first
            if alive[child] > 0 and lower_cost(gap, constant, margin) <= best_c:
                stack[top], gaps[top] = child, gap
                top += 1
    return best_c, best_j, best_h, ties == 1


@njit_inner()
def tree_links(left, right, start, end, perm, n_points):  # pragma: no cover - compiled
    """Parent of every node and leaf of every point of a tree from ``build_tree``."""
    parent = np.full(left.size, -1, np.int64)
    leaf_of = np.empty(n_points, np.int64)
    for node in range(left.size):
        if left[node] >= 0:
            parent[left[node]], parent[right[node]] = node, node
        else:
            for t in range(start[node], end[node]):
                leaf_of[perm[t]] = node
    return parent, leaf_of


@njit()
def greedy(x_ext, x_rel, ext_ptr, ext_rows, rel_ptr, rel_rows, constant, margin, metric, a, b, offset, scale, weight,
           leaf, limit):  # pragma: no cover - compiled
    """Procedure II over groups of records with identical key values (docs/method/linkage.md).

    ``x_ext``/``x_rel`` hold one embedded point per group; group ``g``'s records are
    ``rows[ptr[g]:ptr[g + 1]]``, ascending. Records of a group are interchangeable but for their
    row number, so a group always links its first free record, to the first free record of the
    nearest free release group (ties: the smallest such record). A heap holds one entry per
    external group keyed by ``(distance, first free record)``, a lower bound of its next pair;
    an entry whose distance no free release group still offers is pushed again with the true
    one. The release groups sit in a k-d tree that counts the free groups of every node.
    Returns ``(external rows, release rows, distances, external groups)`` of the links in the
    order they were made."""
    perm, start, end, left, right, lo, hi = build_tree(x_rel, leaf)
    n_groups = x_rel.shape[0]
    parent, leaf_of = tree_links(left, right, start, end, perm, n_groups)
    alive = end - start
    front = rel_ptr[:-1].copy()
    rep_r = rel_rows[rel_ptr[:-1]]
    rep_e = ext_rows[ext_ptr[:-1]]
    first = ext_ptr[:-1].copy()
    n_ext = x_ext.shape[0]
    heap_cost, heap_row, heap_group = np.empty(n_ext), np.empty(n_ext, np.int64), np.empty(n_ext, np.int64)
    chosen = np.full(n_ext, -1, np.int64)
    alone = np.zeros(n_ext, np.bool_)
    size = np.int64(0)  # not a literal: push and pop are compiled once
    for g in range(n_ext):
        c, j, h, u = best_group(g, x_ext[g], x_rel, perm, start, end, left, right, lo, hi, alive, front, rel_rows,
                                rel_ptr, rep_e, rep_r, constant, margin, metric, a, b, offset, scale, weight)
        if h >= 0:
            chosen[g], alone[g] = h, u
            size = push(heap_cost, heap_row, heap_group, size, c, ext_rows[first[g]], g)
    out_row, out_col = np.empty(limit, np.int64), np.empty(limit, np.int64)
    out_cost, out_group = np.empty(limit), np.empty(limit, np.int64)
    made = 0
    while size > 0 and made < limit:
        c, i, g = heap_cost[0], heap_row[0], heap_group[0]
        size = pop(heap_cost, heap_row, heap_group, size)
        h = chosen[g]
        if not (alone[g] and front[h] < rel_ptr[h + 1]):  # else its only nearest group is still free
            now, j, h, u = best_group(g, x_ext[g], x_rel, perm, start, end, left, right, lo, hi, alive, front,
                                      rel_rows, rel_ptr, rep_e, rep_r, constant, margin, metric, a, b, offset, scale,
                                      weight)
            if h < 0:
                break  # no free release record left
            chosen[g], alone[g] = h, u
            if now != c:  # the distance grew: back into the heap with the true one
                size = push(heap_cost, heap_row, heap_group, size, now, i, g)
                continue
        out_row[made], out_col[made], out_cost[made], out_group[made] = i, rel_rows[front[h]], c, g
        made += 1
        front[h] += 1
        if front[h] == rel_ptr[h + 1]:  # the group is used up: no longer counted in its nodes
            node = leaf_of[h]
            while node >= 0:
                alive[node] -= 1
                node = parent[node]
        first[g] += 1
        if first[g] < ext_ptr[g + 1]:
            size = push(heap_cost, heap_row, heap_group, size, c, ext_rows[first[g]], g)
    return out_row[:made], out_col[:made], out_cost[:made], out_group[:made]


@njit()
def tie_counts(groups, costs, x_ext, x_rel, ext_ptr, ext_rows, rel_ptr, rel_rows, constant, margin, tolerance, metric,
               a, b, offset, scale, weight, leaf):  # pragma: no cover - compiled
    """Release records (taken or not) within ``tolerance`` of ``costs[k]`` for external group
    ``groups[k]``; links of one group at one distance (adjacent in the input) are counted once.
    A node whose bounds put all of its records within the tolerance is counted whole."""
    perm, start, end, left, right, lo, hi = build_tree(x_rel, leaf)
    rep_r = rel_rows[rel_ptr[:-1]]
    records = np.zeros(left.size, np.int64)
    for node in range(left.size - 1, -1, -1):  # children were made after their parent
        if left[node] >= 0:
            records[node] = records[left[node]] + records[right[node]]
        else:
            for t in range(start[node], end[node]):
                records[node] += rel_ptr[perm[t] + 1] - rel_ptr[perm[t]]
    out = np.empty(costs.size, np.int64)
    stack = np.empty(256, np.int64)
    for k in range(costs.size):
        g, target = groups[k], costs[k]
        if k > 0 and groups[k - 1] == g and costs[k - 1] == target:
            out[k] = out[k - 1]
            continue
        row, query, count = ext_rows[ext_ptr[g]], x_ext[g], 0
        stack[0] = 0
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            low = lower_cost(gap_to(query, lo, hi, node), constant, margin)
            if low > target + tolerance:
                continue
            high = upper_cost(reach_to(query, lo, hi, node), constant, margin)
            if high < target - tolerance:
                continue
            if low >= target - tolerance and high <= target + tolerance:
                count += records[node]
                continue
            if left[node] >= 0:
                stack[top], stack[top + 1] = left[node], right[node]
                top += 2
                continue
            for t in range(start[node], end[node]):
                h = perm[t]
                if abs(cost(row, rep_r[h], metric, a, b, offset, scale, weight) - target) <= tolerance:
                    count += rel_ptr[h + 1] - rel_ptr[h]
        out[k] = count
    return out


@njit_inner()
def reach_to(query, lo, hi, node):  # pragma: no cover - compiled
    """Squared distance from ``query`` to the farthest corner of a node's box."""
    reach = 0.0
    for c in range(query.size):
        g = max(abs(query[c] - lo[node, c]), abs(hi[node, c] - query[c]))
        reach += g * g
    return reach


@njit()
def rank_value(values, n, k):  # pragma: no cover - compiled
    """The value of rank ``k`` (from 0) among ``values[:n]``, which it reorders: three-way
    partitions around a median of three (much shorter to compile than ``np.partition``)."""
    lo, hi = 0, n
    while True:
        x, y, w = values[lo], values[(lo + hi - 1) // 2], values[hi - 1]
        pivot = max(min(x, y), min(max(x, y), w))
        below, at, above = lo, lo, hi
        while at < above:  # values[lo:below] < pivot, values[below:at] == pivot, values[above:hi] > pivot
            v = values[at]
            if v < pivot:
                values[at], values[below] = values[below], v
                below += 1
                at += 1
            elif v > pivot:
                above -= 1
                values[at], values[above] = values[above], v
            else:
                at += 1
        if k < below:
            hi = below
        elif k >= above:
            lo = above
        else:
            return pivot


@njit()
def build_tree(points, leaf):  # pragma: no cover - compiled
    """The k-d tree over ``points``: nodes split at the median of their widest dimension until
    they hold at most ``leaf`` points (or only identical ones). Returns the permutation of the
    points (a node holds ``perm[start:end]``), each node's start, end and children (-1 for a
    leaf) and its bounding box ``lo``, ``hi``."""
    m = points.shape[0]
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
        dim, widest = widest_dimension(points, perm, s, e)
        if widest <= 0.0:
            continue  # identical points: one leaf
        half = split_at_median(points, perm, s, e, dim, values, scratch)
        left[node], right[node] = nodes, nodes + 1
        start[nodes], end[nodes] = s, s + half
        start[nodes + 1], end[nodes + 1] = s + half, e
        todo[top], todo[top + 1] = nodes, nodes + 1
        top += 2
        nodes += 2
    lo, hi = node_boxes(points, perm, start, end, left, right, nodes)
    return perm, start[:nodes].copy(), end[:nodes].copy(), left[:nodes].copy(), right[:nodes].copy(), lo, hi


@njit_inner()
def widest_dimension(points, perm, s, e):  # pragma: no cover - compiled
    """The dimension in which the points ``perm[s:e]`` spread widest (the first of equals), and
    their spread in it."""
    dim, widest = 0, -1.0
    for c in range(points.shape[1]):
        low, high = np.inf, -np.inf
        for i in range(s, e):
            v = points[perm[i], c]
            low = min(low, v)
            high = max(high, v)
        if high - low > widest:
            dim, widest = c, high - low
    return dim, widest


@njit_inner()
def split_at_median(points, perm, s, e, dim, values, scratch):  # pragma: no cover - compiled
    """Reorder ``perm[s:e]`` into the points below, at and above the median of dimension
    ``dim`` (each part in its order); returns the size of the lower half."""
    half = (e - s) // 2
    for i in range(s, e):
        values[i - s] = points[perm[i], dim]
    median = rank_value(values, e - s, half)
    at = 0
    for side in range(3):  # below, at and above the median
        for i in range(s, e):
            v = points[perm[i], dim]
            if (side == 0 and v < median) or (side == 1 and v == median) or (side == 2 and v > median):
                scratch[at] = perm[i]
                at += 1
    for i in range(s, e):  # a loop: slice assignment compiles numpy's shape checks
        perm[i] = scratch[i - s]
    return half


@njit_inner()
def node_boxes(points, perm, start, end, left, right, nodes):  # pragma: no cover - compiled
    """The bounding box of each of the first ``nodes`` nodes: a leaf's from its points, an inner
    node's from its children's."""
    d = points.shape[1]
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
    return lo, hi


@njit_inner()
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


@njit_inner()
def children(query, lo, hi, left, right, node):  # pragma: no cover - compiled
    """A node's children, the farther from ``query`` first, with their squared gaps to it."""
    near, far = left[node], right[node]
    near_gap, far_gap = gap_to(query, lo, hi, near), gap_to(query, lo, hi, far)
    if near_gap > far_gap:
        return near, near_gap, far, far_gap
    return far, far_gap, near, near_gap


@njit_inner()
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
        far, far_gap, near, near_gap = children(query, lo, hi, left, right, node)
        for child, gap in ((far, far_gap), (near, near_gap)):  # the nearer child comes off first
            if filled < k or gap <= best_d[k - 1]:
                stack[top], bounds[top] = child, gap
                top += 1
    return best_i[:filled].copy(), best_d[filled - 1]


@njit_inner()
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


@njit_inner()
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


@njit()
def refill(query, k, row, points, rows, perm, start, end, left, right, lo, hi,
           metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
    found, reach = nearest(query, k, points, perm, start, end, left, right, lo, hi)
    cols = rows[found]
    costs = np.empty(cols.size)
    for t in range(cols.size):
        costs[t] = cost(row, cols[t], metric, a, b, offset, scale, weight)
    order(cols, costs)
    return cols, costs, reach


@njit()
def first_lists(cols, metric, a, b, offset, scale, weight):  # pragma: no cover - compiled
    n, k = cols.shape
    costs = np.empty((n, k))
    for i in range(n):
        for t in range(k):
            costs[i, t] = cost(i, cols[i, t], metric, a, b, offset, scale, weight)
        order(cols[i], costs[i])
    return costs
