"""The result of a scenario run: every release attacked by every intruder, the combined measure,
natural protection and single attacks, with the one JSON layout and the certificate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from attack._version import __version__
from attack.errors import InputError
from attack.io.jsonio import SCHEMA_VERSION
from attack.io.writers import (
    OWNER_ONLY,
    certificate_paths,
    check_outputs,
    json_file,
    record_file,
    write_files_atomic,
)
from attack.report.attack import render_html, render_markdown
from attack.report.certificate import render_html as render_certificate
from attack.report.notebook import figures_of, one_line, result_html
from attack.report.terminal import render_summary
from attack.risk.mass import matches_csv
from attack.risk.records import records_table
from attack.risk.results import (
    AttackResult,
    CellRisk,
    CombinedRisk,
    NaturalProtectionResult,
    SingleAttackRisk,
    attack_html,
    cell_table,
    run_record,
)
from attack.study import certificate, signing

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class RunSource(Protocol):
    """What a result needs of the scenario that produced it (an ``attack.Scenario``)."""

    @property
    def origin(self) -> Mapping | None: ...

    def fingerprints(self, certificate_dir: Path) -> list[dict]: ...

    def input_paths(self) -> list[Path]: ...


@dataclass(frozen=True, eq=False)
class ScenarioResult:
    """What ``attack.Scenario.run`` returns.

    Attributes
    ----------
    title, scenario_file, notes:
        From the scenario (``scenario_file`` is None for a scenario built in memory).
    runs:
        One ``AttackResult`` per release and intruder, releases in file order.
    combined:
        The combined measure λ·P_worst + (1 − λ)·mean(P_realistic) per cell when the scenario
        has a ``[combine]`` table (one release), else None.
    natural_protection:
        Per realistic intruder and release: its attack on the FORMAL file beside the release,
        and the agreement tables of the overlap variables.
    single_attack:
        Targeted attacks and the per-unit risk R(u), when the scenario asks for them.
    any_intruder:
        Per release, with several intruders: the units any intruder re-identifies, per cell,
        and which intruder finds which units (``attack.risk.any_intruder``); beside the
        verdict, never part of it.
    """

    title: str
    scenario_file: str | None
    runs: tuple[AttackResult, ...]
    combined: CombinedRisk | None = None
    any_intruder: tuple[Mapping[str, Any], ...] = ()
    natural_protection: tuple[NaturalProtectionResult, ...] = ()
    single_attack: SingleAttackRisk | None = None
    notes: tuple[str, ...] = ()
    scenario: RunSource | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        """The verdict: every cell below τ — on the combined measure when there is one, else in
        every run — with single attacks, no target endangered (R(u) ≥ τ), and no run that
        cannot be PASSED whatever its cells (``attack.risk.basis``: too few scored units or
        links, a released direct identifier)."""
        cells = self.combined.passed if self.combined is not None else all(r.passed for r in self.runs)
        endangered = None if self.single_attack is None else self.single_attack.n_endangered
        unjudged = any(r.scored.reasons for r in self.runs)
        return bool(cells) and not endangered and not unjudged

    @property
    def judged_cells(self) -> tuple[CellRisk, ...]:
        """The cells the verdict is made on: the combined measure's, else every run's."""
        if self.combined is not None:
            return self.combined.cells
        return tuple(c for run in self.runs for c in run.cell_risks)

    @property
    def cells(self) -> pd.DataFrame:
        """The cells the verdict rests on (combined, or every run's with its name), per γ."""
        if self.combined is not None:
            cells = self.combined.cells
            return cell_table(cells, cells[0].gammas if cells else [], self.combined.tau)
        frames = [run.cells for run in self.runs]
        for frame, run in zip(frames, self.runs, strict=True):
            frame.insert(2, "run", run.name)
            frame.insert(3, "release", run.release["name"])
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def to_dict(self, *, timings: bool = False) -> dict:
        """The JSON document ``attack run`` and ``attack demo`` write."""
        runs = []
        for run in self.runs:
            entry = run.to_dict(timings=timings)
            del entry["schema_version"]
            runs.append(entry)
        return {
            "schema_version": SCHEMA_VERSION,
            "title": self.title,
            "scenario_file": self.scenario_file,
            "origin": None if self.scenario is None or self.scenario.origin is None else dict(self.scenario.origin),
            "notes": list(self.notes),
            "passed": self.passed,
            "runs": runs,
            "combined": self._combined_dict(),
            "any_intruder": [_plain(a) for a in self.any_intruder],
            "natural_protection": self._natural_protection_list(),
            "single_attack": self._single_attack_dict(),
            "attack_version": __version__,
            **self._context_entry(),
        }

    def _context_entry(self) -> dict:
        """``{"context": answers, τ, attacker model}`` when the scenario has a [context] table."""
        settings = getattr(self.scenario, "settings", None)  # an attack.Scenario loaded from a file
        context = getattr(settings, "context", None)
        return {} if context is None else {"context": context.record()}

    def _combined_dict(self) -> dict | None:
        return None if self.combined is None else _plain(self.combined.to_dict())

    def _natural_protection_list(self) -> list[dict]:
        return [_plain(n.to_dict()) for n in self.natural_protection]

    def _single_attack_dict(self) -> dict | None:
        return None if self.single_attack is None else _plain(self.single_attack.to_dict())

    def _report_args(self) -> dict:
        return {
            "combined": self._combined_dict(),
            "any_intruder": list(self.any_intruder),
            "natural_protection": self._natural_protection_list(),
            "single_attack": self._single_attack_dict(),
        }

    def to_markdown(self) -> str:
        """The Markdown summary, verdict first."""
        return render_markdown([run_record(r) for r in self.runs], title=self.title, **self._report_args())

    def to_summary(self, files: tuple[str, ...] = ()) -> str:
        """The terminal summary (at most about 30 lines); ``files`` are where the full tables are."""
        return render_summary([run_record(r) for r in self.runs], title=self.title, files=files, **self._report_args())

    def to_html(self, path: str | Path | None = None) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given."""
        text = render_html(
            [run_record(r) for r in self.runs], title=self.title, notes=self.notes, **self._report_args()
        )
        if path is not None:
            write_files_atomic({Path(path): (text, None)}, inputs=_inputs(self))
        return text

    def runs_table(self) -> pd.DataFrame:
        """One row per run, the verdict first: τ, failing cells, the highest cell risk and the
        overall re-identification rate."""
        return pd.DataFrame([{
            "passed": r.passed, "run": r.name, "release": r.release["name"], "tau": r.tau,
            "failing_cells": r.scored.n_failing_cells, "cells": len(r.cell_risks),
            "highest_cell_risk": max((p.value for c in r.cell_risks for p in c.disclosure_risk.values()
                                      if p.value is not None), default=None),
            "reidentification_rate": r.reidentification_rate.value,
        } for r in self.runs])

    def _repr_html_(self) -> str:
        runs = self.runs_table()
        facts = [f"{len(self.runs)} runs", f"{int((~runs['passed']).sum()) if len(runs) else 0} not passed"]
        endangered = None if self.single_attack is None else self.single_attack.n_endangered
        if endangered is not None:
            facts.append(f"{endangered} targets endangered")
        if self.combined is not None:
            facts.append("the verdict rests on the combined measure below")
        text = result_html(self.title, self.passed, facts, runs, failing=(~runs["passed"]).tolist(),
                           full=".runs_table()")
        if self.combined is not None:
            text += attack_html("combined measure", self.combined.cells, self.combined.tau, self.combined.passed, None)
        return text

    def __repr__(self) -> str:
        failing = sum(not r.passed for r in self.runs)
        return one_line("ScenarioResult", self.passed, repr(self.title), f"{len(self.runs)} runs, {failing} not passed")

    def plot(self) -> list[Figure]:
        """The figures of the HTML report (risk against γ, per run its heat maps and distance
        histogram), as matplotlib figures, in page order."""
        return figures_of(lambda: render_html([run_record(r) for r in self.runs], title=self.title,
                                              **self._report_args()))

    def certificate(self, directory: str | Path, *, key: Any | None = None) -> dict:
        """The sealed certificate of this result as data, for a certificate file in
        ``directory`` (nothing is written; ``certify`` writes it): the SHA-256 of every input
        (paths relative to ``directory``), the scenario as run, the figures per cell, the
        verdict and a digest over all of it; signed when a private ``key``
        (``attack.load_private_key``) is given."""
        if self.scenario is None:
            raise InputError("only the result of Scenario.run() can be certified")
        first = self.runs[0].scored
        linkage = {r.name: r.scored.linkage or {} for r in self.runs}
        origin = self.scenario.origin
        return certificate.build(
            kind="run" if origin is None else "demo",
            runs=[run_record(r) for r in self.runs],
            inputs=self.scenario.fingerprints(Path(directory)),
            scenario={
                "title": self.title,
                "intruders": [
                    {"name": r.intruder["name"], "role": r.intruder["role"], "release": r.release["name"],
                     "linkage": linkage[r.name]}
                    for r in self.runs
                ],
                "evaluation": first.evaluation,
                "lam": None if self.combined is None else self.combined.lam,
                **self._context_entry(),
            },
            rerun={"scenario": "the input with role 'scenario'"} if origin is None
            else {k: v for k, v in origin.items() if k != "bundled"},
            seeds={"linkage": {name: block.get("order", "no random step") for name, block in linkage.items()},
                   **({"demo_population": origin.get("seed")} if origin else {})},
            combined=self._combined_dict(),
            natural_protection=self._natural_protection_list() or None,
            single_attack=self._single_attack_dict(),
            key=key,
        )

    def certify(self, path: str | Path, *, sign: str | Path | None = None,
                passphrase: bytes | None = None) -> dict:
        """Build the certificate (as ``certificate`` does) and write it to ``path`` (JSON)
        with its printable HTML twin (same name, ``.html``); ``sign`` is the issuer's
        ``private.pem`` (from ``attack keygen``). Returns the sealed certificate."""
        key = None if sign is None else signing.load_private_key(sign, passphrase)
        sealed = self.certificate(Path(path).parent, key=key)
        write_outputs(self, certificate=(path, sealed), inputs=_inputs(self))
        return sealed


def write_outputs(
    result: AttackResult | ScenarioResult,
    *,
    json: str | Path | None = None,
    html: str | Path | None = None,
    matches: str | Path | None = None,
    certificate: tuple[str | Path, Mapping[str, Any]] | None = None,
    timings: bool = False,
    inputs: Sequence[str | Path | None] = (),
    records: str | Path | None = None,
) -> list[Path]:
    """Write the requested files, all or none of them (atomically), none of them over one of
    ``inputs`` or over another output.

    ``matches`` (record-level links, one intruder only) and ``records`` (the risk of every
    release record, ``attack.risk.records``; the runs must have been made with records) are
    written owner-only; ``certificate`` is ``(path, sealed certificate)`` and gets a printable
    HTML twin beside it.
    """
    check_outputs([*(certificate_paths(certificate[0]) if certificate else []), json, html, matches, records],
                  inputs)
    files: dict[Path, tuple[str | bytes, int | None]] = {}
    if certificate is not None:
        files.update(certificate_files(*certificate))
    if json is not None:
        files[Path(json)] = json_file(result.to_dict(timings=timings))
    if html is not None:
        files[Path(html)] = (result.to_html(), None)
    if matches is not None:
        runs = [result] if isinstance(result, AttackResult) else list(result.runs)
        if len(runs) != 1:
            raise InputError("--matches writes the links of one intruder; this scenario has several")
        files[Path(matches)] = (matches_csv(runs[0].links), OWNER_ONLY)
    if records is not None:
        files[Path(records)] = record_file(release_records(result), records)
    return write_files_atomic(files, inputs)


def release_records(result: AttackResult | ScenarioResult) -> pd.DataFrame:
    """The risk of every release record, one table over the releases (a ``release`` column
    first when there are several), from runs made with records (``attack.risk.records``)."""
    runs = [result] if isinstance(result, AttackResult) else list(result.runs)
    if any(run.records is None for run in runs):
        raise InputError("the per-record risk was not kept for this run; run it with records")
    releases = list(dict.fromkeys(run.release["name"] for run in runs))
    tables = []
    for release in releases:
        table = records_table([(run.intruder["name" if isinstance(result, ScenarioResult) else "file"], run.records)
                               for run in runs if run.release["name"] == release])
        tables.append(table.assign(release=release)[["release", *table.columns]] if len(releases) > 1 else table)
    return pd.concat(tables, ignore_index=True)


def certificate_files(path: str | Path, sealed: Mapping[str, Any]) -> dict[Path, tuple[str, int | None]]:
    """The certificate's JSON and its printable HTML twin, ready for ``write_files_atomic``."""
    json_path, twin = certificate_paths(path)
    return {json_path: json_file(sealed), twin: (render_certificate(sealed, json_path.name), None)}


def _inputs(result: ScenarioResult) -> list[Path]:
    """The files a result's scenario read (none for a result built in memory)."""
    return [] if result.scenario is None else result.scenario.input_paths()


def _plain(value: Any) -> Any:
    """A JSON-ready copy of nested mappings and sequences (tuples become lists)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
