"""Every class of bad data file or output path: exit 2, one line naming file / column / row, no
traceback, no output file (the table in docs/howto/reading-files.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_checks import refused
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

from attack.cli import main


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture()
def files(tmp_path) -> dict[str, Path]:
    paths = {role: tmp_path / f"{role}.csv" for role in ("external", "release", "original")}
    EXTERNAL.to_csv(paths["external"], index=False)
    RELEASE.to_csv(paths["release"], index=False)
    ORIGINAL.to_csv(paths["original"], index=False)
    return paths


def link_args(files, *extra) -> list:
    return ["link", "--external", files["external"], "--release", files["release"],
            "--external-id", "unit_id", "--release-id", "unit_id", "--key", "turnover:metric",
            "--key", "employees:metric", "--block", "wz", *extra]


def with_release(files, change) -> None:
    frame = RELEASE.copy().astype(object)
    change(frame)
    frame.to_csv(files["release"], index=False)


def test_the_clean_case_runs(files, tmp_path) -> None:
    code, output = run(*link_args(files, "--json", tmp_path / "r.json"))
    assert code in (0, 1), output
    assert (tmp_path / "r.json").exists()


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity"])
def test_infinite_value_in_a_key(files, tmp_path, value) -> None:
    with_release(files, lambda f: f.__setitem__("turnover", [290, 118, value, 102, 515, 112]))
    line = refused(*link_args(files, "--json", tmp_path / "r.json"), says="infinite value",
                   outputs=(tmp_path / "r.json",))
    assert f"file {files['release']}, column 'turnover', row 3" in line


def test_infinite_value_in_an_evaluated_variable(files, tmp_path) -> None:
    with_release(files, lambda f: f.__setitem__("costs", [180, 52, 305, "inf", 330, 61]))
    line = refused(*link_args(files, "--json", tmp_path / "r.json"), says="infinite value",
                   outputs=(tmp_path / "r.json",))
    assert "column 'costs', row 4" in line
    refused("utility", "--original", files["original"], "--release", files["release"],
            "--json", tmp_path / "u.json", says="infinite value", outputs=(tmp_path / "u.json",))


def test_key_without_values(files, tmp_path) -> None:
    with_release(files, lambda f: f.__setitem__("employees", [""] * 6))
    refused(*link_args(files), says="column 'employees': every value is missing")


def test_metric_key_that_is_all_text(files) -> None:
    with_release(files, lambda f: f.__setitem__("employees", ["many"] * 6))
    line = refused(*link_args(files), says="expected a number, found 'many'")
    assert "column 'employees', row 1" in line


def test_duplicate_column_names(files, tmp_path) -> None:
    text = files["release"].read_text().replace("costs", "turnover", 1)
    files["release"].write_text(text)
    refused(*link_args(files), says="column 'turnover': the header names this column twice (columns 4 and 6)")
    refused("inspect", files["release"], says="names this column twice")


@pytest.mark.parametrize(("content", "says"), [
    (b"", "file is empty"), (b"\n\n", "file is empty"),
    (b"unit_id,wz,turnover,employees\n", "header but no data rows"),
])
def test_empty_file_or_header_only(files, content, says) -> None:
    files["release"].write_bytes(content)
    refused(*link_args(files), says=says)
    refused("inspect", files["release"], says=says)


def test_a_folder_as_input(files, tmp_path) -> None:
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    refused("inspect", folder, says="is a folder, not a data file")
    code, output = run("utility", "--original", folder, "--release", files["release"])
    assert code == 2 and "is a directory" in output and "Traceback" not in output


def test_renamed_and_truncated_binaries(files, tmp_path) -> None:
    renamed = tmp_path / "release.parquet"
    renamed.write_bytes(files["release"].read_bytes())
    refused("inspect", renamed, says="is not a parquet file (its first bytes show text)")
    RELEASE.to_parquet(tmp_path / "good.parquet")
    truncated = tmp_path / "cut.parquet"
    truncated.write_bytes((tmp_path / "good.parquet").read_bytes()[:200])
    refused("inspect", truncated, says="truncated or damaged")
    disguised = tmp_path / "table.csv"
    disguised.write_bytes((tmp_path / "good.parquet").read_bytes())
    refused("inspect", disguised, says="is not a text file (it looks like a Parquet file)")
    workbook = tmp_path / "book.xlsx"
    workbook.write_text("a,b\n1,2\n")
    refused("inspect", workbook, says="is not an excel file")


def test_column_that_changes_type_part_way(files, tmp_path) -> None:
    with_release(files, lambda f: f.__setitem__("costs", [180, 52, 305, "k.A.", 330, 61]))
    line = refused(*link_args(files), says="holds numbers but also 'k.A.'")
    assert "column 'costs', row 4" in line and "--na" in line
    code, _ = run(*link_args(files, "--na", "k.A."))
    assert code in (0, 1)
    refused("utility", "--original", files["original"], "--release", files["release"],
            says="holds numbers but also 'k.A.'")


def test_codes_mixing_numbers_and_text(tmp_path) -> None:
    path = tmp_path / "codes.xlsx"
    pd.DataFrame({"region": [5, "05", 11]}).to_excel(path, index=False)
    refused("inspect", path, says="column 'region', row 2: codes mixing numbers and text")


def test_bad_value_is_quoted_short(files) -> None:
    with_release(files, lambda f: f.__setitem__("turnover", [290, "1" * 100_000 + "x", 505, 102, 515, 112]))
    # every release column gets a role before any linkage: the mixed column is refused there
    line = refused(*link_args(files), says="column 'turnover', row 2")
    assert len(line) < 400 and "100,001 characters" in line


def test_output_that_is_an_input(files, tmp_path) -> None:
    before = files["original"].read_bytes()
    refused("protect", "--method", "separate-ma", "--input", files["original"], "--output",
            files["original"], "--columns", "turnover", "--param", "k=3",
            says="is also the input")
    assert files["original"].read_bytes() == before
    alias = tmp_path / "alias.csv"
    alias.symlink_to(files["original"])
    refused("protect", "--method", "separate-ma", "--input", files["original"], "--output", alias,
            "--columns", "turnover", "--param", "k=3", says="is also the input")
    assert files["original"].read_bytes() == before
    refused(*link_args(files, "--json", files["release"]), says="is also the input")
    refused("utility", "--original", files["original"], "--release", files["release"],
            "--json", files["original"], says="is also the input")
    refused("synth", "--original", files["original"], "--synthetic", files["release"],
            "--html", files["release"], says="is also the input")
    assert files["original"].read_bytes() == before


def test_output_under_a_regular_file(files, tmp_path) -> None:
    blocker = tmp_path / "plain"
    blocker.write_text("x")
    line = refused(*link_args(files, "--html", blocker / "r.html"),
                   says="is a file, not a folder")
    assert f"file {blocker / 'r.html'}" in line and ".tmp" not in line


def test_synth_names_columns_the_synthetic_file_lacks(files, tmp_path) -> None:
    synthetic = tmp_path / "synthetic.csv"
    ORIGINAL.drop(columns=["costs"]).to_csv(synthetic, index=False)
    code, output = run("synth", "--original", files["original"], "--synthetic", synthetic,
                       "--exclude", "unit_id", "--n-attacks", "5")
    assert "the synthetic file synthetic.csv lacks 1 column(s) of the original" in output
    assert str(tmp_path) not in output  # the file name only, no machine path
    assert "costs" in output


def test_utility_names_columns_the_release_lacks(files, tmp_path) -> None:
    release = tmp_path / "partial.csv"
    RELEASE.drop(columns=["costs"]).to_csv(release, index=False)
    code, output = run("utility", "--original", files["original"], "--release", release)
    assert code == 0, output
    assert "lacks 1 column(s) of the original" in output and "costs" in output


@pytest.mark.parametrize(("command", "close"), [
    (lambda f, out: link_args(f, "--key", "turnovr:metric"), "'turnover'"),  # a key
    (lambda f, out: link_args(f, "--original", f["original"], "--cell", "wzz"), "'wz'"),  # a cell of the original
    (lambda f, out: ["risk", "--data", f["release"], "--key", "Wz"], "'wz'"),
    (lambda f, out: ["protect", "--input", f["release"], "--method", "separate-ma", "--columns", "employes",
                     "--out", out], "'employees'"),
])
def test_a_missing_column_names_the_closest_one(files, tmp_path, command, close) -> None:
    out = tmp_path / "protected.csv"
    line = refused(*command(files, out), says=f"did you mean {close}?", outputs=(out,))
    assert "column" in line


def test_no_guess_when_nothing_is_close(files) -> None:
    line = refused(*link_args(files, "--key", "xyzzy:metric"), says="column is missing")
    assert "did you mean" not in line
