"""Distance attacks on membership (docs/method/membership-family.md).

* **DCR**: a record close to a synthetic record is more likely a member; score ``−d_S(x)``, the
  distance from ``x`` to its nearest synthetic record. Needs the synthetic file only.
* **DCR difference**: the same distance measured against what the population itself gives,
  ``d_R(x) − d_S(x)`` with ``d_R`` the distance to the nearest reference record (a record in a
  dense region is close to synthetic records whether or not it was used). Needs a reference sample.
"""

from __future__ import annotations

import numpy as np

from attack.synthetic_attacks.mia_game import Game


class DcrAttack:
    """Score ``−`` distance to the closest synthetic record."""

    name = "dcr"
    assumes = "the synthetic file"

    def score(self, game: Game) -> np.ndarray:
        return -game.to_synthetic(1).distances[:, 0]


class DcrDifferenceAttack:
    """Score ``d_R(x) − d_S(x)``: closer to the synthetic file than to the reference."""

    name = "dcr_difference"
    assumes = "the synthetic file and a reference sample of the population"

    def score(self, game: Game) -> np.ndarray:
        return game.to_reference(1).distances[:, 0] - game.to_synthetic(1).distances[:, 0]


__all__ = ["DcrAttack", "DcrDifferenceAttack"]
