"""The overall measure λ·P_worst + (1 − λ)·mean(P_realistic) per cell (worked example 1.7 (docs/reference/worked-examples.md))."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

from attack.cli import main
from attack.errors import InputError
from attack.linkage.blocking import Block
from attack.linkage.keys import Metric
from attack.linkage.settings import Linkage
from attack.risk.combine import combine as combine_figures
from attack.risk.combine import resolve_lambda
from attack.risk.mass import AttackInput, run_attack
from attack.risk.results import AttackFigures
from attack.risk.settings import Evaluation


def combine(results, lam, tau, identity_limit=None):
    """The combined measure of (role, figures) pairs, figures as their JSON, as its JSON."""
    typed = [(role, AttackFigures.from_dict(figures)) for role, figures in results]
    return combine_figures(typed, lam, tau, identity_limit).to_dict()

EVALUATION = Evaluation.of(
    gamma=[0.1], tau=0.5, targets=("turnover", "employees", "costs"),
    cells=["wz"],
)
WORST = ORIGINAL[["unit_id", "wz", "region", "turnover", "employees"]]


def _result(external, method="greedy"):
    spec = Linkage(
        keys=(Metric("turnover"), Metric("employees")),
        block=(Block("wz"), Block("region")),
        method=method,
    )
    data = AttackInput(external, "unit_id", RELEASE, "unit_id", ORIGINAL, "unit_id")
    return run_attack(data, spec, EVALUATION, engine={"jobs": 1}).figures


def _write_inputs(folder: Path) -> None:
    """The worked example 1 (docs/reference/worked-examples.md) files as CSV: external, worst case, release, original."""
    for name, frame in (("external", EXTERNAL), ("worst", WORST), ("release", RELEASE), ("original", ORIGINAL)):
        frame.to_csv(folder / f"{name}.csv", index=False)


_DATA = """
[data]
external = { path = "external.csv", id = "unit_id" }
release = { path = "release.csv", id = "unit_id" }
original = { path = "original.csv", id = "unit_id" }
"""


def _run(folder: Path, body: str):
    """Write the fixture files and a scenario (the three files, then ``body``) and run it."""
    _write_inputs(folder)
    scenario = folder / "scenario.toml"
    scenario.write_text(_DATA + body, encoding="utf-8")
    return CliRunner().invoke(main, ["run", str(scenario), "--jobs", "1"])


def _cells(combined):
    return {c["cell"]["wz"]: c for c in combined["cells"]}


@pytest.mark.parametrize(
    "method, cell_15, passes",
    [("greedy", 47 / 180, True), ("hungarian", 95 / 180, False)],
)
def test_fixture_overall_measure(method, cell_15, passes):
    combined = combine([("worst", _result(WORST)), ("realistic", _result(EXTERNAL, method))], 0.2, 0.5)
    cells = _cells(combined)
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(cell_15, abs=1e-12)
    assert cells["15"]["passed"] is passes
    assert cells["22"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 6, abs=1e-12)
    assert cells["22"]["passed"] is False
    assert combined["passed"] is False  # "not certified": cell 22 fails under both matchers
    assert cells["15"]["rule"] == "combined" and cells["15"]["n_realistic"] == 1


def _fake(cells):
    return {"cells": [{"cell": {"c": k}, "n_verifiable": 10, "disclosure_risk": {"0.1": v}} for k, v in cells],
            "disclosure_risk": {"0.1": 0.0}}


def test_uncovered_cells_take_the_worst_case_and_realistic_sources_are_averaged():
    worst = _fake([("a", 0.9), ("b", 0.6)])
    r1, r2 = _fake([("a", 0.2)]), _fake([("a", 0.4)])
    cells = _cells_by(combine([("worst", worst), ("realistic", r1), ("realistic", r2)], 0.2, 0.5))
    assert cells["a"]["disclosure_risk"]["0.1"] == pytest.approx(0.2 * 0.9 + 0.8 * 0.3)
    assert cells["a"]["n_realistic"] == 2
    assert cells["b"]["disclosure_risk"]["0.1"] == 0.6 and cells["b"]["rule"].startswith("worst case")
    assert cells["b"]["passed"] is False


def test_without_worst_case_an_uncovered_cell_has_no_estimate_and_fails():
    cells = _cells_by(combine([("realistic", _fake([("a", 0.1)])), ("realistic", _fake([("b", 0.1)]))], 0.0, 0.5))
    assert cells["a"]["disclosure_risk"]["0.1"] == 0.1 and cells["a"]["passed"] is True
    only_worst = _cells_by(combine([("worst", _fake([("a", 0.3)]))], 0.2, 0.5))
    assert only_worst["a"]["disclosure_risk"]["0.1"] == 0.3


def _cells_by(combined):
    return {c["cell"]["c"]: c for c in combined["cells"]}


def test_lambda_presets_and_range():
    assert [resolve_lambda(p) for p in ("kse_ch35", "ehs_suf", "kse_suf")] == [0.2, 0.05, 0.0]
    with pytest.raises(InputError, match="unknown λ preset"):
        resolve_lambda("x")
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        resolve_lambda(1.5)
    with pytest.raises(InputError, match="at most one"):
        combine([("worst", _fake([("a", 0.1)])), ("worst", _fake([("a", 0.1)]))], 0.2, 0.5)


def test_scenario_set_from_the_command_line(tmp_path: Path):
    _write_inputs(tmp_path)
    scenario = tmp_path / "set.toml"
    scenario.write_text(
        """
