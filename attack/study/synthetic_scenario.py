"""Synthetic-release scenarios: synthesis, attacks, membership inference and tuning from one file.

A scenario file with ``kind = "synthetic"`` (schema: ``attack.study.synthetic_settings``)
runs the same pipeline as ``attack synthesize`` followed by ``attack synth`` — or, with a
``[tune]`` grid, ``attack tune-synthesis``. ``attack run`` and ``attack tune`` read both kinds of
scenario file; ``open_scenario`` tells them apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import tomli_w

from attack.datasets.demo import demo_source, demo_table
from attack.errors import InputError
from attack.generation.sequential import synthesize
from attack.io.fingerprint import ReadLedger, frame_input, sha256_frame
from attack.io.notices import gathered
from attack.io.readers import Table, read
from attack.io.writers import (
    certificate_paths,
    check_outputs,
    json_file,
    record_file,
    write_files_atomic,
)
from attack.study import certificate, signing
from attack.study.results import certificate_files
from attack.study.scenario import Scenario, scenario_file, scenario_from_dict
from attack.study.synthesis_tuning import SynthesisTuning, tune_synthesis
from attack.study.synthetic_result import SyntheticResult
from attack.study.synthetic_run import attack_synthetic
from attack.study.synthetic_settings import (
    SynthesisSettings,
    SyntheticEntry,
    SyntheticScenarioSettings,
    validate_synthetic,
)
from attack.synthetic_attacks.evaluator import registered
from attack.synthetic_attacks.family_options import unknown_families
from attack.synthetic_attacks.mia_game import split_holdout
from attack.synthetic_attacks.settings import SynthSpec

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True, eq=False)
class SyntheticScenarioResult:
    """What ``SyntheticScenario.run`` returns: the attacks' result, the synthetic file when
    the scenario made it (record-level, kept in memory), and the scenario."""

    result: SyntheticResult
    synthetic: pd.DataFrame | None
    scenario: SyntheticScenario

    @property
    def passed(self) -> bool:
        """True when the upper 95% bound of every check is below τ."""
        return self.result.passed

    @property
    def checks(self) -> pd.DataFrame:
        """One row per decision: attack family, measure, value, upper bound, τ, verdict."""
        return self.result.checks

    def to_dict(self) -> dict:
        """The JSON document ``attack run`` writes for this scenario."""
        return self.result.to_dict()

    def to_markdown(self) -> str:
        """The summary ``attack run`` prints."""
        return self.result.to_markdown()

    def to_html(self, path: str | Path | None = None) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given."""
        return self.result.to_html(path)

    def _repr_html_(self) -> str:
        return self.result._repr_html_()

    def __repr__(self) -> str:
        return repr(self.result).replace("SyntheticResult", "SyntheticScenarioResult", 1)

    def plot(self) -> list[Figure]:
        """The figures of the HTML report, as matplotlib figures."""
        return self.result.plot()

    def certificate(self, directory: str | Path, *, key: Any | None = None) -> dict:
        """The sealed certificate (SHA-256 of the scenario file and of every input, the checks,
        the verdict), signed when a private ``key`` is given."""
        rerun = {"scenario": "the input with role 'scenario'"} if self.scenario.path else None
        return certificate.build_synthetic(figures=self.result.figures,
                                           inputs=self.scenario.fingerprints(Path(directory), self.synthetic),
                                           key=key, rerun=rerun)

    def certify(self, path: str | Path, *, sign: str | Path | None = None, passphrase: bytes | None = None) -> dict:
        """Write the certificate to ``path`` (JSON) with its printable HTML twin."""
        key = None if sign is None else signing.load_private_key(sign, passphrase)
        sealed = self.certificate(Path(path).parent, key=key)
        write_files_atomic(certificate_files(path, sealed), inputs=self.scenario.input_paths())
        return sealed

    def write(self, *, json: str | Path | None = None, html: str | Path | None = None,
              certificate: str | Path | None = None, synthetic: str | Path | None = None,
              key: Any | None = None) -> list[Path]:
        """Write the requested files, all or none of them, never over an input of the scenario:
        the JSON, the HTML report, the certificate with its HTML twin (signed with ``key`` when
        given) and the synthetic file the scenario made (record-level, owner-only)."""
        inputs = self.scenario.input_paths()
        check_outputs([*(certificate_paths(certificate) if certificate else []), json, html, synthetic], inputs)
        files: dict[Path, tuple[str | bytes, int | None]] = {}
        if certificate is not None:
            files.update(certificate_files(certificate, self.certificate(Path(certificate).parent, key=key)))
        if json is not None:
            files[Path(json)] = json_file(self.to_dict())
        if html is not None:
            files[Path(html)] = (self.to_html(), None)
        if synthetic is not None and self.synthetic is not None:
            files[Path(synthetic)] = record_file(self.synthetic, synthetic)
        return write_files_atomic(files, inputs=inputs)


