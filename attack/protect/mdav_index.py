"""Exact MDAV searches on a compiled k-d tree (numba; compiled once per machine, kept on disk).

``mdav_groups`` gives the groups of ``attack.protect.microaggregation.mdav``: the
answers, ties included, of scanning every remaining record for each "farthest" and "nearest"
search, found while reading only the records that can still be the answer.

The records sit in the leaves (at most ``LEAF`` each) of a balanced k-d tree built on their
principal-component coordinates and their radius, the distance from an anchor ``a`` (their
mean when the tree is built); within a leaf the outermost come first. Distances themselves
are computed on the original coordinates as a plain scan does (squared differences added
column by column). Every node keeps, for its remaining records, their count, their box and
their largest radius; a grouped record is marked and the nodes above it are updated.

* Farthest from ``q``: with u = x - a and v = q - a, |x - q|² = |u|² + |v|² - 2 u·v, and
  u·v is at least u₁v₁ - |u'| |v'| (first principal coordinate, and the length of the rest).
  A record can only reach the best distance D found so far if its radius is at least
  sqrt(D) - |v| and if this bound, from its stored radius, u₁ and |u'|, reaches D; only those
  records are read. A node can if the smallest of three upper bounds does: the farthest
  corner of its box; |u|² + |v|² - 2 u·v with its largest radius and the box's smallest
  projection; and the same with the box's smallest u₁v₁ and its largest |u'|. Boxes of
  ``2**FAN_BITS`` leaves are bounded first and read in decreasing order of bound, each by
  its parts of ``2**PART_BITS`` leaves and then their leaves; two threads claim the boxes one
  by one and prune with the best distance either has found.
* Farthest from the centroid: first in the outer shell, the ``SHELL`` records farthest from
  a recent centroid ``c'`` by decreasing distance. No record is farther from the centroid
  ``c`` than from ``c'`` plus |c - c'|, so the shell is read only down to where that bound
  falls below the best distance, and its answer stands if no record outside it can reach
  that distance either. Otherwise (or when the shell has become slow to read) a new shell is
  drawn about ``c``, and if even that cannot tell, the tree is searched.
* Nearest to a record: its own leaf first, then the boxes and within them the leaves, in
  order of kinship with the record's own (index xor: nearest subtrees first); a box or leaf
  is skipped once its lower bound (its box, or the gap between the radii) exceeds the
  current ``k - 1``-th nearest distance. The nearest of the first record of an MDAV step are
  found by one thread while the other starts the search for the record farthest from it
  (among the records left before that group is taken; searched again in the rare case that
  it falls in the group); those of the second record by two threads sharing the boxes.

The bounds of the nodes of a box (or of a part) are computed together, a coordinate at a
time over contiguous rows of node data, so that the loops are vectorised.

Every bound carries a margin far above the rounding of the rotation and a relative slack of
1e-9, so a record is passed over only if it is strictly farther (nearer) than the answer. The
centroid is the correctly rounded column sum of the remaining records (kept exactly as a
floating-point expansion, Shewchuk's algorithm as in ``math.fsum``) divided by their count.
When half the records of a tree are grouped the tree is rebuilt from those left (a compiled
median split, each span on its widest coordinate).
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from attack._loops import njit, njit_inner

LEAF = 32        # records per leaf (at most; at least half as many)
FAN_BITS = 7     # searches first bound boxes of 2**FAN_BITS leaves,
PART_BITS = 4    # then parts of a box of 2**PART_BITS leaves, then leaves
REBUILT = 128    # trees of more than REBUILT * LEAF records are rebuilt when half are grouped
RADIAL = 4.0     # weight of the radius among the split coordinates
SLACK = 1e-9     # relative slack on every bound
MARGIN = 1e-12   # box widening relative to the largest coordinate, far above rounding
SHELL = 16384    # records in the outer shell about the centroid (farthest-from-centroid)
SHELL_READS = 256  # a new shell is drawn when one search reads more distances than this
PARTIALS = 64    # capacity of an exact sum (a double expansion needs at most 40 parts)
# bounds may be summed in any order (their rounding is far below MARGIN); no other fast-math
REORDER = {"nsz", "arcp", "contract", "reassoc"}


def _inlined():
    """``njit`` for a short step of the MDAV loop: its code is put into its callers instead of
    being compiled on its own (every loop compiled on its own is optimised again with all the
    loops it calls)."""
    return njit(inline="always")


def _two_threads():
    """``njit`` for a loop with a ``prange`` region: only the ``prange`` loops run in parallel.
    numba's other conversions (numpy calls, array expressions and slice assignments made into
    parallel loops) are off: each would be one more parallel loop to compile, and these
    functions only create small arrays."""
    only_prange = {"comprehension": False, "reduction": False, "inplace_binop": False,
                   "setitem": False, "numpy": False, "stencil": False, "fusion": False,
                   "prange": True}
    return njit(parallel=only_prange)


def mdav_groups(z: np.ndarray, k: int, keys: np.ndarray) -> np.ndarray:
    """MDAV group label of every row of ``z`` (n >= k rows, p columns, finite, below 1e150
    so that squared distances stay finite); ``keys`` break ties (farthest: largest key;
    nearest: smallest key, the record itself first)."""
    n, p = z.shape
    z = np.ascontiguousarray(z, dtype=np.float64)
    keys = np.ascontiguousarray(keys, dtype=np.float64)     # one type: compiled once
    group = np.full(n, -1, dtype=np.int64)
    partials = np.zeros((p, PARTIALS))
    used = np.zeros(p, dtype=np.int64)
    _exact_sums(z, partials, used)
    rotation = _rotation(z)
    margin = MARGIN * max(float(np.abs(z).max(initial=0.0)), 1e-300) * p
    rows = np.arange(n)
    label, count = 0, n
    while True:
        tree = _Tree(z, keys, rows, rotation)
        stop = rows.size // 2 if rows.size > REBUILT * LEAF else 0
        label, count = _run(tree.arrays(), rotation, margin, partials, used, count, group,
                            label, k, stop)
        if count < 3 * k:
            return group
        rows = tree.rows[tree.alive]


def _rotation(z: np.ndarray) -> np.ndarray:
    """Principal axes of ``z`` (p × p, columns by decreasing variance)."""
    centred = z - z.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred)
    return np.ascontiguousarray(vectors[:, ::-1])


class _Tree:
    """A balanced k-d tree of ``rows`` in principal-component coordinates, records in leaf
    order; nodes in heap order (children of node i: 2i + 1, 2i + 2)."""

    def __init__(self, z: np.ndarray, keys: np.ndarray, rows: np.ndarray,
                 rotation: np.ndarray) -> None:
        m = rows.size
        depth = max(0, math.ceil(math.log2(m / LEAF))) if m else 0
        rotated = z[rows] @ rotation
        self.anchor = rotated.mean(axis=0) if m else np.zeros(z.shape[1])
        features, radius = _features(rotated, self.anchor)
        order = np.arange(m)
        self.leaf_start = _split(features, -radius, order, depth)
        self.depth = depth
        (self.leaf_of, self.radius, self.head, self.tail, self.rows, self.points, self.rotated,
         self.keys) = _leaf_order(z, keys, rows, rotated, radius, self.anchor, order,
                                  self.leaf_start)
        self.widest = int(np.diff(self.leaf_start).max(initial=0))   # records of a leaf, at most
        self.alive = np.ones(m, dtype=np.bool_)
        nodes = 2 ** (depth + 1) - 1
        self.lo = np.full((z.shape[1], nodes), np.inf)   # box of each node (a column each)
        self.hi = np.full((z.shape[1], nodes), -np.inf)
        self.count = np.zeros(nodes, dtype=np.int64)
        self.reach = np.zeros(nodes)
        self.floor = np.zeros(nodes)                 # smallest radius of a node's records
        self.tail_max = np.zeros(nodes)              # largest tail of a node's records
        _init_nodes(self.rotated, self.anchor, self.radius, self.tail, self.alive,
                    self.leaf_start, depth, self.lo, self.hi, self.count, self.reach, self.floor,
                    self.tail_max)

    def arrays(self) -> tuple:
        return (self.points, self.rotated, self.keys, self.rows, self.alive, self.leaf_of,
                self.leaf_start, self.lo, self.hi, self.count, self.reach, self.anchor,
                self.radius, self.head, self.tail, self.floor, self.tail_max, self.widest,
                self.depth)


# --- order ---


@njit_inner()
def _by_decreasing(values):  # pragma: no cover - compiled
    """Positions of ``values`` by decreasing value, ties in any order (heapsort: a few plain
    loops, far quicker to compile than numpy's sorts)."""
    n = values.size
    order = np.arange(n)
    for start in range(n // 2 - 1, -1, -1):
        _sift(values, order, start, n)
    for end in range(n - 1, 0, -1):          # the smallest left goes to the end
        order[0], order[end] = order[end], order[0]
        _sift(values, order, 0, end)
    return order


@njit_inner()
def _sift(values, order, i, n):  # pragma: no cover - compiled
    """Move ``order[i]`` down the heap ``order[:n]`` (smallest value on top)."""
    while True:
        child = 2 * i + 1
        if child >= n:
            return
        if child + 1 < n and values[order[child + 1]] < values[order[child]]:
            child += 1
        if values[order[child]] >= values[order[i]]:
            return
        order[i], order[child] = order[child], order[i]
        i = child


# --- exact sums ----------------------------------------------------------------------------------


@njit()
def _grow(parts, used, j, x):  # pragma: no cover - compiled
    """Add ``x`` to the expansion ``parts[j, :used[j]]`` exactly (Shewchuk's grow-expansion)."""
    i = 0
    for t in range(used[j]):
        y = parts[j, t]
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            parts[j, i] = lo
            i += 1
        x = hi
    parts[j, i] = x
    used[j] = i + 1


@njit()
def _rounded(parts, used, j):  # pragma: no cover - compiled
    """The expansion ``parts[j, :used[j]]`` correctly rounded (half to even), as ``math.fsum``."""
    n = used[j]
    if n == 0:
        return 0.0
    n -= 1
    hi = parts[j, n]
    lo = 0.0
    while n > 0:
        x = hi
        n -= 1
        y = parts[j, n]
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and parts[j, n - 1] < 0.0) or (lo > 0.0 and parts[j, n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        if y == x - hi:
            hi = x
    return hi


@njit()
def _exact_sums(z, parts, used):  # pragma: no cover - compiled
    for i in range(z.shape[0]):
        for j in range(z.shape[1]):
            _grow(parts, used, j, z[i, j])


# --- building ------------------------------------------------------------------------------------


@njit()
def _split(features, rank, order, depth):  # pragma: no cover - compiled
    """Reorder ``order`` (positions into ``features``) into the leaves of a balanced k-d tree of
    ``depth`` levels: every span is halved at the median of its widest feature; within a leaf
    by increasing ``rank``. Returns the start of each leaf and the end of the last. One thread:
    building takes well under a second at a million records, and a parallel loop here cost
    seconds of compiling on first use."""
    m, f = features.shape
    here = features.copy()                           # the features in the current order
    moved = np.empty_like(here)
    spare = np.empty_like(order)
    key = np.empty(m)
    at = np.empty(m, dtype=np.int64)
    starts = np.zeros(2, dtype=np.int64)
    starts[1] = m
    for _ in range(depth):
        halves = np.empty(2 * starts.size - 1, dtype=np.int64)
        for s in range(starts.size - 1):
            a, b = starts[s], starts[s + 1]
            halves[2 * s], halves[2 * s + 1] = a, a + (b - a) // 2
            low, high = np.full(f, np.inf), np.full(f, -np.inf)
            for i in range(a, b):
                at[i] = i
                for d in range(f):
                    low[d], high[d] = min(low[d], here[i, d]), max(high[d], here[i, d])
            dim = 0                                  # the widest (first of equals)
            for d in range(1, f):
                if high[d] - low[d] > high[dim] - low[dim]:
                    dim = d
            for i in range(a, b):
                key[i] = here[i, dim]
            _select(key, at, a, b, a + (b - a) // 2)
        halves[-1] = m
        starts = halves
        for i in range(m):                           # element by element: a row or array
            for d in range(f):                       # assignment compiles numpy's broadcasting
                moved[i, d] = here[at[i], d]
            spare[i] = order[at[i]]
        here, moved = moved, here
        for i in range(m):
            order[i] = spare[i]
    for s in range(starts.size - 1):                 # insertion sort of each leaf by rank
        for i in range(starts[s] + 1, starts[s + 1]):
            j, row = i, order[i]
            while j > starts[s] and rank[order[j - 1]] > rank[row]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = row
    return starts


@njit_inner()
def _select(key, order, a, b, target):  # pragma: no cover - compiled
    """Permute ``key[a:b]`` (and ``order[a:b]`` alike) so that position ``target`` holds the value
    of its rank, smaller or equal values before it and greater or equal after (Hoare)."""
    lo, hi = a, b - 1
    while hi > lo:
        x, y, w = key[lo], key[(lo + hi) // 2], key[hi]
        pivot = max(min(x, y), min(max(x, y), w))
        i, j = lo, hi
        while i <= j:
            while key[i] < pivot:
                i += 1
            while key[j] > pivot:
                j -= 1
            if i <= j:
                key[i], key[j] = key[j], key[i]
                order[i], order[j] = order[j], order[i]
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            return


@njit()
def _features(rotated, anchor):  # pragma: no cover - compiled
    """The split coordinates of every record (rotated, and ``RADIAL`` times the radius) and
    its radius, the distance from ``anchor``."""
    m, p = rotated.shape
    features, radius = np.empty((m, p + 1)), np.empty(m)
    for i in range(m):
        r = 0.0
        for d in range(p):
            features[i, d] = rotated[i, d]
            r += (rotated[i, d] - anchor[d]) ** 2
        radius[i] = np.sqrt(r)
        features[i, p] = RADIAL * radius[i]
    return features, radius


@njit()
def _leaf_order(z, keys, rows, rotated, radius, anchor, order, leaf_start):  # pragma: no cover
    """Per record in leaf order (``order``): its leaf, radius, first principal coordinate and
    the length of the rest (about ``anchor``), row, original and rotated coordinates, key."""
    m, p = rotated.shape
    leaf_of = np.empty(m, dtype=np.int64)
    for leaf in range(leaf_start.size - 1):
        leaf_of[leaf_start[leaf]:leaf_start[leaf + 1]] = leaf
    out_radius, head, tail = np.empty(m), np.empty(m), np.empty(m)
    out_rows, out_keys = np.empty(m, dtype=rows.dtype), np.empty(m, dtype=keys.dtype)
    points, out_rotated = np.empty((m, p)), np.empty((m, p))
    for i in range(m):
        j = order[i]
        row = rows[j]
        out_rows[i], out_keys[i], out_radius[i] = row, keys[row], radius[j]
        rest = 0.0
        for d in range(p):
            points[i, d] = z[row, d]
            out_rotated[i, d] = rotated[j, d]
            if d > 0:
                rest += (rotated[j, d] - anchor[d]) ** 2
        head[i] = rotated[j, 0] - anchor[0]
        tail[i] = np.sqrt(rest)
    return leaf_of, out_radius, head, tail, out_rows, points, out_rotated, out_keys


# --- the tree ------------------------------------------------------------------------------------
# A tree is the tuple of ``_Tree.arrays``. Per node: ``count`` remaining records, their box
# ``lo``/``hi`` (rotated coordinates, a row per coordinate), ``reach`` their largest squared
# radius and ``floor`` the smallest radius of all its records, ``tail_max`` the largest |u'| of
# all its records; per record (leaf order): ``radius`` |u|, ``head`` u₁, ``tail`` |u'|,
# ``alive``, ``leaf_of``; ``widest``, the most records of a leaf.


@njit_inner()
def _merge(node, lo, hi, count, reach):  # pragma: no cover - compiled
    """Box, count and reach of ``node`` from its two children; whether box or reach changed."""
    left, right = 2 * node + 1, 2 * node + 2
    count[node] = count[left] + count[right]
    changed = reach[node] != max(reach[left], reach[right])
    reach[node] = max(reach[left], reach[right])
    for d in range(lo.shape[0]):
        low, high = min(lo[d, left], lo[d, right]), max(hi[d, left], hi[d, right])
        changed = changed or low != lo[d, node] or high != hi[d, node]
        lo[d, node], hi[d, node] = low, high
    return changed


@njit_inner()
def _merge_up(node, lo, hi, count, reach):  # pragma: no cover - compiled
    """Box, count and reach of every ancestor of ``node`` (above the first whose box and reach
    stay as they were, only the counts change)."""
    changed = True
    while node > 0:
        node = (node - 1) // 2
        if changed:
            changed = _merge(node, lo, hi, count, reach)
        else:
            count[node] = count[2 * node + 1] + count[2 * node + 2]


@njit_inner()
def _leaf_box(leaf, node, rotated, anchor, alive, leaf_start, lo, hi, count,
              reach):  # pragma: no cover - compiled
    p = rotated.shape[1]
    for d in range(p):
        lo[d, node] = np.inf
        hi[d, node] = -np.inf
    c = 0
    far = 0.0
    for i in range(leaf_start[leaf], leaf_start[leaf + 1]):
        if alive[i]:
            c += 1
            r = 0.0
            for d in range(p):
                v = rotated[i, d]
                lo[d, node] = min(lo[d, node], v)
                hi[d, node] = max(hi[d, node], v)
                r += (v - anchor[d]) ** 2
            far = max(far, r)
    count[node] = c
    reach[node] = far


@njit()
def _init_nodes(rotated, anchor, radius, tail, alive, leaf_start, depth, lo, hi, count, reach,
                floor, tail_max):  # pragma: no cover - compiled
    """Every node's box, count, reach, floor and tail_max, leaves first (a leaf's records are
    sorted by decreasing radius, so its floor is its last record's)."""
    first = 2**depth - 1
    for leaf in range(leaf_start.size - 1):
        _leaf_box(leaf, first + leaf, rotated, anchor, alive, leaf_start, lo, hi, count, reach)
        if leaf_start[leaf + 1] > leaf_start[leaf]:
            floor[first + leaf] = radius[leaf_start[leaf + 1] - 1]
        for i in range(leaf_start[leaf], leaf_start[leaf + 1]):
            tail_max[first + leaf] = max(tail_max[first + leaf], tail[i])
    for node in range(first - 1, -1, -1):
        _merge(node, lo, hi, count, reach)
        floor[node] = min(floor[2 * node + 1], floor[2 * node + 2])
        tail_max[node] = max(tail_max[2 * node + 1], tail_max[2 * node + 2])


@njit_inner()
def _rotate(q, rotation):  # pragma: no cover - compiled
    p = q.size
    out = np.zeros(p)
    for j in range(p):
        s = 0.0
        for i in range(p):
            s += q[i] * rotation[i, j]
        out[j] = s
    return out


@njit_inner()
def _distance(points, i, q):  # pragma: no cover - compiled
    """Squared distance, squared differences added column by column (the plain scan's sum)."""
    s = 0.0
    for d in range(q.size):
        t = points[i, d] - q[d]
        s += t * t
    return s


@njit_inner(fastmath=REORDER)
def _upper(lo, hi, reach, tail_max, anchor, first, qy, qt, margin, out):  # pragma: no cover
    """Upper bounds of the squared distance from ``qy`` to the remaining records of the nodes
    ``first``, ``first + 1``, ... (one per place of ``out``), each the smallest of: the
    farthest corner of the node's box; |x - a|² + |q - a|² - 2 (x - a)·(q - a) with |x - a|²
    at most its reach and (x - a)·(q - a) at least its minimum over the box; the same with
    (x - a)·(q - a) at least the box's minimum of its first coordinate less ``tail_max``
    times ``qt``, the length of the rest of q - a (Cauchy-Schwarz). Computed a coordinate at a
    time over all the nodes (contiguous slices, so that the loops are vectorised)."""
    m = out.size
    corner = np.zeros(m)
    least = np.zeros(m)
    offset = 0.0
    loose = 0.0                  # the margin of the minimum projection
    for d in range(qy.size):
        q, c = qy[d], anchor[d]
        u = q - c
        offset += u * u
        loose += margin * abs(u)
        low, high = lo[d, first:first + m], hi[d, first:first + m]
        for j in range(m):
            t = max(q - low[j], high[j] - q) + margin
            corner[j] += t * t
            least[j] += min((low[j] - c) * u, (high[j] - c) * u)
    u = qy[0] - anchor[0]
    loose_split = margin * abs(u) + 2.0 * margin * np.sqrt(qy.size) * qt
    root = np.sqrt(offset)
    low, high = lo[0, first:first + m], hi[0, first:first + m]
    far, tails = reach[first:first + m], tail_max[first:first + m]
    for j in range(m):
        split = min((low[j] - anchor[0]) * u, (high[j] - anchor[0]) * u) - tails[j] * qt \
            - loose_split
        scale = np.sqrt(far[j]) + root + margin
        top = far[j] + offset + SLACK * scale * scale
        out[j] = min(corner[j], top - 2.0 * (least[j] - loose), top - 2.0 * split) \
            * (1.0 + SLACK)


@njit_inner(fastmath=REORDER)
def _lower(lo, hi, floor, reach, first, qy, rq, margin, out):  # pragma: no cover - compiled
    """Lower bounds of the squared distance from ``qy`` (radius ``rq``) to the remaining
    records of the nodes ``first``, ``first + 1``, ... (one per place of ``out``; infinite for
    a node without any): the nearer of its box, or the gap between ``rq`` and the node's radii
    (|x - q| >= | |x - a| - |q - a| |). Vectorised as ``_upper``."""
    m = out.size
    box = np.zeros(m)
    for d in range(qy.size):
        q = qy[d]
        low, high = lo[d, first:first + m], hi[d, first:first + m]
        for j in range(m):
            t = max(max(low[j] - q, q - high[j]) - margin, 0.0)
            box[j] += t * t
    eps = 4.0 * margin * np.sqrt(qy.size)
    inner, far = floor[first:first + m], reach[first:first + m]
    for j in range(m):
        gap = max(inner[j] - rq, rq - np.sqrt(far[j])) - eps - SLACK * (rq + inner[j])
        gap = max(gap, 0.0)
        out[j] = max(box[j], gap * gap) * (1.0 - SLACK)


@njit_inner()
def _farther(d1, i1, d2, i2, keys):  # pragma: no cover - compiled
    """Whether record ``i1`` at distance ``d1`` wins "farthest" against ``i2`` at ``d2``."""
    return i2 < 0 or d1 > d2 or (d1 == d2 and keys[i1] > keys[i2])


@njit_inner()
def _scan(q, points, alive, keys, radius, head, tail, start, end, least, cut, qh, qt, best_d,
          best, pick):  # pragma: no cover - compiled
    """The farthest of the remaining records at positions [start, end) (one leaf, outermost
    first) from ``q`` if it is at least as far as ``best`` (distance ``best_d``). Records
    that cannot be are not read: those with a radius below ``least``, and those whose bound
    |x - a|² - 2 head·qh + 2 tail·qt (|x - q|² less |q - a|², at most) is below ``cut``.
    Returns the new best."""
    while end > start and radius[end - 1] < least:
        end -= 1
    m = 0
    for i in range(start, end):                # without branches: those to read, in ``pick``
        r = radius[i]
        pick[m] = i
        m += alive[i] & (r * r - 2.0 * head[i] * qh + 2.0 * tail[i] * qt >= cut)
    for j in range(m):
        i = pick[j]
        dist = _distance(points, i, q)
        if _farther(dist, i, best_d, best, keys):
            best_d, best = dist, i
    return best_d, best


@njit_inner()
def _least(best_d, offset, margin, p):  # pragma: no cover - compiled
    """The smallest radius |x - a| with which a record can reach the squared distance
    ``best_d`` from a query at distance ``offset`` from the anchor (|x - q| <= |x - a| +
    |q - a|), less a margin for rounding."""
    if best_d < 0.0:
        return -np.inf
    root = np.sqrt(best_d)
    return root * (1.0 - 2.0 * SLACK) - offset - 4.0 * margin * np.sqrt(p) \
        - SLACK * (offset + root)


@njit_inner()
def _cut(best_d, offset, reach, margin, p):  # pragma: no cover - compiled
    """The smallest value of a record's bound in ``_scan`` with which it can reach the
    squared distance ``best_d`` (records of largest squared radius ``reach``), less margins
    for rounding."""
    if best_d < 0.0:
        return -np.inf
    low = np.sqrt(best_d) * (1.0 - 2.0 * SLACK) - 4.0 * margin * np.sqrt(p)
    if low <= 0.0:
        return -np.inf
    scale = np.sqrt(reach) + offset + margin
    return low * low - offset * offset - 4.0 * SLACK * scale * scale


@njit_inner()
def _box(b, q, qy, offset, qh, qt, tree, margin, best_d, best, shared, me, part_bound,
         bound, pick):  # pragma: no cover - compiled
    """The farthest record under box ``b`` of the first scan, if farther than ``best``. The
    box's parts (``part_bound.size`` of them, each of ``bound.size`` leaves) are bounded
    together, then the leaves of each part that can reach the best distance found by either
    thread (``shared``; this thread's is ``shared[me]``); a leaf is read if its largest
    radius and then its bound can reach it too."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    fan = bound.size
    parts = 2**depth // fan - 1 + b * part_bound.size      # node of the box's first part
    _upper(lo, hi, reach, tail_max, anchor, parts, qy, qt, margin, part_bound)
    for s in range(part_bound.size):
        if count[parts + s] == 0 or part_bound[s] < max(best_d, shared[1 - me]):
            continue
        leaves = (b * part_bound.size + s) * fan             # the part's first leaf
        _upper(lo, hi, reach, tail_max, anchor, 2**depth - 1 + leaves, qy, qt, margin, bound)
        for t in range(fan):
            node = 2**depth - 1 + leaves + t
            thr = max(best_d, shared[1 - me])
            if bound[t] < thr or count[node] == 0:
                continue
            least = _least(thr, offset, margin, q.size)
            if np.sqrt(reach[node]) < least:
                continue
            found_d, best = _scan(q, points, alive, keys, radius, head, tail,
                                  leaf_start[leaves + t], leaf_start[leaves + t + 1], least,
                                  _cut(thr, offset, reach[node], margin, q.size), qh, qt,
                                  best_d, best, pick)
            if found_d > best_d:
                best_d = found_d
                shared[me] = best_d
    return best_d, best


@njit_inner()
def _query(q, tree, rotation, margin):  # pragma: no cover - compiled
    """What a "farthest" search from ``q`` needs: ``q`` rotated, its first coordinate and the
    length of the rest about the anchor, its distance from the anchor, and the upper bound of
    every box of the first scan with the boxes in decreasing order of it."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    qy = _rotate(q, rotation)
    qh = qy[0] - anchor[0]
    qt = 0.0
    for d in range(1, qy.size):
        qt += (qy[d] - anchor[d]) ** 2
    offset = np.sqrt(qh * qh + qt)
    qt = np.sqrt(qt)
    level = max(depth - FAN_BITS, 0)
    bound = np.empty(2**level)
    _upper(lo, hi, reach, tail_max, anchor, 2**level - 1, qy, qt, margin, bound)
    for b in range(bound.size):
        if count[2**level - 1 + b] == 0:
            bound[b] = -1.0
    return qy, qh, qt, offset, bound, _by_decreasing(bound)


@njit_inner()
def _share(next_box, order, bound, q, qy, qh, qt, offset, tree, margin, shared,
           me):  # pragma: no cover - compiled
    """Thread ``me``'s part of a "farthest" search: it claims boxes in decreasing order of
    bound (``next_box[0]``, shared) until the next cannot reach the best distance either
    thread has found (``shared``, each thread writing its own). Claims are a plain read and
    write of the shared counter: when both threads read the same value, that box is read
    twice; no box is ever passed over, as every value the counter takes was read by a thread.
    A record is passed over only if it is strictly nearer than one the other thread holds."""
    part_bound, leaf_bound = _parts(tree[-1])
    pick = np.empty(tree[-2], dtype=np.int64)
    best_d, best = -1.0, np.int64(-1)
    while True:
        at = next_box[0]
        if at >= order.size:
            break
        next_box[0] = at + 1
        if bound[order[at]] < max(best_d, shared[1 - me]):
            break
        best_d, best = _box(order[at], q, qy, offset, qh, qt, tree, margin, best_d, best,
                            shared, me, part_bound, leaf_bound, pick)
    return best_d, best


@njit_inner()
def _parts(depth):  # pragma: no cover - compiled
    """Room for the bounds of the parts of a box of the first scan, and of a part's leaves."""
    box = depth - max(depth - FAN_BITS, 0)          # a box has 2**box leaves
    part = min(PART_BITS, box)
    return np.empty(2 ** (box - part)), np.empty(2**part)


@_inlined()
def _farthest(q, tree, rotation, margin):  # pragma: no cover - compiled
    """Position of the remaining record farthest from ``q`` (ties: largest key); two threads
    share the boxes of the first scan."""
    return _nearest_and_farthest(q, np.int64(-1), np.int64(1), tree, rotation, margin)[1]


@_two_threads()
def _nearest_and_farthest(q, centre, k, tree, rotation, margin):  # pragma: no cover - compiled
    """``_nearest`` of ``centre`` (unless it is -1) and the remaining record farthest from
    ``q``, both on the records remaining now: one thread first finds the nearest, the other
    starts on the boxes of the farthest search, and both then share the rest."""
    qy, qh, qt, offset, bound, order = _query(q, tree, rotation, margin)
    next_box = np.zeros(1, dtype=np.int64)
    shared = np.full(2, -1.0)
    found_d = np.full(2, -1.0)
    found = np.full(2, -1)
    near = np.empty(k, dtype=np.int64)
    for thread in prange(2):
        if thread == 0 and centre >= 0:
            listed = _nearest(centre, k, tree, rotation, margin)
            for i in range(k):       # a loop: slice assignment compiles numpy's checks
                near[i] = listed[i]
        found_d[thread], found[thread] = _share(next_box, order, bound, q, qy, qh, qt, offset,
                                                tree, margin, shared, np.int64(thread))
    return near, _winner(found_d, found, tree[2])


@njit()
def _winner(found_d, found, keys):  # pragma: no cover - compiled
    if _farther(found_d[1], found[1], found_d[0], found[0], keys):
        return found[1]
    return found[0]


@njit_inner()
def _nearest(centre, k, tree, rotation, margin):  # pragma: no cover - compiled
    """Positions of the record at ``centre`` and its ``k - 1`` nearest remaining records
    (ties: smallest keys), found by one thread (``_near_part`` alone)."""
    q, qy, rq, box_bound, near_d, near_k, near = _near_query(centre, k, np.int64(1), tree, rotation,
                                                             margin)
    shared = np.full(2, np.inf)
    _near_part(centre, q, qy, rq, tree, margin, box_bound, np.zeros(1, dtype=np.int64), shared,
               np.int64(0), near_d[0], near_k[0], near[0])
    return _nearest_of(centre, near_d, near_k, near)


@_two_threads()
def _nearest_in_two(centre, k, tree, rotation, margin):  # pragma: no cover - compiled
    """``_nearest`` with two threads sharing the boxes (``_near_part``)."""
    q, qy, rq, box_bound, near_d, near_k, near = _near_query(centre, k, np.int64(2), tree, rotation,
                                                             margin)
    next_box = np.zeros(1, dtype=np.int64)
    shared = np.full(2, np.inf)
    for thread in prange(2):
        _near_part(centre, q, qy, rq, tree, margin, box_bound, next_box, shared, np.int64(thread),
                   near_d[thread], near_k[thread], near[thread])
    return _nearest_of(centre, near_d, near_k, near)


@njit()
def _near_query(centre, k, threads, tree, rotation, margin):  # pragma: no cover - compiled
    """What a "nearest" search of the record at ``centre`` needs: the record, rotated, its
    radius, the lower bound of every box of the first scan, and an empty list of the ``k - 1``
    nearest (distances, keys, positions) for each of ``threads`` threads."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    q = points[centre].copy()
    qy = _rotate(q, rotation)
    boxes = 2 ** max(depth - FAN_BITS, 0)
    box_bound = np.empty(boxes)
    _lower(lo, hi, floor, reach, boxes - 1, qy, radius[centre], margin, box_bound)
    return (q, qy, radius[centre], box_bound, np.full((threads, k - 1), np.inf),
            np.full((threads, k - 1), np.inf), np.full((threads, k - 1), -1, dtype=np.int64))


@njit()
def _near_part(centre, q, qy, rq, tree, margin, box_bound, next_box, shared, me, near_d, near_k,
               near):  # pragma: no cover - compiled
    """Thread ``me``'s part of a "nearest" search into its list ``near``: thread 0 first reads
    the record's own leaf; then each thread claims boxes of the first scan from
    ``next_box[0]`` (as in ``_share``), starting with the record's own box, and reads the
    leaves whose lower bound does not exceed the ``k - 1``-th nearest distance of its own list
    or of the other thread's (``shared``; each is at least the final one). A box read by both
    threads puts a record in both lists; one thread may also claim a box twice (after a stale
    write of the counter), which ``_closer`` allows for."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    m = near.size
    boxes = box_bound.size
    fan = 2**depth // boxes
    leaf_bound = np.empty(fan)
    own = leaf_of[centre]
    if me == 0:
        _closer(centre, points, alive, keys, q, leaf_start[own], leaf_start[own + 1], near_d,
                near_k, near)
        shared[me] = near_d[m - 1]
    while True:
        step = next_box[0]
        if step >= boxes:
            break
        next_box[0] = step + 1
        b = (own // fan) ^ step                # nearest subtrees first
        if box_bound[b] > min(near_d[m - 1], shared[1 - me]):
            continue
        _lower(lo, hi, floor, reach, 2**depth - 1 + b * fan, qy, rq, margin, leaf_bound)
        for j in range(fan):
            t = (own % fan) ^ j
            leaf = b * fan + t
            if leaf != own and leaf_bound[t] <= min(near_d[m - 1], shared[1 - me]):
                _closer(centre, points, alive, keys, q, leaf_start[leaf],
                        leaf_start[leaf + 1], near_d, near_k, near)
                shared[me] = near_d[m - 1]


@njit()
def _nearest_of(centre, near_d, near_k, near):  # pragma: no cover - compiled
    """``centre`` and the ``k - 1`` nearest of the threads' lists together (each record once)."""
    m = near.shape[1]
    d, key = near_d.ravel(), near_k.ravel()
    ranked = np.arange(d.size)            # by distance, then key (insertion sort, stable)
    for i in range(1, d.size):
        j, r = i, ranked[i]
        while j > 0 and (d[ranked[j - 1]] > d[r]
                         or (d[ranked[j - 1]] == d[r] and key[ranked[j - 1]] > key[r])):
            ranked[j] = ranked[j - 1]
            j -= 1
        ranked[j] = r
    out = np.full(m + 1, -1, dtype=np.int64)
    out[0] = centre
    taken = 0
    for i in near.ravel()[ranked]:
        if taken < m and i >= 0 and not _listed(out[1:1 + taken], i):
            taken += 1
            out[taken] = i
    return out


@njit()
def _closer(centre, points, alive, keys, q, start, end, near_d, near_k,
            near):  # pragma: no cover - compiled
    """Merge the remaining records at positions [start, end) other than ``centre`` into the
    nearest found so far (``near``, by increasing distance ``near_d`` then key ``near_k``),
    each record once: a thread of ``_near_part`` may read a box a second time."""
    m = near.size
    for i in range(start, end):
        if not alive[i] or i == centre:
            continue
        d = _distance(points, i, q)
        key = keys[i]
        if d < near_d[m - 1] or (d == near_d[m - 1] and key < near_k[m - 1]):
            if _listed(near, i):
                continue
            at = m - 1
            while at > 0 and (d < near_d[at - 1] or (d == near_d[at - 1] and key < near_k[at - 1])):
                near_d[at], near_k[at], near[at] = near_d[at - 1], near_k[at - 1], near[at - 1]
                at -= 1
            near_d[at], near_k[at], near[at] = d, key, i


@njit_inner()
def _listed(near, i):  # pragma: no cover - compiled
    for j in range(near.size):
        if near[j] == i:
            return True
    return False


@njit_inner()
def _take(chosen, tree, parts, used, group, label):  # pragma: no cover - compiled
    """Group the records at ``chosen`` under ``label``; update sums, boxes and counts."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    first_leaf = 2**depth - 1
    for i in chosen:
        alive[i] = False
        group[rows[i]] = label
        for j in range(points.shape[1]):
            _grow(parts, used, j, -points[i, j])
    for i in chosen:
        leaf = leaf_of[i]
        node = first_leaf + leaf
        _leaf_box(leaf, node, rotated, anchor, alive, leaf_start, lo, hi, count, reach)
        _merge_up(node, lo, hi, count, reach)


@njit_inner()
def _centroid(parts, used, n):  # pragma: no cover - compiled
    c = np.empty(parts.shape[0])
    for j in range(parts.shape[0]):
        c[j] = _rounded(parts, used, j) / n
    return c


@_inlined()
def _group(centre, k, tree, rotation, margin, parts, used, group, label):  # pragma: no cover
    _take(_nearest_in_two(centre, k, tree, rotation, margin), tree, parts, used, group, label)


@njit()
def _shell(tree, ref, size):  # pragma: no cover - compiled
    """The outer shell about ``ref``: the positions of (at most) ``size`` remaining records
    farther from ``ref`` than all others, by decreasing distance; their distances; the
    largest distance of any other remaining record (-1 if none); ``ref``; and the place in the
    list before which every record is grouped (``[0]``)."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    where = np.flatnonzero(alive)
    far = np.empty(where.size)
    for j in range(where.size):
        far[j] = np.sqrt(_distance(points, where[j], ref))
    outside = -1.0
    if where.size > size:
        cut, ranked = where.size - size - 1, far.copy()
        _select(ranked, np.arange(where.size), 0, where.size, cut)
        outside = ranked[cut]                      # the (size + 1)-th largest distance
        keep = far > outside
        where, far = where[keep], far[keep]
    order = _by_decreasing(far)
    return where[order], far[order], outside, ref.copy(), np.zeros(1, dtype=np.int64)


@njit()
def _outermost(c, tree, shell, margin):  # pragma: no cover - compiled
    """The remaining record farthest from ``c`` (ties: largest key) if the shell shows it (a
    record can be no farther from ``c`` than from the shell's ``ref`` plus |c - ref|), else
    -1; and the number of distances computed."""
    (points, rotated, keys, rows, alive, leaf_of, leaf_start, lo, hi, count, reach, anchor,
     radius, head, tail, floor, tail_max, widest, depth) = tree
    where, far, outside, ref, front = shell
    eps = 4.0 * margin * np.sqrt(c.size)
    shift = 0.0
    for d in range(c.size):
        shift += (c[d] - ref[d]) ** 2
    shift = np.sqrt(shift) * (1.0 + SLACK) + eps
    while front[0] < where.size and not alive[where[front[0]]]:
        front[0] += 1
    best_d, best, read = -1.0, -1, 0
    for j in range(front[0], where.size):
        if best >= 0 and far[j] * (1.0 + SLACK) + shift < np.sqrt(best_d) * (1.0 - SLACK) - eps:
            break
        i = where[j]
        if alive[i]:
            dist = _distance(points, i, c)
            read += 1
            if _farther(dist, i, best_d, best, keys):
                best_d, best = dist, i
    if best < 0 or (outside >= 0.0 and outside * (1.0 + SLACK) + shift
                    >= np.sqrt(best_d) * (1.0 - SLACK) - eps):
        return -1, read
    return best, read


@njit()
def _farthest_from_centroid(c, tree, shell, rotation, margin):  # pragma: no cover - compiled
    """The remaining record farthest from the centroid ``c``, from the outer shell if it can
    tell (a new shell about ``c`` when it cannot, or when it took more than ``SHELL_READS``
    distances), else from the tree; and the shell to use next."""
    r, read = _outermost(c, tree, shell, margin)
    if r < 0 or read > SHELL_READS:
        shell = _shell(tree, c, SHELL)
        if r < 0:
            r = _outermost(c, tree, shell, margin)[0]
    if r < 0:
        r = _farthest(c, tree, rotation, margin)
    return r, shell


@njit()
def _run(tree, rotation, margin, parts, used, n, group, label, k,
         stop):  # pragma: no cover - compiled
    """The MDAV loop until fewer than ``stop`` records remain (then the tree is rebuilt) or
    the groups are complete; returns the next label and the number of records left."""
    alive, rows = tree[4], tree[3]
    shell = _shell(tree, _centroid(parts, used, n), SHELL)
    while n >= 3 * k and n >= stop:
        r, shell = _farthest_from_centroid(_centroid(parts, used, n), tree, shell, rotation,
                                           margin)
        near, s = _nearest_and_farthest(tree[0][r].copy(), r, k, tree, rotation, margin)
        _take(near, tree, parts, used, group, label)
        if np.any(near == s):          # only when the farthest record is in r's group
            s = _farthest(tree[0][r].copy(), tree, rotation, margin)
        _group(s, k, tree, rotation, margin, parts, used, group, label + 1)
        label += 2
        n -= 2 * k
    if n < 3 * k:
        if n >= 2 * k:
            r = _farthest_from_centroid(_centroid(parts, used, n), tree, shell, rotation,
                                        margin)[0]
            _group(r, k, tree, rotation, margin, parts, used, group, label)
            label += 1
            n -= k
        for i in range(rows.size):
            if alive[i]:
                group[rows[i]] = label
        label += 1
    return label, n
