"""Every document the tool reads back, through every command that reads it: the one reader's
guards (duplicate keys, nesting, invalid Unicode, booleans as numbers) and, for a result, a
verdict that must follow from its figures. Each ends in exit 2 with one error line and no output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_checks import refused
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

from attack.cli import main

DEEP = 5000


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


SCENARIO = """\
title = "one intruder"
[data]
external = { path = "external.csv", id = "unit_id" }
release = { path = "release.csv", id = "unit_id" }
[linkage]
keys = ["turnover:metric", "employees:metric"]
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Data files, a link result (PASSED at τ 0.9: its one cell's risk is 0.6), and the result and
    certificate of a scenario run on them (NOT PASSED at τ 0.5)."""
    folder = tmp_path_factory.mktemp("made")
    files = {role: folder / f"{role}.csv" for role in ("external", "release", "original")}
    EXTERNAL.to_csv(files["external"], index=False)
    RELEASE.to_csv(files["release"], index=False)
    ORIGINAL.to_csv(files["original"], index=False)
    code, output = run("link", "--external", files["external"], "--release", files["release"],
                       "--external-id", "unit_id", "--release-id", "unit_id", "--key", "turnover:metric",
                       "--key", "employees:metric", "--block", "wz", "--tau", "0.9", "--json", folder / "r.json")
    assert code == 0, output
    (folder / "scenario.toml").write_text(SCENARIO + "[evaluation]\ntau = 0.5\n", encoding="utf-8")
    code, output = run("run", folder / "scenario.toml", "--json", folder / "s.json", "--certificate",
                       folder / "certificate.json", "--quiet")
    assert code == 1, output  # its one cell's risk is 0.6
    return {**files, "result": folder / "r.json", "certificate": folder / "certificate.json",
            "scenario_result": folder / "s.json"}


def _forged(document: dict) -> dict:
    """Every risk 0.9, every mark PASSED, τ 0.5: the audit's forged result."""
    runs = document["runs"] if "runs" in document else [document]
    for entry in runs:
        entry["tau"] = 0.5
        for part in [entry, *entry["cells"]]:
            part["disclosure_risk"] = {g: 0.9 for g in part["disclosure_risk"]}
            part["disclosure_risk_ci"] = {g: [0.9, 0.9] for g in part["disclosure_risk"]}
            part["passed"] = True
    document["passed"] = True
    return document


#: Ways to spoil a result document's text, and what the error says.
RESULTS = {
    "figures 0.9 marked PASSED at τ 0.5": (lambda text: json.dumps(_forged(json.loads(text))),
                                           "the verdict does not follow from the figures"),
    "a mark flipped": (lambda text: re.sub(r'"passed": (true|false)', lambda m: '"passed": ' + (
        "false" if m.group(1) == "true" else "true"), text, count=1), "does not follow from the figures"),
    "tau: true": (lambda text: re.sub(r'"tau": [0-9.]+', '"tau": true', text, count=1),
                  "Input should be a valid number"),
    "passed given twice": (lambda text: re.sub(r'"passed": (true|false)', r'"passed": false, "passed": \1', text,
                                               count=1), "the key 'passed' occurs twice"),
    "deep nesting": (lambda text: text.replace('"name":', '"deep": ' + "[" * DEEP + "]" * DEEP + ', "name":', 1),
                     "nested deeper than 64 levels"),
    "a lone surrogate": (lambda text: text.replace('"name": "', '"name": "\\ud800', 1), "lone UTF-16 surrogate"),
}


@pytest.mark.parametrize("board", [False, True], ids=["report", "board report"])
@pytest.mark.parametrize("spoil", list(RESULTS))
@pytest.mark.parametrize("which", ["result", "scenario_result"], ids=["link", "scenario run"])
def test_attack_report_refuses_a_result_it_cannot_trust(made, tmp_path, spoil, board, which):
    change, says = RESULTS[spoil]
    spoiled = tmp_path / "spoiled.json"
    spoiled.write_text(change(made[which].read_text(encoding="utf-8")), encoding="utf-8")
    out = tmp_path / "out.html"
    refused("report", spoiled, "--out", out, *(["--board", "--context", "public-use"] if board else []),
            says=says, outputs=(out,))


def test_attack_report_reports_a_sound_result(made, tmp_path):
    code, output = run("report", made["result"], "--out", tmp_path / "r.html")
    assert code == 0, output
    assert (tmp_path / "r.html").exists()


#: Ways to spoil a certificate's text for ``attack verify --offline``.
CERTIFICATES = {
    "a lone surrogate": (lambda text: text.replace('"statement": "', '"statement": "\\ud800', 1),
                         "lone UTF-16 surrogate"),
    "deep nesting": (lambda text: text.replace('"seeds":', '"deep": ' + "[" * DEEP + "]" * DEEP + ', "seeds":', 1),
                     "nested deeper than 64 levels"),
    "a key twice": (lambda text: text.replace('"kind":', '"kind": "run", "kind":', 1), "occurs twice"),
}


@pytest.mark.parametrize("spoil", list(CERTIFICATES))
def test_attack_verify_refuses_a_certificate_it_cannot_read(made, tmp_path, spoil):
    change, says = CERTIFICATES[spoil]
    spoiled = tmp_path / "certificate.json"
    spoiled.write_text(change(made["certificate"].read_text(encoding="utf-8")), encoding="utf-8")
    refused("verify", spoiled, "--offline", says=says)



#: Ways to spoil a scenario file, for ``attack run`` and ``attack ui``.
SCENARIOS = {
    "deep nesting": (SCENARIO + "notes = " + "[" * DEEP + "]" * DEEP + "\n").encode(),
    "deep inline tables": (SCENARIO + "[other]\nv = " + "{a = " * 80 + "1" + "}" * 80 + "\n").encode(),
    "a key twice": SCENARIO.replace('title = "one intruder"', 'title = "a"\ntitle = "b"').encode(),
    "not UTF-8": SCENARIO.replace("one intruder", "caf\u00e9").encode("latin-1"),
}
SCENARIO_SAYS = {"deep nesting": "nested deeper than 64 levels", "deep inline tables": "nested deeper than 64",
                 "a key twice": "not valid TOML", "not UTF-8": "not UTF-8 text"}


@pytest.mark.parametrize("command", ["run", "ui"])
@pytest.mark.parametrize("spoil", list(SCENARIOS))
def test_a_scenario_file_it_cannot_read_is_refused_by_every_command(made, tmp_path, command, spoil):
    scenario = made["external"].parent / f"spoiled-{command}-{spoil.replace(' ', '_')}.toml"
    scenario.write_bytes(SCENARIOS[spoil])
    extra = ["--json", tmp_path / "r.json"] if command == "run" else ["--no-browser", "--port", "0"]
    refused(command, scenario, *extra, says=SCENARIO_SAYS[spoil], outputs=(tmp_path / "r.json",))


def test_attack_utility_refuses_a_protection_log_it_cannot_read(made, tmp_path):
    log = tmp_path / "log.json"
    log.write_text('{"method": "noise", "params": ' + "[" * DEEP + "]" * DEEP + "}", encoding="utf-8")
    refused("utility", "--original", made["original"], "--release", made["release"], "--protection-log", log,
            says="nested deeper than 64 levels")
