"""Verification of a certificate: input hashes, digest and, on request, a rerun of the attack."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from attack.io.fingerprint import sha256_file, sha256_frame
from attack.study.certificate import (
    Verification,
    _canonical,
    _digest,
    certified_results,
    load,
)


def verify(path: str | Path, rerun: bool = False) -> Verification:
    """Check a certificate's digest and every input's SHA-256; with ``rerun``, repeat the attack
    and compare its figures with the certified ones."""
    path = Path(path)
    certificate = load(path)
    outcome = Verification()
    if _digest(certificate) != certificate["digest"]:
        outcome.fail("the certificate itself was altered: its digest does not match its content")
    for item in certificate["inputs"]:
        _check_input(item, path.parent, outcome)
    if rerun and outcome.ok:
        fresh, combined = _rerun(certificate, path.parent)
        same = _canonical(_figures(fresh)) == _canonical(_figures(certificate["results"]))
        if not same or _canonical(combined) != _canonical(certificate.get("combined")):
            outcome.fail("rerun: the figures differ from the certified ones")
        else:
            outcome.checked.append("rerun: figures identical")
    return outcome


def _figures(results: list[dict]) -> list[dict]:
    """The numbers of certified results, without names (paths differ between machines)."""
    return [{k: r[k] for k in ("tau", "passed", "overall", "cells")} for r in results]


def _check_input(item: dict, folder: Path, outcome: Verification) -> None:
    label = item.get("path") or item.get("source")
    if "path" in item:
        file = folder / item["path"]
        if not file.is_file():
            outcome.fail(f"{item['role']} input {label}: file not found")
            return
        found = sha256_file(file)
    else:
        found = sha256_frame(_demo_frame(item))
    if found != item["sha256"]:
        outcome.fail(
            f"{item['role']} input {label}: SHA-256 {found} does not match the certified {item['sha256']}"
        )
    else:
        outcome.checked.append(f"{item['role']} input {label}: SHA-256 matches")


def _demo_frame(item: dict) -> pd.DataFrame:
    from attack.datasets.demo import demo_source

    return demo_source(item["source"].removeprefix("demo:"), **item.get("options", {}))[0]


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
