"""The data-only membership family (docs/method/membership-family.md): metrics on hand-computed
scores, the roles of the records, and calibration — no signal on an independent sample, copies
and an overfitted synthesiser found."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from attack.errors import InputError
from attack.generation.sequential import synthesize
from attack.synthetic_attacks import mia_vectors
from attack.synthetic_attacks.mia_family import exposed_records, membership_family
from attack.synthetic_attacks.mia_game import assign_roles, split_holdout
from attack.synthetic_attacks.mia_metrics import (
    curve,
    evaluate_scores,
    point_metrics,
    tie_groups,
    tpr_at,
)
from attack.synthetic_attacks.mia_vectors import scan


def firms(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.lognormal(3, 0.5, n)
    return pd.DataFrame({
        "region": rng.choice(list("NSEW"), n), "sector": rng.choice(list("ABCDEFG"), n),
        "employees": np.round(size), "turnover": np.round(size * rng.lognormal(2, 0.2, n), 1),
        "age": rng.integers(18, 90, n),
    })


def _metrics(members, nonmembers, fprs=(0.1, 0.25)):
    g = tie_groups(np.array(members), np.array(nonmembers))
    counts = (np.bincount(g.member_group, minlength=g.n_groups).astype(float),
              np.bincount(g.nonmember_group, minlength=g.n_groups).astype(float))
    return point_metrics(*counts, fprs)


def test_metrics_by_hand() -> None:
    """Members 3, 2, 2, 1 and non-members 2, 1, 0, 0: vertices (0, 0), (0, .25), (.25, .75),
    (.5, 1), (1, 1); AUC 13.5/16; TPR at FPR .1 interpolated on the tied group of score 2."""
    m = _metrics([3, 2, 2, 1], [2, 1, 0, 0])
    assert m["auc"] == pytest.approx(13.5 / 16)
    assert m["tpr_at_fpr_0.1"] == pytest.approx(0.25 + 0.1 / 0.25 * 0.5)
    assert m["tpr_at_fpr_0.25"] == pytest.approx(0.75)
    assert m["advantage"] == pytest.approx(0.5)


def test_all_tied_is_the_diagonal() -> None:
    m = _metrics([1.0] * 7, [1.0] * 5, fprs=(0.01, 0.3))
    assert m["auc"] == 0.5 and m["advantage"] == 0.0
    assert m["tpr_at_fpr_0.01"] == pytest.approx(0.01) and m["tpr_at_fpr_0.3"] == pytest.approx(0.3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=12), st.lists(st.integers(0, 6), min_size=1, max_size=12))
def test_auc_and_tpr_against_brute_force(members, nonmembers) -> None:
    m = _metrics(members, nonmembers, fprs=(0.1, 0.5))
    pairs = [(a > b) + 0.5 * (a == b) for a in members for b in nonmembers]
    assert m["auc"] == pytest.approx(np.mean(pairs))
    # the best TPR among randomised threshold rules with FPR <= alpha, by brute force
    for alpha in (0.1, 0.5):
        best = 0.0
        for t in sorted(set(members) | set(nonmembers)):
            above_m = np.mean(np.array(members) > t)
            above_n = np.mean(np.array(nonmembers) > t)
            tie_m = np.mean(np.array(members) == t)
            tie_n = np.mean(np.array(nonmembers) == t)
            share = 1.0 if tie_n == 0 else min(1.0, max(0.0, (alpha - above_n) / tie_n))
            if above_n <= alpha:
                best = max(best, above_m + share * tie_m)
        assert m[f"tpr_at_fpr_{alpha:g}"] == pytest.approx(best)


def test_tpr_at_takes_the_top_of_a_vertical_step() -> None:
    fpr, tpr = curve(np.array([2.0, 0, 1]), np.array([0.0, 1, 1]))  # vertices (0,0) (0,2/3) (.5,2/3) (1,1)
    assert tpr_at(fpr, tpr, 0.0) == pytest.approx(2 / 3)


def test_bootstrap_is_seeded_and_the_maximum_bounds_every_attack() -> None:
    rng = np.random.default_rng(0)
    scores = {"a": (rng.normal(0.3, 1, 300), rng.normal(0, 1, 300)),
              "b": (rng.normal(0.0, 1, 300), rng.normal(0, 1, 300))}
    per, best = evaluate_scores(scores, n_bootstrap=50, seed=3)
    again, _ = evaluate_scores(scores, n_bootstrap=50, seed=3)
    assert per["a"].to_dict() == again["a"].to_dict()
    for name in ("a", "b"):
        for metric, (low, high) in per[name].intervals.items():
            assert best.intervals[metric][0] >= low and best.intervals[metric][1] >= high
            assert best.values[metric] >= per[name].values[metric]
    assert best.values["auc"] == per["a"].values["auc"] > 0.55


def test_roles_keep_scored_records_out_of_the_reference() -> None:
    holdout = firms(101, 2).assign(uid=range(101))
    roles = assign_roles(firms(50, 1), holdout, firms(40, 3), seed=5)
    assert len(roles.reference) == 50 and len(roles.nonmembers) == 51
    assert set(roles.reference.uid).isdisjoint(roles.nonmembers.uid)
    assert set(roles.reference.uid) | set(roles.nonmembers.uid) == set(range(101))
    given_ref = assign_roles(firms(50, 1), holdout, firms(40, 3), firms(30, 4))
    assert len(given_ref.nonmembers) == 101 and given_ref.reference_source == "given"
    with pytest.raises(InputError):
        assign_roles(firms(50, 1), holdout.iloc[:2], firms(40, 3))


def test_split_holdout_draws_the_scenario_rule() -> None:
    frame = firms(200, 0).assign(uid=range(200))
    training, held = split_holdout(frame, 0.2, seed=7)
    drawn = np.random.default_rng(7).choice(200, size=40, replace=False)
    assert sorted(held.uid) == sorted(drawn) and len(training) == 160
    with pytest.raises(InputError):
        split_holdout(frame, 0.0, seed=7)


def test_kernel_sums_and_kth_distances_agree_with_a_direct_computation_in_any_block_size(monkeypatch) -> None:
    rng = np.random.default_rng(1)
    q, p = rng.normal(size=(13, 3)), rng.normal(size=(17, 3)) * 5
    sq = ((q[:, None, :] - p[None]) ** 2).sum(-1)
    direct = np.log(np.mean(np.exp(-sq / (2 * 0.7**2)), axis=1))
    third = np.sqrt(np.sort(sq, axis=1)[:, 2])
    for block in (mia_vectors.BLOCK_BYTES, 8 * 17 * 2):  # everything at once; two query rows per block
        monkeypatch.setattr(mia_vectors, "BLOCK_BYTES", block)
        log_mean, kth = scan(q, p, 0.7, 3)
        assert log_mean == pytest.approx(direct, rel=1e-5) and kth == pytest.approx(third, rel=1e-5)


def test_exposed_records_are_the_members_above_the_non_members() -> None:
    table = exposed_records({"a": (np.array([5.0, 0.1, 3.0]), np.array([0.0, 1.0, 2.0, 3.0]))}, fpr=0.25)
    assert list(table.member_row) == [0, 2] and list(table.p_a) == [0.0, 0.25]


# Calibration: these runs decide whether the family can be trusted at all.

@pytest.fixture(scope="module")
def population():
    return firms(2000, 1), firms(4000, 2), firms(2000, 3)  # members, holdout, reference


def test_an_independent_sample_gives_the_false_positive_rate(population) -> None:
    """Synthetic file = fresh records of the population: TPR at 1 % FPR of every attack within
    the binomial 99.9 % interval of 1 % for 2,000 members, and the verdict passes."""
    members, holdout, reference = population
    result = membership_family(members, holdout, firms(2000, 4), reference, seed=0)
    low, high = binom.interval(0.999, len(members), 0.01)
    assert [a.name for a in result.attacks] == ["dcr", "dcr_difference", "local_density", "density_ratio",
                                                "gower_ensemble"]
    for attack in result.attacks:
        assert low / len(members) <= attack.metrics.values["tpr_at_fpr_0.01"] <= high / len(members), attack.name
        assert attack.metrics.values["auc"] == pytest.approx(0.5, abs=0.04), attack.name
    assert result.passed


def test_copying_a_tenth_of_the_members_is_found(population) -> None:
    members, holdout, reference = population
    copied = members.sample(frac=0.1, random_state=0)
    release = pd.concat([copied, firms(1800, 4)], ignore_index=True)
    result = membership_family(members, holdout, release, reference, exposed=True, seed=0)
    assert result.maximum.values["tpr_at_fpr_0.01"] >= 0.09
    assert {a.name: a.metrics.values["tpr_at_fpr_0.01"] for a in result.attacks}["dcr"] >= 0.09
    assert set(copied.index) <= set(result.exposed.member_row)
    assert not result.passed


def test_an_overfitted_synthesiser_fails_with_the_default_settings(population) -> None:
    """CART with minimum leaf size 1 reproduces its training records: the lower bound of the
    maximum TPR at 1 % FPR lies above τ = 0.1."""
    members, holdout, _ = population
    release = synthesize(members, minbucket=1, seed=4).frame
    result = membership_family(members, holdout, release)
    assert result.maximum.intervals["tpr_at_fpr_0.01"][0] > 0.1
    assert not result.passed
