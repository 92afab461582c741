"""Result documents as ``attack`` writes them (JSON of ``attack run``/``demo``, ``link``, ``synth``
and ``tune``), read back for ``attack report``: their kind, their runs, their regular HTML report."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attack.errors import InputError
from attack.io.readback import read_document_bytes, read_json
from attack.report.attack import render_html
from attack.report.release import render_tune_html
from attack.report.synthetic import render_synth_html

__all__ = ["KINDS", "document_runs", "load_result", "report_html", "report_passed", "result_kind"]

KINDS = {"scenario": "scenario run (mass linkage)", "link": "linkage attack",
         "synthetic": "synthetic release attacks", "tune": "protection tuning"}


def result_kind(document: Mapping[str, Any]) -> str:
    """The kind of a result document (a key of ``KINDS``), or "" when it is none of them."""
    if isinstance(document.get("runs"), list):
        return "scenario"
    if document.get("kind") == "synthetic" and "checks" in document:
        return "synthetic"
    if "tune" in document and "candidates" in document:
        return "tune"
    if {"cells", "tau", "intruder", "release"} <= set(document):
        return "link"
    return ""


def load_result(path: str | Path) -> tuple[dict, str]:
    """The result document in ``path`` and the SHA-256 (hex) of the file's bytes.

    Raises ``InputError`` for an unreadable file, a file that is not JSON or a JSON document
    that is no result of ``attack``.
    """
    raw = read_document_bytes(path, "result")
    document = read_json(raw, file=str(path), what="JSON result of attack")
    if not isinstance(document, dict) or not result_kind(document):
        raise InputError("not a result of attack run, demo, link, synth or tune (expected the JSON they write "
                         "with --json)", file=str(path))
    return document, hashlib.sha256(raw).hexdigest()


def document_runs(document: Mapping[str, Any]) -> list[dict]:
    """The runs of a scenario or link document as the renderers take them (``attack.risk.results.run_record``)."""
    entries = document["runs"] if "runs" in document else [document]
    return [{"name": e.get("name", ""),
             "intruder": (e.get("intruder") or {}).get("role") or (e.get("intruder") or {}).get("file", ""),
             "release": (e.get("release") or {}).get("name", ""), "result": e} for e in entries]


def report_passed(document: Mapping[str, Any]) -> bool:
    """The verdict a document records (a tuning passes when it chose a value)."""
    if result_kind(document) == "tune":
        return document.get("chosen") is not None
    return bool(document["passed"])


def report_html(document: Mapping[str, Any], title: str) -> str:
    """The regular HTML report of a result document, as the command that made it writes it."""
    kind = result_kind(document)
    if kind == "synthetic":
        return render_synth_html(document, title)
    if kind == "tune":
        return render_tune_html(document, title)
    extra: dict[str, Any] = {}
    if kind == "scenario":
        extra = {"notes": document.get("notes") or (), "combined": document.get("combined"),
                 "any_intruder": document.get("any_intruder") or (),
                 "natural_protection": document.get("natural_protection") or (),
                 "single_attack": document.get("single_attack")}
    return render_html(document_runs(document), title=document.get("title") or title, **extra)
