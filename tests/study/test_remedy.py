"""``attack remedy``: protect only where the intruder succeeds (docs/method/remedy.md)."""

from __future__ import annotations

import json
import stat

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.study.remedy import remedy, remedy_table
from attack.study.scenario import load_linkage_scenario as load_scenario

SCENARIO = """
title = "remedy test"
[data]
release = {{ demo = "formal" }}
original = {{ demo = "original" }}
external = {{ demo = "worst_case" }}
demo = {{ n_units = 500, seed = 2 }}
[linkage]
method = "greedy"
block = ["nace:prefix=2"]
keys = ["turnover:metric", "employees:metric"]
[evaluation]
tau = 0.5
cells = ["employees:bins=20,100", "east_west"]
[tune]
method = "mult-noise"
parameter = "f"
values = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5]
params = {{ s = 0.02 }}
columns = ["turnover", "employees"]
seeds = [1]
{remedy}
"""


def _write(tmp_path, remedy_table_text: str = "") -> object:
    path = tmp_path / "remedy.toml"
    path.write_text(SCENARIO.format(remedy=remedy_table_text))
    return path


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    return remedy(load_scenario(_write(tmp_path_factory.mktemp("remedy"))))


def test_remedy_passes_with_less_loss_than_the_best_uniform_setting(outcome) -> None:
    assert outcome.passed and outcome.rounds[-1].passed and outcome.rounds[-1].n_failing_cells == 0
    assert not outcome.rounds[0].passed  # the worst case re-identifies the formal file
    assert outcome.uniform is not None and outcome.uniform.risk["passed"]
    assert outcome.il1s < outcome.uniform.utility["il1s"]
    assert outcome.lower_loss_than_uniform is True
    # the remedy treated only records it re-identified, one step at a time
    assert sum(outcome.records_by_value.values()) <= 500
    doc = outcome.to_dict()
    json.dumps(doc)
    assert doc["information_loss"] == {"measure": "IL1s", "value": outcome.il1s, "uniform": outcome.uniform.utility["il1s"]}
    assert doc["uniform"]["value"] == outcome.uniform.value and doc["passed"] is True


def test_remedied_release_changes_only_named_variables_and_passes_on_its_own(outcome, tmp_path) -> None:
    scenario = load_scenario(_write(tmp_path))
    base, base_id = scenario.load_source("release")
    changed = [c for c in base.frame.columns
               if not np.array_equal(base.frame[c].to_numpy(), outcome.release[c].to_numpy())]
    assert set(changed) <= set(outcome.variables) <= {"turnover", "employees"}
    assert scenario.with_release(outcome.release, base_id).run().passed  # the verdict reproduces


def test_cli_writes_json_and_owner_only_release(tmp_path) -> None:
    path = _write(tmp_path, '[remedy]\ncompare = false\nrelease = "remedied.csv"')
    result = CliRunner().invoke(main, ["remedy", str(path), "--json", str(tmp_path / "r.json"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "remedied.csv").stat().st_mode) == 0o600
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["passed"] is True and doc["uniform"] is None and doc["uniform_compared"] is False
    assert len(pd.read_csv(tmp_path / "remedied.csv")) == 500


def test_bad_tables() -> None:
    with pytest.raises(InputError, match="max_rounds"):
        remedy_table({"max_rounds": 0})
    with pytest.raises(InputError, match="unknown|extra|not permitted"):
        remedy_table({"rounds": 3})


def test_targeted_local_suppression_counts_the_values_it_suppresses(tmp_path) -> None:
    """Categorical keys, the worst case (the release's own codes): the remedy suppresses only in
    the records the intruder re-identifies and is judged on the number of values suppressed."""
    rng = np.random.default_rng(3)
    n = 400
    release = pd.DataFrame({"unit": [f"u{i}" for i in range(n)], "region": rng.choice(list("abcdefgh"), n),
                            "size": rng.choice(["s", "m", "l", "xl"], n, p=[0.5, 0.3, 0.15, 0.05]),
                            "form": rng.choice(["x", "y", "z"], n), "sector": rng.choice(list("pqrstu"), n),
                            "w": rng.lognormal(size=n)})
    release.to_csv(tmp_path / "rel.csv", index=False)
    release.sample(frac=1.0, random_state=1).drop(columns="w").to_csv(tmp_path / "ext.csv", index=False)
    (tmp_path / "s.toml").write_text("""
[data]
release = { path = "rel.csv", id = "unit" }
external = { path = "ext.csv", id = "unit" }
[linkage]
keys = ["region:nominal", "size:nominal", "form:nominal", "sector:nominal"]
[evaluation]
tau = 0.5
targets = ["w"]
cells = ["size"]
[tune]
method = "local-suppression"
parameter = "k"
values = [2, 3, 5, 10]
columns = ["region", "size", "form", "sector"]
[tune.utility]
variables = ["w"]
""")
    outcome = remedy(load_scenario(tmp_path / "s.toml"))
    assert outcome.measure == "values suppressed" and outcome.passed
    suppressed = int(outcome.release[["region", "size", "form", "sector"]].isna().to_numpy().sum())
    assert outcome.loss == suppressed == outcome.values_suppressed > 0
    assert outcome.uniform is not None and outcome.loss < outcome.uniform_loss
    assert outcome.to_dict()["information_loss"]["measure"] == "values suppressed"
