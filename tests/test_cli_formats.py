"""The same data in every format gives the same figures, and codes with leading zeros survive
every command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main

NACE = ["0111", "0112", "0510", "2511", "2512", "0520"]


def population(n: int = 60, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Original, release (values perturbed, rows shuffled) and an external file of 40 units."""
    rng = np.random.default_rng(seed)
    original = pd.DataFrame({
        "unit_id": [f"{i:05d}" for i in range(n)],
        "nace": [NACE[i % len(NACE)] for i in range(n)],
        "region": [["05", "11", "09"][i % 3] for i in range(n)],
        "name": [["Müller", "Groß", "Weiß", "Schön"][i % 4] + f" {i}" for i in range(n)],
        "turnover": np.round(rng.lognormal(7, 1, n), 2),
        "employees": rng.integers(1, 400, n),
    })
    release = original.copy()
    release["turnover"] = np.round(release["turnover"] * rng.uniform(0.9, 1.1, n), 2)
    release["employees"] = release["employees"] + rng.integers(-2, 3, n)
    release = release.iloc[rng.permutation(n)].reset_index(drop=True)
    external = original.iloc[rng.choice(n, 40, replace=False)].drop(columns=["name"])
    external = external.assign(turnover=np.round(external["turnover"] * 1.02, 2))
    return original, release, external


def save(frame: pd.DataFrame, path: Path) -> Path:
    kind = path.parent.name
    if kind == "plain":
        frame.to_csv(path, index=False)
    elif kind == "german":
        frame.to_csv(path, index=False, sep=";", decimal=",", encoding="cp1252")
    elif kind == "bom":
        frame.to_csv(path, index=False, encoding="utf-8-sig")
    elif kind in ("excel", "ods"):
        frame.to_excel(path, index=False, engine="openpyxl" if kind == "excel" else "odf")
    else:
        frame.to_parquet(path, index=False)
    return path


SUFFIX = {"plain": ".csv", "german": ".csv", "bom": ".csv", "excel": ".xlsx", "ods": ".ods",
          "parquet": ".parquet"}


def link_json(folder: Path, kind: str) -> dict:
    folder.mkdir()
    original, release, external = population()
    paths = {role: save(frame, folder / f"{role}{SUFFIX[kind]}")
             for role, frame in (("original", original), ("release", release), ("external", external))}
    out = folder / "result.json"
    result = CliRunner().invoke(main, [str(a) for a in [
        "link", "--external", paths["external"], "--release", paths["release"],
        "--original", paths["original"], "--external-id", "unit_id", "--release-id", "unit_id",
        "--key", "turnover:metric", "--key", "employees:metric", "--block", "nace:prefix=2",
        "--cell", "region", "--json", out]])
    assert result.exit_code in (0, 1), result.output
    text = out.read_text(encoding="utf-8").replace(str(folder), "<folder>")
    document = json.loads(text.replace(SUFFIX[kind], ".<suffix>"))
    reading = document.pop("reading")  # how each file was parsed differs by format, by design
    assert {r["format"] for r in reading.values()} == {READ_FORMAT[kind]}
    if kind == "german":  # the detected dialect is recorded with the results
        assert {(r["sep"], r["decimal"]) for r in reading.values()} == {(";", ",")}
        assert "cp1252" in {r["encoding"] for r in reading.values()}  # files without umlauts read as ASCII/UTF-8
    return document


READ_FORMAT = {"plain": "csv", "german": "csv", "bom": "csv", "excel": "excel", "ods": "ods", "parquet": "parquet"}


def test_same_figures_from_every_format(tmp_path) -> None:
    reference = link_json(tmp_path / "plain", "plain")
    assert reference  # the figures themselves are checked by the linkage tests
    cells = json.dumps(reference)
    assert '"05"' in cells and '"09"' in cells  # region codes keep their leading zero
    for kind in ("german", "bom", "excel", "ods", "parquet"):
        assert link_json(tmp_path / kind, kind) == reference, kind


def run(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.fixture()
def german(tmp_path) -> dict[str, Path]:
    original, release, external = population()
    folder = tmp_path / "german"
    folder.mkdir()
    return {role: save(frame, folder / f"{role}.csv")
            for role, frame in (("original", original), ("release", release), ("external", external))}


def test_leading_zeros_survive_protect_and_inspect(german, tmp_path) -> None:
    out = tmp_path / "protected.csv"
    run("protect", "--method", "separate-ma", "--input", german["original"], "--output", out,
        "--columns", "turnover", "--param", "k=3")
    written = pd.read_csv(out, dtype=str)
    assert set(written["nace"]) == set(NACE) and set(written["region"]) == {"05", "11", "09"}
    assert written["unit_id"].iloc[0] == "00000"
    report = json.loads(run("inspect", german["original"], "--json"))
    roles = {c["name"]: c["role"] for c in report["columns"]}
    assert roles["nace"] == "code" and roles["region"] == "code" and roles["unit_id"] == "identifier"
    assert report["reading"]["sep"] == ";" and report["reading"]["decimal"] == ","


def test_leading_zeros_survive_utility_and_synth(german, tmp_path) -> None:
    out = tmp_path / "utility.json"
    run("utility", "--original", german["original"], "--release", german["release"],
        "--by", "region", "--json", out)
    document = out.read_text(encoding="utf-8")
    assert '"region=05"' in document and '"region=09"' in document
    assert '"nace"' not in document  # a code is never compared as a number
    synth = tmp_path / "synth.json"
    run("synth", "--original", german["original"], "--synthetic", german["release"],
        "--exclude", "unit_id", "--exclude", "name", "--n-attacks", "20", "--json", synth)
    preparation = json.loads(synth.read_text(encoding="utf-8"))["preparation"]
    categorical = {c["name"]: c["levels"] for c in preparation["categorical"]}
    assert categorical["nace"] == sorted(NACE) and categorical["region"] == ["05", "09", "11"]
    assert "turnover" in json.dumps(preparation["numeric"])


def test_leading_zeros_survive_truth(german, tmp_path) -> None:
    register = tmp_path / "register.csv"
    original = pd.read_csv(german["original"], sep=";", dtype=str, encoding="cp1252")
    original.rename(columns={"unit_id": "record"}).assign(record=lambda f: "R" + f["record"]) \
        .to_csv(register, index=False, sep=";", encoding="cp1252")
    out = tmp_path / "key.csv"
    run("truth", "--external", register, "--external-id", "record",
        "--original", german["original"], "--original-id", "unit_id", "--name", "name",
        "--block", "region", "--out", out)
    key = pd.read_csv(out, dtype=str)
    assert set(key["region"]) == {"05", "11", "09"}
    linked = key.dropna(subset=["unit_id"])
    assert len(linked) == 60 and (linked["record"] == "R" + linked["unit_id"]).all()
