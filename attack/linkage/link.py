"""The intruder's mass linkage (handbook §13.4, docs/method/linkage.md).

Block both files, compute standardised weighted distances inside each block and assign
external to release records. The matcher sees only the key and blocking columns: identifiers
and every other column are dropped before linkage starts (docs/method/risk.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import Table, as_table, source_name
from attack.linkage import fellegi_sunter
from attack.linkage.blocking import Blocking
from attack.linkage.calibration import chance_probability
from attack.linkage.distances import DistanceModel, build_distance_model
from attack.linkage.engines import map_blocks
from attack.linkage.limits import DEFAULT_MEMORY_BUDGET
from attack.linkage.passes import CandidateModel
from attack.linkage.settings import Linkage
from attack.linkage.solvers import BlockSolution, BlockTask, greedy_dense_bound, solve_block

if TYPE_CHECKING:
    import scipy.sparse as sp


@dataclass
class Links:
    """Result of a linkage: one entry per external record (row position in the external file).

    ``release_row`` is −1 where the record got no link; ``n_best`` counts the release records of
    its block at the chosen distance (ties, docs/method/linkage.md). ``match_probability`` is
    each link's probability (NaN without a link), ``probability_model`` how it was estimated
    (docs/method/intruder-confidence.md). For the Fellegi–Sunter intruder ``distance`` is the
    cost ``W_max − W`` and ``model`` its ``MatchWeights``.
    """

    release_row: np.ndarray
    distance: np.ndarray
    n_best: np.ndarray
    blocking: Blocking
    model: DistanceModel | fellegi_sunter.MatchWeights
    spec: Linkage
    solutions: list[BlockSolution] = field(default_factory=list)
    match_probability: np.ndarray | None = None
    probability_model: dict = field(default_factory=dict)

    @property
    def block_totals(self) -> list[float]:
        """Total distance of the links of every block, in block order."""
        return [s.total for s in self.solutions]

    @property
    def linked(self) -> np.ndarray:
        return self.release_row >= 0

    def to_dict(self) -> dict:
        out = self.spec.to_dict()
        out.update(self.blocking.to_dict())
        out["total_distance"] = float(self.distance[self.linked].sum())
        out["n_links"] = int(self.linked.sum())
        out["n_tied_links"] = int((self.n_best[self.linked] > 1).sum())
        solvers = sorted({s.solver for s in self.solutions})
        out["solvers"] = {name: sum(s.solver == name for s in self.solutions) for name in solvers}
        if self.spec.method == "hungarian":
            out.update(self._matcher_audit())
        if self.model.notes:
            out["notes"] = list(self.model.notes)
        if self.probability_model:
            out["match_probability"] = self.probability_model
        return out


    def _matcher_audit(self) -> dict:
        """Exact vs Procedure II per block (docs/method/linkage.md item 7): how many blocks are
        proven optimal, which are not, and how much longer the greedy links are in total."""
        audited = [(s.greedy_total, s.total) for s in self.solutions if s.greedy_total is not None]
        greedy_total = sum(greedy for greedy, _ in audited)
        exact_total = sum(exact for _, exact in audited)
        return {
            "optimal_blocks": sum(bool(s.optimal) for s in self.solutions),
            "approximate_blocks": [s.index for s in self.solutions if not s.optimal],
            "greedy_audit": {
                "blocks": len(audited),
                "exact_total_distance": exact_total,
                "greedy_total_distance": greedy_total,
                "gap": greedy_total - exact_total,
            },
        }


def link(
    external: Table | pd.DataFrame,
    release: Table | pd.DataFrame,
    spec: Linkage,
    *,
    engine: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    blocking: Blocking | None = None,
) -> Links:
    """Run the mass linkage of ``external`` against ``release`` (docs/method/linkage.md).

    Blocks are solved independently by ``engine`` with ``jobs`` workers (all cores when None),
    on the Dask cluster at ``scheduler`` if given (``attack.engines.map_blocks``); the links
    do not depend on these options. ``progress`` shows a progress line on a terminal. A block
    whose dense cost matrix exceeds ``memory_budget`` bytes goes to a candidate-based solver.
    ``blocking`` reuses the blocks of an earlier linkage of the same files with the same blocks
    (``spec.make_blocking``; the blocks do not depend on the keys).
    """
    ext = _only(external, spec.external_columns())
    rel = _only(release, spec.release_columns())
    seed = 0 if spec.seed is None else spec.seed
    model: DistanceModel | fellegi_sunter.MatchWeights
    if spec.intruder == "fellegi-sunter":
        blocking = spec.make_blocking(ext, rel) if blocking is None else blocking
        fitted = fellegi_sunter.fit(ext, rel, spec.keys, blocking, seed=seed)
        model = fitted.weights
    else:
        model = build_distance_model(
            ext, rel, spec.keys, standardise=spec.standardise, metric_distance=spec.metric_distance,
            winsorise=spec.winsorise,
        )
        blocking = spec.make_blocking(ext, rel) if blocking is None else blocking
    rank = _sequential_rank(len(ext), spec)
    greedy_bound = greedy_dense_bound(((len(b.external), len(b.release)) for b in blocking), memory_budget)
    tasks = [
        BlockTask(
            index=i,
            model=_restricted(model.subset(block.external, block.release), block.pairs),  # type: ignore[arg-type]  # BlockTask.model (solvers.py) says DistanceModel; it takes any block model
            method=spec.method,
            order=None if rank is None else np.argsort(rank[block.external], kind="stable"),
            memory_budget=memory_budget,
            greedy_dense_pairs=greedy_bound,
        )
        for i, block in enumerate(blocking)
    ]
    solutions = map_blocks(
        solve_block, tasks, engine, jobs=jobs, scheduler=scheduler, progress=progress
    )
    release_row = np.full(len(ext), -1, dtype=np.int64)
    distance = np.full(len(ext), np.nan)
    n_best = np.zeros(len(ext), dtype=np.int64)
    for block, solution in zip(blocking, solutions, strict=True):
        keep: slice | np.ndarray = slice(None)
        if block.pairs is not None:  # a pair no blocking pass proposed is no link
            keep = np.asarray(block.pairs[solution.rows, solution.cols]).ravel().astype(bool)
        rows = block.external[solution.rows[keep]]
        release_row[rows] = block.release[solution.cols[keep]]
        distance[rows] = solution.distance[keep]
        n_best[rows] = solution.n_best[keep]
    if spec.intruder == "fellegi-sunter":
        probability = np.where(release_row >= 0, fitted.probability(fitted.weights.top - distance), np.nan)
        about = fitted.to_dict()
    else:
        probability, about = chance_probability(model, blocking, release_row, distance, seed=seed)
    return Links(release_row, distance, n_best, blocking, model, spec, solutions, probability, about)


def _restricted(model: DistanceModel | fellegi_sunter.MatchWeights,
                pairs: sp.csr_matrix | None) -> DistanceModel | fellegi_sunter.MatchWeights | CandidateModel:
    return model if pairs is None else CandidateModel(model, pairs)


def _only(data: Table | pd.DataFrame, columns: Sequence[str]) -> Table:
    """The table with only ``columns`` (what the matcher may see), its source kept."""
    table = as_table(data)
    missing = [c for c in columns if c not in table.frame.columns]
    if missing:
        raise InputError("column is missing", file=source_name(table), column=missing[0])
    return table.with_frame(table.frame[list(columns)])


def _sequential_rank(n_ext: int, spec: Linkage) -> np.ndarray | None:
    """Position of each external record in Procedure I's processing order (None: input order)."""
    if spec.method != "sequential" or spec.seed is None:
        return None
    perm = np.random.default_rng(spec.seed).permutation(n_ext)
    rank = np.empty(n_ext, dtype=np.int64)
    rank[perm] = np.arange(n_ext)
    return rank

