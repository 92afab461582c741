"""The lower bound on ε from a membership test, against a generator whose ε is known.

The generator lives here only: a Laplace histogram synthesiser. Every record of the population
has its own cell; the synthesiser adds Laplace noise of scale 1/ε to each cell's count (0 or 1)
and releases round(noisy count) copies of the cell, which is ε-differentially private under
adding or removing one record (the counts have sensitivity 1). The membership game is played on
the noisy counts directly: a member's cell scores 1 + Lap(1/ε), a non-member's Lap(1/ε), all
independent, so one release gives every trial at once.
"""

import math

import numpy as np
import pandas as pd
import pytest

import attack
from attack.errors import InputError
from attack.synthetic_attacks.privacy_claim import (
    BudgetLedger,
    check_claim,
    epsilon_lower_bound,
    privacy_claim,
    strongest_bound,
)

MEMBERS = 10_000


def noisy_counts(epsilon: float, rng: np.random.Generator, n: int = MEMBERS) -> tuple[np.ndarray, np.ndarray]:
    """The member and non-member scores of one Laplace-histogram release."""
    return 1 + rng.laplace(0, 1 / epsilon, n), rng.laplace(0, 1 / epsilon, n)


def laplace_histogram(cells: pd.DataFrame, population: pd.DataFrame, epsilon: float, seed: int) -> pd.DataFrame:
    """The synthetic file: each population cell round(count + Lap(1/ε)) times (negative: none)."""
    rng = np.random.default_rng(seed)
    member = population.merge(cells.assign(_in=1), how="left", on=list(population.columns))["_in"].fillna(0)
    copies = np.maximum(0, np.round(member.to_numpy() + rng.laplace(0, 1 / epsilon, len(population)))).astype(int)
    return population.loc[population.index.repeat(copies)].reset_index(drop=True)


def test_the_bound_by_hand():
    # 50 of 100 members flagged, 1 of 100 non-members; one test, δ = 0, 95 %: each rate at 2.5 %
    b = epsilon_lower_bound(50, 100, 1, 100)
    from scipy.stats import beta

    fpr_u, fnr_u = beta.ppf(0.975, 2, 99), beta.ppf(0.975, 51, 50)
    assert b.fpr_upper == pytest.approx(fpr_u) and b.fnr_upper == pytest.approx(fnr_u)
    assert b.epsilon == pytest.approx(math.log((1 - fnr_u) / fpr_u))
    # δ lowers it; a test that flags nothing proves nothing
    assert epsilon_lower_bound(50, 100, 1, 100, delta=0.1).epsilon < b.epsilon
    assert epsilon_lower_bound(0, 100, 0, 100).epsilon == 0.0
    # more comparisons, wider bounds
    assert epsilon_lower_bound(50, 100, 1, 100, comparisons=6).epsilon < b.epsilon


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_the_95_percent_bound_rarely_exceeds_the_true_epsilon(epsilon):
    rng = np.random.default_rng(int(epsilon * 1000))
    bounds = np.array([strongest_bound({"noisy count": noisy_counts(epsilon, rng)}).epsilon for _ in range(200)])
    assert np.mean(bounds > epsilon) <= 0.05
    if epsilon == 4.0:
        assert np.mean(bounds >= 0.3 * epsilon) >= 0.95
        assert np.median(bounds) > 2.0  # the bound is not idle: about 3.6 here


def test_a_claim_of_01_made_with_epsilon_4_is_falsified_and_a_true_claim_is_not():
    scores = {"noisy count": noisy_counts(4.0, np.random.default_rng(7))}
    assert check_claim({"epsilon": 0.1}, scores).falsified
    kept = check_claim({"epsilon": 4.0}, scores)
    assert not kept.falsified and "not falsified" in kept.reading()


def test_the_ledger_adds_up_by_basic_composition():
    ledger = BudgetLedger.model_validate({"release": [{"name": "wave 1", "epsilon": 0.5, "delta": 1e-6},
                                                      {"name": "wave 2", "epsilon": 1.5}]})
    assert ledger.epsilon == 2.0 and ledger.delta == pytest.approx(1e-6)
    claim = privacy_claim({"ledger": ledger.model_dump()})
    assert claim.claimed_epsilon == 2.0 and claim.claimed_delta == pytest.approx(1e-6)
    with pytest.raises(InputError, match="claimed ε or a budget ledger"):
        privacy_claim({"confidence": 0.9})
    with pytest.raises(InputError, match="privacy_claim.ledger.release"):
        privacy_claim({"ledger": {"release": [{"name": "w", "epsilon": -1}]}})


def test_the_report_says_a_false_claim_is_falsified():
    rng = np.random.default_rng(3)
    grid = pd.DataFrame({"x": np.arange(3000) % 60, "y": np.arange(3000) // 60})
    order = rng.permutation(3000)
    members, holdout = grid.iloc[order[:1500]].reset_index(drop=True), grid.iloc[order[1500:]].reset_index(drop=True)
    synthetic = laplace_histogram(members, grid, 4.0, seed=1)
    result = attack.attack_synthetic(members, synthetic, holdout, n_attacks=20, categorical=["x", "y"],
                                     membership_family={"attacks": ["dcr"], "n_bootstrap": 20},
                                     privacy_claim={"epsilon": 0.1})
    claim = result.to_dict()["membership_family"]["privacy_claim"]
    assert claim["falsified"] and claim["lower_bound"]["epsilon"] > 1.0
    check = [c for c in result.to_dict()["checks"] if c["family"] == "privacy_claim"][0]
    assert not check["passed"] and not result.passed
    with pytest.raises(InputError, match="membership family"):
        attack.attack_synthetic(members, synthetic, holdout, n_attacks=20, privacy_claim={"epsilon": 0.1})
