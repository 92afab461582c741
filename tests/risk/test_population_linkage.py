"""The linkage attack carried to the population: the estimator by hand, and the field in a
real attack's JSON (additive: absent unless asked for)."""

import json

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

from attack.cli import main
from attack.risk.population_linkage import population_reidentifications
from attack.risk.stats import wilson_interval


def test_the_estimator_by_hand():
    out = population_reidentifications(30, 120, 1000, 0.25, 0.1)
    low, high = wilson_interval(30, 120)
    assert out["hit_rate"] == 0.25 and out["population"] == 10000
    assert out["if_complete"] == {"expected": 250.0, "interval": [low * 1000, high * 1000]}
    assert out["observed_coverage"] == 0.12 and out["external_coverage"] == 0.25
    assert out["share_of_population"]["expected"] == pytest.approx(0.025)
    assert out["share_of_population"]["interval"] == pytest.approx([low * 0.1, high * 0.1])


def test_attack_link_reports_the_population_figures(tmp_path):
    for name, frame in (("external", EXTERNAL), ("release", RELEASE), ("original", ORIGINAL)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    common = ["link", "--external", str(tmp_path / "external.csv"), "--release", str(tmp_path / "release.csv"),
              "--original", str(tmp_path / "original.csv"), "--external-id", "unit_id", "--release-id", "unit_id",
              "--key", "turnover:metric", "--key", "employees:metric", "--block", "wz", "--code", "wz", "--quiet"]
    plain, scaled = tmp_path / "plain.json", tmp_path / "scaled.json"
    CliRunner().invoke(main, [*common, "--json", str(plain)])
    CliRunner().invoke(main, [*common, "--json", str(scaled), "--external-coverage", "0.5", "--release-fraction", "0.2"])
    a, b = json.loads(plain.read_text()), json.loads(scaled.read_text())
    assert "population_reidentifications" not in a and "external_coverage" not in a["evaluation"]
    figures = b["population_reidentifications"]
    assert figures["released_records"] == len(RELEASE) and figures["population"] == round(len(RELEASE) / 0.2)
    assert figures["observed"] == b["n_correct"]
    assert figures["if_complete"]["expected"] == pytest.approx(b["n_correct"] / b["n_verifiable"] * len(RELEASE))
    assert b["evaluation"]["external_coverage"] == 0.5
    assert {k: v for k, v in b.items() if k not in ("population_reidentifications", "evaluation")} == \
        {k: v for k, v in a.items() if k != "evaluation"}
    context = tmp_path / "context.json"
    done = CliRunner().invoke(main, [*common, "--json", str(context), "--context", "public-use"])
    assert done.exit_code in (0, 1), done.output
    judged = json.loads(context.read_text())
    assert judged["tau"] == 0.1 and judged["context"]["attacker_model"] == "prosecutor"
    done = CliRunner().invoke(main, [*common, "--context", "public-use", "--tau", "0.3"])
    assert done.exit_code == 2 and "leave out --tau" in done.output
