"""Factual-anonymity certificates that bind a verdict to its figures and to the exact data.

A certificate holds the tool and its environment, the UTC time of issue, the scenario as run
(keys, distances, blocking, matcher, γ, τ, seeds), the SHA-256 of every input with its role and
its path relative to the certificate, the figures per cell, the verdict, a SHA-256 digest over
all of it and, when the issuer signs, an Ed25519 signature (``attack.study.signing``).
``attack.study.verify`` checks each part. The format is described in
``docs/reference/certificate.md``.

Demo inputs (generated, not files) are fingerprinted by the SHA-256 of their CSV text and
regenerated for verification.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import platform
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from attack._version import __version__
from attack.errors import InputError
from attack.io.readback import read_document_bytes, read_json
from attack.study import signing

CERTIFICATE_VERSION = 2
KINDS = ("run", "demo", "synthetic")
_CELL_FIELDS = (
    "n_verifiable", "n_correct", "n_false", "n_none", "reidentification_rate",
    "reidentification_rate_ci", "false_match_rate", "usefulness", "disclosure_risk",
    "disclosure_risk_ci", "passed", "identity_passed",
)
SCOPE = ("relative to the modelled intruders and their knowledge; an intruder with other or "
         "expert knowledge is out of scope")


def canonical(obj: object) -> bytes:
    """The canonical JSON bytes that are digested and signed: keys sorted, UTF-8, no
    insignificant whitespace."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def digest(body: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of everything but the digest and the signature."""
    return hashlib.sha256(canonical({k: v for k, v in body.items()
                                     if k not in ("digest", "signature")})).hexdigest()


def signed_bytes(body: Mapping[str, Any]) -> bytes:
    """What the signature covers: the canonical JSON of everything but the signature."""
    return canonical({k: v for k, v in body.items() if k != "signature"})


