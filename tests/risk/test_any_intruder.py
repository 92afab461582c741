"""The per-unit maximum over intruders: a hand-computed fixture and a scenario run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import attack
from attack.report.attack import render_markdown
from attack.risk.any_intruder import any_intruder


def _outcomes(rows):
    """(unit, cell, correct) rows as ``unit_outcomes`` gives them."""
    units, cells, correct = zip(*rows, strict=True)
    labels = sorted({json.dumps({"sector": c}) for c in cells})
    codes = [labels.index(json.dumps({"sector": c})) for c in cells]
    return pd.DataFrame({"unit": units, "cell": pd.Categorical.from_codes(codes, categories=labels),
                         "correct": correct})


A = _outcomes([("u1", "X", True), ("u2", "X", False), ("u3", "X", True),
               ("u4", "Y", False), ("u5", "Y", False), ("u5", "Y", True)])  # two records of u5, one right
B = _outcomes([("u1", "X", False), ("u2", "X", True), ("u3", "X", True),
               ("u4", "Y", False), ("u5", "Y", False), ("u6", "Y", True)])


def test_hand_computed_fixture():
    result = any_intruder([("A", A), ("B", B)])
    # all units: u1..u6; found: u1 (A), u2 (B), u3 (both), u5 (A), u6 (B); u4 by none
    assert (result["n_units"], result["n_reidentified"]) == (6, 5)
    assert result["reidentification_rate"] == 5 / 6
    assert result["by_intruder"]["A"] == {"n_units": 5, "n_reidentified": 3, "reidentification_rate": 0.6,
                                          "n_only_this": 2}
    assert result["by_intruder"]["B"] == {"n_units": 6, "n_reidentified": 3, "reidentification_rate": 0.5,
                                          "n_only_this": 2}
    assert (result["n_by_several"], result["n_by_none"]) == (1, 1)
    x, y = result["cells"]
    assert x["cell"] == {"sector": "X"} and y["cell"] == {"sector": "Y"}
    assert (x["n_units"], x["n_reidentified"], x["n_by_several"], x["n_by_none"]) == (3, 3, 1, 0)
    assert x["by_intruder"]["A"]["n_only_this"] == 1 and x["by_intruder"]["B"]["n_only_this"] == 1
    assert (y["n_units"], y["n_reidentified"], y["n_by_none"]) == (3, 2, 1)
    assert y["by_intruder"]["A"]["reidentification_rate"] == 0.5  # u4 no, u5 yes
    assert y["by_intruder"]["B"]["reidentification_rate"] == 1 / 3  # u4, u5 no, u6 yes
    # the maximum is never below any intruder's own share, in every cell
    for group in (result, x, y):
        for own in group["by_intruder"].values():
            assert own["n_reidentified"] <= group["n_reidentified"]


def _files(tmp_path):
    rng = np.random.default_rng(5)
    n = 60
    release = pd.DataFrame({"id": np.arange(n), "turnover": rng.lognormal(5, 1, n),
                            "employees": rng.integers(1, 500, n).astype(float),
                            "sector": np.where(np.arange(n) < 30, "A", "B")})
    one = release[["id", "turnover"]].assign(turnover=release["turnover"] * rng.normal(1, 0.01, n))
    two = release[["id", "employees"]].iloc[:40]
    release.to_csv(tmp_path / "rel.csv", index=False)
    one.to_csv(tmp_path / "one.csv", index=False)
    two.to_csv(tmp_path / "two.csv", index=False)


def test_scenario_reports_the_maximum_beside_each_intruder(tmp_path):
    _files(tmp_path)
    scenario = tmp_path / "s.toml"
    scenario.write_text("""title = "two intruders"
[data]
release = { path = "rel.csv", id = "id" }
[linkage]
keys = ["turnover:metric:log"]
method = "hungarian"
[evaluation]
tau = 0.5
targets = ["turnover"]
cells = ["sector"]
[combine]
lam = 0.2
[[intruder]]
name = "turnover file"
role = "worst"
external = { path = "one.csv", id = "id" }
[[intruder]]
name = "employees file"
external = { path = "two.csv", id = "id" }
linkage = { keys = ["employees:metric"] }
""")
    result = attack.Scenario.from_toml(scenario).run()
    entry = result.to_dict()["any_intruder"][0]
    runs = {r.name: r.figures for r in result.runs}
    assert entry["intruders"] == ["turnover file", "employees file"]
    assert entry["n_units"] == 60
    for cell in entry["cells"]:
        own = [run_cell for r in runs.values() for run_cell in r["cells"] if run_cell["cell"] == cell["cell"]]
        assert cell["n_reidentified"] >= max(c["n_correct"] for c in own)
        assert cell["n_reidentified"] <= sum(c["n_correct"] for c in own)
        for name, figures in cell["by_intruder"].items():
            mine = next(c for c in runs[name]["cells"] if c["cell"] == cell["cell"])
            assert figures["n_reidentified"] == mine["n_correct"]
            assert figures["n_units"] == mine["n_verifiable"]
    text = result.to_markdown()
    assert "## Re-identified by any intruder" in text
    assert "Re-identified by any intruder" in result.to_html()
    assert result.passed == result.combined.passed  # the verdict stays the combined measure's


def test_report_suppresses_small_groups():
    table = render_markdown([{"name": "r", "intruder": "x", "release": "rel",
                              "result": {"tau": 0.5, "passed": True, "cells": [], "disclosure_risk": {}}}],
                            any_intruder=[{"release": "rel", **any_intruder([("A", A), ("B", B)])}],
                            min_cell_count=3)
    section = table.split("## Re-identified by any intruder")[1].split("\n## ")[0]
    assert "< 3" in section  # 2 units found by A only, 1 by several: small counts are not shown
    assert "| all units | 6 | 0.8333" in section
