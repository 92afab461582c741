"""Verification of a certificate, one check per line (``docs/reference/certificate.md``).

In order: the signature (given the issuer's public key), the digest, the structure of the
certificate's kind (``attack.study.certificate_schema``), that the verdict follows from every
verdict-bearing figure and τ, the SHA-256 of every input (paths relative to the certificate that
stay inside its folder; ``offline`` leaves them out) and, on request, a rerun of the attack whose
every figure must equal the certified one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pandas as pd

from attack.errors import InputError
from attack.io.fingerprint import sha256_file, sha256_frame
from attack.io.jsonio import cell_key
from attack.io.writers import verify_root
from attack.report.notebook import one_line, result_html, verdict_word
from attack.risk.basis import reasons as basis_reasons
from attack.risk.combine import combine
from attack.risk.results import AttackFigures
from attack.study import signing
from attack.study.certificate import (
    attack_verdict,
    canonical,
    digest,
    failing_cells,
    load,
    signed_bytes,
    synthetic_verdict,
    unjudged_runs,
)
from attack.study.certificate_schema import structure_problems
from attack.verdict import all_below_tau, below_tau

#: Entries a rerun does not reproduce: when and where it ran, and the seal.
NOT_RERUN = ("created", "environment", "tool", "digest", "signature")
_SHOWN_DIFFERENCES = 3
_SHOWN_PROBLEMS = 20


@dataclass(frozen=True)
class VerificationCheck:
    """One verification step: ``ok`` True (passed), False (failed) or None (not performed:
    information only, e.g. that the signer was not verified)."""

    ok: bool | None
    text: str
    #: not performed because a file lies outside the folder verify may open (``--root``): the
    #: certificate is then neither verified nor failed, but not checked (exit status 2: give --root)
    outside: bool = False

    def line(self) -> str:
        return ("?" if self.outside else {True: "✔", False: "✘", None: "•"}[self.ok]) + " " + self.text

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "outside": self.outside, "text": self.text}


@dataclass(frozen=True)
class Verification:
    """Outcome of ``verify``.

    ``ok`` is True when every check performed passed and no file was left unopened for lying
    outside the folder verify may open; ``authentic`` only when, in addition, a signature was
    checked against the public key given and matched. ``inputs_checked`` is False after an
    offline verification: the inputs' SHA-256 were not compared. ``status`` is ``"verified"``,
    ``"failed"`` (a check failed) or ``"not checked"`` (none failed, but inputs outside the
    certificate's folder were not opened: give ``root``); ``root`` is the folder to give then.
    """

    checks: tuple[VerificationCheck, ...]
    signer: str | None
    authentic: bool
    inputs_checked: bool = True
    root: Path | None = None

    @property
    def ok(self) -> bool:
        return self.status == "verified"

    @property
    def status(self) -> str:
        if any(c.ok is False for c in self.checks):
            return "failed"
        return "not checked" if self.not_checked else "verified"

    @property
    def problems(self) -> list[str]:
        return [c.text for c in self.checks if c.ok is False]

    @property
    def not_checked(self) -> list[str]:
        """The checks not performed because their files lie outside the folder verify may open."""
        return [c.text for c in self.checks if c.outside]

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data: status, verdict words and every check."""
        return {"status": self.status, "ok": self.ok, "authentic": self.authentic, "signer": self.signer,
                "inputs_checked": self.inputs_checked, "root": None if self.root is None else self.root.as_posix(),
                "checks": [c.to_dict() for c in self.checks]}

    def _facts(self) -> list[str]:
        return [f"{len(self.problems)} of {len(self.checks)} checks failed"
                + (f", {len(self.not_checked)} not checked (outside the folder)" if self.not_checked else ""),
                f"signed by {self.signer}" if self.authentic else "signature not verified",
                "inputs compared" if self.inputs_checked else "inputs not compared (offline)"]

    def __repr__(self) -> str:
        return one_line("Verification", self.ok, *self._facts())

    def _repr_html_(self) -> str:
        table = pd.DataFrame([{"ok": c.ok, "check": c.text} for c in self.checks])
        return result_html("Certificate verification", self.ok, self._facts(), table,
                           failing=[c.ok is False for c in self.checks])


def verify(path: str | Path, *, public_key: str | Path | None = None, rerun: bool = False,
           offline: bool = False, root: str | Path | None = None) -> Verification:
    """VerificationCheck a certificate file.

    Parameters
    ----------
    path:
        The certificate (JSON). A file that is not readable as one raises ``InputError``;
        a readable one whose structure is broken fails verification.
    public_key:
        The issuer's ``public.pem``: without it a signature is not checked and the certificate
        is never called authentic.
    rerun:
        Repeat the attack on the certified inputs and compare every figure.
    offline:
        VerificationCheck signature, digest, structure and verdict only; the inputs are not opened.
    root:
        The folder input paths may not leave (default: the certificate's folder).
    """
    if rerun and offline:
        raise InputError("--rerun reads the inputs; it cannot be combined with --offline")
    path = Path(path)
    certificate = load(path)
    key = signing.load_public_key(public_key) if public_key is not None else None
    checks = [_signature(certificate, key), _digest(certificate)]
    problems = structure_problems(certificate)
    if problems:
        checks += _broken_structure(problems)
    else:
        checks.append(VerificationCheck(True, f"structure of a {certificate['kind']} certificate holds: every figure "
                                  "the verdict rests on is present, nothing is empty, one τ throughout"))
        checks += _verdict(certificate)
        checks += _inputs_and_rerun(certificate, path.parent, checks, root=root, offline=offline, rerun=rerun)
    signature = certificate.get("signature")
    signer = signature.get("public_key_fingerprint") if isinstance(signature, dict) else None
    authentic = key is not None and checks[0].ok is True and all(c.ok is not False and not c.outside for c in checks)
    needed = None
    if any(c.outside for c in checks) and isinstance(certificate.get("inputs"), list):
        needed = verify_root(path, [i["path"] for i in certificate["inputs"]
                                    if isinstance(i, dict) and isinstance(i.get("path"), str)])
    return Verification(tuple(checks), signer if isinstance(signer, str) else None, authentic, not offline, needed)


def _broken_structure(problems: list[str]) -> list[VerificationCheck]:
    """The structure's first problems, and that nothing else was checked."""
    checks = [VerificationCheck(False, f"structure: {p}") for p in problems[:_SHOWN_PROBLEMS]]
    if len(problems) > _SHOWN_PROBLEMS:
        checks.append(VerificationCheck(False, f"structure: and {len(problems) - _SHOWN_PROBLEMS} more problem(s)"))
    checks.append(VerificationCheck(None, "verdict, inputs and rerun not checked: the certificate's structure is broken"))
    return checks


def _inputs_and_rerun(certificate: dict, folder: Path, so_far: list[VerificationCheck], *, root: str | Path | None,
                      offline: bool, rerun: bool) -> list[VerificationCheck]:
    """The inputs' SHA-256 and the scenario's parts (unless ``offline``), then the rerun when
    asked for; ``so_far`` are the checks before these."""
    checks: list[VerificationCheck] = []
    inside = Path(root) if root is not None else folder
    if offline:
        checks.append(VerificationCheck(None, "inputs NOT checked (--offline): their SHA-256 were not compared"))
    else:
        checks += [_input(item, folder, inside, root is not None) for item in certificate["inputs"]]
        if certificate["kind"] != "synthetic" and all(c.ok is not False and not c.outside for c in [*so_far, *checks]):
            checks.append(_parts_of_the_scenario(certificate, folder, inside, root is not None))
    if rerun:
        done = [*so_far, *checks]
        checks.append(_rerun_check(certificate, folder, inside, ok_so_far=all(c.ok is not False for c in done),
                                   reached=not any(c.outside for c in done)))
    return checks


def _signature(certificate: dict, key: Any | None) -> VerificationCheck:
    entry = certificate.get("signature")
    if entry is not None and not (isinstance(entry, dict)
                                  and all(isinstance(entry.get(k), str)
                                          for k in ("algorithm", "public_key_fingerprint", "value"))):
        return VerificationCheck(False, "signature entry malformed: expected algorithm, public_key_fingerprint and value as text")
    if key is None:
        if entry is None:
            return VerificationCheck(None, "unsigned: who issued this certificate cannot be verified")
        return VerificationCheck(None, f"signed by key {entry['public_key_fingerprint']}, but the signer is not "
                           "verified: give the issuer's public key (--public-key) to check it")
    expected = signing.fingerprint(key)
    if entry is None:
        return VerificationCheck(False, f"unsigned: there is no signature to check against key {expected}")
    if entry["public_key_fingerprint"] != expected:
        return VerificationCheck(False, f"signed by key {entry['public_key_fingerprint']}, not by the given key {expected}")
    if not signing.signature_valid(signed_bytes(certificate), entry, key):
        return VerificationCheck(False, "signature does NOT match: the certificate was changed after it was signed")
    return VerificationCheck(True, f"signature valid: issued by the holder of key {expected}")


def _digest(certificate: dict) -> VerificationCheck:
    if digest(certificate) == certificate.get("digest"):
        return VerificationCheck(True, "digest matches the certificate's content")
    return VerificationCheck(False, "digest does NOT match: the certificate itself was altered")


# -- the verdict from the figures -------------------------------------------------------------


def _verdict(certificate: dict) -> list[VerificationCheck]:
    """The verdict and every pass/fail mark recomputed from the certificate's own figures (the
    structure has been checked: every list is non-empty, every τ the scenario's)."""
    recomputed, problems = recomputed_verdict(certificate)
    verdict = certificate["verdict"]
    for name, value in recomputed.items():
        if verdict.get(name) != value:
            problems.append(f"verdict {name} is {verdict.get(name)!r}; the figures give {value!r}")
    if problems:
        return [VerificationCheck(False, f"verdict does NOT follow from the figures: {p}") for p in problems]
    word = verdict_word(bool(verdict["factually_anonymous"]))
    return [VerificationCheck(True, f"verdict ({word}) follows from the certificate's figures and τ")]


def recomputed_verdict(certificate: Mapping[str, Any]) -> tuple[dict, list[str]]:
    """The verdict the figures of a certificate (its structure checked) give, and one line per
    pass/fail mark in it that does not follow from its figures and τ. ``attack report`` checks a
    result document with this same function (``attack.study.result_check``)."""
    problems: list[str] = []
    if certificate["kind"] == "synthetic":
        return _synthetic_verdict(certificate, problems), problems
    return _attack_verdict(certificate, problems), problems


def _synthetic_verdict(certificate: Mapping[str, Any], problems: list[str]) -> dict:
    tau = certificate["scenario"]["settings"]["tau"]
    checks = copy.deepcopy(certificate["results"])
    for check in checks:
        expected = below_tau(check["upper"], tau)
        if check["passed"] is not expected:
            problems.append(f"check {check['family']} {check['measure']}: marked {_mark(check['passed'])} but "
                            f"its upper bound {check['upper']} against τ = {tau} says {_mark(expected)}")
            check["passed"] = expected
    return synthetic_verdict(checks)


def _attack_verdict(certificate: Mapping[str, Any], problems: list[str]) -> dict:
    tau = certificate["scenario"]["evaluation"]["tau"]
    results = copy.deepcopy(certificate["results"])
    for run in results:
        judged = run.get("judged_on")
        limit = None if judged is None else judged["identity"]["limit"]
        _judge_cells(run["cells"], tau, run["name"], problems, limit)
        blockers = [] if judged is None else basis_reasons(judged)
        if judged is not None and blockers != judged["reasons"]:
            problems.append(f"run {run['name']}: certified reasons {judged['reasons']} but its counts give {blockers}")
        expected = all(c["passed"] for c in run["cells"]) and not blockers
        for where, marked in (("", run["passed"]), (" overall", run["overall"].get("passed", expected))):
            if marked is not expected:
                problems.append(f"run {run['name']}{where}: marked {_mark(marked)} against its cells")
    combined = None
    if certificate["combined"] is not None:
        combined = _combined(results, certificate["combined"], certificate["scenario"]["lam"], tau, problems)
    return attack_verdict(failing_cells(results, combined), _endangered(certificate["single_attack"], problems),
                          unjudged_runs(results))


def _judge_cells(cells: list[dict], tau: float, where: str, problems: list[str], limit: float | None = None) -> None:
    for cell in cells:
        expected = all_below_tau(cell["disclosure_risk"].values(), tau)
        if limit is not None:
            identity = isinstance(cell["reidentification_rate"], float) and cell["reidentification_rate"] < limit
            if cell.get("identity_passed") is not identity:
                problems.append(f"{where}, cell {_label(cell)}: re-identification rate {cell['reidentification_rate']} "
                                f"against the limit {limit} says {_mark(identity)}")
            expected = expected and identity
        if cell["passed"] is not expected:
            problems.append(f"{where}, cell {_label(cell)}: marked {_mark(cell['passed'])} but its disclosure "
                            f"risks {cell['disclosure_risk']} against τ = {tau} say {_mark(expected)}")
            cell["passed"] = expected


def _combined(results: list[dict], certified: dict, lam: float, tau: float, problems: list[str]) -> dict:
    """The combined measure recomputed from the runs' cells (λ-weighted worst case and mean of
    the realistic intruders per cell), compared cell by cell with the certified one."""
    try:
        limits = {(r.get("judged_on") or {}).get("identity", {}).get("limit") for r in results}
        fresh = combine([(r["intruder"], AttackFigures.from_dict(
            {"cells": r["cells"], "disclosure_risk": r["overall"]["disclosure_risk"]})) for r in results],
            lam, tau, limits.pop() if len(limits) == 1 else None).to_dict()
    except (InputError, TypeError) as exc:  # e.g. two worst cases, a run cell without an estimate
        problems.append(f"the combined measure cannot be recomputed from the runs: {exc}")
        return certified
    stated = {cell_key(c["cell"]): c for c in certified["cells"]}
    for cell in fresh["cells"]:
        found = stated.pop(cell_key(cell["cell"]), None)
        if found is None:
            problems.append(f"combined measure: cell {_label(cell)} of the runs is missing")
        elif found["disclosure_risk"] != cell["disclosure_risk"] or found["passed"] is not cell["passed"]:
            problems.append(f"combined measure, cell {_label(cell)}: certified {found['disclosure_risk']} "
                            f"({_mark(found['passed'])}); the runs' cells with λ = {lam} give "
                            f"{cell['disclosure_risk']} ({_mark(cell['passed'])})")
    problems += [f"combined measure: cell {_label(c)} is in no run" for c in stated.values()]
    if certified["passed"] is not fresh["passed"]:
        problems.append(f"combined measure: marked {_mark(certified['passed'])} against its cells")
    return fresh


def _endangered(single_attack: dict | None, problems: list[str]) -> int:
    """Targets with R(u) ≥ τ: the count must agree with its reasons and the number of targets
    (the per-target figures are not in a certificate; --rerun recomputes them)."""
    if single_attack is None:
        return 0
    risk = single_attack["unit_risk"]
    count, reasons = risk["n_endangered"], sum(risk["by_reason"].values())
    if count != reasons:
        problems.append(f"single attacks: {count} endangered target(s), but the reasons count {reasons}")
    if max(count, reasons) > risk["n_targets"]:
        problems.append(f"single attacks: {max(count, reasons)} endangered of {risk['n_targets']} target(s)")
    return max(count, reasons)


def _label(cell: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in cell["cell"].items()) or "all units"


def _mark(passed: Any) -> str:
    return verdict_word(passed) if isinstance(passed, bool) else repr(passed)


# -- the inputs ------------------------------------------------------------------------------


def _input(item: dict, folder: Path, root: Path, widened: bool = False) -> VerificationCheck:
    if item.get("made_by") is not None:
        return VerificationCheck(None, f"{item['role']} file made by {item['made_by']}: --rerun makes it again and compares")
    label = f"{item['role']} input {item.get('path') or item.get('source')}"
    if item.get("path") is not None:
        file = _inside(item["path"], folder, root)
        if file == _OUTSIDE:
            return VerificationCheck(None, f"{label}: {_outside(root, widened)}", outside=True)
        if isinstance(file, str):
            return VerificationCheck(False, f"{label}: {file}; not opened")
        found = sha256_file(file)
    else:
        try:
            found = sha256_frame(_demo_frame(item))
        except (InputError, TypeError, ValueError, KeyError) as exc:
            return VerificationCheck(False, f"{label}: cannot be generated again ({exc})")
        except MemoryError:
            return VerificationCheck(False, f"{label}: cannot be generated again (not enough memory for {item.get('options')})")
    if found != item["sha256"]:
        return VerificationCheck(False, f"{label}: SHA-256 {found} does NOT match the certified {item['sha256']}")
    return VerificationCheck(True, f"{label}: SHA-256 matches")


#: What ``_inside`` says of a path that leaves the folder verify may open: not checked.
_OUTSIDE = "outside"


def _outside(root: Path, widened: bool) -> str:
    """The line of a file not opened because it lies outside the folder verify may open."""
    if widened:
        return f"not checked: outside the folder given with --root ({root.name or root}); not opened"
    return ("not checked: outside the certificate's folder, give --root DIR (a folder holding the "
            "certificate and its inputs); not opened")


def _inside(text: str, folder: Path, root: Path) -> Path | str:
    """The regular file ``text`` names relative to ``folder``, or why it may not be opened: an
    absolute path, ``_OUTSIDE`` for a path that leaves ``root`` (by ``..`` or a symbolic link),
    no such file."""
    if "\x00" in text or PurePosixPath(text).is_absolute() or PureWindowsPath(text).anchor:
        return "an absolute path (a certificate names its inputs relative to its own folder)"
    real = (folder / text).resolve()
    if not real.is_relative_to(root.resolve()):
        return _OUTSIDE
    if not real.exists():
        return "file not found"
    if not real.is_file():
        return "not a regular file"
    return real


def _demo_frame(item: dict) -> pd.DataFrame:
    from attack.datasets.demo import demo_source

    if not item["source"].startswith("demo:"):
        raise InputError("not a generated demo source")
    return demo_source(item["source"].removeprefix("demo:"), **(item.get("options") or {}))[0]


class _NotRepeatable(Exception):
    """The certificate does not hold what a rerun needs."""


class _Outside(_NotRepeatable):
    """The certified scenario names a data file outside the folder verify may open."""


def _parts_of_the_scenario(certificate: dict, folder: Path, root: Path, widened: bool = False) -> VerificationCheck:
    """The certified scenario (its SHA-256 checked) read again without its data: the
    certificate must name exactly the scenario's inputs and carry a run per intruder and release,
    the combined measure exactly when the scenario has λ, single attacks exactly when it has
    them, and the scenario's τ."""
    try:
        scenario = _certified_scenario(certificate, folder)
        _confined(scenario.input_paths(), root)
        fingerprints = scenario.fingerprints(folder)
    except _Outside as exc:
        return VerificationCheck(None, f"the certified scenario: {exc}: {_outside(root, widened)}", outside=True)
    except (InputError, _NotRepeatable) as exc:
        return VerificationCheck(False, f"the certified scenario cannot be read again: {exc}")
    problems = []
    runs = len(scenario.releases) * len(scenario.intruders)
    if len(certificate["results"]) != runs:
        problems.append(f"{len(certificate['results'])} run(s); the scenario has {runs}")
    if certificate["scenario"]["evaluation"]["tau"] != scenario.evaluation.tau:
        problems.append(f"τ = {certificate['scenario']['evaluation']['tau']}; the scenario's is {scenario.evaluation.tau}")
    named = sorted((i["role"], i["sha256"]) for i in certificate["inputs"] if i.get("made_by") is None)
    wanted_inputs = sorted((i["role"], i["sha256"]) for i in fingerprints)
    if named != wanted_inputs:
        missing = [role for role, _ in wanted_inputs if role not in {r for r, _ in named}]
        problems.append("its inputs are not the scenario's" + (f" (no {', '.join(missing)} input)" if missing else ""))
    for part, wanted in (("combined", scenario.lam is not None), ("single_attack", scenario.single is not None)):
        if (certificate[part] is not None) != wanted:
            problems.append(f"{part} is {'missing' if wanted else 'present'}, the scenario "
                            f"{'asks for it' if wanted else 'does not ask for it'}")
    if problems:
        return VerificationCheck(False, "the certificate does NOT carry what its scenario asks for: " + "; ".join(problems))
    return VerificationCheck(True, "the certificate carries every part its scenario asks for (inputs, runs, combined "
                       "measure, single attacks) at the scenario's τ")


def _certified_scenario(certificate: dict, folder: Path) -> Any:
    from attack.study.demo import demo_scenario
    from attack.study.scenario import load_linkage_scenario

    if certificate["kind"] == "demo":
        settings = certificate["rerun"]
        try:
            return demo_scenario(settings["n_units"], settings["seed"], settings["method"])
        except KeyError as exc:
            raise _NotRepeatable(f"the demo's rerun entry lacks {exc}") from None
    entry = next((i for i in certificate["inputs"] if i["role"] == "scenario" and i.get("path")), None)
    if entry is None:
        raise _NotRepeatable("the certificate names no scenario input")
    return load_linkage_scenario(folder / entry["path"])


def _confined(files: list[Path], root: Path) -> None:
    """Refuse a certified scenario that names a data file outside ``root`` (it is not opened)."""
    for file in files:
        if not file.resolve().is_relative_to(root.resolve()):
            raise _Outside(f"it names the data file {file.name}")


# -- the rerun -------------------------------------------------------------------------------


def _rerun_check(certificate: dict, folder: Path, root: Path, ok_so_far: bool,
                 reached: bool = True) -> VerificationCheck:
    if not ok_so_far:
        return VerificationCheck(None, "rerun skipped: an earlier check failed")
    if not reached:
        return VerificationCheck(None, "rerun not done: files outside the folder verify may open were not "
                                 "opened (--root)", outside=True)
    word = "checks" if certificate["kind"] == "synthetic" else "figures"
    try:
        fresh = _rerun(certificate, folder, root)
    except _Outside as exc:
        return VerificationCheck(None, f"rerun not done: {exc}: {_outside(root, root != folder)}", outside=True)
    except _NotRepeatable as exc:
        return VerificationCheck(False, f"rerun NOT done: {exc}")
    except (InputError, ValueError, TypeError, KeyError) as exc:
        return VerificationCheck(False, f"rerun failed: {exc}")
    made = _made(certificate)
    if made is not None and _made(fresh) != made:
        return VerificationCheck(False, "rerun: the synthetic file made again differs from the certified one")
    differences = _differences(_comparable(certificate), _comparable(fresh), "")
    if differences:
        shown = "; ".join(differences[:_SHOWN_DIFFERENCES])
        more = f" (and {len(differences) - _SHOWN_DIFFERENCES} more)" if len(differences) > _SHOWN_DIFFERENCES else ""
        hint = (" The certificate of attack synth does not record --categorical/--code, --bins or the "
                "reading options: if they were given, run attack synth again with them and compare."
                if _is_synth_command(certificate) else "")
        return VerificationCheck(False, f"rerun: the {word} differ from the certified ones: {shown}{more}.{hint}")
    return VerificationCheck(True, f"rerun: {word} identical (every entry but {', '.join(NOT_RERUN)} and input paths)")


def _rerun(certificate: dict, folder: Path, root: Path) -> dict:
    """The certificate a fresh run (in this process, one job) would issue, unsealed parts and all.
    A mass-attack scenario's data files were confined by ``_parts_of_the_scenario``."""
    from attack.study.synthetic_scenario import SyntheticScenario

    if certificate["kind"] != "synthetic":
        return _certified_scenario(certificate, folder).run(engine={"jobs": 1}).certificate(folder)
    entry = next((i for i in certificate["inputs"] if i["role"] == "scenario" and i.get("path")), None)
    if entry is None:
        return _rerun_synth_command(certificate, folder)
    scenario = SyntheticScenario.from_toml(folder / entry["path"])
    _confined(scenario.input_paths(), root)
    return scenario.run().certificate(folder)


def _is_synth_command(certificate: dict) -> bool:
    return certificate["kind"] == "synthetic" and not any(i["role"] == "scenario" for i in certificate["inputs"])


def _rerun_synth_command(certificate: dict, folder: Path) -> dict:
    """``attack synth`` again: the certified settings on the certified input files."""
    from attack.io.readers import read
    from attack.study.certificate import build_synthetic
    from attack.study.synthetic_run import attack_synthetic
    from attack.synthetic_attacks.settings import SynthSpec

    settings = certificate["scenario"]["settings"]
    if settings.get("membership") is not None:
        raise _NotRepeatable("membership inference needs the synthesis log, which the certificate does not hold; "
                             "run attack synth --membership again and compare")
    files = {i["role"]: folder / i["path"] for i in certificate["inputs"] if i.get("path")}
    if "original" not in files or "synthetic" not in files:
        raise _NotRepeatable("the certificate names no original or no synthetic input file")
    try:
        spec = SynthSpec(**{name: settings[name] for name in (
            "keys", "targets", "exclude", "gammas", "tau", "metric", "scaling", "categorical_mode", "n_attacks",
            "seed")}, **({"options": settings["options"]} if settings.get("options") else {}))
    except KeyError as exc:
        raise _NotRepeatable(f"the certified settings lack {exc}") from None
    frames = {role: read(file) for role, file in files.items()}
    result = attack_synthetic(frames["original"], frames["synthetic"], frames.get("holdout"), spec)
    return build_synthetic(figures=result.figures, inputs=certificate["inputs"], rerun=certificate["rerun"])


def _made(certificate: dict) -> str | None:
    return next((i["sha256"] for i in certificate["inputs"] if i.get("made_by") is not None), None)


def _comparable(certificate: dict) -> Any:
    """Everything a rerun must reproduce, as plain JSON values: all entries but when and where it
    ran, the seal, and the inputs' paths."""
    body = {k: v for k, v in certificate.items() if k not in NOT_RERUN}
    body["inputs"] = [{k: v for k, v in i.items() if k != "path"} for i in certificate["inputs"]]
    return json.loads(canonical(body))


def _differences(certified: Any, fresh: Any, where: str) -> list[str]:
    """Where two JSON values differ, as ``path: certified …, rerun …`` lines."""
    if isinstance(certified, dict) and isinstance(fresh, dict):
        out = [f"{where}.{k}: certified, absent in the rerun".lstrip(".") for k in certified if k not in fresh]
        out += [f"{where}.{k}: absent, the rerun gives {_short(fresh[k])}".lstrip(".") for k in fresh
                if k not in certified]
        for k in certified:
            if k in fresh:
                out += _differences(certified[k], fresh[k], f"{where}.{k}")
        return out
    if isinstance(certified, list) and isinstance(fresh, list) and len(certified) == len(fresh):
        return [line for i, (a, b) in enumerate(zip(certified, fresh, strict=True)) for line in _differences(a, b, f"{where}[{i}]")]
    if certified == fresh and type(certified) is type(fresh):
        return []
    return [f"{where.lstrip('.')}: certified {_short(certified)}, rerun {_short(fresh)}"]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