def environment() -> dict[str, str]:
    """The versions a rerun should match: Python, the numeric libraries, the platform."""
    out = {"python": platform.python_version()}
    for package in ("numpy", "pandas", "scipy"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:  # pragma: no cover - they are dependencies
            out[package] = "not installed"
    out["platform"] = f"{platform.system()} {platform.machine()}"
    out["implementation"] = sys.implementation.name
    return out


def certified_results(runs: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The figures a certificate carries per run: overall and per cell."""
    out = []
    for run in runs:
        result = run["result"]
        out.append({
            "name": run.get("name", ""),
            "intruder": run.get("intruder", ""),
            "release": run.get("release", ""),
            "tau": result["tau"],
            "passed": result["passed"],
            "overall": {k: result[k] for k in _CELL_FIELDS if k in result},
            "reading": result.get("reading", {}),
            "cells": [{"cell": c["cell"], **{k: c[k] for k in _CELL_FIELDS if k in c}}
                      for c in result["cells"]],
            **({"frequency_risk": result["frequency_risk"]} if "frequency_risk" in result else {}),
            **({"judged_on": result["judged_on"]} if "judged_on" in result else {}),
        })
    return out


def failing_cells(results: Sequence[Mapping], combined: Mapping | None) -> list[dict]:
    """The cells the verdict fails on: the combined measure's when there is one, else every
    run's."""
    if combined is not None:
        return [{"run": "combined", "cell": c["cell"]} for c in combined["cells"] if not c["passed"]]
    return [{"run": r["name"], "cell": c["cell"]} for r in results for c in r["cells"] if not c["passed"]]


def n_endangered(single_attack: Mapping | None) -> int:
    """Targets of the single attacks with R(u) ≥ τ."""
    return int(((single_attack or {}).get("unit_risk") or {}).get("n_endangered", 0))


def unjudged_runs(results: Sequence[Mapping]) -> list[dict]:
    """The runs that cannot be PASSED whatever their cells say (``attack.risk.basis``): too few
    scored units or links, a released direct identifier, nothing judged."""
    return [{"run": r["name"], "reasons": list(r["judged_on"]["reasons"])}
            for r in results if (r.get("judged_on") or {}).get("reasons")]


def attack_verdict(failing: list[dict], endangered: int, unjudged: Sequence[Mapping] = ()) -> dict:
    """The verdict of a mass-attack certificate from its failing cells, endangered targets and
    the runs that cannot be PASSED (``unjudged_runs``)."""
    anonymous = not failing and not endangered and not unjudged
    if anonymous:
        statement = ("factually anonymous with respect to the stated scenario: every cell's "
                     "disclosure risk is below tau for every gamma")
    else:
        reasons = [f"{len(failing)} cell(s) at or above tau"] if failing else []
        reasons += [f"{endangered} single-attack target(s) with R(u) at or above tau"] if endangered else []
        reasons += [f"run {u['run']}: {reason}" for u in unjudged for reason in u["reasons"]]
        statement = "not certified: " + "; ".join(reasons)
    out = {"factually_anonymous": anonymous, "statement": statement, "failing_cells": failing,
           "endangered_targets": endangered, "scope": SCOPE}
    if unjudged:
        out["unjudged_runs"] = [dict(u) for u in unjudged]
    return out


def synthetic_verdict(checks: Sequence[Mapping]) -> dict:
    """The verdict of a synthetic-data certificate from its checks."""
    failing = [{k: c[k] for k in ("family", "measure", "target", "gamma") if k in c}
               for c in checks if not c["passed"]]
    anonymous = not failing
    return {
        "factually_anonymous": anonymous,
        "statement": ("no attack's upper 95% bound reaches tau" if anonymous
                      else f"not certified: {len(failing)} check(s) with the upper 95% bound at or above tau"),
        "failing_checks": failing,
        "scope": SCOPE,
    }


def seal(body: dict, key: Any | None = None) -> dict:
    """Add the digest and, with a private key, the signature (in place; returns ``body``)."""
    body.pop("signature", None)
    body["digest"] = digest(body)
    if key is not None:
        body["signature"] = signing.signature_entry(signed_bytes(body), key)
    return body


def build(
    *,
    kind: str,
    runs: Sequence[Mapping[str, Any]],
    inputs: Sequence[dict],
    scenario: dict,
    rerun: dict,
    seeds: Mapping[str, Any] | None = None,
    created: str | None = None,
    combined: dict | None = None,
    natural_protection: list[dict] | None = None,
    single_attack: dict | None = None,
    key: Any | None = None,
) -> dict:
    """Assemble a mass-attack certificate, seal it with its digest and, given a private ``key``,
    sign it. ``kind`` is "run" (a scenario file) or "demo"; ``rerun`` says how to repeat the
    attack (the scenario input, or the demo's parameters)."""
    results = certified_results(runs)
    verdict = attack_verdict(failing_cells(results, combined), n_endangered(single_attack), unjudged_runs(results))
    body = _header(kind, rerun, inputs, seeds, created) | {
        "scenario": scenario,
        "results": results,
        "combined": combined,
        "natural_protection": natural_protection,
        "single_attack": single_attack,
        "verdict": verdict,
    }
    return seal(body, key)


def build_synthetic(*, figures: Mapping[str, Any], inputs: Sequence[dict], created: str | None = None,
                    key: Any | None = None, rerun: Mapping[str, Any] | None = None) -> dict:
    """A certificate of the attacks on a synthetic release, in the same format. ``rerun`` says
    how to repeat them (a scenario certificate names its scenario input)."""
    checks = [dict(c) for c in figures["checks"]]
    settings = dict(figures["settings"])
    body = _header("synthetic", dict(rerun or {"settings": settings}), inputs, {"seed": settings.get("seed")},
                   created) | {
        "scenario": {"settings": settings, "n_original": figures["n_original"],
                     "n_synthetic": figures["n_synthetic"], "n_holdout": figures["n_holdout"]},
        "results": checks,
        "verdict": synthetic_verdict(checks),
    }
    if "membership_family" in figures:  # aggregates of the data-only membership attacks
        family = figures["membership_family"]
        body["membership_family"] = {"roles": family["roles"], "attacks": family["attacks"],
                                     "maximum": family["maximum"], "verdict": family["verdict"]}
    return seal(body, key)


def _header(kind: str, rerun: dict, inputs: Sequence[dict], seeds: Mapping | None, created: str | None) -> dict:
    if kind not in KINDS:
        raise ValueError(f"unknown certificate kind {kind!r}")
    return {
        "certificate_version": CERTIFICATE_VERSION,
        "tool": {"name": "attack", "version": __version__},
        "environment": environment(),
        "created": created or _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "kind": kind,
        "rerun": rerun,
        "seeds": dict(seeds or {}),
        "inputs": list(inputs),
    }


def load(path: str | Path) -> dict:
    """Read a certificate file: a JSON object in UTF-8 (a leading byte-order mark is skipped)
    with the certificate version this tool reads. A file that cannot be read so — not JSON, a
    key given twice in one object (JSON readers keep different occurrences, so a person and a
    program could read different verdicts), nesting deeper than ``attack.io.readback.MAX_DEPTH`` levels, a lone
    surrogate, a file larger than the limit — is an ``InputError`` (the one reader of documents
    read back, ``attack.io.readback``). Whether its content has a certificate's structure is
    checked by ``attack.study.certificate_schema.structure_problems``."""
    path = Path(path)
    if not path.is_file():
        raise InputError("certificate not found (or not a regular file)", file=str(path))
    certificate = read_json(read_document_bytes(path, "certificate"), file=str(path), what="certificate")
    if not isinstance(certificate, dict):
        raise InputError(f"not a certificate (a JSON {type(certificate).__name__}, not an object)", file=str(path))
    if certificate.get("certificate_version") != CERTIFICATE_VERSION:
        raise InputError(f"not a certificate of version {CERTIFICATE_VERSION} (certificate_version is "
                         f"{certificate.get('certificate_version')!r}; this attack {__version__} reads "
                         f"version {CERTIFICATE_VERSION})", file=str(path))
    return certificate