title = "set"
[data]
release = { path = "release.csv", id = "unit_id" }
original = { path = "original.csv", id = "unit_id" }
[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["wz", "region"]
[[intruder]]
name = "worst case"
role = "worst"
external = { path = "worst.csv", id = "unit_id" }
[[intruder]]
name = "commercial"
role = "realistic"
external = { path = "external.csv", id = "unit_id" }
[combine]
lam = "kse_ch35"
[evaluation]
gamma = [0.1]
targets = ["turnover", "employees", "costs"]
cells = ["wz"]
[output]
json = "out/set.json"
""",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["run", str(scenario), "--jobs", "1"])
    assert result.exit_code == 1, result.output  # NOT PASSED
    assert "NOT PASSED (combined measure, λ = 0.2): 1 of 2 cells" in result.output
    document = json.loads((tmp_path / "out" / "set.json").read_text())
    assert [r["intruder"]["name"] for r in document["runs"]] == ["worst case", "commercial"]
    assert document["passed"] is False
    cells = _cells(document["combined"])
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(47 / 180, abs=1e-12)
    cert = json.loads((tmp_path / "out" / "set.certificate.json").read_text())
    assert cert["verdict"]["failing_cells"] == [{"run": "combined", "cell": {"wz": "22"}}]
    assert sorted(i["role"] for i in cert["inputs"]) == ["external", "external", "original", "release", "scenario"]
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "out" / "set.certificate.json"), "--rerun",
                                           "--root", str(tmp_path)])
    assert verified.exit_code == 0, verified.output
    bad = scenario.read_text().replace('lam = "kse_ch35"', "")
    scenario.write_text(bad.replace("[combine]\n", ""))
    refused = CliRunner().invoke(main, ["run", str(scenario)])
    assert refused.exit_code == 2 and "need a [combine] table" in refused.output


def test_shipped_scenarios_are_valid():
    from attack.study.synthetic_scenario import open_scenario

    folder = Path(__file__).resolve().parents[2] / "scenarios"
    loaded = {p.name: open_scenario(p) for p in sorted(folder.glob("*.toml"))}
    assert len(loaded) >= 3
    kse = loaded["demo_kse_set.toml"]
    assert [i.role for i in kse.intruders] == ["worst", "realistic", "realistic"]
    assert kse.lam == 0.2
    assert [k.name for k in kse.intruders[2].linkage.keys] == ["turnover"]
    assert kse.intruders[2].linkage.blocks == kse.linkage.blocks


def test_natural_protection_beside_the_release(tmp_path: Path):
    RELEASE.to_csv(tmp_path / "formal.csv", index=False)  # a FORMAL file equal to the release
    result = _run(tmp_path, """
[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["wz", "region"]
[natural_protection]
formal = { path = "formal.csv", id = "unit_id" }
[evaluation]
gamma = [0.1]
targets = ["turnover", "employees", "costs"]
cells = ["wz"]
[output]
json = "np.json"
""")
    assert result.exit_code == 1, result.output  # cell 22 fails
    assert "## Natural protection" in result.output and "identical code at" not in result.output
    (entry,) = json.loads((tmp_path / "np.json").read_text())["natural_protection"]
    assert entry["formal"]["reidentification_rate"] == pytest.approx(3 / 5)  # same file, same links
    agreement = entry["agreement"]
    assert agreement["n_pairs"] == 5
    assert agreement["categorical"]["wz"]["share_same"] == 1.0
    # turnover e1 101 vs u1 100 (1%), e2 119 vs 120, e3 310 vs 300, e4 498 vs 500, e5 530 vs 520
    assert agreement["metric"]["turnover"]["below"]["5%"]["count"] == 5


def test_single_attacks_in_a_scenario(tmp_path: Path):
    result = _run(tmp_path, """
[linkage]
keys = ["turnover:metric", "employees:metric"]
[single_attack]
size = { column = "employees", threshold = 25 }
exact = ["wz", "region"]
noisy = ["turnover", "employees"]
relative_error = 0.0
[evaluation]
targets = ["turnover"]
[output]
json = "single.json"
""")
    document = json.loads((tmp_path / "single.json").read_text())
    assert result.exit_code == (0 if document["passed"] else 1), result.output
    single = json.loads((tmp_path / "single.json").read_text())["single_attack"]
    summary = single["summary"]
    risk = single["unit_risk"]
    assert risk["n_targets"] == 3 and risk["n_endangered"] == sum(risk["by_reason"].values())
    assert 0 <= risk["n_single_only"] <= summary["correct"]
    # targets u3 (25 employees), u5, u6; u3's only candidate in (15, W) within 10% is r1 = u3
    assert summary["sought"] == 3
    assert summary["correct"] >= 1
    assert summary["unique"] == summary["correct"] + summary["false"]
    assert "## Single attacks" in result.output


def _one_cell(risk: float) -> dict:
    return {"disclosure_risk": {"0.05": risk},
            "cells": [{"cell": {}, "disclosure_risk": {"0.05": risk}, "n_verifiable": 100}]}


@pytest.mark.parametrize(("worst", "realistic", "expected"), [
    (0.997, (0.290, 0.243), 0.4126),  # Table 35.11, separate MA of 33 variables (printed 0.4130)
    (0.96, (0.29, 0.44), 0.484),      # Table 37.11, MA32G, >= 1000 employees (printed 0.48)
])
def test_handbook_combinations_are_reproduced(worst, realistic, expected):
    results = [("worst", _one_cell(worst))] + [("realistic", _one_cell(r)) for r in realistic]
    combined = combine(results, resolve_lambda("kse_ch35"), tau=0.5)
    assert combined["cells"][0]["disclosure_risk"]["0.05"] == pytest.approx(expected, abs=5e-5)
    assert combined["cells"][0]["rule"] == "combined"


def test_the_identity_limit_judges_the_combined_reidentification_rate():
    # one cell: worst case h = 0.9, P = 0.2; realistic h = 0.4 and 0.2, P = 0.1 and 0.1; λ = 0.2:
    # P = 0.2·0.2 + 0.8·0.1 = 0.12 < τ; h = 0.2·0.9 + 0.8·0.3 = 0.42 (< 0.5 passes, not < 0.4)
    def run(h, p):
        return {"cells": [{"cell": {"wz": "15"}, "n_verifiable": 10, "reidentification_rate": h,
                           "disclosure_risk": {"0.1": p}}], "disclosure_risk": {"0.1": p}}
    runs = [("worst", run(0.9, 0.2)), ("realistic", run(0.4, 0.1)), ("realistic", run(0.2, 0.1))]
    without = combine(runs, 0.2, 0.5)
    assert without["cells"][0]["disclosure_risk"]["0.1"] == pytest.approx(0.12)
    assert "identity_passed" not in without["cells"][0] and without["passed"] is True
    judged = combine(runs, 0.2, 0.5, identity_limit=0.5)["cells"][0]
    assert judged["reidentification_rate"] == pytest.approx(0.42) and judged["passed"] is True
    strict = combine(runs, 0.2, 0.5, identity_limit=0.4)
    assert strict["cells"][0]["identity_passed"] is False and strict["passed"] is False
