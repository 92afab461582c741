"""Exact candidate search for blocks too large for a dense cost matrix.

When every weighted key is a metric key with squared differences or a nominal key, and no
value is missing, the total distance of docs/method/linkage.md is a squared Euclidean distance in a
scaled embedding, up to a constant: a metric value ``a`` maps to ``a·sqrt(λ/s)`` and a nominal
code to a one-hot vector scaled by ``sqrt(λ/(2s))`` (``s`` the standardisation divisor). A
KD-tree on the embedded release records then finds each external record's nearest candidates.

The tree only proposes candidates. Their distances are recomputed with
``DistanceModel.pair_cost``, bit for bit the dense values, and a candidate is used only
when it is *certified*: every release record that the query did not return lies at an
embedded distance that, minus the constant and a safety margin, exceeds the candidate's
distance plus the tie tolerance. So the nearest free candidate of a row, ties included, is
exactly the one the dense matrix would give. Rows whose certified candidates run out are
queried again with twice as many neighbours, against a tree rebuilt on the still free release
records when half of its points have been taken. Procedure II (``tree_greedy``) instead
searches a tree of the release records' distinct values that forgets the used ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attack.linkage.assignment import TIE_TOLERANCE
from attack.linkage.distances import (
    CodeComponent,
    DistanceModel,
    MetricComponent,
    build_distance_model,
)
from attack.linkage.keys import Metric
from attack.linkage.refill import LEAF, ExactCost, FreeTree, first_lists

#: Most embedding dimensions for which the KD-tree is used.
MAX_DIMENSIONS = 16
INITIAL_NEIGHBOURS = 16


#: External and release coordinates and the constant ``C`` (``embedding``).
Embedding = tuple[np.ndarray, np.ndarray, float]
#: Links as ``(external rows, release rows, distances, tie counts)``.
TreeLinks = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def embedding(model: DistanceModel) -> Embedding | None:
    """Coordinates of external and release rows and the constant C with
    ``cost = ||x_e − x_r||² − C``; None when the distance has no such embedding."""
    ext_parts, rel_parts, constant = [], [], 0.0
    # a model without components (Fellegi–Sunter weights) has no embedding: the loop adds nothing
    for key, comp, offset, scale in zip(model.keys, model.components, model.offsets, model.scales,
                                        strict=False):
        if key.weight == 0 or scale == 0:
            if scale == 0 and comp.has_missing:
                return None
            continue
        if comp.has_missing or key.missing == "skip":
            return None
        if isinstance(comp, MetricComponent) and comp.power == 2:
            factor = np.sqrt(key.weight / scale)
            centre = _centre(comp.a, comp.b)  # small coordinates round less (see rounding())
            ext_parts.append(((comp.a - centre) * factor)[:, None])
            rel_parts.append(((comp.b - centre) * factor)[:, None])
        elif isinstance(comp, CodeComponent) and comp.kind == "nominal":
            levels = int(max(comp.a.max(initial=0), comp.b.max(initial=0))) + 1
            factor = np.sqrt(key.weight / (2 * scale))
            ext_parts.append(np.eye(levels)[comp.a] * factor)
            rel_parts.append(np.eye(levels)[comp.b] * factor)
        else:
            return None
        constant += key.weight * offset / scale
    if not ext_parts:
        return None
    x_ext, x_rel = np.hstack(ext_parts), np.hstack(rel_parts)
    if x_ext.shape[1] > MAX_DIMENSIONS:
        return None
    return x_ext, x_rel, constant


def _centre(a: np.ndarray, b: np.ndarray) -> float:
    """Midpoint of the values of both files."""
    if a.size == 0 and b.size == 0:
        return 0.0
    low = min(a.min(initial=np.inf), b.min(initial=np.inf))
    high = max(a.max(initial=-np.inf), b.max(initial=-np.inf))
    return float(low + (high - low) / 2)


class CandidateLists:
    """Certified nearest release candidates of every external row, refilled on demand."""

    def __init__(
        self,
        model: DistanceModel,
        x_ext: np.ndarray,
        x_rel: np.ndarray,
        constant: float,
        neighbours: int | None = None,
    ):
        self.model, self.x_ext, self.x_rel, self.constant = model, x_ext, x_rel, constant
        self.n_ext, self.n_rel = len(x_ext), len(x_rel)
        self.taken = np.zeros(self.n_rel, dtype=bool)
        from scipy.spatial import cKDTree  # imported on use: a noticeable share of start-up

        self._full_tree = cKDTree(x_rel)
        self._free: FreeTree | None = None  # the free release rows, built at the first refill
        self.exact = ExactCost(model)
        self._taken_in_tree = 0
        neighbours = INITIAL_NEIGHBOURS if neighbours is None else neighbours
        self.neighbours = np.full(self.n_ext, min(neighbours, self.n_rel), dtype=np.int64)
        self.cols: dict[int, np.ndarray] = {}   # lists queried again; the others are first_*
        self.costs: dict[int, np.ndarray] = {}
        self.bound = np.empty(self.n_ext)
        self.pointer = np.zeros(self.n_ext, dtype=np.int64)
        self.from_full_tree = np.ones(self.n_ext, dtype=bool)
        self.requeried = np.zeros(self.n_ext, dtype=bool)
        self.first_cols = np.zeros((self.n_ext, 0), dtype=np.int64)
        self.first_costs = np.zeros((self.n_ext, 0))
        self._query_all()

    def _query_all(self) -> None:
        k = int(self.neighbours[0]) if self.n_ext else 0
        if k == 0:
            return
        dist, idx = self._full_tree.query(self.x_ext, k=k, workers=-1)
        dist, idx = dist.reshape(self.n_ext, k), idx.reshape(self.n_ext, k)
        self.first_cols, self.first_costs = first_lists(idx, self.exact)  # by (distance, release row)
        self.bound[:] = self._bounds(np.square(dist[:, -1]), k >= self.n_rel)

    def candidates(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Row ``i``'s certified list: release rows and their distances, in order."""
        if i in self.cols:
            return self.cols[i], self.costs[i]
        return self.first_cols[i], self.first_costs[i]

    def _bounds(self, reach: float | np.ndarray, complete: bool) -> float | np.ndarray:
        """Distances below which every release row of the tree has been returned, from the
        squared embedded distance ``reach`` of the last one returned."""
        if complete:
            return np.full(np.shape(reach), np.inf) if np.ndim(reach) else np.inf
        return reach - self.constant - 1e-9 * (1.0 + reach + abs(self.constant))

    def requery(self, i: int) -> None:
        """A fresh certified list for row ``i`` with four times as many neighbours, from the
        free release rows (``attack.linkage.refill``)."""
        free = self._free_tree()
        k = int(min(max(4 * self.neighbours[i], INITIAL_NEIGHBOURS), free.n))
        self.neighbours[i] = k
        self.cols[i], self.costs[i], reach = free.refill(self.x_ext[i], k, i, self.exact)
        self.pointer[i] = 0
        self.bound[i] = self._bounds(reach, k >= free.n)
        self.from_full_tree[i] = free.n == self.n_rel
        self.requeried[i] = True

    def _free_tree(self) -> FreeTree:
        """The tree of free release rows: built at the first refill, and again on the still free
        rows once half of those in the tree are taken."""
        if self._free is None:
            self._free = FreeTree(self.x_rel, np.arange(self.n_rel))
        elif self._taken_in_tree * 2 > self._free.n and not self.taken.all():
            self._free = FreeTree(self.x_rel, np.flatnonzero(~self.taken))
            self._taken_in_tree = 0
        return self._free

    def take(self, j: int) -> None:
        """Mark release row ``j`` as used."""
        self.taken[j] = True
        self._taken_in_tree += 1

    def best(self, i: int, free_only: bool = True) -> tuple[float, int]:
        """Certified nearest (free) candidate of row ``i``: ``(cost, release row)``; ties go to
        the first release row."""
        while True:
            cols, costs = self.candidates(i)
            p = int(self.pointer[i])
            if free_only:
                while p < cols.size and self.taken[cols[p]]:
                    p += 1
                self.pointer[i] = p
            if p < cols.size and costs[p] + TIE_TOLERANCE < self.bound[i]:
                return float(costs[p]), int(cols[p])
            if self.bound[i] == np.inf and p >= cols.size:
                raise LookupError("no free release row left")
            self.requery(i)

    def first_certified(self) -> np.ndarray:
        """Rows whose first candidate is certified (before anything is taken)."""
        if self.first_costs.shape[1] == 0:
            return np.zeros(self.n_ext, dtype=bool)
        return self.first_costs[:, 0] + TIE_TOLERANCE < self.bound

    def ties(self, rows: np.ndarray, cost: np.ndarray) -> np.ndarray:
        """Release rows of the block (taken or not) within the tie tolerance of ``cost[k]``
        for external row ``rows[k]``, as the dense count of docs/method/linkage.md.

        A row whose list came from the tree of all release rows and certifies the distance
        counts from its list; the others ask the full tree for every row within reach."""
        out = np.zeros(rows.size, dtype=np.int64)
        listed = self.from_full_tree[rows] & (cost + 2 * TIE_TOLERANCE < self.bound[rows])
        first = listed & ~self.requeried[rows]
        near = np.abs(self.first_costs[rows[first]] - cost[first, None]) <= TIE_TOLERANCE
        out[first] = near.sum(axis=1)
        for k in np.flatnonzero(listed & self.requeried[rows]):
            out[k] = np.count_nonzero(np.abs(self.candidates(rows[k])[1] - cost[k]) <= TIE_TOLERANCE)
        rest = np.flatnonzero(~listed)
        if rest.size == 0:
            return out
        # Ties lie in a thin shell of embedded distances around the chosen one: count the shell
        # with the tree (no index lists), and check exact distances only where it holds more
        # than the chosen record itself.
        x, c = self.x_ext[rows[rest]], cost[rest] + self.constant
        margin = TIE_TOLERANCE + 1e-9 * (1.0 + np.abs(c) + abs(self.constant))
        outer = self._full_tree.query_ball_point(x, np.sqrt(np.maximum(c + margin, 0)), return_length=True)
        inner = self._full_tree.query_ball_point(x, np.sqrt(np.maximum(c - margin, 0)), return_length=True)
        inner[c - margin < 0] = 0
        out[rest] = 1
        crowded = np.flatnonzero(outer - inner > 1)
        for k in crowded:
            i = rows[rest[k]]
            near = np.asarray(self._full_tree.query_ball_point(x[k], np.sqrt(max(c[k] + margin[k], 0))))
            exact = self.model.pair_cost(np.full(near.size, i), near)
            out[rest[k]] = np.count_nonzero(np.abs(exact - cost[rest[k]]) <= TIE_TOLERANCE)
        return out


