"""Shapley attribution of the re-identification rate to the keys (attack/risk/attribution.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.linkage.settings import Linkage
from attack.risk.attribution import MAX_EXACT_KEYS, explain_attack, key_labels, shapley
from attack.risk.mass import AttackInput, mass_attack
from attack.risk.settings import Evaluation


def brute_force(n: int, value) -> list[float]:
    """The Shapley value as the mean marginal contribution over all n! orders."""
    shares = [0.0] * n
    orders = list(itertools.permutations(range(n)))
    for order in orders:
        mask = 0
        for i in order:
            shares[i] += value(mask | 1 << i) - (value(mask) if mask else 0.0)
            mask |= 1 << i
    return [s / len(orders) for s in shares]


def test_shapley_of_hand_computed_games() -> None:
    # additive game: each player's share is its own worth
    worth = [0.1, 0.25, 0.05]
    shares, loo = shapley(3, lambda m: sum(w for i, w in enumerate(worth) if m >> i & 1))
    assert shares == pytest.approx(worth, abs=1e-15)
    assert loo == pytest.approx(worth, abs=1e-15)
    # two perfect substitutes (either key alone re-identifies 0.6): half each; leaving one out costs nothing
    shares, loo = shapley(2, lambda m: 0.6)
    assert shares == pytest.approx([0.3, 0.3]) and loo == pytest.approx([0.0, 0.0])
    # complements (only both together work): half each, and either one left out costs everything
    shares, loo = shapley(2, lambda m: 0.8 if m == 3 else 0.0)
    assert shares == pytest.approx([0.4, 0.4]) and loo == pytest.approx([0.8, 0.8])


def test_shapley_equals_the_mean_over_all_orders() -> None:
    rng = np.random.default_rng(3)
    table = rng.uniform(size=32)
    shares, _ = shapley(5, lambda m: float(table[m]))
    assert shares == pytest.approx(brute_force(5, lambda m: float(table[m])), abs=1e-12)
    assert math.fsum(shares) == pytest.approx(table[31], abs=1e-12)


def scenario(seed: int, n: int = 200, n_keys: int | None = None) -> tuple[AttackInput, Linkage]:
    """Generated release and intruder file: metric keys of different precision (noise sd drawn
    uniform in [0.02, 1]), the release in shuffled order (ties are broken in file order)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 5)) if n_keys is None else n_keys
    keys = {f"k{j}": rng.normal(size=n) for j in range(k)}
    release = pd.DataFrame({"unit": [f"u{i}" for i in range(n)], **keys, "w": rng.lognormal(size=n),
                            "size": rng.choice(["small", "large"], n)})
    noise = rng.uniform(0.02, 1.0, k)
    external = release.assign(**{f"k{j}": release[f"k{j}"] + rng.normal(0, noise[j], n) for j in range(k)})
    release = release.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    linkage = Linkage.model_validate({"keys": [f"k{j}:metric" for j in range(k)]})
    return AttackInput(external, "unit", release, "unit"), linkage


def test_attributions_sum_to_the_rate_and_cells_to_their_risk() -> None:
    data, linkage = scenario(7, n=120, n_keys=4)
    evaluation = Evaluation.of(tau=0.05, targets=["w"], cells=["size"])
    explained = explain_attack(data, linkage, evaluation)
    assert explained.n_linkages == 15 and explained.method == "exact Shapley values"
    assert abs(math.fsum(explained.shares.values()) - explained.reidentification_rate) <= 1e-9
    assert explained.cells, "the generated attack has failing cells at τ = 0.05"
    for cell in explained.cells:
        assert abs(math.fsum(cell.shares.values()) - cell.disclosure_risk) <= 1e-9
    # the leave-one-out change is the full rate less the rate without that key
    without = linkage.model_copy(update={"keys": linkage.keys[1:]})
    rate_without = mass_attack(data.external, data.release, keys=without.keys, external_id="unit",
                               release_id="unit", tau=0.05, targets=["w"]).figures["reidentification_rate"]
    assert explained.leave_one_out["k0"] == pytest.approx(explained.reidentification_rate - rate_without,
                                                          abs=1e-15)


def test_sampled_attribution_above_twelve_keys_sums_and_states_its_error() -> None:
    data, linkage = scenario(2, n=30, n_keys=MAX_EXACT_KEYS + 1)
    explained = explain_attack(data, linkage, Evaluation.of(tau=0.5, targets=["w"]), permutations=3, seed=5)
    assert explained.method == "sampled Shapley values" and explained.permutations == 3
    assert abs(math.fsum(explained.shares.values()) - explained.reidentification_rate) <= 1e-9
    assert explained.error is not None and all(e >= 0 for e in explained.error.values())
    again = explain_attack(data, linkage, Evaluation.of(tau=0.5, targets=["w"]), permutations=3, seed=5)
    assert again.to_dict() == explained.to_dict()  # seeded


def test_mass_attack_explain_adds_the_attribution_to_the_json() -> None:
    data, linkage = scenario(11, n=80, n_keys=3)
    result = mass_attack(data.external, data.release, keys=linkage.keys, external_id="unit", release_id="unit",
                         tau=0.5, targets=["w"], explain=True)
    figures = result.to_dict()
    assert list(figures["attribution"]) == ["k0", "k1", "k2"]
    assert abs(math.fsum(figures["attribution"].values()) - figures["reidentification_rate"]) <= 1e-9
    assert figures["explanation"]["empty_coalition"] == 0.0
    assert "attribution" not in mass_attack(data.external, data.release, keys=linkage.keys, external_id="unit",
                                            release_id="unit", tau=0.5, targets=["w"]).figures


def test_faithfulness_on_fifty_generated_scenarios() -> None:
    """Removing the key with the largest attribution lowers the rate at least as much as removing
    any other single key in at least 90 % of 50 generated scenarios."""
    faithful = 0
    for seed in range(50):
        data, linkage = scenario(seed, n=150, n_keys=3)
        explained = explain_attack(data, linkage, Evaluation.of(tau=0.5, targets=["w"]))
        assert abs(math.fsum(explained.shares.values()) - explained.reidentification_rate) <= 1e-9
        faithful += explained.leave_one_out[explained.largest] >= max(explained.leave_one_out.values()) - 1e-12
    assert faithful >= 45


def test_labels_and_refusals() -> None:
    linkage = Linkage.model_validate({"keys": ["x:metric", "name:string", "y:metric"]})
    assert key_labels(linkage) == ("x", "name", "y")
    data, plain = scenario(1, n=40, n_keys=3)
    with pytest.raises(InputError, match="learned"):
        explain_attack(data, plain.model_copy(update={"learn_weights": 0.5}), Evaluation.of(targets=["w"]))
    with pytest.raises(InputError, match="permutations"):
        explain_attack(data, plain, Evaluation.of(targets=["w"]), permutations=1)


def test_typed_result_shows_itself_without_a_verdict() -> None:
    data, linkage = scenario(5, n=60, n_keys=2)
    explained = explain_attack(data, linkage, Evaluation.of(tau=0.5, targets=["w"]))
    assert repr(explained).startswith("Attribution(exact Shapley values over 2 keys")
    assert "<table" in explained._repr_html_() and "PASSED" not in repr(explained)
    assert explained.to_dict()["attribution"] == dict(explained.shares)
