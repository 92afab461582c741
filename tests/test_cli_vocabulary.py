"""One vocabulary on the command line: --out for what a command makes (old spellings hidden and
deprecated), --quiet wherever a command prints, one declaration of the τ defaults, a short
terminal summary, and tune never writing over the files of run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from attack import defaults
from attack.cli import main
from attack.risk.thresholds import DEFAULT_TAU
from attack.study.outputs import tune_output as _tune_output
from attack.synthetic_attacks.settings import DEFAULT_SYNTH_TAU

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"id": range(30), "turnover": [float(100 + 7 * i % 50) for i in range(30)],
                         "employees": [float(3 + i % 9) for i in range(30)]})


def _protect(tmp_path: Path, *flags: str):
    source = tmp_path / "original.csv"
    _frame().to_csv(source, index=False)
    args = ["protect", "--method", "separate-ma", "--input", str(source), "--columns", "turnover",
            "--param", "k=3", *flags]
    return CliRunner().invoke(main, args)


def test_out_is_the_spelling_and_the_old_one_is_a_hidden_deprecated_alias(tmp_path):
    new = _protect(tmp_path, "--out", str(tmp_path / "a.csv"))
    assert new.exit_code == 0, new.output
    assert (tmp_path / "a.csv").exists() and "deprecated" not in new.stderr
    old = _protect(tmp_path, "--output", str(tmp_path / "b.csv"))
    assert old.exit_code == 0, old.output
    assert (tmp_path / "b.csv").exists()
    notices = [line for line in old.stderr.splitlines() if "deprecated" in line]
    assert notices == ["attack: --output is deprecated and goes in the next release; use --out"]
    both = _protect(tmp_path, "--out", str(tmp_path / "c.csv"), "--output", str(tmp_path / "d.csv"))
    assert both.exit_code == 2 and not (tmp_path / "c.csv").exists() and not (tmp_path / "d.csv").exists()
    missing = _protect(tmp_path)
    assert missing.exit_code == 2 and "--out" in missing.output
    help_text = CliRunner().invoke(main, ["protect", "--help"]).output
    assert "--out " in help_text and "--output" not in help_text
    assert "--release" not in CliRunner().invoke(main, ["tune", "--help"]).output


def test_every_command_that_prints_can_be_quiet():
    printing = {"link", "run", "tune", "utility", "synth", "truth", "risk", "protect", "synthesize",
                "tune-synthesis", "demo", "keygen", "verify", "report", "remedy"}
    for name in printing:
        assert "--quiet" in {o for p in main.commands[name].params for o in p.opts}, name
    # what a command prints *is* its output: the schema, a file's interpretation, the UI's address
    assert set(main.commands) - printing == {"schema", "inspect", "ui"}


def test_quiet_protect_prints_nothing_on_stdout(tmp_path):
    result = _protect(tmp_path, "--out", str(tmp_path / "a.csv"), "--quiet")
    assert result.exit_code == 0 and result.stdout == ""
    assert "owner-only" in result.stderr  # the warning for a record-level file stays


def test_a_note_shows_a_path_inside_the_working_folder_relative_and_normalised(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    result = _protect(tmp_path, "--out", str(tmp_path / "sub" / ".." / "a.csv"), "--quiet")
    assert result.exit_code == 0 and "note: a.csv holds record-level data" in result.stderr
    assert str(tmp_path) not in result.stderr


def test_the_tau_defaults_are_declared_once():
    assert (DEFAULT_TAU, DEFAULT_SYNTH_TAU) == (defaults.LINKAGE_TAU, defaults.SYNTHETIC_TAU) == (0.5, 0.1)
    options = {name: next(p for p in main.commands[name].params if p.name == "tau") for name in ("link", "tune-synthesis")}
    assert options["link"].default == defaults.LINKAGE_TAU
    assert options["tune-synthesis"].default == defaults.SYNTHETIC_TAU
    assert "docs/reference/defaults.md" in options["link"].help


def test_tune_writes_beside_the_files_of_run_never_over_them():
    assert _tune_output("reports/result.json", ".json") == Path("reports/result.tune.json")
    assert _tune_output("out/report.html", ".html") == Path("out/report.tune.html")
    assert _tune_output(None, ".json") is None


@pytest.mark.parametrize("name", ["demo_kse_set.toml", "demo_ehs_like.toml"])
def test_run_prints_a_short_summary_and_names_the_full_tables(tmp_path, name):
    text = (SCENARIOS / name).read_text(encoding="utf-8")
    text = re.sub(r"n_units = \d+", "n_units = 3000", text).replace("../reports/", "")
    scenario = tmp_path / name
    scenario.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(scenario), "--json", str(tmp_path / "r.json"),
                                       "--html", str(tmp_path / "r.html")])
    assert result.exit_code in (0, 1), result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) <= 30, result.stdout
    assert lines[0].startswith("# ") and ("PASSED" in lines[2])
    assert "r.html" in lines[-1] and "r.json" in lines[-1]
    document = json.loads((tmp_path / "r.json").read_text())
    assert ("NOT PASSED" in lines[2]) == (not document["passed"])


def test_quiet_demo_and_verify_print_nothing_on_stdout(tmp_path):
    demo = CliRunner().invoke(main, ["demo", "--units", "300", "--out", str(tmp_path / "d"), "--jobs", "1", "--quiet"])
    assert demo.exit_code == 0, demo.output
    assert demo.stdout == "" and (tmp_path / "d" / "certificate.json").exists()
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "d" / "certificate.json"), "--quiet"])
    assert verified.exit_code == 0, verified.output
    assert verified.stdout == ""
    loud = CliRunner().invoke(main, ["verify", str(tmp_path / "d" / "certificate.json")])
    assert loud.exit_code == 0 and "✔ digest matches" in loud.stdout
