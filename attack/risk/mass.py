"""One mass attack end to end: link the external file to the release, then score the links.

The matcher receives only the key and blocking columns; identifiers, the original and the
ground truth are used afterwards, for scoring only.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from pydantic import BaseModel, ValidationError

from attack._version import __version__
from attack.errors import InputError, from_validation
from attack.io.notices import gathered
from attack.io.readers import (
    ReadOptions,
    Table,
    as_table,
    code_column,
    id_column,
    read,
    require_codes,
    require_columns,
    source_name,
)
from attack.io.writers import files_read
from attack.linkage.clusters import ClusterLinks
from attack.linkage.engines import Engine
from attack.linkage.link import Links, link
from attack.linkage.settings import Linkage, parse_cluster
from attack.risk.attack_options import code_columns, solve_options
from attack.risk.attribution import explain_attack
from attack.risk.evaluation import roles_of, score
from attack.risk.frequency import FrequencyRisk, frequency_risk
from attack.risk.learned import describe, held_out, learned_linkage, training_split
from attack.risk.records import record_outcomes
from attack.risk.results import LINK_COLUMNS, AttackResult
from attack.risk.settings import Evaluation
from attack.risk.structure import cluster_risk
from attack.risk.targets import recodings
from attack.risk.thresholds import DEFAULT_GAMMAS, DEFAULT_MIN_PROBABILITIES, DEFAULT_MIN_SCORED
from attack.risk.waves import panel_attack


@dataclass
class AttackInput:
    """The files of one attack (tables, or frames: data built in memory) and their identifier
    columns.

    ``external_id`` holds the ground truth: the unit id of each external record where it is
    known (missing otherwise); equal id values in external, release and original mean the same
    unit. ``release_id`` is the provenance of each release row and is hidden from the matcher.
    """

    external: Table | pd.DataFrame
    external_id: str
    release: Table | pd.DataFrame
    release_id: str
    original: Table | pd.DataFrame | None = None
    original_id: str | None = None
    #: per column, the code map ``attack protect`` applied (its protection log): targets compared
    #: with the original recoded the same way
    recodings: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def as_tables(self) -> AttackInput:
        """The same input with every frame as a table built in memory."""
        return replace(self, external=as_table(self.external), release=as_table(self.release),
                       original=None if self.original is None else as_table(self.original))


def run_attack(
    data: AttackInput,
    linkage: Linkage,
    evaluation: Evaluation,
    *,
    name: str | None = None,
    intruder_name: str | None = None,
    role: str = "",
    release_name: str | None = None,
    engine: Mapping[str, Any] | None = None,
    records: bool = False,
) -> AttackResult:
    """Simulate the mass attack (Destatis handbook, §13.4) and score it against the ground truth.

    ``engine`` says how the blocks are solved (``name``, ``jobs``, ``scheduler``,
    ``memory_budget``, ``progress``; see ``attack.linkage.link.link``); the result does not
    depend on it. This is the one place every entry point (the API, ``attack link``, scenario
    runs, the demo, tuning, certificate reruns) links and scores. With ``linkage.learn_weights``
    the intruder learns the key weights from a known share of the units and attacks the rest
    (``attack.risk.learned``). ``records`` keeps the outcome per release record
    (``AttackResult.records``, ``attack.risk.records``; in memory only).
    """
    data = data.as_tables()
    if linkage.wave is not None:
        def one_view(external: Table, release: Table, original: Table | None, spec: Linkage,
                     scored: Evaluation) -> AttackResult:
            return run_attack(replace(data, external=external, release=release, original=original), spec, scored,
                              name=name, intruder_name=intruder_name, role=role, release_name=release_name,
                              engine=engine)

        require_columns(data.external, [data.external_id, *structure_columns(linkage, 0)])
        require_columns(data.release, [data.release_id, *structure_columns(linkage, 1)])
        return panel_attack(data.external, data.external_id, data.release, data.release_id,
                            data.original, data.original_id, linkage, evaluation, one_view)
    if linkage.learn_weights is not None:
        run = {"name": name, "intruder_name": intruder_name, "role": role, "release_name": release_name,
               "engine": engine, "records": records}
        return _learned_attack(data, linkage, linkage.learn_weights, evaluation, run)
    clock = _Stopwatch()
    check_columns(data, linkage, evaluation)
    external_ids = id_column(data.external, data.external_id, allow_missing=True,
                             unique=not evaluation.truth_complete)
    release_ids = id_column(data.release, data.release_id)
    original_ids = None
    if data.original is not None:
        original_ids = id_column(data.original, data.original_id or data.release_id)
    # every release column's role, and a released direct identifier named, before any linkage
    roles = roles_of(data.release, data.original if data.original is not None else data.release, evaluation,
                     id_columns=(data.release_id, data.original_id or data.release_id),
                     code_columns=code_columns(linkage), external_ids=external_ids)
    clock.lap("checks")
    links = link(data.external, data.release, linkage, **solve_options(engine))
    clock.lap("linkage")
    scored = score(
        links.release_row,
        external_ids,
        data.release,
        release_ids,
        evaluation,
        original=data.original,
        original_ids=original_ids,
        distance=links.distance,
        categorical=code_columns(linkage),
        id_columns=(data.release_id, data.original_id or data.release_id),
        match_probability=links.match_probability,
        roles=roles,
        recodings=data.recodings,
    )
    found: Links | ClusterLinks = links
    structure = None
    if linkage.cluster is not None:  # the intruder who sees clusters: his persons are the run's figures
        structure = cluster_risk(
            data.external, data.release, linkage, evaluation, scored, external_ids=external_ids,
            release_ids=release_ids, original=data.original, original_ids=original_ids,
            categorical=code_columns(linkage), id_columns=(data.release_id, data.original_id or data.release_id),
        )
        scored, found = structure.scored, structure.links
    frequency = key_frequency(data.release, linkage) if any(k.reads_codes for k in linkage.keys) else None
    outcome = None
    if records:
        truth, truth_ids = ((data.original, original_ids) if data.original is not None and original_ids is not None
                            else (data.release, release_ids))
        outcome = record_outcomes(links, external_ids, data.release, release_ids, truth, truth_ids, evaluation,
                                  scored.comparisons,
                                  None if frequency is None else frequency.records()["risk"].to_numpy())
    figures = replace(
        scored.figures,
        structure=None if structure is None else structure.to_dict(),
        frequency_risk=None if frequency is None else key_frequency_summary(frequency),
        linkage=links.describe(),
        truth="original" if data.original is not None else "release values",
        reading={role: reading for role, table in
                 (("external", data.external), ("release", data.release), ("original", data.original))
                 if table is not None and (reading := as_table(table).reading) is not None},
        attack_version=__version__,
    )
    clock.lap("evaluation")
    # file names only: results are shared, machine paths stay on the machine
    intruder_file, release_file = (Path(source_name(f)).name for f in (data.external, data.release))
    return AttackResult(
        name=name or f"{intruder_file} against {release_file}",
        intruder={"name": intruder_name or name or intruder_file, "role": role, "file": intruder_file},
        release={"name": release_name or release_file, "file": release_file},
        scored=figures,
        links=links_table(found, external_ids, release_ids),
        timings=clock.laps,
        inputs=files_read(data.external, data.release, data.original),
        units=scored.units,
        records=outcome,
    )


def _learned_attack(data: AttackInput, linkage: Linkage, share: float, evaluation: Evaluation,
                    run: dict) -> AttackResult:
    """The attack with learned weights on the held-out records, the fixed-weight attack on the
    same records beside it (``figures["learned_weights"]``)."""
    check_columns(data, linkage, evaluation)
    external_ids = id_column(data.external, data.external_id, allow_missing=True,
                             unique=not evaluation.truth_complete)
    release_ids = id_column(data.release, data.release_id)
    split = training_split(external_ids, release_ids, share, 0 if linkage.seed is None else linkage.seed)
    learned_spec, learned = learned_linkage(data.external, data.release, split, linkage)
    held = replace(data, external=held_out(as_table(data.external), split.held_external),
                   release=held_out(as_table(data.release), split.held_release))
    fixed = run_attack(held, linkage.model_copy(update={"learn_weights": None}), evaluation, **run)
    result = run_attack(held, learned_spec, evaluation, **run)
    return replace(result, scored=replace(result.scored, learned_weights=describe(
        split, share, learned, fixed.figures)))


#: Why the frequency risk beside a linkage attack does not decide.
FREQUENCY_NOTE = ("frequency risk counts how rare each release record's combination of the intruder's "
                  "categorical keys (and blocks) is; after perturbative protection it overstates the risk, "
                  "and the linkage attack above is the measure (reported beside it, never part of the verdict)")


def key_frequency_risk(release: pd.DataFrame, linkage: Linkage) -> dict:
    """Frequency risk of the release on the intruder's categorical keys and blocks, taken as
    the population (risk ``1/f_k``; ``attack.frequency_risk``): aggregates only."""
    return key_frequency_summary(key_frequency(release, linkage))


def key_frequency(release: pd.DataFrame, linkage: Linkage) -> FrequencyRisk:
    """The frequency risk of every release record on the intruder's categorical keys and
    blocks (``key_frequency_risk``; record-level)."""
    columns = {k.name: code_column(release, k.name) for k in linkage.keys if k.reads_codes}
    columns.update({b.label(): b.classes(release) for b in linkage.blocks})
    return frequency_risk(pd.DataFrame(columns), list(columns), suda=False, check_keys=False)


def key_frequency_summary(result: FrequencyRisk) -> dict:
    """The aggregates of ``key_frequency`` that an attack's JSON carries."""
    full = result.to_dict()
    return {
        "keys": list(result.keys),
        "records": full["records"],
        "sample_uniques": full["sample_uniques"],
        "k_anonymity": full["k_anonymity"],
        "expected_reidentifications": full["individual_risk"]["expected_reidentifications"],
        "global_risk": full["individual_risk"]["global_risk"],
        "note": FREQUENCY_NOTE,
    }



