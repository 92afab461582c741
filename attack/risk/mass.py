"""One mass attack end to end: link the external file to the release, then score the links.

The matcher receives only the key and blocking columns; identifiers, the original and the
ground truth are used afterwards, for scoring only (METHOD.md §2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.io.readers import id_column, require_columns, source_name
from attack.linkage.link import LinkageSpec, Links, link
from attack.linkage.solvers import DEFAULT_MEMORY_BUDGET
from attack.risk.evaluation import EvaluationSpec, evaluate


@dataclass
class AttackInput:
    """The files of one attack and their identifier columns.

    ``external_id`` holds the ground truth: the unit id of each external record where it is
    known (missing otherwise); equal id values in external, release and original mean the same
    unit. ``release_id`` is the provenance of each release row and is hidden from the matcher.
    """

    external: pd.DataFrame
    external_id: str
    release: pd.DataFrame
    release_id: str
    original: pd.DataFrame | None = None
    original_id: str | None = None


@dataclass
class AttackOutcome:
    """The JSON-ready result, the links, the ids needed to write a match file, and the names
    of the intruder's file and the release."""

    result: dict
    links: Links
    external_ids: np.ndarray
    release_ids: np.ndarray
    intruder: str
    release: str
    timings: dict[str, float] = field(default_factory=dict)

    def as_run(self, name: str) -> dict:
        """The run record reports and certificates take: name, intruder, release, result."""
        return {"name": name, "intruder": self.intruder, "release": self.release, "result": self.result}


def run_mass_attack(
    data: AttackInput,
    linkage: LinkageSpec,
    evaluation: EvaluationSpec,
    *,
    engine: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> AttackOutcome:
    """Simulate the mass attack (handbook §13.4) and score it (METHOD.md §9).

    ``engine``, ``jobs``, ``scheduler``, ``progress`` and ``memory_budget`` say how the blocks
    are solved (:func:`attack.linkage.link`); the result does not depend on them.
    """
    clock = _Stopwatch()
    check_columns(data, linkage, evaluation)
    external_ids = id_column(data.external, data.external_id, allow_missing=True)
    release_ids = id_column(data.release, data.release_id)
    original_ids = None
    data.release.attrs["id_column"] = data.release_id
    if data.original is not None:
        original_ids = id_column(data.original, data.original_id or data.release_id)
        data.original.attrs["id_column"] = data.original_id or data.release_id
    clock.lap("checks")
    links = link(
        data.external,
        data.release,
        linkage,
        engine=engine,
        jobs=jobs,
        scheduler=scheduler,
        progress=progress,
        memory_budget=memory_budget,
    )
    clock.lap("linkage")
    result = evaluate(
        links.release_row,
        external_ids,
        data.release,
        release_ids,
        evaluation,
        original=data.original,
        original_ids=original_ids,
        distance=links.distance,
        categorical=code_columns(linkage),
    )
    result["linkage"] = links.describe()
    result["truth"] = "original" if data.original is not None else "release values"
    result["attack_version"] = __version__
    clock.lap("evaluation")
    return AttackOutcome(
        result,
        links,
        external_ids,
        release_ids,
        intruder=source_name(data.external),
        release=source_name(data.release),
        timings=clock.laps,
    )


class _Stopwatch:
    """Wall seconds per stage, kept outside the result so that results stay reproducible."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.laps[stage] = round(now - self._last, 3)
        self._last = now


def check_columns(data: AttackInput, linkage: LinkageSpec, evaluation: EvaluationSpec) -> None:
    """Name the file and column when an id, key, blocking, target or cell column is missing,
    before any linkage work is done."""
    has_original = data.original is not None
    truth = data.original if has_original else data.release
    truth_id = (data.original_id or data.release_id) if has_original else data.release_id
    targets = list(evaluation.targets or ())
    require_columns(data.external, [data.external_id, *linkage.external_columns()])
    require_columns(data.release, [data.release_id, *linkage.release_columns(), *targets])
    require_columns(truth, [truth_id, *targets, *(c.name for c in evaluation.cells)])


def code_columns(linkage: LinkageSpec) -> list[str]:
    """Release columns the intruder treats as codes (non-metric keys, unbinned blocking keys)."""
    keys = [k.name for k in linkage.keys if k.type != "metric"]
    return keys + [b.name for b in linkage.blocks if b.bins is None]


def needed_columns(
    role: str, id_column: str, linkage: LinkageSpec, evaluation: EvaluationSpec, has_original: bool
) -> list[str] | None:
    """Columns a file in ``role`` (external, release, original) must provide, so readers load
    nothing else; None (every column) where the evaluated variables default to all numeric
    columns."""
    cells = [c.name for c in evaluation.cells]
    if role == "external":
        return [id_column, *linkage.external_columns()]
    if evaluation.targets is None:
        return None
    targets = list(evaluation.targets)
    if role == "release":
        return [id_column, *linkage.release_columns(), *targets, *([] if has_original else cells)]
    return [id_column, *targets, *cells]


def matches_csv(links: Links, external_ids: np.ndarray, release_ids: np.ndarray) -> str:
    """Record-level links as CSV ``external_id,release_id,distance,correct``, one row per pair.

    The text links identities to confidential records: write it only on request, owner-only
    (:data:`OWNER_ONLY`; METHOD.md §15, confidential by default).
    """
    rows = np.flatnonzero(links.linked)
    linked_ids = release_ids[links.release_row[rows]]
    table = pd.DataFrame(
        {
            "external_id": external_ids[rows],
            "release_id": linked_ids,
            "distance": links.distance[rows],
            "correct": linked_ids == external_ids[rows],
        }
    )
    return table.to_csv(index=False, float_format="%.12g")
