"""Verification of a certificate, one check per line: the signature (given the issuer's public
key), the digest, that the verdict follows from the certificate's own figures and τ, the SHA-256
of every input and, on request, a rerun of the attack (``docs/reference/certificate.md``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from attack.io.fingerprint import sha256_file, sha256_frame
from attack.study import signing
from attack.study.certificate import (
    attack_verdict,
    canonical,
    certified_results,
    digest,
    failing_cells,
    load,
    n_endangered,
    signed_bytes,
    synthetic_verdict,
)


@dataclass(frozen=True)
class Check:
    """One verification step: ``ok`` True (passed), False (failed) or None (not performed:
    information only, e.g. that the signer was not verified)."""

    ok: bool | None
    text: str

    def line(self) -> str:
        return {True: "✔", False: "✘", None: "•"}[self.ok] + " " + self.text


@dataclass(frozen=True)
class Verification:
    """Outcome of :func:`verify`.

    ``ok`` is True when every check performed passed; ``authentic`` only when, in addition, a
    signature was checked against the public key given and matched.
    """

    checks: tuple[Check, ...]
    signer: str | None
    authentic: bool

    @property
    def ok(self) -> bool:
        return all(c.ok is not False for c in self.checks)

    @property
    def problems(self) -> list[str]:
        return [c.text for c in self.checks if c.ok is False]


def verify(path: str | Path, *, public_key: str | Path | None = None, rerun: bool = False) -> Verification:
    """Check a certificate file. ``public_key`` is the issuer's ``public.pem``: without it a
    signature is not checked and the certificate is never called authentic. ``rerun`` repeats
    the attack (scenario and demo certificates) and compares the figures."""
    path = Path(path)
    certificate = load(path)
    key = signing.load_public_key(public_key) if public_key is not None else None
    checks = [_signature(certificate, key)]
    checks.append(Check(True, "digest matches the certificate's content") if digest(certificate) == certificate["digest"]
                  else Check(False, "digest does NOT match: the certificate itself was altered"))
    checks += _verdict(certificate)
    checks += [_input(item, path.parent) for item in certificate["inputs"]]
    if rerun:
        checks.append(_rerun_check(certificate, path.parent, ok_so_far=all(c.ok is not False for c in checks)))
    signer = (certificate.get("signature") or {}).get("public_key_fingerprint")
    authentic = key is not None and checks[0].ok is True and all(c.ok is not False for c in checks)
    return Verification(tuple(checks), signer, authentic)


def _signature(certificate: dict, key: Any | None) -> Check:
    entry = certificate.get("signature")
    if key is None:
        if entry is None:
            return Check(None, "unsigned: who issued this certificate cannot be verified")
        return Check(None, f"signed by key {entry.get('public_key_fingerprint')}, but the signer is not "
                           "verified: give the issuer's public key (--public-key) to check it")
    expected = signing.fingerprint(key)
    if entry is None:
        return Check(False, f"unsigned: there is no signature to check against key {expected}")
    if entry.get("public_key_fingerprint") != expected:
        return Check(False, f"signed by key {entry.get('public_key_fingerprint')}, not by the given key {expected}")
    if not signing.signature_valid(signed_bytes(certificate), entry, key):
        return Check(False, "signature does NOT match: the certificate was changed after it was signed")
    return Check(True, f"signature valid: issued by the holder of key {expected}")


def _verdict(certificate: dict) -> list[Check]:
    """The verdict and every pass/fail mark recomputed from the certificate's own figures."""
    problems: list[str] = []
    results = copy.deepcopy(certificate["results"])
    verdict = certificate["verdict"]
    if certificate["kind"] == "synthetic":
        for check in results:
            expected = check.get("upper") is not None and check["upper"] < check["tau"]
            if check.get("passed") != expected:
                problems.append(f"check {check.get('family')} {check.get('measure')}: marked "
                                f"{_mark(check.get('passed'))} but its upper bound {check.get('upper')} "
                                f"against τ = {check['tau']} says {_mark(expected)}")
                check["passed"] = expected
        recomputed = synthetic_verdict(results)
    else:
        for run in results:
            _judge_cells(run["cells"], run["tau"], run["name"], problems)
            if run["passed"] != all(c["passed"] for c in run["cells"]):
                problems.append(f"run {run['name']}: marked {_mark(run['passed'])} against its cells")
        combined = copy.deepcopy(certificate.get("combined"))
        if combined is not None:
            _judge_cells(combined["cells"], combined["tau"], "combined", problems)
        recomputed = attack_verdict(failing_cells(results, combined), n_endangered(certificate.get("single_attack")))
    for name in ("factually_anonymous", "failing_cells", "failing_checks", "endangered_targets", "statement"):
        if name in recomputed and verdict.get(name) != recomputed[name]:
            problems.append(f"verdict {name} is {verdict.get(name)!r}; the figures give {recomputed[name]!r}")
    if problems:
        return [Check(False, f"verdict does NOT follow from the figures: {p}") for p in problems]
    word = "factually anonymous" if verdict["factually_anonymous"] else "not certified"
    return [Check(True, f"verdict ({word}) follows from the certificate's figures and τ")]


