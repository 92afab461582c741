"""Exact assignment (eq. 13.7) of blocks too large for a dense cost matrix.

Each external record starts with its K nearest release records (certified candidates, see
``attack.linkage.candidates``, or an exact chunked scan when the distance does not embed) and a
private "no link" edge priced at the padding cost D of eq. 13.6, so a full matching always
exists. ``attack.linkage.shortest_path`` solves the candidate graph by successive shortest
paths; when pairs join the graph it goes on from its matching and potentials.

Costs are rescaled per block before anything is computed: divided by ``s``, the power of four
nearest the median positive candidate distance (a power of two divides without rounding, and
its square root scales the embedding without rounding either). Max–min standardised distances
of raw register keys sit near 10⁻¹²; rescaled, the block's typical distance is about 1, so the
tolerances below are relative to the block's distances, not to 1.

Proof of optimality (docs/method/linkage.md). The solver's column potentials ``p ≤ 0`` and
``u_i = c_i,m(i) − p_m(i)`` (``m(i)`` the column row ``i`` is matched to) are the dual
solution (when their rounding fails the check below, they are computed again from the matching
as shortest paths of ``p_j ≤ p_m(i) + c_ij − c_i,m(i)``); columns left free get ``p_j = 0``
(complementary slackness). Dual feasibility
``u_i + p_j ≤ c_ij`` is checked again here on every candidate edge, not taken from the solver. The matching is optimal for the whole block when
the same holds for every pair that is not a candidate:

* when the distance embeds (``c_ij = |x_i − y_j|² − C``), ``min_j (c_ij − p_j)`` over *all*
  release rows is one nearest-neighbour query per row in the lifted points ``(y_j, √−p_j)``.
  The pairs that break it are the lifted query's nearest ones; they join the graph (``ADDED``
  per record) and the graph is solved again, until no pair breaks it (column generation);
* otherwise a non-candidate pair costs at least its row's certified bound ``b_i``, and
  ``b_i ≥ u_i`` suffices; when it fails, K grows fourfold.

The checks allow a slack of ``TOLERANCE`` relative to the rescaled distances and potentials,
plus the rounding bound of the embedded distances (``attack.linkage.candidates.rounding``).
When the graph outgrows the memory budget, the block is reported as approximate.
"""

from __future__ import annotations

import numpy as np

from attack.linkage.assignment import TIE_TOLERANCE
from attack.linkage.candidates import CandidateLists, embedding, rounding
from attack.linkage.distances import DistanceModel

FIRST_K = 128
#: Pairs of the lifted query added per record that breaks the proof, per round.
ADDED = 128
TOLERANCE = 1e-9
#: Memory per edge of the candidate graph while it is solved (arrays, CSR, shortest paths).
EDGE_BYTES = 64


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


