"""``attack risk``: exit codes, outputs and their permissions."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pandas as pd
from click.testing import CliRunner
from reference_data import SDCMICRO

from attack.cli import main

FRANCDAT = SDCMICRO / "francdat.csv"
KEYS = ["--key", "Key1", "--key", "Key2", "--key", "Key3", "--key", "Key4"]


def invoke(args: list) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def test_not_passed_writes_aggregates_and_records(tmp_path: Path) -> None:
    out = tmp_path / "risk.json"
    html = tmp_path / "risk.html"
    records = tmp_path / "records.csv"
    result = invoke(["risk", "--data", FRANCDAT, *KEYS, "--weight", "w", "--json", out, "--html", html,
                     "--records", records])
    assert result.exit_code == 1, result.output
    assert "NOT PASSED" in result.output and "owner-only" in result.output
    document = json.loads(out.read_text())
    assert document["k_anonymity"]["2"]["violating"] == 4
    assert document["individual_risk"]["above_threshold"] == 3
    assert "fk" not in document and "risk" not in document
    assert stat.S_IMODE(records.stat().st_mode) == 0o600
    table = pd.read_csv(records)
    assert table["fk"].tolist() == [2, 2, 2, 1, 1, 1, 1, 2]
    page = html.read_text()
    assert "Frequency risk of francdat.csv" in page and "<script" not in page


def test_passed_and_quiet(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    pd.DataFrame({"a": [1, 1, 1, 2, 2, 2], "b": ["x"] * 6}).to_csv(data, index=False)
    result = invoke(["risk", "--data", data, "--key", "a", "--key", "b", "--quiet", "--threshold", "0.5"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == []  # --quiet: not even the notice that the key b has one value
    loud = invoke(["risk", "--data", data, "--key", "a", "--key", "b", "--threshold", "0.5"])
    assert (f"attack: notice: file {data.name}, key column 'b' has one value in every row; it tells no unit from "
            "another (is it the right column?)") in loud.output.splitlines()


def test_bad_input_is_exit_2_without_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "risk.json"
    result = invoke(["risk", "--data", FRANCDAT, "--key", "nope", "--json", out])
    assert result.exit_code == 2
    assert "nope" in result.output and not out.exists()
    result = invoke(["risk", "--data", FRANCDAT, *KEYS, "--weight", "Num1", "--household", "Key1"])
    assert result.exit_code == 2  # the household may not be a key


def test_protect_lists_the_suppression_methods() -> None:
    listing = invoke(["protect", "--list-methods"]).output
    assert "local-suppression" in listing and "risk-suppression" in listing
