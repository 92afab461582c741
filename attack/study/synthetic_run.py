"""All attacks on a synthetic release in one run, with the τ verdict (docs/method/synthetic-attacks.md).

``attack_synthetic`` prepares the columns the original and the synthetic file share (the
distance space, fitted on the original), builds every registered attack family that the
settings ask for (``attack.synthetic_attacks.evaluator``; the built-in ones in
``attack.synthetic_attacks.families``), runs each on the same files and seed, and collects their
sections and τ checks. The release passes when every check's upper 95 % bound is below τ.
With ``decide``, a run whose checks do not all decide is repeated once with as many attacks
as the undecided checks need.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.errors import InputError, did_you_mean
from attack.io.columns import key_information, warn_unshared
from attack.io.notices import gathered
from attack.io.table import Table, as_table, file_name
from attack.io.writers import files_read
from attack.study.synthetic_result import SyntheticResult
from attack.synthetic_attacks.evaluator import Space, registered
from attack.synthetic_attacks.mia_game import holdout_mask
from attack.synthetic_attacks.settings import SynthSpec, spec_from
from attack.synthetic_attacks.space import prepare

__all__ = ["attack_synthetic"]


def _columns(original: pd.DataFrame, synthetic: pd.DataFrame, spec: SynthSpec) -> list[str]:
    if spec.columns is not None:
        return list(spec.columns)
    return [c for c in original.columns if c in synthetic.columns and c not in spec.exclude]


@gathered
def attack_synthetic(
    original: Table | pd.DataFrame,
    synthetic: Table | pd.DataFrame,
    control: Table | pd.DataFrame | None = None,
    spec: SynthSpec | None = None,
    *,
    reference: Table | pd.DataFrame | None = None,
    title: str = "Attacks on a synthetic release",
    **settings: Any,
) -> SyntheticResult:
    """Run every attack on a synthetic release the inputs allow and decide against τ.

    ``control`` is a holdout of real records not used for synthesis (it gives the baselines of
    the distance and Anonymeter-style attacks); ``holdout_share`` instead draws it from the
    original (the draw of a scenario's ``synthesis.holdout_share`` with the same seed).
    ``reference``: the intruder's population sample for the membership family (default: part
    of the holdout, see ``docs/method/membership-family.md``). The settings are a
    ``SynthSpec`` or its fields as keywords (``keys``, ``targets``, ``tau``, ``n_attacks``,
    ``seed``, ``membership_family`` …). The attacks are explained in
    ``docs/method/synthetic-attacks.md``. The data are tables (``attack.io.readers.read``:
    their digests go into the certificate) or frames built in memory.
    """
    if spec is None:
        spec = spec_from(settings)
    elif settings:
        raise InputError(f"give either spec or settings, not both (got {', '.join(settings)})")
    tables = {role: as_table(data) for role, data in (("original", original), ("synthetic", synthetic),
                                                      ("holdout", control), ("reference", reference))
              if data is not None}
    sources = tuple((role, t.source, t.sha256, t.size) for role, t in tables.items()
                    if t.sha256 is not None and t.size is not None)
    read = files_read(*tables.values())
    names = {role: file_name(t) for role, t in tables.items()}
    original, synthetic = tables["original"].frame, tables["synthetic"].frame
    control, reference = (tables[role].frame if role in tables else None for role in ("holdout", "reference"))
    holdout = control
    member_rows = np.arange(len(original))
    if spec.holdout_share:
        if control is not None:
            raise InputError("give a holdout file or a holdout share, not both", field="holdout_share")
        held = holdout_mask(len(original), spec.holdout_share, spec.seed)
        member_rows = np.flatnonzero(~held)
        original, holdout = original[~held].reset_index(drop=True), original[held].reset_index(drop=True)
        names["holdout"] = names["original"]
    if spec.membership_family is not None and holdout is None:
        raise InputError("the membership family needs non-members: a holdout file or a holdout share",
                         field="membership_family")
    if spec.privacy_claim is not None and spec.membership_family is None:
        raise InputError("a privacy claim is checked against the membership family: ask for it too "
                         "(--membership-family)", field="privacy_claim")
    if reference is not None and spec.membership_family is None:
        raise InputError("a reference sample is used by the membership family only", field="reference")
    if spec.columns is None:
        warn_unshared(tables["original"], tables["synthetic"], "synthetic",
                      [c for c in original.columns if c not in spec.exclude])
    columns = _columns(original, synthetic, spec)
    if not columns:
        raise InputError("the original and the synthetic file share no column")
    for role, frame in (("synthetic", synthetic), ("holdout", holdout), ("reference", reference)):
        if frame is None:
            continue
        missing = [c for c in [*columns, *spec.keys, *spec.targets] if c not in frame.columns]
        if missing:
            raise InputError(f"column not found in the {role} file{did_you_mean(missing[0], frame.columns)}",
                             file=names.get(role), column=missing[0])
    for key in spec.keys:  # the intruder's keys: one missing throughout tells nothing, one value no unit
        if key in original.columns:
            key_information(tables["original"].source, key, original[key].isna().to_numpy(),
                            int(original[key].nunique()))
    prep = prepare(tables["original"].with_frame(original), columns, categorical=spec.categorical, scaling=spec.scaling,
                   categorical_mode=spec.categorical_mode, metric=spec.metric)
    space = Space(tuple(columns), prep, reference)
    document: dict[str, Any] = {
        "kind": "synthetic",
        "tool": f"attack {__version__}",
        "settings": spec.to_dict(),
        "n_original": len(original), "n_synthetic": len(synthetic),
        "n_holdout": None if holdout is None else len(holdout),
        "preparation": prep.to_dict(),
    }
    checks = []
    wanted = []
    exposed = None
    for family in registered():
        attack = family.configure(spec, space)
        if attack is None:
            continue
        found = attack.evaluate(original, synthetic, holdout, spec.seed)
        document[found.family] = found.to_dict()
        checks += [c.to_dict() for c in found.checks]
        if found.attacks_wanted is not None:
            wanted.append(found.attacks_wanted)
        if found.exposed is not None:
            exposed = found.exposed.assign(original_row=member_rows[found.exposed["original_row"].to_numpy()])
    document["checks"] = checks
    document["tau"] = spec.tau
    document["passed"] = all(c["passed"] for c in checks)
    more = max(wanted, default=0)
    if spec.decide and more > spec.n_attacks:  # once more with enough attacks for every undecided check
        again = attack_synthetic(original, synthetic, holdout, spec.model_copy(update={
                                     "n_attacks": more, "decide": False, "holdout_share": 0.0}),
                                 reference=reference, title=title)
        figures = {**again.figures, "settings": spec.model_copy(update={"n_attacks": more}).to_dict(),
                   "decide": {"first_n_attacks": spec.n_attacks, "n_attacks": more}}
        exposed = None if again.exposed is None else again.exposed.assign(
            original_row=member_rows[again.exposed["original_row"].to_numpy()])
        return SyntheticResult(figures, title, exposed, inputs=read, sources=sources)
    return SyntheticResult(document, title, exposed, inputs=read, sources=sources)
