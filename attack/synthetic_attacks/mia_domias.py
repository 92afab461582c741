"""The density-ratio attack on membership, in the spirit of DOMIAS (docs/method/membership-family.md).

van Breugel, Sun, Qian & van der Schaar (2023): a generator that overfits puts more density at
its training records than the population has, so the intruder scores a record by the ratio of
the synthetic file's density to the population's, ``p_S(x) / p_R(x)``, both estimated from data.
Here both are Gaussian kernel densities in the encoded space of ``attack.synthetic_attacks.mia_vectors``
with one isotropic bandwidth ``h`` (Scott's factor), so the ratio has no kernel constant:

    score(x) = log mean_S exp(−‖x−s‖²/2h²) − log mean_R exp(−‖x−r‖²/2h²).
"""

from __future__ import annotations

import numpy as np

from attack.synthetic_attacks.mia_game import Game
from attack.synthetic_attacks.mia_vectors import neighbourhood

#: The k of the shared neighbourhood scan (the local-density attack's k).
SCAN_K = 5


class DensityRatioAttack:
    """Log ratio of the synthetic and reference kernel densities at each scored record."""

    name = "density_ratio"
    assumes = "the synthetic file and a reference sample of the population"

    def score(self, game: Game) -> np.ndarray:
        return neighbourhood(game, "synthetic", SCAN_K)[0] - neighbourhood(game, "reference", SCAN_K)[0]


__all__ = ["DensityRatioAttack"]