def tree_greedy(model: DistanceModel, embedded: Embedding) -> TreeLinks:
    """Procedure II (ties by distance, external row, release row), compiled
    (``attack.linkage.compiled.greedy``).

    Records with identical key values have identical distances to every other record, so each
    file is grouped by its key values and the search runs over one embedded point per group: a
    k-d tree of the release groups that still have a free record, asked for an external group's
    nearest one whenever the distance it offered is gone. Distances are the exact ones of
    ``DistanceModel.pair_cost`` (same operations, same bits); the embedding only prunes, with
    a margin that covers its rounding (``rounding``). The tie counts are the dense ones:
    every release record of the block within the tie tolerance of the link's distance.
    """
    from attack.linkage.compiled import greedy, tie_counts  # numba, loaded on first use

    x_ext, x_rel, constant = embedded
    exact = ExactCost(model)
    ext_ptr, ext_rows = value_groups(exact.a)
    rel_ptr, rel_rows = value_groups(exact.b)
    points_ext = np.ascontiguousarray(x_ext[ext_rows[ext_ptr[:-1]]], dtype=np.float64)
    points_rel = np.ascontiguousarray(x_rel[rel_rows[rel_ptr[:-1]]], dtype=np.float64)
    margin = rounding(x_ext, x_rel)
    limit = min(len(x_ext), len(x_rel))
    metric, a, b, offset, scale, weight = exact.arrays()
    rows, cols, dist, groups = greedy(points_ext, points_rel, ext_ptr, ext_rows, rel_ptr, rel_rows, float(constant),
                                      margin, metric, a, b, offset, scale, weight, LEAF, limit)
    if rows.size < limit:
        raise LookupError("no free release row left")
    order = np.lexsort((dist, groups))  # links of one group at one distance counted once
    n_best = np.empty(rows.size, dtype=np.int64)
    n_best[order] = tie_counts(groups[order], dist[order], points_ext, points_rel, ext_ptr, ext_rows, rel_ptr,
                               rel_rows, float(constant), margin, TIE_TOLERANCE, metric, a, b, offset, scale,
                               weight, LEAF)
    by_row = np.argsort(rows, kind="stable")
    return rows[by_row], cols[by_row], dist[by_row], n_best[by_row]