def cost_scale(costs: np.ndarray) -> float:
    """The power of four nearest the median positive finite candidate distance (1 if none)."""
    positive = costs[np.isfinite(costs) & (costs > 0)]
    if positive.size == 0:
        return 1.0
    exponent = np.clip(np.round(np.log2(np.median(positive)) / 2), -250, 250)
    return float(4.0**exponent)


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

    ``n_best`` counts the first candidates within the tie tolerance of the chosen distance (all
    release rows at that distance when it lies below the row's certified bound)."""
    n_ext, n_rel = model.sizes
    padding = float(np.sum([k.weight * f for k, f in zip(model.keys, model.missing_values, strict=True)]))
    embedded = embedding(model)
    k = FIRST_K
    cols, costs, bound = candidates(model, k, budget)
    first_costs = costs
    scale = cost_scale(costs)
    if embedded is None:
        while True:
            rows, links, u, p = _match(n_ext, n_rel, cols, costs / scale, padding / scale)
            proven = u is not None and _proven(u, p, links, bound / scale, None, n_rel)
            if proven or u is None or k >= n_rel or 4 * k * n_ext * EDGE_BYTES > budget:
                break
            k *= 4
            cols, costs, bound = candidates(model, k, budget)
        first_costs = costs
    else:
        rows, links, proven = _generate(model, cols, costs / scale, padding / scale, scale, embedded, budget)
    real = links < n_rel
    rows, links = rows[real], links[real]
    dist = model.pair_cost(rows, links)
    n_best = np.sum(np.abs(first_costs[rows] - dist[:, None]) <= TIE_TOLERANCE, axis=1)
    return rows, links, dist, n_best, proven


def _generate(model, cols, costs, padding, scale, embedded, budget):
    """Solve the candidate graph, add the pairs that break the lifted check, solve again from
    the same matching and potentials, until none breaks it (proven) or the graph outgrows
    ``budget``: ``(rows, links, proven)``."""
    from attack.linkage.shortest_path import Assignment  # numba, loaded on first use

    n_ext, n_rel = model.sizes
    x_ext, x_rel, constant = embedded
    root = np.sqrt(scale)  # a power of two: exact
    lifted = (x_ext / root, x_rel / root, constant / scale)
    edge_row = np.repeat(np.arange(n_ext), cols.shape[1])
    edge_col, edge_cost = cols.ravel(), costs.ravel()
    state = Assignment(n_ext, n_rel + n_ext)
    while True:
        rows, links, u, p = _match_edges(state, n_rel, edge_row, edge_col, edge_cost, padding)
        if u is None:
            return rows, links, False
        new_row, new_col = _breaking(u, p, lifted, n_rel, ADDED)
        if new_row.size == 0:
            return rows, links, True
        fresh = ~state.contains(new_row, new_col)
        if not fresh.any() or (edge_row.size + n_ext + fresh.sum()) * EDGE_BYTES > budget:
            return rows, links, False
        new_row, new_col = new_row[fresh], new_col[fresh]
        edge_row = np.concatenate([edge_row, new_row])
        edge_col = np.concatenate([edge_col, new_col])
        edge_cost = np.concatenate([edge_cost, model.pair_cost(new_row, new_col) / scale])


def _match(n_ext, n_rel, cols, costs, padding):
    """The optimal matching of the graph of each row's candidates ``cols`` (rows sorted), the
    row duals ``u`` and the column potentials ``p`` (real columns, then each row's "no link"
    column); ``u`` and ``p`` are None when rounding left duals that break a candidate edge."""
    from attack.linkage.shortest_path import Assignment  # numba, loaded on first use

    edge_row = np.repeat(np.arange(n_ext), cols.shape[1])
    state = Assignment(n_ext, n_rel + n_ext)
    return _match_edges(state, n_rel, edge_row, cols.ravel(), costs.ravel(), padding)


def _match_edges(state, n_rel, edge_row, edge_col, edge_cost, padding):
    """``_match`` on a graph given by its edges (no pair twice) and the "no link" edges,
    continuing from the matching and potentials of ``state``."""
    n_ext = state.col_of_row.size
    row_of_edge = np.concatenate([edge_row, np.arange(n_ext)])
    col_of_edge = np.concatenate([edge_col, n_rel + np.arange(n_ext)])
    cost = np.concatenate([edge_cost, np.full(n_ext, padding)])
    state.solve(row_of_edge, col_of_edge, cost)
    rows = np.arange(n_ext, dtype=np.int64)
    links = state.col_of_row.copy()
    on = col_of_edge == links[row_of_edge]
    matched_cost = np.empty(n_ext)
    matched_cost[row_of_edge[on]] = cost[on]
    free = state.row_of_col < 0
    for attempt in range(2):
        if attempt == 0:
            p = state.potential.copy()
        else:  # the solver's potentials carry the rounding of its paths: recompute them from the
            # matching, as shortest paths of the constraints p_j <= p_m(i) + c_ij - c_i,m(i)
            other = ~on
            slack = cost[other] - matched_cost[row_of_edge[other]]
            try:
                p = _potentials(free.size, links[row_of_edge[other]], col_of_edge[other], slack, np.arange(free.size))
            except ArithmeticError:
                break
        p[free] = 0.0  # complementary slackness; the check below sees what it costs
        u = matched_cost - p[links]
        excess = u[row_of_edge] + p[col_of_edge] - cost  # dual feasibility on every candidate edge
        if not (np.any(p > 0) or np.any(excess > TOLERANCE * (np.abs(cost) + np.abs(u[row_of_edge]) + np.abs(p[col_of_edge])))):
            return rows, links, u, p
    return rows, links, None, None  # the duals break a candidate edge: no proof


def _proven(u, p, links, bound, embedded, n_rel) -> bool:
    """Whether the duals are feasible for every pair of the block (see the module docstring)."""
    if embedded is None:
        return bool(np.all(bound >= u - TOLERANCE * (1.0 + np.abs(u))))
    return _breaking(u, p, embedded, n_rel, 0)[0].size == 0


def _breaking(u, p, embedded, n_rel, k):
    """Pairs ``(rows, cols)`` among each row's ``k`` nearest lifted points that break dual
    feasibility ``c_ij − p_j ≥ u_i``; with ``k = 0`` only the rows that break it (cols empty)."""
    x_ext, x_rel, constant = embedded
    lift = np.sqrt(np.maximum(-p[:n_rel], 0.0))
    points = np.column_stack([x_rel, lift])
    queries = np.column_stack([x_ext, np.zeros(len(x_ext))])
    from scipy.spatial import cKDTree  # imported on use: a noticeable share of start-up

    tree = cKDTree(points)
    relative, grain, floor, _ = rounding(queries, points)

    def below(reach, dual):  # min over the pairs of c_ij - p_j, minus u_i and the slack
        square = np.square(reach)
        margin = (TOLERANCE + relative) * (square + abs(constant)) + TOLERANCE * (1.0 + np.abs(dual))
        return square - constant < dual - margin - grain * reach - floor

    reach, _ = tree.query(queries, k=1, workers=-1)
    bad = np.flatnonzero(below(reach, u))
    if k == 0 or bad.size == 0:
        return bad, np.zeros(0, dtype=np.int64)
    k = min(k, n_rel)
    reach, idx = tree.query(queries[bad], k=k, workers=-1)
    reach, idx = reach.reshape(bad.size, k), idx.reshape(bad.size, k)
    breaks = below(reach, u[bad, None])
    return np.repeat(bad, k)[breaks.ravel()], idx[breaks].astype(np.int64)
