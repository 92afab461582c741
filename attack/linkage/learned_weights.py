"""Key weights learned from known pairs: the intruder who knows part of the truth (the worst case).

Abril, Navarro-Arribas & Torra (2012) let the intruder choose the weights of the weighted
distance ``d_w(a, b) = Σ_k w_k d̃_k(a, b)`` (``d̃_k`` the standardised distance of key k) so that
as many known pairs as possible come out closer than every competing release record. For a known
pair (external record i, its release record t(i)) and a competitor j of i's block let
``Δ_k(i, j) = d̃_k(i, j) − d̃_k(i, t(i))``. With ``Δ`` divided by its largest absolute value
(so ``|Σ_k w_k Δ_k| ≤ 1``) the programme solved here is::

    minimise    Σ_i K_i + δ Σ_ij ξ_ij
    subject to  Σ_k w_k Δ_k(i, j) + (1 + ε) K_i ≥ ε     every known record i, competitor j
                Σ_k w_k Δ_k(i, j) + ξ_ij ≥ μ
                Σ_k w_k = 1,  w ≥ 0,  K_i ∈ {0, 1},  ξ ≥ 0

``K_i = 1`` gives record i up; a record with ``K_i = 0`` has its partner closer than all its
competitors by at least ``ε``. The first term counts the records given up (Abril et al.'s
objective); the second, the hinge of the margin ``μ``, only picks among the weights that give up
equally few: ``δ`` is so small that all of it weighs less than one record. A key that does not
tell pairs apart gains nothing in the count and loses in the hinge, so it gets weight near 0.
The programme is solved by SciPy's ``milp`` (HiGHS) with a node limit, so the same inputs give
the same weights on every machine.

Competitors are sampled within the blocks to keep the programme small: per known record the
``NEAREST`` release records of its block nearest under the current weights (the spec's to begin
with) and ``RANDOM`` random ones (seeded); after each solution the records nearest under the
learned weights join, and the programme is solved again, up to ``ROUNDS`` times or until no new
competitor appears. At most ``MAX_KNOWN`` known pairs are used (a seeded sample).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from attack.linkage.blocking import Blocking, BlockRows
from attack.linkage.distances import DistanceModel

#: Competitors per known record: nearest under the current weights, and random ones of its block.
NEAREST = 5
RANDOM = 5
#: Solve–add nearest competitors–solve again, at most this many times.
ROUNDS = 3
#: Known pairs entering the programme (a seeded sample when the intruder knows more).
MAX_KNOWN = 300
#: Smallest margin that counts as closer, and the margin of the tie-breaking hinge (scaled Δ).
EPSILON = 1e-6
MARGIN = 0.05
#: Branch-and-bound nodes HiGHS may explore (a deterministic limit, unlike a time limit).
NODE_LIMIT = 20_000
#: Distances computed at once when looking for the nearest competitors.
CHUNK_PAIRS = 2_000_000


@dataclass(frozen=True)
class Separation:
    """Solution of the programme: weights summing to 1, the records separated, optimality."""

    weights: np.ndarray
    n_separated: int
    optimal: bool


def separated(delta: np.ndarray, record: np.ndarray, weights: np.ndarray, n_records: int) -> int:
    """Records whose every constraint ``Σ_k w_k Δ_k ≥ ε`` holds (``delta`` already scaled)."""
    ok = delta @ weights >= EPSILON * (1 - 1e-9)
    failed = np.zeros(n_records, dtype=bool)
    failed[record[~ok]] = True
    return int(n_records - failed.sum())


def separating_weights(delta: np.ndarray, record: np.ndarray, n_records: int) -> Separation:
    """Non-negative weights summing to 1 that separate the most records (module docstring).

    ``delta`` (pairs × keys) holds ``Δ_k(i, j)`` scaled to ``|Δ| ≤ 1``, ``record`` the known
    record (0 … ``n_records`` − 1) of each row. Falls back to equal weights when HiGHS finds no
    solution within the node limit.
    """
    from scipy import sparse
    from scipy.optimize import Bounds, LinearConstraint, milp  # imported on use: start-up

    n_pairs, n_keys = delta.shape
    if n_pairs == 0:
        return Separation(np.full(n_keys, 1.0 / n_keys), n_records, True)
    delta_matrix = sparse.csr_matrix(delta)
    give_up = sparse.csr_matrix((np.full(n_pairs, 1.0 + EPSILON), (np.arange(n_pairs), record)),
                                shape=(n_pairs, n_records))
    no_k = sparse.csr_matrix((n_pairs, n_records))
    no_xi = sparse.csr_matrix((n_pairs, n_pairs))
    matrix = sparse.vstack([
        sparse.hstack([delta_matrix, give_up, no_xi]),
        sparse.hstack([delta_matrix, no_k, sparse.identity(n_pairs, format="csr")]),
        sparse.hstack([sparse.csr_matrix(np.ones((1, n_keys))), sparse.csr_matrix((1, n_records + n_pairs))]),
    ]).tocsr()
    lower = np.concatenate([np.full(n_pairs, EPSILON), np.full(n_pairs, MARGIN), [1.0]])
    upper = np.concatenate([np.full(2 * n_pairs, np.inf), [1.0]])
    delta_weight = 1.0 / (n_pairs * (MARGIN + 1.0) + 1.0)
    cost = np.concatenate([np.zeros(n_keys), np.ones(n_records), np.full(n_pairs, delta_weight)])
    integrality = np.concatenate([np.zeros(n_keys), np.ones(n_records), np.zeros(n_pairs)])
    bounds = Bounds(np.zeros(cost.size), np.concatenate([np.ones(n_keys + n_records), np.full(n_pairs, np.inf)]))
    result = milp(cost, constraints=LinearConstraint(matrix, lower, upper), integrality=integrality,
                  bounds=bounds, options={"node_limit": NODE_LIMIT})
    if result.x is None:
        weights = np.full(n_keys, 1.0 / n_keys)
        return Separation(weights, separated(delta, record, weights, n_records), False)
    weights = result.x[:n_keys].copy()
    weights[weights < 1e-9] = 0.0  # solver round-off, not a weight
    weights /= weights.sum()
    return Separation(weights, separated(delta, record, weights, n_records), result.status == 0)


@dataclass(frozen=True)
class LearnedWeights:
    """Key weights the intruder learned from the pairs he knows, and how well they separate them.

    ``weights`` are scaled to sum to the number of keys (the spec's default weights are 1 each);
    ``n_separated`` and ``n_separated_given`` count the known pairs whose partner is closer than
    every sampled competitor under the learned and under the given weights.
    """

    keys: tuple[str, ...]
    weights: tuple[float, ...]
    n_known: int
    n_used: int
    n_constraints: int
    n_separated: int
    n_separated_given: int
    rounds: int
    optimal: bool

    def to_dict(self) -> dict:
        return {
            "weights": dict(zip(self.keys, self.weights, strict=True)),
            "known_pairs": self.n_known,
            "known_pairs_used": self.n_used,
            "constraints": self.n_constraints,
            "separated_learned": self.n_separated,
            "separated_given": self.n_separated_given,
            "rounds": self.rounds,
            "optimal": self.optimal,
        }


def key_distances(model: DistanceModel, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
    """Standardised distance of every key (columns) for the pairs ``(ext[p], rel[p])`` (rows)."""
    columns = []
    for k in range(len(model.keys)):
        alone = tuple(key.model_copy(update={"weight": 1.0 if j == k else 0.0}) for j, key in enumerate(model.keys))
        columns.append(replace(model, keys=alone).pair_cost(ext, rel))
    return np.stack(columns, axis=1)


def _nearest(model: DistanceModel, weights: np.ndarray, ext: np.ndarray, true_rel: np.ndarray,
             candidates: np.ndarray, count: int) -> list[np.ndarray]:
    """Per known record the ``count`` release rows of ``candidates`` (its block) nearest under
    ``weights``, its partner left out."""
    weighted = replace(model, keys=tuple(k.model_copy(update={"weight": float(w)}) for k, w in zip(model.keys, weights, strict=True)))
    step = max(1, CHUNK_PAIRS // max(candidates.size, 1))
    out: list[np.ndarray] = []
    for start in range(0, ext.size, step):
        cost = weighted.cost(ext[start:start + step], candidates)
        cost[candidates[None, :] == true_rel[start:start + step, None]] = np.inf
        keep = min(count, candidates.size - 1)
        if keep <= 0:
            out.extend(np.zeros(0, dtype=np.int64) for _ in range(cost.shape[0]))
            continue
        near = np.argpartition(cost, keep - 1, axis=1)[:, :keep]
        out.extend(candidates[row] for row in near)
    return out


def learn_weights(
    model: DistanceModel,
    blocking: Blocking,
    known_ext: np.ndarray,
    known_rel: np.ndarray,
    *,
    seed: int = 0,
    max_known: int = MAX_KNOWN,
) -> LearnedWeights:
    """Learn key weights from known pairs ``(known_ext[p], known_rel[p])`` (rows of the files
    ``model`` covers); pairs whose records share no block are not usable (module docstring)."""
    rng = np.random.default_rng(seed)
    block_of = np.full(model.sizes[0], -1, dtype=np.int64)
    rel_block = np.full(model.sizes[1], -1, dtype=np.int64)
    blocks = list(blocking)
    for b, block in enumerate(blocks):
        block_of[block.external] = b
        rel_block[block.release] = b
    usable = np.flatnonzero((block_of[known_ext] >= 0) & (block_of[known_ext] == rel_block[known_rel]))
    if usable.size > max_known:
        usable = np.sort(rng.choice(usable, max_known, replace=False))
    ext, true_rel = known_ext[usable], known_rel[usable]
    given = np.array([k.weight for k in model.keys], dtype=float)
    given = given / given.sum()
    competitors: list[set[int]] = [set() for _ in range(ext.size)]
    for p in range(ext.size):
        pool = blocks[block_of[ext[p]]].release
        pool = pool[pool != true_rel[p]]
        competitors[p].update(int(r) for r in rng.choice(pool, min(RANDOM, pool.size), replace=False))
    weights, solution, rounds = given, None, 0
    for rounds in range(1, ROUNDS + 1):
        added = _add_nearest(model, weights, blocks, block_of, ext, true_rel, competitors)
        if solution is not None and not added:
            rounds -= 1
            break
        delta, record = _differences(model, ext, true_rel, competitors)
        solution = separating_weights(delta, record, ext.size)
        weights = solution.weights
    delta, record = _differences(model, ext, true_rel, competitors)
    keys = tuple(k.name for k in model.keys)
    scaled = weights * len(keys)
    return LearnedWeights(
        keys=keys,
        weights=tuple(float(w) for w in scaled),
        n_known=int(known_ext.size),
        n_used=int(ext.size),
        n_constraints=int(delta.shape[0]),
        n_separated=separated(delta, record, weights, ext.size),
        n_separated_given=separated(delta, record, given, ext.size),
        rounds=rounds,
        optimal=bool(solution is None or solution.optimal),
    )


def _add_nearest(model: DistanceModel, weights: np.ndarray, blocks: Sequence[BlockRows], block_of: np.ndarray,
                 ext: np.ndarray, true_rel: np.ndarray, competitors: list[set[int]]) -> bool:
    """Add each known record's nearest competitors under ``weights``; True when any is new."""
    added = False
    for b in np.unique(block_of[ext]):
        rows = np.flatnonzero(block_of[ext] == b)
        for p, near in zip(rows, _nearest(model, weights, ext[rows], true_rel[rows], blocks[b].release, NEAREST), strict=True):
            before = len(competitors[p])
            competitors[p].update(int(r) for r in near)
            added = added or len(competitors[p]) > before
    return added


def _differences(model: DistanceModel, ext: np.ndarray, true_rel: np.ndarray,
                 competitors: Sequence[set[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Scaled ``Δ`` rows (competitor minus partner, per key) and the known record of each row."""
    record = np.repeat(np.arange(ext.size), [len(c) for c in competitors])
    rival = np.fromiter((r for c in competitors for r in sorted(c)), dtype=np.int64, count=record.size)
    if record.size == 0:
        return np.zeros((0, len(model.keys))), record
    own = key_distances(model, ext, true_rel)
    delta = key_distances(model, ext[record], rival) - own[record]
    top = np.abs(delta).max()
    return (delta / top if top > 0 else delta), record


def reweighted(keys: Sequence, learned: LearnedWeights) -> tuple:
    """The keys with the learned weights."""
    weights = dict(zip(learned.keys, learned.weights, strict=True))
    return tuple(k.model_copy(update={"weight": weights[k.name]}) for k in keys)


__all__ = ["LearnedWeights", "Separation", "key_distances", "learn_weights", "reweighted", "separated",
           "separating_weights"]