def value_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Records (columns of ``values``, one row per key) grouped by identical values, bit for bit:
    ``(ptr, rows)`` with group ``g``'s records ``rows[ptr[g]:ptr[g + 1]]`` in ascending order."""
    n = values.shape[1]
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    order = np.lexsort(bits[::-1]) if n else np.zeros(0, dtype=np.int64)  # stable: rows ascend
    ordered = bits[:, order]
    new = np.ones(n, dtype=bool)
    new[1:] = np.any(ordered[:, 1:] != ordered[:, :-1], axis=0)
    return np.append(np.flatnonzero(new), n).astype(np.int64), order.astype(np.int64)


def rounding(x_ext: np.ndarray, x_rel: np.ndarray) -> np.ndarray:
    """How far the embedded distance ``ê`` may lie from ``exact + C`` after rounding:
    ``r·(ê + |C|) + g·√ê + f``, returned as ``[r, g, f, e*]`` with ``e*`` where ``ê − r·ê − g·√ê``
    starts to grow (``attack.linkage.compiled.lower_cost``).

    With ``eps`` the unit roundoff, ``d`` dimensions and ``M`` the largest embedded coordinate:
    the exact sum and the scale factors err by a few ``d·eps`` relative to ``ê + |C|``; a
    coordinate errs by about ``2·eps·M``, which moves ``ê`` by at most about ``4·eps·M·√(d·ê)``
    plus its square. The constants below are eight times those.
    """
    d = max(x_ext.shape[1] if x_ext.ndim == 2 else 1, 1)
    magnitude = max(np.abs(x_ext).max(initial=0.0), np.abs(x_rel).max(initial=0.0))
    eps = np.finfo(float).eps
    relative = 8 * (d + 4) * eps
    grain = 32 * eps * magnitude * np.sqrt(d)
    floor = 128 * d * (eps * magnitude) ** 2
    return np.array([relative, grain, floor, (grain / (2 * (1 - relative))) ** 2])


