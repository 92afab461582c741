"""Propensity-score utility (docs/method/utility.md): pMSE by hand, the null expectations checked
by simulation, two-way tables, total variation distance and confidence-interval overlap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import attack
from attack.errors import InputError
from attack.utility.propensity import propensity_utility
from attack.utility.regression import ci_overlap


def draw(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": x, "c": 2 * x + rng.normal(size=n),
                         "d": rng.choice(["u", "v"], n)})


def test_identical_files_cannot_be_told_apart() -> None:
    original = draw(400, 1)
    result = propensity_utility(original, original.copy(), models=("logistic", "cart"), permutations=5)
    for score in result.scores:
        assert score.pmse == pytest.approx(0.0, abs=1e-9)
        assert score.c == 0.5
    assert all(t.tvd == 0 and t.pmse == pytest.approx(0.0) for t in result.tables)


def test_separated_files_reach_the_maximum_c_times_one_minus_c() -> None:
    original = draw(300, 2)
    release = draw(100, 3).assign(b=lambda f: f["b"] + 100)  # every release row is far away
    (score,) = propensity_utility(original, release, models=("cart",), permutations=3).scores
    c = 100 / 400
    assert score.c == c
    assert score.pmse == pytest.approx(c * (1 - c))


@pytest.mark.parametrize("n_original, n_release", [(1000, 1000), (1500, 500)])
def test_s_pmse_of_samples_of_the_same_distribution_averages_about_one(n_original, n_release) -> None:
    """The null expectation (k − 1) c (1 − c) / N, by simulation: 60 pairs of independent
    samples of one distribution (both drawn afresh: the null is about both files' sampling)."""
    logistic, tables = [], []
    for seed in range(1, 61):
        result = propensity_utility(draw(n_original, 1000 + seed), draw(n_release, seed), models=("logistic",),
                                    variables=["a", "b", "d"])
        logistic.append(result.scores[0].pmse_ratio)
        tables += [t.s_pmse for t in result.tables]
    assert np.mean(logistic) == pytest.approx(1.0, abs=0.15)
    assert np.mean(tables) == pytest.approx(1.0, abs=0.1)


def test_cart_null_comes_from_permutations() -> None:
    original, release = draw(600, 4), draw(600, 5)
    a = propensity_utility(original, release, models=("cart",), permutations=20, seed=3)
    b = propensity_utility(original, release, models=("cart",), permutations=20, seed=3)
    assert a.to_dict() == b.to_dict()
    (score,) = a.scores
    assert score.permutations == 20 and score.expected > 0
    assert score.to_dict()["s_pmse"] == score.to_dict()["pmse_ratio"] == pytest.approx(score.pmse / score.expected)


def test_table_pmse_and_tvd_by_hand() -> None:
    original = pd.DataFrame({"s": ["m"] * 6 + ["f"] * 4, "r": ["n"] * 10})
    release = pd.DataFrame({"s": ["m"] * 2 + ["f"] * 8, "r": ["n"] * 10})
    (table,) = propensity_utility(original, release, models=(), variables=["s", "r"]).tables
    # cells: m (6 original, 2 release), f (4, 8); c = 1/2, N = 20
    p_m, p_f = 2 / 8, 8 / 12
    assert table.pmse == pytest.approx((8 * (p_m - 0.5) ** 2 + 12 * (p_f - 0.5) ** 2) / 20)
    assert table.s_pmse == pytest.approx(table.pmse / ((2 - 1) * 0.25 / 20))
    assert table.tvd == pytest.approx(0.5 * (abs(0.6 - 0.2) + abs(0.4 - 0.8)))
    assert table.cells == 2


def test_ci_overlap_by_hand() -> None:
    assert ci_overlap(0, 2, 0, 2) == 1.0
    assert ci_overlap(0, 2, 1, 3) == pytest.approx(0.5)
    assert ci_overlap(0, 4, 1, 2) == pytest.approx(0.5 * (1 / 4 + 1))
    assert ci_overlap(0, 1, 2, 3) == pytest.approx(-1.0)  # apart by one interval width
    assert ci_overlap(0, 0, 0, 1) is None


def test_models_report_ci_overlap_and_profile_carries_propensity() -> None:
    original = draw(500, 6)
    release = original.assign(c=original["c"] * 1.02)
    profile = attack.utility_profile(original, release, variables=["b", "c"], models=["c ~ b"],
                                     propensity={"models": ("logistic",)})
    document = profile.to_dict()
    (model,) = document["models"]
    slope = next(c for c in model["coefficients"] if c["term"] == "b")
    assert 0.5 < slope["ci_overlap"] < 1.0
    assert model["mean_ci_overlap"] == pytest.approx(np.mean([c["ci_overlap"] for c in model["coefficients"]]))
    assert set(document["propensity"]["models"]) == {"logistic"}
    assert attack.utility_profile(original, release, variables=["b"]).to_dict()["propensity"] is None


def test_bad_model_and_missing_column_are_input_errors() -> None:
    with pytest.raises(InputError, match="unknown propensity model 'svm'"):
        propensity_utility(draw(50, 1), draw(50, 2), models=("svm",))
    with pytest.raises(InputError, match="column not found in the release"):
        propensity_utility(draw(50, 1), draw(50, 2).drop(columns="d"), variables=["a", "d"])
