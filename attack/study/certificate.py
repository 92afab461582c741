"""Factual-anonymity certificates that bind an attack's results to the exact data it ran on.

A certificate (docs/reference/certificate.md) holds the tool version and date, the scenario as run (keys,
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
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from attack._version import __version__
from attack.errors import InputError

CERTIFICATE_VERSION = 1
_CELL_FIELDS = (
    "n_verifiable", "n_correct", "n_false", "n_none", "reidentification_rate",
    "reidentification_rate_ci", "false_match_rate", "usefulness", "disclosure_risk",
    "disclosure_risk_ci", "passed",
)










def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _digest(body: dict) -> str:
    return hashlib.sha256(_canonical({k: v for k, v in body.items() if k != "digest"})).hexdigest()


def certified_results(runs: Sequence[dict]) -> list[dict]:
    """The figures a certificate carries per run: overall and per cell (docs/reference/certificate.md item 4)."""
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
    if combined is not None:  # a scenario set is judged on the combined measure (docs/method/intruders.md)
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