def links_table(links: Links | ClusterLinks, external_ids: np.ndarray, release_ids: np.ndarray) -> pd.DataFrame:
    """The record-level links, one row per linked external record (``LINK_COLUMNS``)."""
    rows = np.flatnonzero(links.linked)
    linked_ids = release_ids[links.release_row[rows]]
    table = pd.DataFrame(
        {
            "external_id": external_ids[rows],
            "release_id": linked_ids,
            "distance": links.distance[rows],
            "n_best": links.n_best[rows],
            "correct": linked_ids == external_ids[rows],
        },
        columns=list(LINK_COLUMNS),
    )
    if isinstance(links, Links) and links.match_probability is not None:  # link() sets it for every intruder
        table["match_probability"] = links.match_probability[rows]
    return table


class _Stopwatch:
    """Wall seconds per stage, kept outside the result so that results stay reproducible."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.laps[stage] = round(now - self._last, 3)
        self._last = now


def check_columns(data: AttackInput, linkage: Linkage, evaluation: Evaluation) -> None:
    """Name the file and column when an id, key, blocking, target or cell column is missing,
    before any linkage work is done."""
    has_original = data.original is not None
    truth = data.original if has_original else data.release
    truth_id = (data.original_id or data.release_id) if has_original else data.release_id
    targets = evaluation.target_names
    require_columns(data.external, [data.external_id, *linkage.external_columns(), *structure_columns(linkage, 0)])
    require_columns(data.release, [data.release_id, *linkage.release_columns(), *targets,
                                   *structure_columns(linkage, 1)])
    require_columns(truth, [truth_id, *targets, *(c.name for c in evaluation.cells)])
    hidden = {data.release_id: "the release's id column (hidden from the intruder)",
              data.external_id: "the external file's ground-truth id column"}
    for what, columns in (("key", [c for k in linkage.keys for c in k.columns]),
                          ("block", [b.name for b in linkage.blocks]),
                          ("key", [c for k in linkage.keys for c in k.external_columns]),
                          ("block", [b.external_column for b in linkage.blocks])):
        for column in columns:
            if column in hidden:
                raise InputError(f"a {what} may not be {hidden[column]}: the intruder does not know it",
                                 field="keys" if what == "key" else "block", column=column)


def structure_columns(linkage: Linkage, side: int) -> list[str]:
    """The cluster and wave columns of the external (``side`` 0) or release file (1), when the
    intruder sees clusters or waves."""
    return [parse_cluster(text)[side] for text in (linkage.cluster, linkage.wave) if text is not None]


def needed_columns(
    role: str, id_column: str, linkage: Linkage, evaluation: Evaluation, has_original: bool
) -> list[str] | None:
    """Columns a file in ``role`` (external, release, original) must provide, so readers load
    nothing else; None (every column) for the release, every column of which gets a role
    (``attack.risk.roles``), and where the evaluated variables default to the inferred targets."""
    cells = [c.name for c in evaluation.cells]
    if role == "external":
        return [id_column, *linkage.external_columns(), *structure_columns(linkage, 0)]
    if evaluation.targets is None or role == "release":
        return None
    declared = [c for c, r in evaluation.roles.items() if r == "target"]
    return [id_column, *evaluation.target_names, *declared, *cells]


def release_columns(id_column: str, linkage: Linkage, evaluation: Evaluation, has_original: bool) -> list[str]:
    """The columns the release must have (it is read whole: every column gets a role)."""
    cells = [] if has_original else [c.name for c in evaluation.cells]
    return [id_column, *linkage.release_columns(), *evaluation.target_names, *cells, *structure_columns(linkage, 1)]


def matches_csv(links: pd.DataFrame) -> str:
    """Record-level links as CSV ``external_id,release_id,distance,correct,match_probability``,
    one row per pair (``match_probability`` in [0, 1], docs/method/intruder-confidence.md).

    The text links identities to confidential records: write it only on request, owner-only.
    """
    columns = ["external_id", "release_id", "distance", "correct"]
    columns += [c for c in ("match_probability",) if c in links.columns]
    return links[columns].to_csv(index=False, float_format="%.12g")


@gathered
def mass_attack(
    external: pd.DataFrame | str | os.PathLike,
    release: pd.DataFrame | str | os.PathLike,
    *,
    keys: Sequence[Any],
    external_id: str,
    release_id: str,
    tau: float,
    original: pd.DataFrame | str | os.PathLike | None = None,
    original_id: str | None = None,
    blocks: Sequence[Any] = (),
    cells: Sequence[Any] = (),
    targets: Sequence[str] | None = None,
    method: str = "greedy",
    gammas: Sequence[float] = DEFAULT_GAMMAS,
    gamma_by_variable: Mapping[str, Sequence[float]] | None = None,
    zero_tolerance: float = 0.0,
    standardise: str = "maxmin",
    metric_distance: str = "squared",
    seed: int | None = None,
    winsorise: bool = False,
    intruder: str = "distance",
    learn_weights: float | None = None,
    truth_complete: bool = False,
    min_probabilities: Sequence[float] = DEFAULT_MIN_PROBABILITIES,
    risk_on: str = "all",
    external_coverage: float | None = None,
    release_fraction: float | None = None,
    roles: Mapping[str, str] | None = None,
    identity: str = "judged",
    identity_limit: float | None = None,
    min_scored: int = DEFAULT_MIN_SCORED,
    harmless: Sequence[str] = (),
    protection_log: Mapping[str, Any] | str | os.PathLike | None = None,
    cluster: str | None = None,
    wave: str | None = None,
    trajectory: bool = False,
    engine: Engine | Mapping[str, Any] | None = None,
    progress: bool = False,
    name: str | None = None,
    reading: ReadOptions | None = None,
    explain: bool = False,
    records: bool = False,
) -> AttackResult:
    """Link ``external`` to ``release`` as a rational intruder would and score the attack.

    ``external``, ``release`` and ``original`` are DataFrames or paths of any supported format
    (paths are read restricted to the columns the attack needs). ``keys`` are typed keys
    (``attack.Metric``, ``attack.Nominal``, …) or their text spellings
    (``"turnover:metric:0.5"``); ``blocks`` and ``cells`` are ``attack.Block`` objects or
    ``"nace:prefix=2"``, ``"employees:bins=20,50"``. ``external_id`` holds the ground truth
    (missing where unknown), ``release_id`` the provenance of each release row (hidden from the
    matcher). Without ``original`` the release values count as the truth. Every cell passes when
    its disclosure risk is below ``tau`` for every γ in ``gammas``. ``seed`` shuffles the
    external order of the sequential method only. A metric value that alone spans its key's
    range stops the attack (``attack.InputError`` naming file, column, row and value)
    unless ``winsorise`` sets it to the nearest other value, which the result records.
    ``intruder`` is ``"distance"`` or ``"fellegi-sunter"``; every link carries a match
    probability, and the confident links at each of ``min_probabilities`` are reported.
    ``learn_weights`` (a share in (0, 1)) lets the intruder know that share of the verifiable
    units: he learns the key weights from them and attacks the rest, where alone he is scored,
    beside the given weights on the same records (``figures["learned_weights"]``).
    ``truth_complete`` says the ground truth covers the whole external file (a record whose unit
    is not in the release then has no counterpart, its link is false; several records of one
    unit are allowed); ``risk_on="confident"`` keeps only the links at the first minimum
    probability for every figure and τ (docs/method/intruder-confidence.md).
    ``external_coverage`` (the share of the population the external file covers) and
    ``release_fraction`` (the release's sampling fraction) add the expected re-identifications
    in the population (``figures["population_reidentifications"]``). ``engine`` (an ``attack.Engine`` or a
    mapping of its fields) and ``progress`` (a progress bar over the blocks) never change a
    figure. ``reading`` (``attack.io.readers.ReadOptions``: separator, decimal mark,
    encoding, sheet, missing-value codes, code columns) applies to every path given.
    ``explain`` adds ``figures["attribution"]`` (the Shapley value of each key in the
    re-identification rate, summing to it) and ``figures["explanation"]`` (the method, the
    leave-one-key-out changes and the failing cells' attributions; docs/method/attribution.md).
    ``records`` keeps the risk of every release record (``AttackResult.records``;
    docs/method/record-risk.md).
    ``targets`` are ``NAME[:TYPE[:OPTION...]]`` (numeric, categorical, ordinal, string, date;
    ``attack.risk.targets``); ``roles`` maps release columns to their role, the others are
    inferred (``attack.risk.roles``). ``identity="judged"`` gives every cell's
    re-identification rate the limit ``identity_limit`` (default ``tau``);
    ``"discloses-nothing"`` declares that re-identification alone discloses nothing (the
    handbook's perturbed business data). A verdict resting on fewer than ``min_scored`` scored
    units or links is NOT PASSED, and so is one while a direct identifier not in ``harmless``
    is released (docs/method/roles.md). ``protection_log`` (the JSON log of ``attack protect``,
    a path or its parsed content) supplies the code maps it applied: a recoded or coarsened
    target is compared with the original mapped the same way.
    ``cluster`` (a column, or ``"EXT_COLUMN:REL_COLUMN"``) adds the cluster-aware intruder, who links
    whole clusters, then their members (``figures["structure"]``, docs/method/structure.md).
    ``wave`` names the wave column of long panel files (one row per unit and wave): the panel
    intruder combines a unit's waves, with ``trajectory`` its growth rates too, and the figures
    after 1, 2, … waves are reported (``figures["panel"]``).

    Settings are checked before any file is read; bad ones raise ``attack.InputError``
    naming the argument.
    """
    solve = {**engine_settings(engine), "progress": progress}
    linkage, evaluation = attack_specs(
        keys=keys, blocks=blocks, cells=cells, targets=targets, method=method, gammas=gammas,
        gamma_by_variable=gamma_by_variable, tau=tau, zero_tolerance=zero_tolerance,
        standardise=standardise, metric_distance=metric_distance, seed=seed, winsorise=winsorise,
        intruder=intruder, truth_complete=truth_complete, min_probabilities=min_probabilities, risk_on=risk_on,
        learn_weights=learn_weights, external_coverage=external_coverage, release_fraction=release_fraction,
        roles=roles, identity=identity, identity_limit=identity_limit, min_scored=min_scored, harmless=harmless,
        cluster=cluster, wave=wave, trajectory=trajectory,
    )
    has_original = original is not None
    original_id = original_id or release_id

    def frame(data: Any, role: str, id_name: str) -> Table:
        if isinstance(data, (Table, pd.DataFrame)):
            return as_table(data)
        return read(Path(data), needed_columns(role, id_name, linkage, evaluation, has_original), reading)

    external_table = frame(external, "external", external_id)
    release_table = frame(release, "release", release_id)
    require_columns(release_table, release_columns(release_id, linkage, evaluation, has_original))
    data = AttackInput(
        external=external_table,
        external_id=external_id,
        release=release_table,
        release_id=release_id,
        original=frame(original, "original", original_id) if has_original else None,
        original_id=original_id if has_original else None,
        recodings=recodings(read_protection_log(protection_log)) if protection_log is not None else {},
    )
    require_codes([data.external, data.release, data.original])
    result = run_attack(data, linkage, evaluation, name=name, engine=solve, records=records)
    if not explain:
        return result
    explained = explain_attack(data, linkage, evaluation, engine=solve)
    return replace(result, scored=replace(result.scored, attribution=dict(explained.shares),
                                          explanation=explained.to_dict()))


def attack_specs(
    *, keys: Sequence[Any], blocks: Sequence[Any], cells: Sequence[Any], targets: Sequence[str] | None,
    method: str, gammas: Sequence[float], gamma_by_variable: Mapping[str, Sequence[float]] | None, tau: float,
    zero_tolerance: float, standardise: str, metric_distance: str, seed: int | None, winsorise: bool = False,
    intruder: str = "distance", truth_complete: bool = False,
    min_probabilities: Sequence[float] = DEFAULT_MIN_PROBABILITIES, risk_on: str = "all",
    learn_weights: float | None = None, external_coverage: float | None = None,
    release_fraction: float | None = None, roles: Mapping[str, str] | None = None, identity: str = "judged",
    identity_limit: float | None = None, min_scored: int = DEFAULT_MIN_SCORED, harmless: Sequence[str] = (),
    cluster: str | None = None, wave: str | None = None, trajectory: bool = False,
) -> tuple[Linkage, Evaluation]:
    """Linkage and evaluation settings from the arguments of ``mass_attack``, validated by the
    schema of scenario files (``Linkage``,
    ``Evaluation``); errors name the argument (``keys[1].weight``)."""
    linkage = _validated(Linkage, {"keys": keys, "block": blocks, "method": method, "standardise": standardise,
                                   "metric_distance": metric_distance, "seed": seed, "winsorise": winsorise,
                                   "intruder": intruder, "learn_weights": learn_weights, "cluster": cluster,
                                   "wave": wave, "trajectory": trajectory},
                        {"block": "blocks"})
    evaluation = _validated(Evaluation, {"gamma": gammas, "gamma_by_variable": gamma_by_variable, "tau": tau,
                                         "targets": targets, "cells": cells, "zero_tolerance": zero_tolerance,
                                         "truth_complete": truth_complete, "min_probability": min_probabilities,
                                         "risk_on": risk_on, "external_coverage": external_coverage,
                                         "release_fraction": release_fraction, "roles": dict(roles or {}),
                                         "identity": identity, "identity_limit": identity_limit,
                                         "min_scored": min_scored, "harmless": harmless},
                            {"gamma": "gammas", "min_probability": "min_probabilities"})
    return linkage, evaluation


_Settings = TypeVar("_Settings", bound=BaseModel)


def _validated(model: type[_Settings], values: dict, names: dict[str, str]) -> _Settings:
    """``model`` validated from API arguments; a field in an error is given its argument name."""
    try:
        return model.model_validate({k: list(v) if isinstance(v, tuple) else v for k, v in values.items()})
    except ValidationError as exc:
        error = from_validation(exc, model=model)
    if error.field:
        head, dot, rest = error.field.partition(".")
        bracket = head.find("[")
        name, index = (head, "") if bracket < 0 else (head[:bracket], head[bracket:])
        error = InputError(error.message, field=names.get(name, name) + index + dot + rest)
    raise error

def read_protection_log(log: Mapping[str, Any] | str | os.PathLike) -> Mapping[str, Any]:
    """The protection log of ``attack protect``, from its path or as given."""
    if isinstance(log, Mapping):
        return log
    try:
        content = json.loads(Path(log).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"expected the JSON protection log of attack protect: {exc}",
                         file=Path(log).name, field="protection_log") from None
    if not isinstance(content, dict) or "method" not in content:
        raise InputError("expected the JSON protection log of attack protect (no method)", file=Path(log).name,
                         field="protection_log")
    return content


def engine_settings(engine: Engine | Mapping[str, Any] | None) -> dict[str, Any]:
    """The entries an engine setting fixes, validated (None entries are left to the defaults
    or to the next level of settings)."""
    if engine is None:
        return {}
    if isinstance(engine, Mapping):
        try:
            engine = Engine(**engine)
        except InputError as exc:
            raise InputError(exc.message, field=f"engine.{exc.field}" if exc.field else "engine") from None
    if not isinstance(engine, Engine):
        raise InputError(f"expected an attack.Engine or a mapping, got {engine!r}", field="engine")
    return engine.fixed()
