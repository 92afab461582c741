"""Shadow-model membership inference (docs/method/synthetic-attacks.md): finds a planted outlier,
no better than chance when membership leaves no trace, interval arithmetic, validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.risk.evaluation import wilson_interval
from attack.synthetic_attacks.membership import _risk, membership_inference


def firms(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.lognormal(3, 0.5, n)
    return pd.DataFrame({
        "region": rng.choice(["N", "S", "E", "W"], n),
        "employees": np.round(size),
        "turnover": np.round(size * rng.lognormal(2, 0.2, n), 1),
    })


def test_a_planted_outlier_is_found() -> None:
    data = firms(1200)
    data.loc[17] = ["N", 40_000.0, 9.5e7]  # far from every other firm
    result = membership_inference(data, n_isolated=1, n_random=0, shadow_sets=30, test_sets=30, shadow_size=400, seed=3)
    (target,) = result.targets
    assert target.label == "isolated 1"
    assert target.nn_distance == pytest.approx(result.table["nn_distance"].max())
    assert target.accuracy >= 0.9
    assert target.advantage_interval[0] > 0.5  # clearly better than guessing
    assert not result.passed and result.share_exceeding == 1.0


def test_no_better_than_chance_when_the_synthesiser_ignores_its_input() -> None:
    """A 'synthesiser' that returns fresh records of the population whatever it was trained on:
    membership leaves no trace, so accuracy must be compatible with 0.5."""
    data = firms(1200)
    population = firms(5000, seed=9)

    def ignore_training(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
        return population.sample(len(frame), random_state=seed).reset_index(drop=True)

    result = membership_inference(data, synthesis=ignore_training, n_isolated=1, n_random=4,
                                  shadow_sets=40, test_sets=60, shadow_size=300, seed=4)
    correct = sum(t.correct for t in result.targets)
    games = sum(t.games for t in result.targets)
    low, high = wilson_interval(correct, games, z=3.29)  # 99.9 %: pooled over the five targets
    assert games == 300 and low <= 0.5 <= high


def test_interval_arithmetic_and_the_upper_bound_rule() -> None:
    risk = _risk("random 1", "random", 0.01, correct=15, games=20, tau=0.1, score=None)
    low, high = wilson_interval(15, 20)
    assert risk.accuracy == 0.75 and risk.advantage == pytest.approx(0.5)
    assert risk.accuracy_interval == (low, high)
    assert risk.advantage_interval == pytest.approx((2 * low - 1, 2 * high - 1))
    assert risk.exceeds_tau
    chance = _risk("random 2", "random", 0.01, correct=50, games=100, tau=0.1, score=None)
    assert chance.advantage == 0.0 and chance.exceeds_tau  # 100 games cannot show an advantage below τ = 0.1
    assert not _risk("r", "random", 0.0, correct=1000, games=2000, tau=0.1, score=None).exceeds_tau


def test_same_seed_same_result() -> None:
    data = firms(800)
    kwargs = dict(n_isolated=1, n_random=1, shadow_sets=20, test_sets=20, shadow_size=200, seed=7)
    serial = membership_inference(data, **kwargs).to_dict()
    assert serial == membership_inference(data, **kwargs).to_dict()
    assert serial == membership_inference(data, jobs=2, **kwargs).to_dict()  # processes change nothing


@pytest.mark.parametrize("kwargs, field", [
    ({"shadow_sets": 2}, "shadow_sets"),
    ({"test_sets": 3}, "test_sets"),
    ({"jobs": 0}, "jobs"),
    ({"synthesis": {"seed": 3}}, "synthesis.seed"),
    ({"columns": ["region", "turnvoer"]}, "columns"),
    ({"n_isolated": 0, "n_random": 0}, "n_isolated"),
    ({"shadow_size": 5000}, "shadow_size"),
    ({"tau": 1.5}, "tau"),
])
def test_bad_settings_name_the_field(kwargs, field) -> None:
    with pytest.raises(InputError) as caught:
        membership_inference(firms(300), **kwargs)
    assert caught.value.field == field


def test_attack_synthetic_reports_membership_without_record_positions() -> None:
    import attack

    data = firms(900)
    synthetic = attack.synthesize(data, seed=1).frame
    game = {"synthesis": {}, "n_isolated": 1, "n_random": 1, "shadow_sets": 20, "test_sets": 20, "shadow_size": 200}
    result = attack.attack_synthetic(data, synthetic, membership=game, n_attacks=50)
    document = result.to_dict()
    assert [t["label"] for t in document["membership"]["targets"]] == ["isolated 1", "random 1"]
    assert all("row" not in t for t in document["membership"]["targets"])
    check = [c for c in document["checks"] if c["family"] == "membership"]
    worst = max(document["membership"]["targets"], key=lambda t: t["advantage_interval"][1])
    assert check == [{"family": "membership", "measure": "advantage", "target": worst["label"],
                      "value": worst["advantage"], "upper": worst["advantage_interval"][1], "tau": 0.1,
                      "passed": worst["advantage_interval"][1] < 0.1}]


def test_an_advantage_bound_exactly_at_tau_fails_as_every_figure_at_tau_does(monkeypatch):
    """The τ rule (attack.verdict): strictly below passes, so the target's own flag and the
    check built on it agree at equality (the upper advantage bound 2 · 0.5625 − 1 = 0.125 = τ)."""
    monkeypatch.setattr("attack.synthetic_attacks.membership.wilson_interval", lambda correct, games: (0.5, 0.5625))
    assert _risk("r", "random", 0.0, correct=50, games=100, tau=0.125, score=None).exceeds_tau
    assert not _risk("r", "random", 0.0, correct=50, games=100, tau=0.126, score=None).exceeds_tau
