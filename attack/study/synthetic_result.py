"""The result of the attacks on a synthetic release: every check against τ and the verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from attack.errors import InputError
from attack.io.fingerprint import file_input
from attack.io.jsonio import SCHEMA_VERSION
from attack.io.serial import Serialised, figure, rules
from attack.io.writers import (
    certificate_paths,
    check_outputs,
    json_file,
    record_file,
    write_files_atomic,
    write_text_atomic,
)
from attack.report.notebook import figures_of, one_line, result_html
from attack.report.synthetic import render_synth_html, render_synth_markdown
from attack.study import certificate, signing
from attack.study.results import certificate_files
from attack.synthetic_attacks.evaluator import AttackEvaluation, Check
from attack.synthetic_attacks.settings import SynthSpec
from attack.synthetic_attacks.space import Preparation

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Repeated(Serialised):
    """A run repeated by ``decide``: the attacks per check of the first run and of the repeat."""

    first_n_attacks: int
    n_attacks: int


@dataclass(frozen=True, eq=False)
class SyntheticResult(Serialised):
    """What ``attack.attack_synthetic`` returns; its JSON (``to_dict``) is derived from the fields.

    Attributes
    ----------
    tool:
        The program and version that ran the attacks.
    settings:
        The validated settings of the run.
    n_original, n_synthetic, n_holdout:
        Records of the attacked original (members), of the synthetic file and of the holdout
        (None without one).
    preparation:
        The distance space fitted on the original.
    attacks:
        What each attack family found, by family name, in the order they ran.
    tau_checks:
        Every τ decision of the families (the JSON's ``checks``).
    tau:
        The risk limit of every check.
    decide:
        When ``decide`` repeated the run with more attacks: how many, before and after.
    synthesis:
        How the scenario made the synthetic file (None when it was given).
    title:
        The heading of the reports.
    exposed:
        Record-level, only when the membership family was asked for it: the original's rows
        (``original_row``, 0-based) that some attack flags at the verdict's false-positive rate,
        with the share of non-members scoring as high per attack. Never in ``to_dict``.
    inputs:
        The files the attacks read; the writers never replace them.
    sources:
        ``(role, path, SHA-256, bytes)`` of every input read from a file (original, synthetic,
        holdout, reference): what a certificate binds.
    """

    document_order: ClassVar[tuple[str, ...]] = (
        "schema_version", "kind", "tool", "settings", "n_original", "n_synthetic", "n_holdout", "preparation",
        "attacks", "tau_checks", "tau", "passed", "decide", "synthesis")
    schema_version: ClassVar[int] = SCHEMA_VERSION
    kind: ClassVar[str] = "synthetic"

    tool: str
    settings: SynthSpec
    n_original: int
    n_synthetic: int
    n_holdout: int | None
    preparation: Preparation
    attacks: Mapping[str, AttackEvaluation] = field(metadata=rules(flatten=True))
    tau_checks: tuple[Check, ...] = field(metadata=rules(name="checks"))
    tau: float
    decide: Repeated | None = figure(default=None, omit_none=True)
    synthesis: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    title: str = figure(default="Attacks on a synthetic release", serialise=False)
    exposed: pd.DataFrame | None = figure(default=None, serialise=False, repr=False)
    inputs: tuple[str, ...] = figure(default=(), serialise=False, repr=False)
    sources: tuple[tuple[str, str, str, int], ...] = figure(default=(), serialise=False, repr=False)

    @property
    def passed(self) -> bool:
        """True when the upper 95% bound of every check is below τ."""
        return all(c.passed for c in self.tau_checks)

    @property
    def figures(self) -> dict[str, Any]:
        """The JSON document without its schema version (what the reports and the certificate read)."""
        document = self.to_dict()
        del document["schema_version"]
        return document

    @property
    def checks(self) -> pd.DataFrame:
        """One row per decision: attack family, measure, value, upper bound, τ, verdict."""
        frame = pd.DataFrame([c.to_dict() for c in self.tau_checks])
        return frame[["passed", *(c for c in frame.columns if c != "passed")]] if len(frame) else frame

    def certificate(self, directory: str | Path, *, key: Any | None = None) -> dict:
        """The sealed certificate of this result, for a certificate file in ``directory``: the
        SHA-256 of every input file (paths relative to ``directory``), the settings, every check
        and the verdict; signed when a private ``key`` (``attack.study.signing.load_private_key``)
        is given."""
        inputs = [file_input(role, path, directory, (sha256, size)) for role, path, sha256, size in self.sources]
        return certificate.build_synthetic(figures=self.figures, inputs=inputs, key=key)

    def certify(self, path: str | Path, *, sign: str | Path | None = None,
                passphrase: bytes | None = None) -> dict:
        """Build the certificate and write it to ``path`` (JSON) with its printable HTML twin;
        ``sign`` is the issuer's ``private.pem`` (from ``attack keygen``). Returns it."""
        key = None if sign is None else signing.load_private_key(sign, passphrase)
        return self.write(certificate=path, key=key)["certificate"]

    def write(self, *, json: str | Path | None = None, html: str | Path | None = None,
              exposed: str | Path | None = None, certificate: str | Path | None = None,
              key: Any | None = None, inputs: Sequence[str | Path | None] = ()) -> dict[str, Any]:
        """Write the requested files, all or none of them, never over an input: the JSON, the
        HTML report, the members the membership family flags (record-level, owner-only) and the
        certificate with its HTML twin, signed with ``key`` when given. Returns the sealed certificate under "certificate"."""
        inputs = [*self.inputs, *inputs]
        check_outputs([json, html, exposed, *(certificate_paths(certificate) if certificate else [])], inputs)
        if key is not None and certificate is None:
            raise InputError("a signing key needs a certificate path")
        if exposed is not None and self.exposed is None:
            raise InputError("no exposed members to write: the membership family did not run with exposed")
        files: dict[Path, tuple[str | bytes, int | None]] = {}
        if exposed is not None and self.exposed is not None:
            files[Path(exposed)] = record_file(self.exposed, exposed)
        if json is not None:
            files[Path(json)] = json_file(self.to_dict())
        if html is not None:
            files[Path(html)] = (render_synth_html(self.figures, self.title), None)
        written: dict[str, Any] = {}
        if certificate is not None:
            written["certificate"] = self.certificate(Path(certificate).parent, key=key)
            files.update(certificate_files(certificate, written["certificate"]))
        write_files_atomic(files, inputs=inputs)
        return written

    def to_markdown(self) -> str:
        return render_synth_markdown(self.figures, self.title)

    def to_html(self, path: str | Path | None = None) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given."""
        text = render_synth_html(self.figures, self.title)
        if path is not None:
            write_text_atomic(Path(path), text, inputs=self.inputs)
        return text

    def _repr_html_(self) -> str:
        checks = self.checks
        failing = (~checks["passed"]).tolist() if len(checks) else []
        return result_html(self.title, self.passed,
                           [f"{sum(failing)} of {len(checks)} checks not passed",
                            "a check passes when the upper 95% bound is below τ"],
                           checks, failing=failing, full=".checks")

    def __repr__(self) -> str:
        failing = sum(not c.passed for c in self.tau_checks)
        return one_line("SyntheticResult", self.passed, repr(self.title),
                        f"{failing} of {len(self.tau_checks)} checks not passed")

    def plot(self) -> list[Figure]:
        """The figures of the HTML report (the attacks' success rates), as matplotlib figures."""
        return figures_of(lambda: render_synth_html(self.figures, self.title))
