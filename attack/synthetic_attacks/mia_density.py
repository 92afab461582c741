"""The local-neighbourhood density attack on membership (docs/method/membership-family.md).

A generator that learnt a record puts more synthetic mass near it than the population has. The
k-nearest-neighbour density estimate at ``x`` from a file of ``n`` records is proportional to
``k / (n · r_k(x)^D)``, with ``r_k`` the distance to the k-th nearest record; the ratio of the
synthetic estimate to the reference estimate is a constant times ``(r_R(x) / r_S(x))^D``, so the
attack ranks records by

    score(x) = log(r_R(x) + ε) − log(r_S(x) + ε)

with k = 5, the Euclidean distance of the encoded space of ``attack.synthetic_attacks.mia_vectors``
and ε = 10⁻⁹ (a synthetic copy at distance 0 scores highest). The dimension ``D`` and the file
sizes only rescale or shift the score and leave the ranks alone.
"""

from __future__ import annotations

import numpy as np

from attack.synthetic_attacks.mia_domias import SCAN_K
from attack.synthetic_attacks.mia_game import Game
from attack.synthetic_attacks.mia_vectors import neighbourhood

#: Guard against the logarithm of 0.
EPSILON = 1e-9


class LocalDensityAttack:
    """Ratio of the k-th nearest reference and synthetic distances (k = 5)."""

    name = "local_density"
    assumes = "the synthetic file and a reference sample of the population"

    def score(self, game: Game) -> np.ndarray:
        r_s = neighbourhood(game, "synthetic", SCAN_K)[1]
        r_r = neighbourhood(game, "reference", SCAN_K)[1]
        return np.log(r_r + EPSILON) - np.log(r_s + EPSILON)


__all__ = ["LocalDensityAttack"]
