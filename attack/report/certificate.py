"""The printable HTML page of a certificate (a jinja2 template with autoescaping): verdict, the
scenario in words, the signer, input fingerprints, the cells and how to verify. It prints to one
or two A4 pages from a browser.

The page is a copy for reading: no digest, signature or check of ``attack verify`` covers it,
and it says so; the JSON file is what is verified."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attack.report.attack import basis_lines
from attack.report.html import render
from attack.report.labels import cell_label
from attack.report.notebook import verdict_word

PASS, FAIL = verdict_word(True), verdict_word(False)


def render_html(certificate: Mapping[str, Any], file_name: str = "certificate.json") -> str:
    """The certificate page; ``file_name`` is how the verification command names the JSON."""
    anonymous = certificate["verdict"]["factually_anonymous"]
    return render(
        "certificate.html.j2",
        certificate=certificate,
        title=certificate.get("scenario", {}).get("title", "synthetic release"),
        colour="#1b5e20" if anonymous else "#b71c1c",
        scenario_lines=_scenario_lines(certificate),
        signature=certificate.get("signature"),
        tables=_tables(certificate),
        file_name=file_name,
        outside=any(str(i.get("path") or "").startswith("..") for i in certificate.get("inputs", [])),
    )


def _scenario_lines(certificate: Mapping[str, Any]) -> list[str]:
    scenario = certificate.get("scenario") or {}
    if certificate["kind"] == "synthetic":
        settings = scenario.get("settings", {})
        return [
            f"{scenario.get('n_synthetic')} synthetic records attacked against {scenario.get('n_original')} "
            f"original records" + (f" and a holdout of {scenario['n_holdout']}" if scenario.get("n_holdout") else ""),
            f"known to the intruder: {', '.join(settings.get('keys', [])) or 'no keys'}; "
            f"sought: {', '.join(settings.get('targets', [])) or 'no targets'}",
            f"every check decides on the upper 95% bound against τ = {settings.get('tau')}",
        ]
    lines = basis_lines([{"name": r.get("name", ""), "result": r} for r in certificate.get("results", [])])
    for intruder in scenario.get("intruders", []):
        linkage = intruder.get("linkage", {})
        keys = ", ".join(k.get("name", "?") if isinstance(k, Mapping) else str(k) for k in linkage.get("keys", []))
        blocks = ", ".join(map(str, linkage.get("blocking", []))) or "none"
        role = f" ({intruder['role']} case)" if intruder.get("role") else ""
        lines.append(f"{intruder['name']}{role} against {intruder['release'] or 'the release'}: keys {keys}; "
                     f"blocks {blocks}; {linkage.get('method', '?')} assignment")
    evaluation = scenario.get("evaluation", {})
    gammas = ", ".join(str(g) for g in evaluation.get("gammas", evaluation.get("gamma", [])))
    lines.append(f"every cell must stay below τ = {evaluation.get('tau')} for γ = {gammas}")
    if scenario.get("lam") is not None:
        lines.append(f"cells judged on the combined measure with λ = {scenario['lam']}")
    return lines


def _tables(certificate: Mapping[str, Any]) -> list[dict]:
    if certificate["kind"] == "synthetic":
        rows = [[" ".join(str(c[k]) for k in ("family", "measure", "target") if c.get(k)),
                 _number(c.get("value")), _number(c.get("upper")), PASS if c["passed"] else FAIL]
                for c in certificate["results"]]
        tau = certificate["results"][0]["tau"] if certificate["results"] else ""
        return [{"name": "Checks", "tau": tau, "header": ["check", "value", "upper 95%", ""], "rows": rows}]
    runs = list(certificate["results"])
    if certificate.get("combined"):
        runs = [{"name": "Combined measure", "tau": certificate["combined"]["tau"],
                 "cells": certificate["combined"]["cells"]}]
    tables = []
    for run in runs:
        gammas = list(run["cells"][0]["disclosure_risk"]) if run["cells"] else []
        header = ["cell", "n", "hit rate"] + [f"P γ={g}" for g in gammas] + [""]
        rows = [
            [cell_label(c["cell"]),
             c.get("n_verifiable", ""), _number(c.get("reidentification_rate")),
             *[_number(c["disclosure_risk"][g]) for g in gammas], PASS if c["passed"] else FAIL]
            for c in run["cells"]
        ]
        tables.append({"name": run["name"], "tau": run["tau"], "header": header, "rows": rows})
    return tables


def _number(value: Any) -> str:
    return "–" if value is None else f"{value:.4f}"
