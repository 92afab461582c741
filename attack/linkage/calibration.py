"""Match probability of the distance intruder's links, calibrated against chance.

For a link of distance ``d`` in a block with ``N`` release records, ``F(d)`` is the share of
random pairs of that block (seeded sample, ``RANDOM_PAIRS`` over all blocks, the links
themselves left out: most matches among random pairs are links) whose distance is at most ``d``. If the external record had no counterpart in the release, each of the other
``N − 1`` release records (with multi-pass blocking: its other candidates) would come this close by chance with probability ``F(d)``; the link's
probability is ``(1 − F(d))^(N − 1)``, the chance that none does (docs/method/intruder-confidence.md).
For an external record without counterpart this probability is spread evenly over [0, 1], so
at most about ``1 − P`` of such records reach a threshold ``P``; correct links, closer than
chance, come near 1. It is a calibration against chance, not a posterior probability.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from attack.linkage.blocking import Blocking

if TYPE_CHECKING:
    from attack.linkage.distances import DistanceModel
    from attack.linkage.fellegi_sunter import MatchWeights
    from attack.linkage.passes import CandidateModel

#: Random within-block pairs whose distances describe chance.
RANDOM_PAIRS = 1_000_000


def chance_probability(
    model: DistanceModel | MatchWeights | CandidateModel,
    blocking: Blocking,
    release_row: np.ndarray,
    distance: np.ndarray,
    *,
    seed: int = 0,
    random_pairs: int = RANDOM_PAIRS,
) -> tuple[np.ndarray, dict]:
    """Per external record the probability of its link (NaN without a link) and a JSON-ready
    description of the calibration. ``model`` is the linkage's distance model over the files."""
    rng = np.random.default_rng(seed)
    probability = np.full(release_row.size, np.nan)
    blocks = list(blocking)
    sizes = np.array([b.n_pairs for b in blocks], dtype=float)
    share = sizes / sizes.sum() if sizes.sum() else sizes
    drawn = 0
    for block, part in zip(blocks, share, strict=True):
        n_rel = len(block.release)
        links = block.external[release_row[block.external] >= 0]
        if links.size == 0:
            continue
        n = int(max(1, min(round(part * random_pairs), block.n_pairs)))
        if block.pairs is None:
            ext = block.external[rng.integers(0, len(block.external), n)]
            rel = block.release[rng.integers(0, n_rel, n)]
            rivals = np.full(links.size, n_rel - 1)
        else:  # multi-pass blocking: chance among the candidate pairs; rivals are a record's candidates
            rows, cols = block.pairs.nonzero()
            pick = rng.integers(0, rows.size, n)
            ext, rel = block.external[rows[pick]], block.release[cols[pick]]
            degree = np.diff(block.pairs.indptr)
            rivals = degree[np.searchsorted(block.external, links)] - 1
        other = release_row[ext] != rel  # a link itself is no chance pair
        chance = np.sort(model.pair_cost(ext[other], rel[other]))
        drawn += chance.size
        below = np.searchsorted(chance, distance[links], side="right") / max(chance.size, 1)
        probability[links] = (1.0 - below) ** rivals
    return probability, {"model": "chance calibration of the distance", "random_pairs": drawn, "seed": seed}
