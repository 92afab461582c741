"""The local-neighbourhood density attack on membership (docs/method/membership-family.md).

A generator that learnt a record puts more synthetic mass near it than the population has. The
k-nearest-neighbour density estimate at ``x`` from a file of ``n`` records is proportional to
``k / (n · r_k(x)^D)``, with ``r_k`` the distance to the k-th nearest record; the ratio of the
synthetic estimate to the reference estimate is a constant times ``(r_R(x) / r_S(x))^D``, so the
attack ranks records by

    score(x) = log(r_R(x) + ε) − log(r_S(x) + ε)

(k = 5 by default, ε = 10⁻⁹ so that a synthetic copy at distance 0 scores highest). The
dimension ``D`` and the file sizes only rescale or shift the score and leave the ranks alone.
"""

from __future__ import annotations

import numpy as np

from attack.synthetic.mia_game import Game

#: Guard against the logarithm of 0 (Gower distances lie in [0, 1]).
EPSILON = 1e-9


class LocalDensityAttack:
    """Ratio of the k-th nearest reference and synthetic distances."""

    name = "local_density"
    assumes = "the synthetic file and a reference sample of the population"

    def __init__(self, k: int = 5) -> None:
        self.k = k

    def score(self, game: Game) -> np.ndarray:
        r_s = game.to_synthetic(self.k).distances[:, -1]
        r_r = game.to_reference(self.k).distances[:, -1]
        return np.log(r_r + EPSILON) - np.log(r_s + EPSILON)


__all__ = ["LocalDensityAttack"]
