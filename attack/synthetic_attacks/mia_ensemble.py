"""The Gower-feature ensemble attack on membership (docs/method/membership-family.md).

After the ensemble that won the MIDST 2025 challenge's black-box tracks: each record is described
by distance features and the other attacks' scores, and a gradient-boosted classifier, trained
where membership is known, turns them into one score. Without the generator, membership is known
only in **shadow** games played on the reference sample: the reference is cut into three parts
(seeded), and in each of the three rotations one part (shadow members) trains a **stand-in
generator** — the project's CART synthesis with default settings, or the synthesiser named in the
membership settings — whose output (as many records per training record as the release has)
plays the synthetic file, a second part plays the non-members and the third the reference. The
classifier (scikit-learn's HistGradientBoostingClassifier) learns from the three rotations; the
scored records are then described against the real synthetic file and a seeded subsample of the
reference as large as a shadow reference, so that the features mean the same in both.

Features, in the recorded preparation's (Gower) distance: the distances to the nearest and
second-nearest synthetic record, their ratio (NNDR), the distance to the nearest reference record
and its difference to the nearest synthetic one. (The MIDST ensemble also fed DOMIAS's score to
the classifier; here the density attacks stay separate and enter through the maximum.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from attack.errors import InputError
from attack.generation.sequential import synthesize
from attack.synthetic_attacks.distance import nndr
from attack.synthetic_attacks.mia_game import Game
from attack.synthetic_attacks.space import encode

#: Smallest reference that can be cut into three shadow parts.
MIN_REFERENCE = 30
ROTATIONS = ((0, 1, 2), (1, 2, 0), (2, 0, 1))  # (shadow members, shadow non-members, shadow reference)


class GowerEnsembleAttack:
    """Distance features → gradient-boosted classifier trained on shadow games of the reference."""

    def __init__(self, synthesis: Mapping[str, Any] | None = None, name: str | None = None) -> None:
        self.synthesis = dict(synthesis or {})
        self.name = name or ("shadow_model" if synthesis is not None else "gower_ensemble")
        generator = "the named synthesiser" if synthesis is not None else "a stand-in generator (CART synthesis)"
        self.assumes = f"the synthetic file, a reference sample and {generator} for shadow releases"

    def score(self, game: Game) -> np.ndarray:
        frame = game.reference_frame
        if frame is None or len(frame) < MIN_REFERENCE:
            raise InputError(f"the ensemble attack needs a reference of at least {MIN_REFERENCE} records")
        rng = np.random.default_rng(np.random.SeedSequence([game.seed, 34]))
        parts = np.array_split(rng.permutation(len(frame)), 3)
        ratio = len(game.synthetic) / max(game.n_members, 1)
        features, labels = [], []
        for members, nonmembers, reference in ROTATIONS:
            shadow = self._shadow_game(game, frame, parts[members], parts[nonmembers], parts[reference],
                                       ratio, int(rng.integers(2**31 - 1)))
            features.append(features_of(shadow))
            labels.append(shadow.labels)
        model = _classifier(int(rng.integers(2**31 - 1)))
        with threadpool_limits(1):  # small trees: threads cost more than they save on a shared machine
            model.fit(np.vstack(features), np.concatenate(labels))
        size = min(len(p) for p in parts)
        real = game.with_reference(np.sort(rng.choice(len(game.reference), size=size, replace=False)))
        return model.predict_proba(features_of(real))[:, 1]

    def _shadow_game(self, game: Game, frame: pd.DataFrame, members: np.ndarray, nonmembers: np.ndarray,
                     reference: np.ndarray, ratio: float, seed: int) -> Game:
        train = frame.iloc[members].reset_index(drop=True)
        release = synthesize(train, columns=list(game.prep.columns), rows=max(2, round(ratio * len(train))),
                             seed=seed, **self.synthesis).frame
        m, n, s, r = encode(game.prep, train, frame.iloc[nonmembers], release, frame.iloc[reference])
        scored = type(m)(np.concatenate([m.numeric, n.numeric]), np.concatenate([m.codes, n.codes]))
        return Game(game.prep, scored, len(m), s, r, seed)


def features_of(game: Game) -> np.ndarray:
    """One row of features per scored record (see the module docstring)."""
    near = game.to_synthetic(2).distances
    second = near[:, 1] if near.shape[1] > 1 else near[:, 0]
    reference = game.to_reference(1).distances[:, 0]
    return np.column_stack([near[:, 0], second, nndr(near[:, 0], second), reference, reference - near[:, 0]])


def _classifier(seed: int) -> Any:  # sklearn is untyped
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=15,
                                          random_state=seed)


__all__ = ["GowerEnsembleAttack", "features_of"]
