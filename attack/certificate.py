"""Factual-anonymity certificates that bind an attack's results to the exact data it ran on.

A certificate (METHOD.md §15) holds the tool version and date, the scenario as run (keys,
distances, blocking, matcher, γ, τ, seeds), the SHA-256 of every input with its role and
path, the per-cell results and the verdict, and a SHA-256 digest over all of it. A third party
recomputes the file hashes with :func:`verify` (and, on request, reruns the attack and compares
the figures); one changed byte in any input, or in the certificate, is reported.

Paths are stored relative to the certificate's folder where possible, so that a folder with the
certificate and its inputs can be handed over as a whole. Demo inputs (generated, not files) are
fingerprinted by the SHA-256 of their CSV text and regenerated for verification.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from attack import __version__
from attack.errors import InputError

CERTIFICATE_VERSION = 1
_CELL_FIELDS = (
    "n_verifiable", "n_correct", "n_false", "n_none", "reidentification_rate",
    "reidentification_rate_ci", "false_match_rate", "usefulness", "disclosure_risk",
    "disclosure_risk_ci", "passed",
)


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


def sha256_frame(frame: pd.DataFrame) -> str:
    """SHA-256 of a data frame's CSV text (for generated inputs that are not files)."""
    return hashlib.sha256(frame.to_csv(index=False).encode("utf-8")).hexdigest()


def file_input(role: str, path: str | Path, certificate_dir: str | Path) -> dict:
    """Fingerprint of an input file, its path relative to the certificate's folder if possible."""
    path = Path(path).resolve()
    try:
        shown = os.path.relpath(path, Path(certificate_dir).resolve())
    except ValueError:  # another drive
        shown = str(path)
    return {"role": role, "path": shown, "sha256": sha256_file(path), "bytes": path.stat().st_size}


def frame_input(role: str, source: str, frame: pd.DataFrame, options: dict) -> dict:
    """Fingerprint of a generated demo input, with the options that regenerate it."""
    return {
        "role": role, "source": source, "options": dict(options),
        "sha256": sha256_frame(frame), "rows": len(frame),
    }


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _digest(body: dict) -> str:
    return hashlib.sha256(_canonical({k: v for k, v in body.items() if k != "digest"})).hexdigest()


def certified_results(runs: Sequence[dict]) -> list[dict]:
    """The figures a certificate carries per run: overall and per cell (METHOD.md §15 item 4)."""
    out = []
    for run in runs:
        result = run["result"]
        out.append(
            {
                "name": run.get("name", ""),
                "intruder": run.get("intruder", ""),
                "release": run.get("release", ""),
                "tau": result["tau"],
                "passed": result["passed"],
                "overall": {k: result[k] for k in _CELL_FIELDS if k in result},
                "cells": [
                    {"cell": c["cell"], **{k: c[k] for k in _CELL_FIELDS if k in c}}
                    for c in result["cells"]
                ],
            }
        )
    return out


def build(
    *,
    kind: str,
    runs: Sequence[dict],
    inputs: Sequence[dict],
    scenario: dict,
    rerun: dict,
    created: str | None = None,
    combined: dict | None = None,
    natural_protection: list[dict] | None = None,
    single_attack: dict | None = None,
) -> dict:
    """Assemble a certificate and seal it with its digest.

    ``kind`` is "run" (a scenario file) or "demo"; ``rerun`` says how to repeat the attack
    (the scenario input's role, or the demo's parameters).
    """
    results = certified_results(runs)
    if combined is not None:  # a scenario set is judged on the combined measure (METHOD.md §10)
        failing = [{"run": "combined", "cell": c["cell"]} for c in combined["cells"] if not c["passed"]]
    else:
        failing = [
            {"run": r["name"], "cell": c["cell"]} for r in results for c in r["cells"] if not c["passed"]
        ]
    certified = not failing
    body = {
        "certificate_version": CERTIFICATE_VERSION,
        "tool": {"name": "attack", "version": __version__},
        "created": created or _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "kind": kind,
        "rerun": rerun,
        "inputs": list(inputs),
        "scenario": scenario,
        "results": results,
        "combined": combined,
        "natural_protection": natural_protection,
        "single_attack": single_attack,
        "verdict": {
            "factually_anonymous": certified,
            "statement": (
                "factually anonymous with respect to the stated scenarios: every cell's "
                "disclosure risk is below tau for every gamma"
                if certified
                else f"not certified: {len(failing)} cell(s) at or above tau"
            ),
            "failing_cells": failing,
            "scope": "relative to the modelled intruder knowledge; expert knowledge is out of scope",
        },
    }
    body["digest"] = _digest(body)
    return body


