"""Exact assignment (eq. 13.7) of blocks too large for a dense cost matrix.

Each external record keeps its K nearest release records (certified candidates, see
``attack.linkage.candidates``, or an exact chunked scan when the distance does not embed) and a
private "no link" edge priced at the padding cost D of eq. 13.6, so a full matching always
exists. ``scipy.sparse.csgraph.min_weight_full_bipartite_matching`` solves the candidate graph;
every edge gets +1 because that solver reads an explicit zero as a missing edge (every full
matching has the same number of edges, so the optimum does not move).

Proof of optimality (docs/method/linkage.md). Column potentials ``p ≤ 0`` are the shortest-path
distances of the difference constraints ``p_j ≤ p_m(i) + w_ij − w_i,m(i)`` over the candidate
edges (``m(i)`` the column row ``i`` is matched to; every column starts at 0), and ``u_i =
w_i,m(i) − p_m(i)``. They satisfy complementary slackness with the matching and dual feasibility
``u_i + p_j ≤ w_ij`` on every candidate edge. The matching is optimal for the whole block when
the same holds for every pair that is not a candidate:

* when the distance embeds (``c_ij = |x_i − y_j|² − C``), ``min_j (c_ij − p_j)`` over *all*
  release rows is one nearest-neighbour query per row in the lifted points ``(y_j, √−p_j)``;
* otherwise a non-candidate pair costs at least its row's certified bound ``b_i``, and
  ``b_i + 1 ≥ u_i`` suffices.

Both checks allow a relative rounding slack (``TOLERANCE``). When the check fails, K grows
fourfold while the candidates fit the memory budget; past that the block is reported as
approximate.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import min_weight_full_bipartite_matching
from scipy.spatial import cKDTree

from attack.linkage.assignment import TIE_TOLERANCE
from attack.linkage.candidates import CandidateLists, embedding
from attack.linkage.distances import DistanceModel

FIRST_K = 16
TOLERANCE = 1e-9


def candidates(model: DistanceModel, k: int, budget: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns and distances of each row's k nearest release rows, and the certified lower
    bound of the distances of all other release rows."""
    n_ext, n_rel = model.sizes
    k = min(k, n_rel)
    embedded = embedding(model)
    if embedded is not None:
        lists = CandidateLists(model, *embedded, neighbours=k)
        return lists.first_cols, lists.first_costs, lists.bound
    cols = np.empty((n_ext, k), dtype=np.int64)
    costs = np.empty((n_ext, k))
    bound = np.full(n_ext, np.inf)
    step = max(1, budget // (32 * max(n_rel, 1)))
    all_cols = np.arange(n_rel)
    for start in range(0, n_ext, step):
        rows = np.arange(start, min(start + step, n_ext))
        cost = model.cost(rows, all_cols)
        part = np.argpartition(cost, k - 1, axis=1)[:, :k] if k < n_rel else np.tile(all_cols, (rows.size, 1))
        chosen = np.take_along_axis(cost, part, axis=1)
        if k < n_rel:
            rest = cost.copy()
            np.put_along_axis(rest, part, np.inf, axis=1)
            bound[rows] = rest.min(axis=1)
        cols[rows], costs[rows] = part, chosen
    return cols, costs, bound


def _potentials(n_nodes: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Shortest-path distances from a source joined (at 0) to ``start``, by Bellman–Ford rounds
    that relax only the edges leaving nodes whose distance changed."""
    dist = np.full(n_nodes, np.inf)
    dist[start] = 0.0
    changed = np.zeros(n_nodes, dtype=bool)
    changed[start] = True
    for _ in range(n_nodes + 1):
        if not changed.any():
            return dist
        active = changed[src]
        relaxed = dist.copy()
        np.minimum.at(relaxed, dst[active], dist[src[active]] + weight[active])
        # a strict decrease beyond rounding: cycles of zero cost (ties) may sum to -1e-16
        with np.errstate(invalid="ignore"):  # inf - inf where a node is still unreached
            changed = relaxed < dist - 1e-12 * (1.0 + np.abs(relaxed))
        dist = np.where(changed, relaxed, dist)
    raise ArithmeticError("negative cycle in the residual graph: the matching is not optimal")


def solve(model: DistanceModel, budget: int):
    """Exact assignment of a large block: ``(rows, cols, distance, n_best, proven)``.

    ``n_best`` counts the candidates within the tie tolerance of the chosen distance (all
    release rows at that distance when it lies below the row's certified bound)."""
    n_ext, n_rel = model.sizes
    padding = float(np.sum([k.weight * f for k, f in zip(model.keys, model.missing_values)]))
    embedded = embedding(model)
    k = FIRST_K
    while True:
        cols, costs, bound = candidates(model, k, budget)
        rows, links, u, p = _match(n_ext, n_rel, cols, costs, padding)
        proven = _proven(u, p, links, bound, embedded, n_rel)
        enough = k >= n_rel or 4 * k * n_ext * 24 > budget
        if proven or enough:
            real = links < n_rel
            rows, links = rows[real], links[real]
            dist = model.pair_cost(rows, links)
            n_best = np.sum(np.abs(costs[rows] - dist[:, None]) <= TIE_TOLERANCE, axis=1)
            return rows, links, dist, n_best, proven
        k *= 4


def _match(n_ext, n_rel, cols, costs, padding):
    """The optimal matching of the candidate graph (rows sorted), the row duals ``u`` and the
    column potentials ``p`` (real columns, then each row's "no link" column)."""
    k = cols.shape[1]
    row_of_edge = np.concatenate([np.repeat(np.arange(n_ext), k), np.arange(n_ext)])
    col_of_edge = np.concatenate([cols.ravel(), n_rel + np.arange(n_ext)])
    weight = np.concatenate([costs.ravel(), np.full(n_ext, padding)]) + 1.0
    graph = sp.csr_matrix((weight, (row_of_edge, col_of_edge)), shape=(n_ext, n_rel + n_ext))
    rows, links = min_weight_full_bipartite_matching(graph)
    order = np.argsort(rows)
    rows, links = rows[order].astype(np.int64), links[order].astype(np.int64)
    matched = np.empty(n_ext, dtype=np.int64)
    matched[rows] = links
    matched_weight = np.asarray(graph[rows, links]).ravel()
    # difference constraints p_j <= p_m(i) + w_ij - w_i,m(i): an edge m(i) -> j per candidate
    other = col_of_edge != matched[row_of_edge]
    src = matched[row_of_edge[other]]
    dst = col_of_edge[other]
    slack = weight[other] - matched_weight[row_of_edge[other]]
    n_nodes = n_rel + n_ext
    p = _potentials(n_nodes, src, dst, slack, np.arange(n_nodes))
    u = matched_weight - p[links]
    return rows, links, u, p


def _proven(u, p, links, bound, embedded, n_rel) -> bool:
    """Whether the duals are feasible for every pair of the block (see the module docstring)."""
    free = np.ones(p.size, dtype=bool)
    free[links] = False
    if np.any(p[free] < -TOLERANCE * (1.0 + np.abs(u).max(initial=0.0))):  # slackness broken
        return False
    if embedded is None:
        return bool(np.all(bound + 1.0 >= u - TOLERANCE * (1.0 + np.abs(u))))
    x_ext, x_rel, constant = embedded
    lift = np.sqrt(np.maximum(-p[:n_rel], 0.0))
    tree = cKDTree(np.column_stack([x_rel, lift]))
    reach, _ = tree.query(np.column_stack([x_ext, np.zeros(len(x_ext))]), k=1, workers=-1)
    lowest = np.square(reach) - constant + 1.0  # min over all release rows of c_ij + 1 - p_j
    margin = TOLERANCE * (1.0 + np.square(reach) + abs(constant) + np.abs(u))
    return bool(np.all(lowest >= u - margin))
