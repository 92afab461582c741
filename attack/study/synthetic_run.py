"""All attacks on a synthetic release in one run, with the τ verdict (docs/method/synthetic-attacks.md).

``attack_synthetic`` takes the settings document (a ``SynthSpec``, a mapping or a JSON/TOML
path, with keyword shortcuts on top) and the data. It plans the run first (``plan_run``: the
frames per role, the holdout drawn from the original when asked, the attacked columns, every
check of the inputs), then carries it out (``run_plan``): it prepares the distance space on the
original, builds every registered attack family that the settings ask for
(``attack.synthetic_attacks.evaluator``; the built-in ones in
``attack.synthetic_attacks.families``), runs each on the same files and seed, and collects their
sections and τ checks. The release passes when every check's upper 95 % bound is below τ.
With ``decide``, a run whose checks do not all decide is repeated once with as many attacks
as the undecided checks need.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.errors import InputError, did_you_mean
from attack.io.columns import key_information, warn_unshared
from attack.io.notices import gathered
from attack.io.settings_document import SettingsLike, settings_document
from attack.io.table import Table, as_table, file_name
from attack.io.writers import files_read
from attack.study.synthetic_result import Repeated, SyntheticResult
from attack.synthetic_attacks.evaluator import AttackEvaluation, Space, registered
from attack.synthetic_attacks.family_options import unknown_families
from attack.synthetic_attacks.mia_game import holdout_mask
from attack.synthetic_attacks.settings import SynthSpec
from attack.synthetic_attacks.space import prepare

__all__ = ["SyntheticPlan", "attack_synthetic", "plan_run", "run_plan", "synth_settings"]

_ROLES = ("original", "synthetic", "holdout", "reference")


def synth_settings(settings: SettingsLike = None, /, **shortcuts: Any) -> SynthSpec:
    """The validated settings of a run: ``settings`` (a ``SynthSpec``, a mapping or a JSON/TOML
    path) with the keyword ``shortcuts`` (its field names) on top; a ``SynthSpec`` given alone
    is used as it is."""
    if isinstance(settings, SynthSpec) and all(v is None for v in shortcuts.values()):
        return settings
    return settings_document(SynthSpec, settings, where="settings", **shortcuts)


@dataclass(frozen=True, eq=False)
class SyntheticPlan:
    """One run, checked and ready: the frames per role (the original without the records a
    ``holdout_share`` drew into ``holdout``), the original rows the members came from, the
    attacked ``columns`` and what the result records about the inputs."""

    spec: SynthSpec
    original: Table
    synthetic: pd.DataFrame
    holdout: pd.DataFrame | None
    reference: pd.DataFrame | None
    member_rows: np.ndarray
    columns: tuple[str, ...]
    inputs: tuple[str, ...]
    sources: tuple[tuple[str, str, str, int], ...]

    def again(self, n_attacks: int) -> SyntheticPlan:
        """The same run with ``n_attacks`` per check and nothing left to decide."""
        return replace(self, spec=self.spec.model_copy(update={"n_attacks": n_attacks, "decide": False}))


def _split(tables: dict[str, Table], spec: SynthSpec, names: dict[str, str | None]) -> tuple[
        Table, pd.DataFrame | None, np.ndarray]:
    """The members, the holdout and the original rows of the members (a ``holdout_share`` draws
    the holdout from the original with the run's seed)."""
    original = tables["original"]
    holdout = tables["holdout"].frame if "holdout" in tables else None
    if not spec.holdout_share:
        return original, holdout, np.arange(len(original.frame))
    if holdout is not None:
        raise InputError("give a holdout file or a holdout share, not both", field="holdout_share")
    held = holdout_mask(len(original.frame), spec.holdout_share, spec.seed)
    names["holdout"] = names["original"]
    frame = original.frame
    return (original.with_frame(frame[~held].reset_index(drop=True)), frame[held].reset_index(drop=True),
            np.flatnonzero(~held))


def _check_family_inputs(spec: SynthSpec, holdout: pd.DataFrame | None, reference: pd.DataFrame | None) -> None:
    if spec.membership_family is not None and holdout is None:
        raise InputError("the membership family needs non-members: a holdout file or a holdout share",
                         field="membership_family")
    if spec.privacy_claim is not None and spec.membership_family is None:
        raise InputError("a privacy claim is checked against the membership family: ask for it too "
                         "(--membership-family)", field="privacy_claim")
    if reference is not None and spec.membership_family is None:
        raise InputError("a reference sample is used by the membership family only", field="reference")


def _columns(tables: dict[str, Table], original: pd.DataFrame, synthetic: pd.DataFrame,
             spec: SynthSpec) -> list[str]:
    if spec.columns is None:
        warn_unshared(tables["original"], tables["synthetic"], "synthetic",
                      [c for c in original.columns if c not in spec.exclude])
    columns = list(spec.columns) if spec.columns is not None else [
        c for c in original.columns if c in synthetic.columns and c not in spec.exclude]
    if not columns:
        raise InputError("the original and the synthetic file share no column")
    return columns


def _check_columns(frames: dict[str, pd.DataFrame | None], names: dict[str, str | None],
                   needed: list[str]) -> None:
    for role, frame in frames.items():
        if frame is None:
            continue
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise InputError(f"column not found in the {role} file{did_you_mean(missing[0], frame.columns)}",
                             file=names.get(role), column=missing[0])


def plan_run(spec: SynthSpec, data: dict[str, Table | pd.DataFrame | None]) -> SyntheticPlan:
    """Check the inputs of one run against its settings and split off the holdout; nothing is
    attacked yet. ``data``: the original, synthetic, holdout and reference data by role."""
    unknown_families(spec.options, (cls.family for cls in registered()))
    tables = {role: as_table(data[role]) for role in _ROLES if data.get(role) is not None}
    sources = tuple((role, t.source, t.sha256, t.size) for role, t in tables.items()
                    if t.sha256 is not None and t.size is not None)
    names = {role: file_name(t) for role, t in tables.items()}
    original, holdout, member_rows = _split(tables, spec, names)
    synthetic = tables["synthetic"].frame
    reference = tables["reference"].frame if "reference" in tables else None
    _check_family_inputs(spec, holdout, reference)
    columns = _columns(tables, original.frame, synthetic, spec)
    _check_columns({"synthetic": synthetic, "holdout": holdout, "reference": reference}, names,
                   [*columns, *spec.keys, *spec.targets])
    for key in spec.keys:  # the intruder's keys: one missing throughout tells nothing, one value no unit
        if key in original.frame.columns:
            key_information(original.source, key, original.frame[key].isna().to_numpy(),
                            int(original.frame[key].nunique()))
    return SyntheticPlan(spec, original, synthetic, holdout, reference, member_rows, tuple(columns),
                         files_read(*tables.values()), sources)


def _evaluations(plan: SyntheticPlan, space: Space) -> list[AttackEvaluation]:
    """What every registered family the settings ask for finds, in the registry's order."""
    found = []
    for family in registered():
        attack = family.configure(plan.spec, space)
        if attack is not None:
            found.append(attack.evaluate(plan.original.frame, plan.synthetic, plan.holdout, plan.spec.seed))
    return found


def run_plan(plan: SyntheticPlan, title: str) -> SyntheticResult:
    """Carry out a planned run: the distance space, every family, the checks and the verdict."""
    spec, original = plan.spec, plan.original.frame
    prep = prepare(plan.original, list(plan.columns), categorical=spec.categorical, scaling=spec.scaling,
                   categorical_mode=spec.categorical_mode, metric=spec.metric)
    found = _evaluations(plan, Space(plan.columns, prep, plan.reference))
    exposed = next((e.exposed for e in reversed(found) if e.exposed is not None), None)
    if exposed is not None:  # the rows of the original as given, before a holdout share was drawn
        exposed = exposed.assign(original_row=plan.member_rows[exposed["original_row"].to_numpy()])
    return SyntheticResult(
        tool=f"attack {__version__}", settings=spec, n_original=len(original), n_synthetic=len(plan.synthetic),
        n_holdout=None if plan.holdout is None else len(plan.holdout), preparation=prep,
        attacks={e.family: e for e in found}, tau_checks=tuple(c for e in found for c in e.checks), tau=spec.tau,
        title=title, exposed=exposed, inputs=plan.inputs, sources=plan.sources)


def _wanted(result: SyntheticResult) -> int:
    return max((e.attacks_wanted for e in result.attacks.values() if e.attacks_wanted is not None), default=0)


@gathered
def attack_synthetic(
    original: Table | pd.DataFrame,
    synthetic: Table | pd.DataFrame,
    control: Table | pd.DataFrame | None = None,
    settings: SettingsLike = None,
    *,
    reference: Table | pd.DataFrame | None = None,
    title: str = "Attacks on a synthetic release",
    **shortcuts: Any,
) -> SyntheticResult:
    """Run every attack on a synthetic release the inputs allow and decide against τ.

    ``control`` is a holdout of real records not used for synthesis (it gives the baselines of
    the distance and Anonymeter-style attacks); ``holdout_share`` instead draws it from the
    original (the draw of a scenario's ``synthesis.holdout_share`` with the same seed).
    ``reference``: the intruder's population sample for the membership family (default: part
    of the holdout, see ``docs/method/membership-family.md``). ``settings`` is the settings
    document: a ``SynthSpec``, a mapping of its fields or the path of a JSON/TOML file; its
    fields can also be given (or overridden) as keywords (``keys``, ``targets``, ``tau``,
    ``n_attacks``, ``seed``, ``membership_family`` …). The attacks are explained in
    ``docs/method/synthetic-attacks.md``. The data are tables (``attack.io.readers.read``:
    their digests go into the certificate) or frames built in memory.
    """
    spec = synth_settings(settings, **shortcuts)
    plan = plan_run(spec, {"original": original, "synthetic": synthetic, "holdout": control,
                           "reference": reference})
    result = run_plan(plan, title)
    more = _wanted(result)
    if not spec.decide or more <= spec.n_attacks:
        return result
    # once more with enough attacks for every undecided check
    again = run_plan(plan.again(more), title)
    return replace(again, settings=spec.model_copy(update={"n_attacks": more}),
                   decide=Repeated(spec.n_attacks, more))
