"""Multi-pass blocking: the candidate pairs of several blocking passes, united.

One blocking pass compares only records that agree on all its blocking keys; an error in one
of them loses the pair. Several passes (first letter of the surname, OR the postcode, OR the
year of birth) lose a pair only when every pass loses it (docs/method/linkage.md, "Several
blocking passes"). A blocking entry ``a|b|c`` (``attack.AnyBlock``) offers alternatives; the
passes are every choice of one alternative per entry, so ``--block state --block
"surname:prefix=1|postcode"`` unites the passes (state, surname initial) and (state, postcode).

The pairs of all passes are united without duplicates (one integer per pair, ``np.unique``),
so a pair found by two passes is compared and counted once; memory grows with the number of
candidate pairs, never with ``n_E × n_R``. The one-to-one solvers need blocks whose pairs do
not interact with other blocks: these are the connected components of the candidate graph,
each carrying its candidate pairs (``BlockRows.pairs``). Inside a component a pair that no pass
proposed costs as much as leaving the record unlinked (the padding cost of eq. 13.6,
``CandidateModel``), and a link on such a pair is dropped.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import source_name
from attack.linkage.blocking import Block, Blocking, BlockRows, make_blocks

if TYPE_CHECKING:           # imported where the pass blocks are made (a linkage without passes never needs it)
    import scipy.sparse as sp

__all__ = ["CandidateModel", "block_passes", "make_pass_blocks"]


def block_passes(blocks: Sequence[Block], groups: Sequence[int]) -> list[tuple[Block, ...]]:
    """The passes of blocking keys ``blocks`` whose entry numbers are ``groups``: keys of one
    entry are alternatives, every pass takes one of each entry."""
    entries: dict[int, list[Block]] = {}
    for block, group in zip(blocks, groups, strict=True):
        entries.setdefault(group, []).append(block)
    return [tuple(choice) for choice in itertools.product(*entries.values())]


def make_pass_blocks(
    external: pd.DataFrame, release: pd.DataFrame, passes: Sequence[Sequence[Block]]
) -> Blocking:
    """Blocks (connected components with their candidate pairs) of the union of ``passes``."""
    n_ext, n_rel = len(external), len(release)
    found = []
    for keys in passes:
        try:
            blocking = make_blocks(external, release, keys)
        except InputError as exc:
            if "no external record shares its block" in exc.message:
                continue  # this pass proposes no pair; the others may
            raise
        for block in blocking:
            found.append((block.external[:, None] * n_rel + block.release[None, :]).ravel())
    if not found:
        raise InputError("no blocking pass puts an external record in a block with a release record; "
                         "check that both files use the same coding", file=source_name(external))
    code = np.unique(np.concatenate(found))
    del found
    ext, rel = code // n_rel, code % n_rel
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    graph = sp.coo_matrix((np.ones(code.size, dtype=np.int8), (ext, n_ext + rel)), shape=(n_ext + n_rel,) * 2)
    _, label = connected_components(graph, directed=False)
    component = label[ext]
    order = np.argsort(component, kind="stable")  # pairs stay sorted by code inside a component
    starts = np.flatnonzero(np.r_[True, np.diff(component[order]) != 0])
    blocks = []
    for number, (start, stop) in enumerate(zip(starts, np.r_[starts[1:], order.size], strict=True)):
        chosen = order[start:stop]
        rows, cols = np.unique(ext[chosen]), np.unique(rel[chosen])
        local = sp.csr_matrix(
            (np.ones(chosen.size, dtype=bool), (np.searchsorted(rows, ext[chosen]), np.searchsorted(cols, rel[chosen]))),
            shape=(rows.size, cols.size))
        blocks.append(BlockRows((f"component {number + 1}",), rows, cols, local))
    covered = np.zeros(n_ext, dtype=bool)
    covered[ext] = True
    return Blocking(tuple(blocks), np.flatnonzero(~covered), n_passes=len(passes))


@dataclass
class CandidateModel:
    """A block's distance model (``DistanceModel`` or ``MatchWeights``) restricted to its
    candidate pairs: any other pair costs ``barrier``, the padding cost ``D = Σ λ_k · fill_k``
    of not linking a record (eq. 13.6, as ``attack.linkage.sparse_hungarian`` prices it), so
    that a link on such a pair, dropped afterwards, stands for no link. Like ``MatchWeights``
    it has no embedding (no ``components``)."""

    model: Any
    pairs: sp.csr_matrix
    components: tuple = ()
    offsets: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scales: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def keys(self) -> Any:
        return self.model.keys

    @property
    def missing_values(self) -> np.ndarray:
        return self.model.missing_values

    @property
    def notes(self) -> tuple[str, ...]:
        return self.model.notes

    @property
    def sizes(self) -> tuple[int, int]:
        return self.model.sizes

    @property
    def barrier(self) -> float:
        return float(np.sum([k.weight * f for k, f in zip(self.keys, self.missing_values, strict=True)]))

    def cost(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Cost matrix of ``ext × rel``: only the candidate pairs are compared (``pair_cost``,
        bit for bit the entries of the model's matrix), the others are set to ``barrier``."""
        chosen = self.pairs[ext][:, rel].tocoo()
        out = np.full((len(ext), len(rel)), self.barrier)
        if chosen.nnz:
            out[chosen.row, chosen.col] = self.model.pair_cost(ext[chosen.row], rel[chosen.col])
        return out

    def pair_cost(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        out = self.model.pair_cost(ext, rel)
        out[~self.allowed(ext, rel)] = self.barrier
        return out

    def allowed(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """Whether each pair ``(ext[k], rel[k])`` is a candidate."""
        return np.asarray(self.pairs[ext, rel]).ravel().astype(bool)
