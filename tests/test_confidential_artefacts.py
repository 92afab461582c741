"""No shared artefact of any command carries an original value of a unit in a small group, nor
the original's exact extremes: every JSON, HTML and Markdown output and every summary printed is
scanned for the planted values. Record-level outputs (links, releases) are not shared artefacts
and are left out of the scan by design."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main

#: A firm alone in its industry, and the largest firm of the file: their values must stay inside.
LONE_TURNOVER, LONE_EMPLOYEES = 987654.321, 4321
LARGEST_TURNOVER = 77777777.7


def _needles(value: float) -> list[str]:
    """Spellings a report could use for ``value``: full, rounded to integers, and significant digits."""
    out = {repr(value), f"{value:.0f}", f"{value:,.0f}", f"{value:.6g}", f"{value:.4g}"}
    return sorted(out, key=len, reverse=True)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(5)
    n = 300
    original = pd.DataFrame({
        "unit_id": [f"u{i}" for i in range(n)],
        "nace": rng.choice(["10", "20", "30"], n),
        "turnover": rng.lognormal(11, 1, n).round(3),
        "employees": rng.integers(1, 400, n),
        "name": [f"Firma {i} GmbH" for i in range(n)],
    })
    original.loc[0, ["nace", "turnover", "employees"]] = ["99", LONE_TURNOVER, LONE_EMPLOYEES]
    original.loc[1, "turnover"] = LARGEST_TURNOVER
    release = original.drop(columns="name").copy()
    release["turnover"] = (release["turnover"] * rng.uniform(0.8, 1.2, n)).round(1)
    release["employees"] = (release["employees"] + rng.integers(-3, 4, n)).clip(lower=1)
    external = original[["unit_id", "nace", "turnover", "employees", "name"]].sample(150, random_state=2)
    external = external.rename(columns={"unit_id": "record"}).assign(unit_id=external["unit_id"])
    paths = {name: tmp_path / f"{name}.csv" for name in ("population", "original", "release", "external", "holdout")}
    original.to_csv(paths["population"], index=False)
    original.iloc[:200].to_csv(paths["original"], index=False)
    original.iloc[200:].to_csv(paths["holdout"], index=False)
    release.to_csv(paths["release"], index=False)
    external.to_csv(paths["external"], index=False)
    paths["names"] = tmp_path / "names.csv"
    external.drop(columns="unit_id").to_csv(paths["names"], index=False)
    (tmp_path / "out").mkdir()
    return paths


def _run(args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout + result.stderr


def _scan(texts: dict[str, str]) -> None:
    for name, text in texts.items():
        for value in (LONE_TURNOVER, LARGEST_TURNOVER):
            for needle in _needles(value):
                assert not re.search(rf"(?<![\d.]){re.escape(needle)}(?![\d])", text), \
                    f"{name} shows {needle} (an original value of a unit that must stay inside)"


def test_no_shared_artefact_shows_an_original_value_of_a_small_group(files, tmp_path) -> None:
    out = tmp_path / "out"
    printed = {
        "link": _run(["link", "--external", files["external"], "--release", files["release"],
                      "--original", files["population"], "--external-id", "unit_id", "--release-id", "unit_id",
                      "--key", "turnover:metric", "--key", "employees:metric", "--cell", "nace", "--code", "nace",
                      "--json", out / "link.json", "--html", out / "link.html"]),
        "utility": _run(["utility", "--original", files["population"], "--release", files["release"],
                         "--by", "nace", "--by", "unit_id", "--code", "nace", "--json", out / "utility.json"]),
        "synth": _run(["synth", "--original", files["original"], "--synthetic", files["release"],
                       "--holdout", files["holdout"], "--exclude", "unit_id", "--exclude", "name", "--code", "nace",
                       "--n-attacks", "30", "--json", out / "synth.json", "--html", out / "synth.html",
                       "--certificate", out / "synth.certificate.json"]),
        "truth": _run(["truth", "--external", files["names"], "--external-id", "record",
                       "--original", files["population"], "--original-id", "unit_id", "--name", "name",
                       "--out", tmp_path / "truth.csv", "--json", out / "truth.json"]),
        "protect": _run(["protect", "--method", "mdav", "--input", files["population"], "--output",
                         tmp_path / "protected.csv", "--columns", "turnover,employees", "--param", "k=3",
                         "--log", out / "protect.json"]),
    }
    printed["report"] = _run(["report", out / "link.json", "--board", "--context", "scientific-use",
                              "--out", out / "link.board.html"])
    artefacts = {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())}
    # every file was named by its absolute path; no shared artefact keeps this machine's folders
    assert [name for name, text in artefacts.items() if str(tmp_path) in text] == []
    assert {"link.json", "link.html", "utility.json", "synth.json", "synth.html", "synth.certificate.json",
            "synth.certificate.html", "truth.json", "protect.json", "link.board.html"} <= set(artefacts)
    _scan({**artefacts, **{f"{k} (printed)": v for k, v in printed.items()}})
    # the scan is not blind: a record-level file written on request holds the planted value
    assert "987654.321" in files["population"].read_text()