def _judge_cells(cells: list[dict], tau: float, where: str, problems: list[str]) -> None:
    for cell in cells:
        expected = all(v is not None and v < tau for v in cell["disclosure_risk"].values())
        if cell["passed"] != expected:
            label = ", ".join(f"{k}={v}" for k, v in cell["cell"].items()) or "all units"
            problems.append(f"{where}, cell {label}: marked {_mark(cell['passed'])} but its disclosure "
                            f"risks {cell['disclosure_risk']} against τ = {tau} say {_mark(expected)}")
            cell["passed"] = expected


def _mark(passed: Any) -> str:
    return "pass" if passed else "FAIL"


def _input(item: dict, folder: Path) -> Check:
    if "made_by" in item:
        return Check(None, f"{item['role']} file made by {item['made_by']}: --rerun makes it again and compares")
    label = f"{item['role']} input {item.get('path') or item.get('source')}"
    if "path" in item:
        file = folder / item["path"]
        if not file.is_file():
            return Check(False, f"{label}: file not found")
        found = sha256_file(file)
    else:
        found = sha256_frame(_demo_frame(item))
    if found != item["sha256"]:
        return Check(False, f"{label}: SHA-256 {found} does NOT match the certified {item['sha256']}")
    return Check(True, f"{label}: SHA-256 matches")


def _demo_frame(item: dict) -> pd.DataFrame:
    from attack.datasets.demo import demo_source

    return demo_source(item["source"].removeprefix("demo:"), **item.get("options", {}))[0]


def _rerun_check(certificate: dict, folder: Path, ok_so_far: bool) -> Check:
    if not ok_so_far:
        return Check(None, "rerun skipped: an earlier check failed")
    if certificate["kind"] == "synthetic":
        return _rerun_synthetic(certificate, folder)
    fresh, combined = _rerun(certificate, folder)
    same = canonical(_figures(fresh)) == canonical(_figures(certificate["results"]))
    if not same or canonical(combined) != canonical(certificate.get("combined")):
        return Check(False, "rerun: the figures differ from the certified ones")
    return Check(True, "rerun: figures identical")


def _rerun_synthetic(certificate: dict, folder: Path) -> Check:
    """A synthetic-release scenario run again: the same checks, and the same synthetic file
    when the scenario made it. Certificates of ``attack synth`` name no scenario."""
    from attack.study.synthetic_scenario import SyntheticScenario

    entry = next((i for i in certificate["inputs"] if i["role"] == "scenario"), None)
    if entry is None:
        return Check(None, "rerun not available for a certificate of attack synth (check the inputs' "
                           "SHA-256 and run attack synth again with the certified settings)")
    outcome = SyntheticScenario.from_toml(folder / entry["path"]).run()
    made = next((i for i in certificate["inputs"] if "made_by" in i), None)
    if made is not None and (outcome.synthetic is None or sha256_frame(outcome.synthetic) != made["sha256"]):
        return Check(False, "rerun: the synthetic file made again differs from the certified one")
    same = canonical([dict(c) for c in outcome.result.figures["checks"]]) == canonical(certificate["results"])
    return Check(True, "rerun: checks identical") if same else Check(False, "rerun: the checks differ from the certified ones")


def _figures(results: list[dict]) -> list[dict]:
    """The numbers of certified results, without names (paths differ between machines)."""
    return [{k: r[k] for k in ("tau", "passed", "overall", "cells")} for r in results]


def _rerun(certificate: dict, folder: Path) -> tuple[list[dict], dict | None]:
    """Certified results and combined measure of a fresh run (in this process)."""
    from attack.study.demo import demo_scenario
    from attack.study.scenario import load_scenario

    if certificate["kind"] == "demo":
        settings = certificate["rerun"]
        scenario = demo_scenario(settings["n_units"], settings["seed"], settings["method"])
    else:
        entry = next(i for i in certificate["inputs"] if i["role"] == "scenario")
        scenario = load_scenario(folder / entry["path"])
    outcome = scenario.run(engine={"jobs": 1})
    return certified_results([r.as_run() for r in outcome.runs]), outcome.combined
