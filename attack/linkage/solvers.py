"""Solve the assignment of one block and say how it was solved.

A block is small enough for the dense cost matrix when ``n_E · n_R · 16`` bytes (the matrix and
one working copy) fit the memory budget; then the dense methods of ``attack.assignment`` run on it. Larger blocks go to the
candidate-based solvers (``attack.tree_greedy``, ``attack.sparse_hungarian``), which
give the same links as the dense methods. Every solution records its solver and, for the
exact method, whether optimality is proven (docs/method/linkage.md: never degrade silently).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from attack.linkage import sparse_hungarian
from attack.linkage.assignment import TIE_TOLERANCE, assign, greedy
from attack.linkage.candidates import (
    embedding,
    tree_greedy,
    tree_nearest,
    tree_sequential,
)
from attack.linkage.chunked import chunked
from attack.linkage.distances import DistanceModel
from attack.linkage.engines import SECONDS_PER_DENSE_PAIR
from attack.linkage.fellegi_sunter import MatchWeights
from attack.linkage.limits import (
    DEFAULT_MEMORY_BUDGET,
    DENSE_BYTES_PER_PAIR,
    DENSE_PAIRS,
    GREEDY_DENSE_PAIRS,
    LOADED_DENSE_PAIRS,
    LOOP_LOAD_SECONDS,
)


@dataclass(frozen=True)
class BlockTask:
    """Everything needed to solve one block, picklable for worker processes.

    ``model`` covers exactly the block's rows (see ``DistanceModel.subset``); ``order`` is
    Procedure I's processing order of the block's external rows (None: input order);
    ``greedy_dense_pairs`` the run's bound up to which a Procedure II block is solved dense
    (``greedy_dense_bound``; None: ``GREEDY_DENSE_PAIRS``).
    """

    index: int
    model: DistanceModel
    method: str
    order: np.ndarray | None = None
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    greedy_dense_pairs: int | None = None


@dataclass(frozen=True)
class BlockSolution:
    """Links of one block in local row numbers, with their distances and tie counts."""

    index: int
    rows: np.ndarray
    cols: np.ndarray
    distance: np.ndarray
    n_best: np.ndarray
    solver: str
    optimal: bool | None = None
    greedy_total: float | None = None

    @property
    def total(self) -> float:
        return float(self.distance.sum())


def solve_block(task: BlockTask) -> BlockSolution:
    """Assign the external to the release rows of one block with ``task.method``.

    Small blocks use the dense matrix. Larger ones use, for the exact method, the sparse
    candidate graph with its proof of optimality (``attack.linkage.sparse_hungarian``; the
    dense matrix when the proof fails and the matrix fits the budget); for the other methods
    the certified KD-tree candidates when the distance embeds (``attack.linkage.candidates``),
    Procedure II on Fellegi–Sunter weights by level combinations (``attack.linkage.fs_candidates``),
    else row chunks of the matrix that fit the budget.
    """
    n_ext, n_rel = task.model.sizes
    dense_fits = n_ext * n_rel * DENSE_BYTES_PER_PAIR <= task.memory_budget
    if task.method == "hungarian":
        if dense_fits and n_ext * n_rel <= DENSE_PAIRS:
            return _dense(task)
        rows, cols, dist, n_best, proven = sparse_hungarian.solve(task.model, task.memory_budget)
        if not proven and dense_fits:  # the candidate graph could not prove it: solve it dense
            return _dense(task)
        greedy_total = _greedy_total(task.model)
        return BlockSolution(task.index, rows, cols, dist, n_best, "sparse", proven, greedy_total)
    greedy_bound = GREEDY_DENSE_PAIRS if task.greedy_dense_pairs is None else task.greedy_dense_pairs
    small = DENSE_PAIRS if task.method != "greedy" else min(DENSE_PAIRS, greedy_bound)
    if n_ext * n_rel <= small and dense_fits:
        return _dense(task)
    embedded = embedding(task.model)
    if embedded is not None:
        solve = {"greedy": tree_greedy, "nearest": tree_nearest}.get(task.method)
        if solve is not None:
            rows, cols, dist, n_best = solve(task.model, embedded)
        else:
            rows, cols, dist, n_best = tree_sequential(task.model, embedded, task.order)
        return BlockSolution(task.index, rows, cols, dist, n_best, "kd-tree")
    if task.method == "greedy" and isinstance(task.model, MatchWeights):
        from attack.linkage import fs_candidates  # numba, loaded on first use

        found = fs_candidates.level_greedy(task.model)
        if found is not None:
            return BlockSolution(task.index, *found, "match-levels")
    if dense_fits:
        return _dense(task)
    rows, cols, dist, n_best = chunked(task.model, task.method, task.order, task.memory_budget)
    return BlockSolution(task.index, rows, cols, dist, n_best, "chunked")


def greedy_dense_bound(sizes: Iterable[tuple[int, int]], memory_budget: int = DEFAULT_MEMORY_BUDGET) -> int:
    """The bound of pairs up to which a run's Procedure II blocks are solved dense.

    The k-d tree beats the dense matrix above ``GREEDY_DENSE_PAIRS`` once its compiled loops are
    loaded, but loading them costs a fresh process ``LOOP_LOAD_SECONDS``. When every block of
    the run (``sizes``: external and release rows of each) above that bound has at most
    ``LOADED_DENSE_PAIRS`` pairs and fits the memory budget, and solving them all dense takes
    less than the loading, they are solved dense: the same links, distances and tie counts
    (the tree's are the dense ones), without the loops.
    """
    larger = [n_ext * n_rel for n_ext, n_rel in sizes if n_ext * n_rel > GREEDY_DENSE_PAIRS]
    if all(p <= LOADED_DENSE_PAIRS and p * DENSE_BYTES_PER_PAIR <= memory_budget for p in larger) and (
            sum(larger) * SECONDS_PER_DENSE_PAIR <= LOOP_LOAD_SECONDS):
        return LOADED_DENSE_PAIRS
    return GREEDY_DENSE_PAIRS


def _dense(task: BlockTask) -> BlockSolution:
    n_ext, n_rel = task.model.sizes
    cost = task.model.cost(np.arange(n_ext), np.arange(n_rel))
    rows, cols = assign(cost, task.method, task.order)
    chosen = cost[rows, cols]
    n_best = np.empty(rows.size, dtype=np.int64)
    step = max(1, 2**22 // max(n_rel, 1))  # count ties in slices of rows, not on a copy
    in_order = rows.size == n_ext and bool(np.all(rows == np.arange(n_ext)))
    for start in range(0, rows.size, step):
        part = slice(start, start + step)
        block = cost[part] if in_order else cost[rows[part]]  # a view when the rows are all in order
        near = np.abs(block - chosen[part, None]) <= TIE_TOLERANCE
        n_best[part] = near.sum(axis=1)
    if task.method != "hungarian":
        return BlockSolution(task.index, rows, cols, chosen, n_best, "dense")
    return BlockSolution(
        task.index, rows, cols, chosen, n_best, "dense", True, _greedy_total(task.model, cost)
    )


def _greedy_total(model: DistanceModel, cost: np.ndarray | None = None) -> float | None:
    """Total distance of Procedure II on the block, for the gap to the exact optimum
    (docs/method/linkage.md: the tool measures it); None when it would need a dense matrix that is
    not at hand."""
    n_ext, n_rel = model.sizes
    embedded = embedding(model) if n_ext * n_rel > DENSE_PAIRS or cost is None else None
    if embedded is not None:
        return float(tree_greedy(model, embedded)[2].sum())
    if cost is None:
        return None
    return float(cost[greedy(cost)].sum())
