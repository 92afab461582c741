"""``attack tune``: the weakest setting that puts every cell below τ (docs/method/utility.md)."""

from __future__ import annotations

import json
import stat

import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.study.scenario import load_linkage_scenario as load_scenario
from attack.study.tuning import tune, tune_table

SCENARIO = """
title = "tune test"
[data]
release = {{ demo = "formal" }}
original = {{ demo = "original" }}
external = {{ demo = "worst_case" }}
demo = {{ n_units = 600, seed = 3 }}
[linkage]
method = "greedy"
block = ["nace:prefix=2"]
keys = ["turnover:metric", "employees:metric"]
[evaluation]
gamma = [0.10]
tau = 0.5
targets = ["turnover", "employees"]
cells = ["east_west"]
[tune]
method = "mult-noise"
parameter = "f"
values = {values}
params = {{ s = 0.001 }}
columns = ["turnover", "employees"]
seeds = [1, 2]
release = "tuned.csv"
[tune.utility]
by = ["east_west"]
"""


def _write(tmp_path, values="[0.001, 0.5]"):
    path = tmp_path / "tune.toml"
    path.write_text(SCENARIO.format(values=values))
    return path


def test_weakest_passing_value_is_chosen_and_every_candidate_reported(tmp_path):
    """Barely perturbed values are re-identified and useful (the worst-case intruder holds the
    true keys), so f = 0.001 fails; ±50% factors make no released value useful at γ = 0.1."""
    outcome = tune(load_scenario(_write(tmp_path)))
    doc = outcome.to_dict()
    assert [(c["value"], c["seed"]) for c in doc["candidates"]] == [
        (0.001, 1), (0.001, 2), (0.5, 1), (0.5, 2)]
    weak, strong = doc["candidates"][0], doc["candidates"][2]
    assert not weak["passed"] and weak["max_cell_risk"] >= 0.5 and weak["n_failing_cells"] >= 1
    assert strong["passed"] and strong["max_cell_risk"] < 0.5
    assert doc["chosen"] == {"value": 0.5, "seed": 1}
    assert outcome.chosen.release.equals(outcome.candidates[2].release)
    # utility is reported per family and never merged with risk into one score
    assert {"means", "sds", "pearson"} <= set(strong["utility"]["families"])
    assert strong["utility"]["il1s"] > weak["utility"]["il1s"] > 0
    json.dumps(doc)


def test_no_feasible_value_says_so(tmp_path):
    doc = tune(load_scenario(_write(tmp_path, "[0.001]"))).to_dict()
    assert doc["chosen"] is None
    assert doc["verdict"] == "no feasible candidate within the configured grid"


def test_stop_at_first(tmp_path):
    path = _write(tmp_path, "[0.5, 0.6]")
    path.write_text(path.read_text().replace('release = "tuned.csv"', "stop_at_first = true"))
    doc = tune(load_scenario(path)).to_dict()
    assert [c["value"] for c in doc["candidates"]] == [0.5, 0.5] and doc["chosen"]["value"] == 0.5


@pytest.mark.parametrize("table, message", [
    ({"method": "blur", "parameter": "k", "values": [3]}, "field tune.method: unknown protection method 'blur'"),
    ({"method": "mdva", "parameter": "k", "values": [3]}, "did you mean 'mdav'"),
    ({"method": "separate-ma", "parameter": "f", "values": [3]}, "has no parameter 'f'"),
    ({"method": "separate-ma", "parameter": "k", "values": []}, "field tune.values: list should have at least 1 item"),
    ({"method": "separate-ma", "parameter": "k", "values": [3, "five"]}, r"field tune.values\[1\]: .*expected a whole number"),
    ({"method": "separate-ma", "parameter": "k", "values": [3], "params": {"k": 4}}, "must not fix"),
    ({"method": "separate-ma", "parameter": "k", "values": [3], "seeds": [1.5]}, r"field tune.seeds\[0\]"),
    ({"method": "separate-ma", "parameter": "k", "values": [3], "grid": 1}, "field tune.grid: unknown field 'grid'"),
])
def test_bad_tune_tables_fail_before_any_attack(table, message):
    with pytest.raises(InputError, match=message):
        tune_table(table)


def test_cli_tune_writes_json_html_and_owner_only_release(tmp_path):
    path = _write(tmp_path)
    result = CliRunner().invoke(main, ["tune", str(path), "--json", str(tmp_path / "t.json"),
                                       "--html", str(tmp_path / "t.html")])
    assert result.exit_code == 0, result.output
    assert "Weakest feasible setting: mult-noise with f = 0.5" in result.output
    release = tmp_path / "tuned.csv"
    assert stat.S_IMODE(release.stat().st_mode) == 0o600
    assert len(pd.read_csv(release)) == 600
    page = (tmp_path / "t.html").read_text()
    assert "<svg" in page and "(chosen)" in page
    assert json.loads((tmp_path / "t.json").read_text())["chosen"]["value"] == 0.5


def test_synthesis_is_a_protection_method_of_scenario_files(tmp_path):
    """[tune] with method = "synthesis": partially synthetic turnover and employees, tuned on
    CART's minimum leaf size; every candidate is attacked like any other release."""
    text = SCENARIO.format(values="[5, 200]").replace('method = "mult-noise"\nparameter = "f"',
                                                       'method = "synthesis"\nparameter = "minbucket"')
    text = text.replace("params = { s = 0.001 }\n", "")
    path = tmp_path / "tune.toml"
    path.write_text(text)
    doc = tune(load_scenario(path)).to_dict()
    assert [(c["value"], c["seed"]) for c in doc["candidates"]] == [(5, 1), (5, 2), (200, 1), (200, 2)]
    assert doc["tune"]["method"] == "synthesis"
    risks = {c["value"]: c["max_cell_risk"] for c in doc["candidates"] if c["seed"] == 1}
    assert risks[200] <= risks[5]  # larger leaves: fewer values useful to the intruder


def test_ml_utility_of_each_candidate(tmp_path):
    path = _write(tmp_path, "[0.5]")
    path.write_text(path.read_text() + '[tune.utility.ml]\ntarget = "turnover"\n'
                    'features = ["employees"]\nmodels = ["linear"]\nrepetitions = 2\n')
    doc = tune(load_scenario(path)).to_dict()
    for candidate in doc["candidates"]:
        family = candidate["utility"]["families"]["ml_prediction"]
        assert family["cases"] == 1 and family["tolerance"] == 0.0
        assert family["threshold"] == 0.1
        assert family["passed"] is (family["max_deviation"] <= 0.1)
