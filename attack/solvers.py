"""Solve the assignment of one block and say how it was solved.

A block is small enough for the dense cost matrix when ``n_E · n_R · 8`` bytes fit the memory
budget; then the dense methods of :mod:`attack.assignment` run on it. Larger blocks go to the
candidate-based solvers (:mod:`attack.tree_greedy`, :mod:`attack.sparse_hungarian`), which
give the same links as the dense methods. Every solution records its solver and, for the
exact method, whether optimality is proven (METHOD.md §6: never degrade silently).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attack.assignment import assign
from attack.distances import DistanceModel

#: Default memory budget for one dense block cost matrix (bytes).
DEFAULT_MEMORY_BUDGET = 2 * 1024**3

#: Distances within this absolute tolerance of the chosen one count as ties (METHOD.md §7.3).
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class BlockTask:
    """Everything needed to solve one block, picklable for worker processes.

    ``model`` covers exactly the block's rows (see :meth:`DistanceModel.subset`); ``order`` is
    Procedure I's processing order of the block's external rows (None: input order).
    """

    index: int
    model: DistanceModel
    method: str
    order: np.ndarray | None = None
    memory_budget: int = DEFAULT_MEMORY_BUDGET


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

    @property
    def total(self) -> float:
        return float(self.distance.sum())


def solve_block(task: BlockTask) -> BlockSolution:
    """Assign the external to the release rows of one block with ``task.method``."""
    n_ext, n_rel = task.model.sizes
    if n_ext * n_rel * 8 <= task.memory_budget:
        return _dense(task)
    raise MemoryError(
        f"block {task.index} needs {n_ext * n_rel * 8 / 2**30:.1f} GiB as a dense matrix, "
        f"more than the budget of {task.memory_budget / 2**30:.1f} GiB"
    )


def _dense(task: BlockTask) -> BlockSolution:
    n_ext, n_rel = task.model.sizes
    cost = task.model.cost(np.arange(n_ext), np.arange(n_rel))
    rows, cols = assign(cost, task.method, task.order)
    chosen = cost[rows, cols]
    n_best = np.sum(np.abs(cost[rows] - chosen[:, None]) <= TIE_TOLERANCE, axis=1)
    optimal = True if task.method == "hungarian" else None
    return BlockSolution(task.index, rows, cols, chosen, n_best, "dense", optimal)
