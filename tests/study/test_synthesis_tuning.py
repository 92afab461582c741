"""Tuning a synthesiser (docs/howto/synthetic-release.md): the choice, the frontier, the grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from attack.cli import main
from attack.errors import InputError
from attack.study.synthesis_tuning import (
    SynthesisCandidate,
    _frontier,
    parse_grid,
    tune_synthesis,
)


@pytest.fixture(scope="module")
def firms() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    size = rng.lognormal(3, 1, 800)
    return pd.DataFrame({"region": rng.choice(list("NSEW"), 800), "employees": np.round(size),
                         "turnover": np.round(size * rng.lognormal(2, 0.3, 800), 1)})


ATTACKS = {"keys": ["region", "employees"], "targets": ["turnover"], "n_attacks": 80}


def test_the_most_useful_passing_candidate_is_chosen(firms) -> None:
    outcome = tune_synthesis(firms, {"minbucket": [2, 40]}, attacks={**ATTACKS, "tau": 0.99})
    assert all(c.passed for c in outcome.candidates)
    assert outcome.chosen == min(range(2), key=lambda i: outcome.candidates[i].s_pmse)
    assert outcome.release is not None and list(outcome.release.columns) == list(firms.columns)
    document = outcome.to_dict()
    assert document["chosen"]["settings"] == outcome.candidates[outcome.chosen].settings
    assert [c["settings"] for c in document["candidates"]] == [{"minbucket": 2}, {"minbucket": 40}]


def test_no_candidate_passes_a_tiny_tau(firms, tmp_path) -> None:
    outcome = tune_synthesis(firms, {"minbucket": [5]}, attacks={**ATTACKS, "tau": 1e-6})
    assert outcome.chosen is None and outcome.release is None
    assert outcome.to_dict()["verdict"] == "no candidate of the grid passes every check"
    assert outcome.settings["utility_rows"] == "original" and "no holdout" in outcome.settings["warnings"][0]
    path = tmp_path / "firms.csv"
    firms.to_csv(path, index=False)
    out = tmp_path / "chosen.csv"
    result = CliRunner().invoke(main, ["tune-synthesis", "--original", str(path), "--grid", "minbucket=5",
                                       "--key", "region", "--tau", "0.000001", "--n-attacks", "50", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert not out.exists()


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 5)), min_size=1, max_size=12))
def test_frontier_is_exactly_the_undominated_candidates(points) -> None:
    candidates = [SynthesisCandidate({}, True, risk, None, 0, s) for risk, s in points]
    frontier = set(_frontier(candidates))
    for i, (r, s) in enumerate(points):
        dominated = any(r2 <= r and s2 <= s and (r2, s2) != (r, s) for r2, s2 in points)
        assert (i in frontier) == (not dominated)


def test_grid_values_are_typed_and_checked() -> None:
    assert parse_grid(["minbucket=5,20", "smoothing=none,density", "proper=true,no", "cp=1e-3"]) == {
        "minbucket": [5, 20], "smoothing": ["none", "density"], "proper": [True, False], "cp": [0.001]}
    with pytest.raises(InputError, match="'five' is not a valid int"):
        parse_grid(["minbucket=5,five"])
    with pytest.raises(InputError, match="KEY one of"):
        parse_grid(["leaf=5"])
    with pytest.raises(InputError, match="cannot vary 'seed'"):
        tune_synthesis(pd.DataFrame({"a": [1, 2]}), {"seed": [1]})


def test_the_grid_varies_the_method_of_one_column(firms) -> None:
    assert parse_grid(["method.turnover=cart,normrank"]) == {"method.turnover": ["cart", "normrank"]}
    outcome = tune_synthesis(firms, {"method.turnover": ["cart", "normrank"], "minbucket": [20]},
                             fixed={"method": {"employees": "normrank"}}, attacks={**ATTACKS, "tau": 0.99})
    settings = [c.settings for c in outcome.candidates]
    assert [s["method"] for s in settings] == [{"employees": "normrank", "turnover": "cart"},
                                              {"employees": "normrank", "turnover": "normrank"}]


def test_a_plain_method_becomes_the_default_beside_column_methods() -> None:
    from attack.study.synthesis_tuning import _settings

    assert _settings({"minbucket": 5}, {"method": "cart", "method.x": "norm"}) == {
        "minbucket": 5, "default_method": "cart", "method": {"x": "norm"}}
    assert _settings({}, {"method": "sample"}) == {"method": "sample"}


def test_with_a_holdout_the_utility_is_measured_against_it(firms) -> None:
    from attack.generation.sequential import synthesize
    from attack.utility.propensity import propensity_utility

    training, holdout = firms.iloc[:600].reset_index(drop=True), firms.iloc[600:].reset_index(drop=True)
    outcome = tune_synthesis(training, {"minbucket": [20]}, holdout=holdout, attacks={"n_attacks": 20, "tau": 0.99})
    synthetic = synthesize(training, seed=0, minbucket=20).frame
    expected = propensity_utility(holdout, synthetic, models=("logistic",), tables=False).scores[0].pmse_ratio
    assert outcome.candidates[0].s_pmse == pytest.approx(expected)
    assert outcome.settings["utility_rows"] == "holdout" and outcome.settings["warnings"] == []
    assert "S_pMSE against the holdout" in outcome.summary_lines()[-1]
