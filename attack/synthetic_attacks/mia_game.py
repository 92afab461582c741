"""Who plays which part in the data-only membership attacks (docs/method/membership-family.md).

* **members**: the original, the records the generator was trained on — all scored;
* **non-members**: holdout records of the same population the generator did not see — scored;
* **reference**: records of the population the intruder holds, never scored. Given separately,
  or (default) a share of the holdout drawn with the seed: then the holdout is split into a
  scored part and a reference part, so that no record is both scored and used as reference;
* the **synthetic** file.

The distances use a preparation fitted on members and holdout together (never on the members
alone, so that the scaling cannot tell the two apart).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.synthetic_attacks.space import Encoded, Neighbours, Preparation, encode, search

#: Nearest records searched per scored record in the Gower space (the largest k any attack uses).
NEIGHBOURS = 2
#: Share of the holdout kept as the reference when none is given.
DEFAULT_REFERENCE_SHARE = 0.5


def holdout_mask(n: int, share: float, seed: int) -> np.ndarray:
    """Which of ``n`` records are held out: ``round(share · n)`` drawn with ``seed`` (numpy's
    default generator, ``choice`` without replacement) — the draw a synthetic-release scenario's
    ``synthesis.holdout_share`` makes, so the two agree for the same seed."""
    n_out = round(share * n)
    if not 0 < share < 1 or n_out < 1 or n_out >= n:
        raise InputError(f"holdout share {share} leaves no records on one side of {n}", field="holdout_share")
    held = np.zeros(n, dtype=bool)
    held[np.random.default_rng(seed).choice(n, size=n_out, replace=False)] = True
    return held


def split_holdout(original: pd.DataFrame, share: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The training records and the holdout drawn by ``holdout_mask``."""
    held = holdout_mask(len(original), share, seed)
    return original[~held].reset_index(drop=True), original[held].reset_index(drop=True)


@dataclass(frozen=True)
class Roles:
    """The frames of each part and how they were obtained (``to_dict``)."""

    members: pd.DataFrame
    nonmembers: pd.DataFrame
    reference: pd.DataFrame
    synthetic: pd.DataFrame
    reference_source: str

    def to_dict(self) -> dict:
        return {"members": len(self.members), "nonmembers": len(self.nonmembers),
                "reference": len(self.reference), "synthetic": len(self.synthetic),
                "reference_source": self.reference_source,
                "scored": "members (the original) and non-members (holdout); never the reference"}


def assign_roles(original: pd.DataFrame, holdout: pd.DataFrame, synthetic: pd.DataFrame,
                 reference: pd.DataFrame | None = None, *,
                 reference_share: float = DEFAULT_REFERENCE_SHARE, seed: int = 0) -> Roles:
    """Members, scored non-members and reference (see the module docstring)."""
    if reference is not None:
        if len(reference) < 2:
            raise InputError("the reference sample needs at least 2 records", field="reference")
        return Roles(original, holdout, reference, synthetic, "given")
    if not 0 < reference_share < 1:
        raise InputError(f"reference share must lie in (0, 1), got {reference_share}", field="reference_share")
    n_ref = round(reference_share * len(holdout))
    if n_ref < 2 or len(holdout) - n_ref < 1:
        raise InputError(f"a holdout of {len(holdout)} records is too small to split into non-members and "
                         "a reference; give a larger holdout or a reference sample", field="holdout")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 33]))
    is_ref = np.zeros(len(holdout), dtype=bool)
    is_ref[rng.choice(len(holdout), size=n_ref, replace=False)] = True
    return Roles(original, holdout[~is_ref].reset_index(drop=True), holdout[is_ref].reset_index(drop=True),
                 synthetic, f"holdout share {reference_share:g} (seeded draw)")


_T = TypeVar("_T")


class Game:
    """The scored records (members first), the synthetic file and the reference, encoded in one
    preparation, with their nearest-neighbour searches computed once."""

    def __init__(self, prep: Preparation, scored: Encoded, n_members: int, synthetic: Encoded,
                 reference: Encoded, seed: int = 0, reference_frame: pd.DataFrame | None = None) -> None:
        self.prep, self.scored, self.n_members = prep, scored, n_members
        self.synthetic, self.reference, self.seed = synthetic, reference, seed
        self.reference_frame = reference_frame  # the reference's records, for shadow syntheses
        self._found: dict[str, Neighbours] = {}
        self._memo: dict[str, Any] = {}

    def memo(self, key: str, compute: Callable[[], _T]) -> _T:
        """``compute()``, computed once per game and ``key``."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @classmethod
    def from_roles(cls, prep: Preparation, roles: Roles, seed: int = 0) -> Game:
        members, nonmembers, synthetic, reference = encode(
            prep, roles.members, roles.nonmembers, roles.synthetic, roles.reference)
        scored = Encoded(np.concatenate([members.numeric, nonmembers.numeric]),
                         np.concatenate([members.codes, nonmembers.codes]))
        return cls(prep, scored, len(members), synthetic, reference, seed,
                   roles.reference[list(prep.columns)].reset_index(drop=True))

    def with_reference(self, rows: np.ndarray) -> Game:
        """The same game against the reference rows ``rows`` only (the synthetic search is kept)."""
        game = Game(self.prep, self.scored, self.n_members, self.synthetic, self.reference.take(rows), self.seed)
        if "synthetic" in self._found:
            game._found["synthetic"] = self._found["synthetic"]
        return game

    @property
    def labels(self) -> np.ndarray:
        """1 for a member, 0 for a non-member, in the order of the scored records."""
        return (np.arange(len(self.scored)) < self.n_members).astype(int)

    def split(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores of the members and of the non-members."""
        return scores[: self.n_members], scores[self.n_members:]

    def to_synthetic(self, k: int) -> Neighbours:
        """The ``k`` nearest synthetic records of every scored record."""
        return self._nearest("synthetic", self.synthetic, k)

    def to_reference(self, k: int) -> Neighbours:
        """The ``k`` nearest reference records of every scored record."""
        return self._nearest("reference", self.reference, k)

    def _nearest(self, name: str, other: Encoded, k: int) -> Neighbours:
        k = min(k, len(other))
        found = self._found.get(name)
        if found is None or found.distances.shape[1] < k:
            found = search(self.prep, self.scored, other, max(k, min(NEIGHBOURS, len(other))))
            self._found[name] = found
        return Neighbours(found.distances[:, :k], found.indices[:, :k])


__all__ = ["DEFAULT_REFERENCE_SHARE", "Game", "Roles", "assign_roles", "holdout_mask", "split_holdout"]