def warm_up() -> None:
    """Compile (or load from the disk cache) the kernels of the candidate search on a toy
    block, so that processes forked afterwards start with them."""
    frame = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    model = build_distance_model(frame, frame, [Metric(name="x")])
    embedded = embedding(model)
    assert embedded is not None  # a metric key always has an embedding
    tree_greedy(model, embedded)
    CandidateLists(model, *embedded, neighbours=1).requery(0)


def tree_sequential(model: DistanceModel, embedded: Embedding, order: np.ndarray | None) -> TreeLinks:
    """Procedure I: rows in ``order`` take their certified nearest free candidate."""
    lists = CandidateLists(model, *embedded)
    order = np.arange(lists.n_ext) if order is None else order
    rows: list[int] = []
    cols: list[int] = []
    dist: list[float] = []
    for i in order[: lists.n_rel]:
        cost, j = lists.best(int(i))
        lists.take(j)
        rows.append(int(i))
        cols.append(j)
        dist.append(cost)
    return _finish(lists, rows, cols, dist)


def tree_nearest(model: DistanceModel, embedded: Embedding) -> TreeLinks:
    """Nearest neighbour (not one-to-one): every row's certified nearest candidate."""
    lists = CandidateLists(model, *embedded)
    rows: list[int] = []
    cols: list[int] = []
    dist: list[float] = []
    for i in range(lists.n_ext):
        cost, j = lists.best(i, free_only=False)
        rows.append(i)
        cols.append(j)
        dist.append(cost)
    return _finish(lists, rows, cols, dist)


def _finish(lists: CandidateLists, rows: list[int], cols: list[int], dist: list[float]) -> TreeLinks:
    """Links sorted by external row, with their distances and exact tie counts."""
    order = np.argsort(np.asarray(rows, dtype=np.int64), kind="stable")
    linked = np.asarray(rows, dtype=np.int64)[order]
    distance = np.asarray(dist, dtype=float)[order]
    return linked, np.asarray(cols, dtype=np.int64)[order], distance, lists.ties(linked, distance)