@dataclass
class Verification:
    """Outcome of :func:`verify`: ``ok`` and one line per finding."""

    ok: bool = True
    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.ok = False
        self.problems.append(message)


def load(path: str | Path) -> dict:
    """Read a certificate file; a file that is not one is an :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError("certificate not found", file=str(path))
    try:
        certificate = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not a certificate (invalid JSON: {exc})", file=str(path)) from exc
    if not isinstance(certificate, dict) or "digest" not in certificate or "inputs" not in certificate:
        raise InputError("not a certificate (no digest or inputs)", file=str(path))
    return certificate


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
    from attack.demo import demo_source

    return demo_source(item["source"].removeprefix("demo:"), **item.get("options", {}))[0]


def _rerun(certificate: dict, folder: Path) -> tuple[list[dict], dict | None]:
    """Certified results and combined measure of a fresh run."""
    settings = certificate["rerun"]
    if certificate["kind"] == "demo":
        from attack.demo import run_demo

        with tempfile.TemporaryDirectory() as tmp:
            demo = run_demo(tmp, n_units=settings["n_units"], seed=settings["seed"], method=settings["method"])
        return certified_results(demo.document["runs"]), None
    from attack.scenario import load_scenario

    entry = next(i for i in certificate["inputs"] if i["role"] == "scenario")
    outcome = load_scenario(folder / entry["path"]).run(jobs=1)
    return certified_results(outcome.runs), outcome.combined


def render_html(certificate: dict) -> str:
    """A printable, self-contained HTML page of the certificate."""
    esc = html.escape
    verdict = certificate["verdict"]
    rows = "".join(
        f"<tr><td>{esc(i['role'])}</td><td>{esc(str(i.get('path') or i.get('source')))}</td>"
        f"<td><code>{esc(i['sha256'])}</code></td></tr>"
        for i in certificate["inputs"]
    )
    runs = []
    for run in certificate["results"]:
        gammas = list(run["overall"].get("disclosure_risk", {}))
        head = "".join(f"<th>P γ={esc(g)}</th>" for g in gammas)
        body = "".join(
            "<tr>"
            + f"<td>{esc(', '.join(f'{k}={v}' for k, v in c['cell'].items()) or 'all units')}</td>"
            + f"<td>{c['n_verifiable']}</td><td>{c['reidentification_rate']:.4f}</td>"
            + "".join(f"<td>{c['disclosure_risk'][g]:.4f}</td>" for g in gammas)
            + f"<td>{'pass' if c['passed'] else 'FAIL'}</td></tr>"
            for c in run["cells"]
        )
        runs.append(
            f"<h2>{esc(run['name'])}</h2><p>τ = {run['tau']}</p><table><tr><th>cell</th><th>n</th>"
            f"<th>hit rate</th>{head}<th></th></tr>{body}</table>"
        )
    scenario = esc(json.dumps(certificate["scenario"], indent=2, ensure_ascii=False))
    colour = "#1b5e20" if verdict["factually_anonymous"] else "#b71c1c"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>attack certificate</title><style>body{font-family:sans-serif;max-width:60em;"
        "margin:auto;padding:1em}table{border-collapse:collapse;display:block;overflow-x:auto}"
        "td,th{border:1px solid #999;padding:.2em .5em;font-size:90%}code,pre{font-size:80%;"
        "word-break:break-all;white-space:pre-wrap}</style></head><body>"
        f"<h1>Factual-anonymity certificate</h1><p style='color:{colour}'><strong>"
        f"{esc(verdict['statement'])}</strong></p><p>{esc(verdict['scope'])}</p>"
        f"<p>attack {esc(certificate['tool']['version'])} · created {esc(certificate['created'])}</p>"
        f"<h2>Inputs</h2><table><tr><th>role</th><th>file</th><th>SHA-256</th></tr>{rows}</table>"
        + "".join(runs)
        + f"<h2>Scenario as run</h2><pre>{scenario}</pre>"
        f"<p>Digest (SHA-256 over the certificate): <code>{esc(certificate['digest'])}</code></p>"
        "<p>Verify with <code>attack verify certificate.json</code>.</p></body></html>\n"
    )
