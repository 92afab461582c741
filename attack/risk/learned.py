"""The attack of the intruder who knows part of the truth (docs/method/intruders.md, learned weights).

A seeded share of the verifiable units is known to the intruder: he holds their external records
with the release records they belong to. He learns the key weights from these known pairs
(``attack.linkage.learned_weights``), sets them aside (their external records and their release
records leave both files) and attacks the rest; only the held-out records are scored. The same
held-out files are attacked with the given weights too, so that both intruders are judged on
the same records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import Table
from attack.linkage.blocking import make_blocks
from attack.linkage.distances import build_distance_model
from attack.linkage.learned_weights import LearnedWeights, learn_weights, reweighted
from attack.linkage.settings import Linkage

#: The figures of the fixed-weight intruder reported beside the learned-weight one.
FIXED_FIGURES = ("n_verifiable", "n_matched", "n_correct", "reidentification_rate", "reidentification_rate_ci",
                 "precision", "precision_ci", "disclosure_risk", "passed")


@dataclass(frozen=True)
class TrainingSplit:
    """Rows of the known part (external rows and their release rows) and of the held-out part."""

    known_external: np.ndarray
    known_release: np.ndarray
    held_external: np.ndarray
    held_release: np.ndarray
    n_units_known: int


def training_split(external_ids: np.ndarray, release_ids: np.ndarray, share: float, seed: int) -> TrainingSplit:
    """A seeded ``share`` of the verifiable units (at least one, one left out) with all their
    external records; every other record is held out."""
    true_row = pd.Index(release_ids).get_indexer(external_ids)
    units = np.unique(true_row[true_row >= 0])
    if units.size < 2:
        raise InputError("learned weights need at least two verifiable units (one to learn from, one to attack)",
                         field="learn_weights")
    n_known = int(min(max(round(share * units.size), 1), units.size - 1))
    known_units = np.sort(np.random.default_rng(seed).choice(units, n_known, replace=False))
    known = np.isin(true_row, known_units)
    release_known = np.zeros(release_ids.size, dtype=bool)
    release_known[known_units] = True
    return TrainingSplit(np.flatnonzero(known), true_row[known], np.flatnonzero(~known),
                         np.flatnonzero(~release_known), n_known)


def learned_linkage(external: Table | pd.DataFrame, release: Table | pd.DataFrame, split: TrainingSplit,
                    linkage: Linkage) -> tuple[Linkage, LearnedWeights]:
    """The spec with the weights learned from the known pairs (no further learning)."""
    model = build_distance_model(external, release, linkage.keys, standardise=linkage.standardise,
                                 metric_distance=linkage.metric_distance, winsorise=linkage.winsorise)
    blocking = make_blocks(external, release, linkage.blocks)
    seed = 0 if linkage.seed is None else linkage.seed
    learned = learn_weights(model, blocking, split.known_external, split.known_release, seed=seed)
    return linkage.model_copy(update={"keys": reweighted(linkage.keys, learned), "learn_weights": None}), learned


def held_out(table: Table, rows: np.ndarray) -> Table:
    """The records of ``table`` at ``rows``, its source kept."""
    return table.with_frame(table.frame.iloc[rows].reset_index(drop=True))


def describe(split: TrainingSplit, share: float, learned: LearnedWeights, fixed: Mapping[str, Any]) -> dict:
    """The JSON entry: the split, the learned weights and the fixed-weight intruder's figures on
    the same held-out records."""
    return {
        "training_share": share,
        "units_known": split.n_units_known,
        "external_records_known": int(split.known_external.size),
        "external_records_held_out": int(split.held_external.size),
        "release_records_held_out": int(split.held_release.size),
        **learned.to_dict(),
        "fixed_weights": {k: fixed[k] for k in FIXED_FIGURES if k in fixed},
    }
