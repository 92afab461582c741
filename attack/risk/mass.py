"""One mass attack end to end: link the external file to the release, then score the links.

The matcher receives only the key and blocking columns; identifiers, the original and the
ground truth are used afterwards, for scoring only.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from pydantic import BaseModel, ValidationError, create_model

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
from attack.io.settings_document import SettingsLike, settings_document
from attack.io.writers import files_read
from attack.linkage.clusters import ClusterLinks
from attack.linkage.engines import Engine
from attack.linkage.link import Links, link
from attack.linkage.settings import Linkage, SettingsTable, parse_cluster
from attack.risk.attack_options import code_columns, solve_options
from attack.risk.attribution import explain_attack
from attack.risk.evaluation import Scored, roles_of, score
from attack.risk.frequency import FrequencyRisk, frequency_risk
from attack.risk.learned import describe, held_out, learned_linkage, training_split
from attack.risk.records import record_outcomes
from attack.risk.results import LINK_COLUMNS, AttackFigures, AttackResult
from attack.risk.settings import Evaluation
from attack.risk.structure import cluster_risk
from attack.risk.targets import recodings
from attack.risk.waves import panel_attack


@dataclass(frozen=True)
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

    @property
    def id_columns(self) -> tuple[str, str]:
        """The identifier columns of the release and the original: never keys nor targets."""
        return self.release_id, self.original_id or self.release_id

    def readings(self) -> dict[str, Any]:
        """How each file given as a path was read (separator, encoding, …), by role."""
        return {role: reading for role, table in
                (("external", self.external), ("release", self.release), ("original", self.original))
                if table is not None and (reading := as_table(table).reading) is not None}


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
    run = _Naming(name, intruder_name, role, release_name, engine, records)
    data = data.as_tables()
    if linkage.wave is not None:
        return _panel_attack(data, linkage, evaluation, run)
    if linkage.learn_weights is not None:
        return _learned_attack(data, linkage, linkage.learn_weights, evaluation, run)
    clock = _Stopwatch()
    check_columns(data, linkage, evaluation)
    ids = _Ids.of(data, evaluation)
    # every release column's role, and a released direct identifier named, before any linkage
    roles = roles_of(data.release, data.original if data.original is not None else data.release, evaluation,
                     id_columns=data.id_columns, code_columns=code_columns(linkage), external_ids=ids.external)
    clock.lap("checks")
    links = link(data.external, data.release, linkage, **solve_options(engine))
    clock.lap("linkage")
    scored = score(links.release_row, ids.external, data.release, ids.release, evaluation, original=data.original,
                   original_ids=ids.original, distance=links.distance, categorical=code_columns(linkage),
                   id_columns=data.id_columns, match_probability=links.match_probability, roles=roles,
                   recodings=data.recodings)
    found: Links | ClusterLinks = links
    structure = None
    if linkage.cluster is not None:  # the intruder who sees clusters: his persons are the run's figures
        structure = cluster_risk(data.external, data.release, linkage, evaluation, scored, external_ids=ids.external,
                                 release_ids=ids.release, original=data.original, original_ids=ids.original,
                                 categorical=code_columns(linkage), id_columns=data.id_columns)
        scored, found = structure.scored, structure.links
    frequency = key_frequency(data.release, linkage) if any(k.reads_codes for k in linkage.keys) else None
    outcome = _record_outcomes(data, ids, links, scored, evaluation, frequency) if records else None
    figures = replace(
        scored.figures,
        structure=None if structure is None else structure.to_dict(),
        frequency_risk=None if frequency is None else key_frequency_summary(frequency),
        linkage=links.to_dict(),
        truth="original" if data.original is not None else "release values",
        reading=data.readings(),
        attack_version=__version__,
    )
    clock.lap("evaluation")
    return run.result(data, figures, links=links_table(found, ids.external, ids.release), timings=clock.laps,
                      units=scored.units, records=outcome)


@dataclass(frozen=True)
class _Naming:
    """Who attacks what under which names, how the blocks are solved, and whether the outcome
    per release record is kept: what every view of one attack (panel waves, learned weights)
    shares."""

    name: str | None
    intruder_name: str | None
    role: str
    release_name: str | None
    engine: Mapping[str, Any] | None
    records: bool

    def attack(self, data: AttackInput, linkage: Linkage, evaluation: Evaluation, *,
               records: bool | None = None) -> AttackResult:
        """``run_attack`` under these names."""
        return run_attack(data, linkage, evaluation, name=self.name, intruder_name=self.intruder_name,
                          role=self.role, release_name=self.release_name, engine=self.engine,
                          records=self.records if records is None else records)

    def result(self, data: AttackInput, figures: AttackFigures, **tables: Any) -> AttackResult:
        """The named result of ``figures`` (file names only: results are shared, machine paths
        stay on the machine)."""
        intruder_file, release_file = (Path(source_name(f)).name for f in (data.external, data.release))
        return AttackResult(
            name=self.name or f"{intruder_file} against {release_file}",
            intruder={"name": self.intruder_name or self.name or intruder_file, "role": self.role,
                      "file": intruder_file},
            release={"name": self.release_name or release_file, "file": release_file},
            scored=figures,
            inputs=files_read(data.external, data.release, data.original),
            **tables,
        )


@dataclass(frozen=True)
class _Ids:
    """The unit ids of the external file (missing where the truth is unknown), the release and
    the original."""

    external: np.ndarray
    release: np.ndarray
    original: np.ndarray | None

    @classmethod
    def of(cls, data: AttackInput, evaluation: Evaluation) -> _Ids:
        return cls(id_column(data.external, data.external_id, allow_missing=True, unique=not evaluation.truth_complete),
                   id_column(data.release, data.release_id),
                   None if data.original is None else id_column(data.original, data.original_id or data.release_id))


def _panel_attack(data: AttackInput, linkage: Linkage, evaluation: Evaluation, run: _Naming) -> AttackResult:
    """The panel intruder (``attack.risk.waves``): one attack per number of waves."""
    def one_view(external: Table, release: Table, original: Table | None, spec: Linkage,
                 scored: Evaluation) -> AttackResult:
        return run.attack(replace(data, external=external, release=release, original=original), spec, scored,
                          records=False)

    require_columns(data.external, [data.external_id, *structure_columns(linkage, 0)])
    require_columns(data.release, [data.release_id, *structure_columns(linkage, 1)])
    return panel_attack(data.external, data.external_id, data.release, data.release_id,
                        data.original, data.original_id, linkage, evaluation, one_view)


def _record_outcomes(data: AttackInput, ids: _Ids, links: Links, scored: Scored, evaluation: Evaluation,
                     frequency: FrequencyRisk | None) -> pd.DataFrame:
    """The outcome per release record (``attack.risk.records``)."""
    truth, truth_ids = ((data.original, ids.original) if data.original is not None and ids.original is not None
                        else (data.release, ids.release))
    return record_outcomes(links, ids.external, data.release, ids.release, truth, truth_ids, evaluation,
                           scored.comparisons, None if frequency is None else frequency.records()["risk"].to_numpy())


def _learned_attack(data: AttackInput, linkage: Linkage, share: float, evaluation: Evaluation,
                    run: _Naming) -> AttackResult:
    """The attack with learned weights on the held-out records, the fixed-weight attack on the
    same records beside it (``figures["learned_weights"]``)."""
    check_columns(data, linkage, evaluation)
    ids = _Ids.of(data, evaluation)
    split = training_split(ids.external, ids.release, share, 0 if linkage.seed is None else linkage.seed)
    learned_spec, learned = learned_linkage(data.external, data.release, split, linkage)
    held = replace(data, external=held_out(as_table(data.external), split.held_external),
                   release=held_out(as_table(data.release), split.held_release))
    fixed = run.attack(held, linkage.model_copy(update={"learn_weights": None}), evaluation)
    result = run.attack(held, learned_spec, evaluation)
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


#: The settings of one mass attack as one flat document: every field of ``Linkage`` (how the
#: intruder links) and of ``Evaluation`` (how the attack is scored), with their rules; the
#: ``settings`` argument of ``mass_attack``, its keyword shortcuts named after these fields.
_FIELDS: dict[str, Any] = {name: (f.annotation, f) for model in (Linkage, Evaluation)
                           for name, f in model.model_fields.items()}
AttackSettings: type[SettingsTable] = create_model("AttackSettings", __base__=SettingsTable, __module__=__name__,
                                                   **_FIELDS)

#: The shortcuts of ``mass_attack`` spelled in the plural, and the settings field each fills.
_PLURALS = {"blocks": "block", "gammas": "gamma", "min_probabilities": "min_probability"}


@gathered
def mass_attack(
    external: pd.DataFrame | str | os.PathLike,
    release: pd.DataFrame | str | os.PathLike,
    *,
    external_id: str,
    release_id: str,
    settings: SettingsLike = None,
    original: pd.DataFrame | str | os.PathLike | None = None,
    original_id: str | None = None,
    protection_log: Mapping[str, Any] | str | os.PathLike | None = None,
    engine: Engine | Mapping[str, Any] | None = None,
    progress: bool = False,
    name: str | None = None,
    reading: ReadOptions | None = None,
    explain: bool = False,
    records: bool = False,
    **shortcuts: Any,
) -> AttackResult:
    """Link ``external`` to ``release`` as a rational intruder would and score the attack.

    ``external``, ``release`` and ``original`` are DataFrames or paths of any supported format
    (paths are read restricted to the columns the attack needs, by ``reading``:
    ``attack.io.readers.ReadOptions``). ``external_id`` holds the ground truth (missing where
    unknown), ``release_id`` the provenance of each release row (hidden from the matcher).
    Without ``original`` the release values count as the truth.

    ``settings`` (``AttackSettings``: an instance, a mapping or a JSON/TOML path) says how the
    intruder links and how the attack is judged: every field of ``Linkage`` and
    ``Evaluation``, e.g. ``keys`` (``attack.Metric``, … or ``"turnover:metric:0.5"``), ``block``
    and ``cells`` (``"nace:prefix=2"``), ``gamma``, ``tau`` (required), ``targets``, ``roles``,
    ``identity``, ``learn_weights``, ``cluster``, ``wave``. Each field is also a keyword
    shortcut that overrides the document (``blocks``, ``gammas`` and ``min_probabilities`` name
    ``block``, ``gamma`` and ``min_probability``). Every cell passes when its disclosure risk is
    below τ for every γ; a verdict resting on fewer than ``min_scored`` scored units or links,
    or with a released direct identifier not ``harmless``, is NOT PASSED
    (docs/method/risk.md, docs/method/roles.md).

    ``protection_log`` (the JSON log of ``attack protect``, a path or its parsed content)
    supplies the code maps it applied: a recoded target is compared with the original mapped
    the same way. ``engine`` (an ``attack.Engine`` or a mapping of its fields) and
    ``progress`` never change a figure. ``explain`` adds ``figures["attribution"]`` (the
    Shapley value of each key in the re-identification rate) and ``figures["explanation"]``
    (docs/method/attribution.md). ``records`` keeps the risk of every release record
    (``AttackResult.records``; docs/method/record-risk.md).

    Settings are checked before any file is read; bad ones raise ``attack.InputError``
    naming the argument.
    """
    solve = {**engine_settings(engine), "progress": progress}
    linkage, evaluation = attack_specs(settings, **shortcuts)
    data = _attack_input(external, release, linkage, evaluation, external_id=external_id, release_id=release_id,
                         original=original, original_id=original_id, protection_log=protection_log, reading=reading)
    result = run_attack(data, linkage, evaluation, name=name, engine=solve, records=records)
    if not explain:
        return result
    explained = explain_attack(data, linkage, evaluation, engine=solve)
    return replace(result, scored=replace(result.scored, attribution=dict(explained.shares),
                                          explanation=explained.to_dict()))


def _attack_input(external: pd.DataFrame | str | os.PathLike, release: pd.DataFrame | str | os.PathLike,
                  linkage: Linkage, evaluation: Evaluation, *, external_id: str, release_id: str,
                  original: pd.DataFrame | str | os.PathLike | None, original_id: str | None,
                  protection_log: Mapping[str, Any] | str | os.PathLike | None,
                  reading: ReadOptions | None) -> AttackInput:
    """The files of ``mass_attack`` read (paths restricted to the columns the attack needs)."""
    has_original = original is not None
    original_id = original_id or release_id

    def frame(source: Any, role: str, id_name: str) -> Table:
        if isinstance(source, (Table, pd.DataFrame)):
            return as_table(source)
        return read(Path(source), needed_columns(role, id_name, linkage, evaluation, has_original), reading)

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
    return data


def attack_specs(settings: SettingsLike = None, /, **shortcuts: Any) -> tuple[Linkage, Evaluation]:
    """Linkage and evaluation settings from the ``settings`` document and the keyword shortcuts
    of ``mass_attack`` (``AttackSettings``, validated by the schema of scenario files); errors
    name the argument (``keys[1].weight``, ``settings.tau``)."""
    given = {_PLURALS.get(k, k): v for k, v in shortcuts.items()}
    try:
        document = settings_document(AttackSettings, settings, **given)
    except InputError as exc:
        raise _named(exc, {v: k for k, v in _PLURALS.items() if k in shortcuts}) from None
    if "tau" not in document.model_fields_set:
        raise InputError("τ is required: give tau, or tau in the settings document", field="tau")
    values = {name: getattr(document, name) for name in document.model_fields_set}
    linkage = _validated(Linkage, {k: v for k, v in values.items() if k in Linkage.model_fields}, _PLURALS)
    evaluation = _validated(Evaluation, {k: v for k, v in values.items() if k in Evaluation.model_fields}, _PLURALS)
    return linkage, evaluation


_Settings = TypeVar("_Settings", bound=BaseModel)


def _validated(model: type[_Settings], values: dict, plurals: dict[str, str]) -> _Settings:
    """``model`` validated from API arguments; a field in an error is given its argument name."""
    try:
        return model.model_validate({k: list(v) if isinstance(v, tuple) else v for k, v in values.items()})
    except ValidationError as exc:
        raise _named(from_validation(exc, model=model), {v: k for k, v in plurals.items()}) from None


def _named(error: InputError, names: Mapping[str, str]) -> InputError:
    """``error`` with the head of its field (``block`` of ``block[0]``) renamed by ``names``."""
    if not error.field:
        return error
    head, dot, rest = error.field.partition(".")
    bracket = head.find("[")
    name, index = (head, "") if bracket < 0 else (head[:bracket], head[bracket:])
    if name not in names:
        return error
    return InputError(error.message, field=names[name] + index + dot + rest, file=error.file)


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