@dataclass(frozen=True)
class SyntheticScenario:
    """A loaded synthetic-release scenario (no data read yet)."""

    settings: SyntheticScenarioSettings
    base: Path = Path(".")
    path: Path | None = None
    outputs: dict[str, Path] = field(default_factory=dict)
    #: SHA-256 of every file as this scenario read it (what its certificate binds).
    ledger: ReadLedger = field(default_factory=ReadLedger, repr=False, compare=False)

    @property
    def title(self) -> str:
        """The scenario's title (heading of the reports)."""
        return self.settings.title

    @classmethod
    def from_toml(cls, path: str | Path) -> SyntheticScenario:
        """Read and validate a synthetic-release scenario file (no data file is read yet)."""
        scenario = open_scenario(path)
        if not isinstance(scenario, SyntheticScenario):
            raise InputError('not a synthetic-release scenario (kind = "synthetic"); load it with '
                             "attack.Scenario.from_toml", file=str(path))
        return scenario

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], base: str | Path = ".") -> SyntheticScenario:
        """A scenario from its settings as data (the TOML file's tables as a mapping); paths
        are relative to ``base``."""
        settings = validate_synthetic(raw)
        outputs = settings.output.model_dump(by_alias=True, exclude_none=True)
        return cls(settings, Path(base), None, {k: Path(base) / v for k, v in outputs.items()})

    def to_toml(self) -> str:
        """The scenario file's text: the settings it was loaded with, defaults left out."""
        return tomli_w.dumps(self.settings.model_dump(mode="json", by_alias=True, exclude_defaults=True)
                             | {"kind": "synthetic"})

    @gathered
    def run(self) -> SyntheticScenarioResult:
        """Make the synthetic file when the scenario says how (else read it), then attack it.
        Each run keeps its own record of the bytes it read (the files its certificate binds)."""
        return replace(self, ledger=self.ledger.copy())._run()

    def _run(self) -> SyntheticScenarioResult:
        original, holdout = self._training()
        made = None
        if self.settings.data.synthetic is not None:
            synthetic = self._read("synthetic", self.settings.data.synthetic)
        else:
            made = self._synthesize(original.frame)
            synthetic = Table(made, "the synthetic file made by [synthesis]")
        result = attack_synthetic(original, synthetic, holdout, self._spec(), title=self.title)
        if made is not None:
            result = replace(result, synthesis={"made_by_scenario": True, **self._synthesis_log()}, sources=())
        return SyntheticScenarioResult(result, made, self)

    def tune(self) -> SynthesisTuning:
        """Search the ``[tune]`` grid for the most useful synthetic file whose every check passes."""
        table = self.settings.tune
        if table is None:
            raise InputError("the scenario has no [tune] table", file=self._file())
        original_table, holdout_table = self._training()
        original, holdout = original_table.frame, None if holdout_table is None else holdout_table.frame
        synthesis = self.settings.synthesis
        fixed = {} if synthesis is None else {k: v for k, v in synthesis.keywords().items()  # as written
                                              if k in synthesis.model_fields_set and k not in table.grid}
        attacks = self.settings.attacks
        return tune_synthesis(
            original, table.grid, holdout=holdout, columns=self._columns(original), fixed=fixed,
            attacks={"keys": attacks.keys, "targets": attacks.targets, "tau": attacks.tau,
                     "n_attacks": attacks.n_attacks, "gammas": attacks.gammas},
            membership=None if self.settings.membership is None else self.settings.membership.game(),
            utility_model=table.utility_model, seed=0 if synthesis is None else synthesis.seed,
        )

    def fingerprints(self, directory: Path, made: pd.DataFrame | None = None) -> list[dict]:
        """SHA-256 of the scenario file and of every data source, for a certificate."""
        out = [self.ledger.file_input("scenario", self.path, directory)] if self.path else []
        data = self.settings.data
        for role in ("original", "synthetic", "holdout"):
            entry = getattr(data, role)
            if entry is None:
                continue
            if entry.demo is not None:
                options = self._demo_options()
                frame, _ = demo_source(entry.demo, **options)
                out.append(frame_input(role, f"demo:{entry.demo}", frame, options))
            else:
                out.append(self.ledger.file_input(role, self._resolve(entry.path), directory))
        if made is not None:  # not re-derivable on its own: attack verify --rerun makes it again
            out.append({"role": "synthetic", "made_by": "the scenario's [synthesis] table",
                        "sha256": sha256_frame(made), "rows": len(made)})
        return out

    def input_paths(self) -> list[Path]:
        """The data files the scenario reads (outputs must not overwrite them)."""
        data = self.settings.data
        entries = (data.original, data.synthetic, data.holdout)
        claim = self.settings.privacy_claim
        return [self._resolve(e.path) for e in entries if e is not None and e.path is not None] + (
            [self.path] if self.path else []) + (
            [self._resolve(claim.ledger)] if claim is not None and claim.ledger is not None else [])

    # -- the steps ---------------------------------------------------------------------------

    def _known_columns(self, original: Table) -> None:
        """Every column the settings name exists in the original (checked before the synthesis
        and the attacks start)."""
        synthesis, attacks = self.settings.synthesis, self.settings.attacks
        unknown_families(attacks.options, (cls.family for cls in registered()))
        named = [("attacks." + f, getattr(attacks, f)) for f in ("keys", "targets", "exclude", "categorical")]
        named.append(("attacks.bins", list(attacks.bins)))
        if synthesis is not None:
            named += [("synthesis." + f, getattr(synthesis, f) or []) for f in
                      ("columns", "drop", "keep", "strata", "visit_sequence")]
            named += [("synthesis.method", list(synthesis.method)), ("synthesis.predictors", list(synthesis.predictors or {}))]
        for field_name, columns in named:
            for column in columns:
                if column not in original.frame.columns:
                    raise InputError(f"column {column!r} is not in the original", field=field_name,
                                     file=original.source)

    def _training(self) -> tuple[Table, Table | None]:
        """The original the synthesiser learns from, and the holdout (a file, or a share of the
        original's records drawn with the synthesis seed)."""
        data, synthesis = self.settings.data, self.settings.synthesis
        original = self._read("original", data.original)
        self._known_columns(original)
        if data.holdout is not None:
            return original, self._read("holdout", data.holdout)
        if synthesis is not None and synthesis.holdout_share and data.synthetic is None:
            try:
                training, holdout = split_holdout(original.frame, synthesis.holdout_share, synthesis.seed)
            except InputError as exc:
                raise InputError(exc.message, field="synthesis.holdout_share", file=self._file()) from None
            return original.with_frame(training), original.with_frame(holdout)
        return original, None

    def _columns(self, original: pd.DataFrame) -> list[str]:
        synthesis = self.settings.synthesis
        if synthesis is None:
            return list(original.columns)
        if synthesis.columns is not None:
            return [*synthesis.columns, *(c for c in [*synthesis.keep, *synthesis.strata] if c not in synthesis.columns)]
        return [c for c in original.columns if c not in synthesis.drop]

    def _synthesis(self) -> SynthesisSettings:
        """The [synthesis] table, which the settings require when they make the synthetic file."""
        if self.settings.synthesis is None:
            raise InputError("the scenario has no [synthesis] table", file=self._file())
        return self.settings.synthesis

    def _synthesize(self, original: pd.DataFrame) -> pd.DataFrame:
        synthesis = self._synthesis()
        columns = self._columns(original)
        made = [c for c in columns if c not in synthesis.keep and c not in synthesis.strata]
        return synthesize(original, columns=made, rows=synthesis.rows, seed=synthesis.seed,
                          **synthesis.keywords()).frame

    def _synthesis_log(self) -> dict:
        return self._synthesis().model_dump(mode="json", exclude_defaults=True)

    def _spec(self) -> SynthSpec:
        attacks, synthesis = self.settings.attacks, self.settings.synthesis
        membership = None
        if self.settings.membership is not None:
            membership = {"synthesis": self._synthesis().keywords(), **self.settings.membership.game()}
        dropped = [] if synthesis is None else synthesis.drop  # never in the synthetic file
        family, claim = self.settings.membership_family, self.settings.privacy_claim
        extra: dict[str, Any] = {}
        if family is not None:
            extra["membership_family"] = family.model_dump()
        if claim is not None:
            from attack.study.budget_ledger import claim_settings

            extra["privacy_claim"] = claim_settings(claim.epsilon, claim.delta,
                                                    None if claim.ledger is None else self._resolve(claim.ledger),
                                                    claim.confidence)
        return SynthSpec(**{
            **attacks.model_dump(), "membership": membership, **extra,
            "exclude": list(dict.fromkeys([*attacks.exclude, *dropped])),
            "categorical": list(dict.fromkeys([*attacks.categorical, *self.settings.data.original.codes]))})

    def _read(self, role: str, entry: SyntheticEntry) -> Table:
        if entry.demo is not None:
            return demo_table(entry.demo, **self._demo_options())[0]
        if entry.path is None:
            raise InputError(f"[data] {role} needs a path or a demo", file=self._file())
        path = self._resolve(entry.path)
        options = entry.read_options()
        codes = tuple(dict.fromkeys([*options.codes, *self.settings.attacks.categorical]))
        table = read(path, None, replace(options, codes=codes))
        self.ledger.record_table(path, table)
        return table

    def _demo_options(self) -> dict:
        demo = self.settings.data.demo
        return {} if demo is None else demo.model_dump()

    def _resolve(self, path: str) -> Path:
        file = Path(path)
        return file if file.is_absolute() else self.base / file

    def _file(self) -> str | None:
        return None if self.path is None else str(self.path)


def open_scenario(path: str | Path) -> Scenario | SyntheticScenario:
    """Read and validate a scenario file of either kind: a linkage scenario (``Scenario``)
    or, with ``kind = "synthetic"``, a synthetic-release scenario."""
    path = Path(path)
    raw, content = scenario_file(path)
    try:
        if raw.get("kind") == "synthetic":
            scenario: Scenario | SyntheticScenario = replace(SyntheticScenario.from_dict(raw, base=path.parent),
                                                             path=path)
        else:
            scenario = scenario_from_dict(raw, base=path.parent, path=path)
    except InputError as exc:
        if exc.file is None:
            exc.file = str(path)
        raise
    scenario.ledger.record_bytes(path, content)
    return scenario
