"""Procedure II on match weights by level combinations equals the dense Procedure II."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attack.linkage import fs_candidates
from attack.linkage.assignment import greedy
from attack.linkage.fellegi_sunter import Comparison, MatchWeights
from attack.linkage.keys import Metric, Nominal, String
from attack.linkage.link import link
from attack.linkage.settings import Linkage
from attack.linkage.solvers import BlockTask, _dense

#: Few values, several of them within 10 % of each other, zeros, negatives and missing ones.
METRIC_VALUES = [np.nan, 0.0, 1.0, 1.05, 1.2, 2.0, 10.0, 10.5, 11.0, -3.0, -3.2]


def _metric(values_a, values_b) -> Comparison:
    return Comparison(Metric("x"), ("exact", "near (<= 0.1)", "far"),
                      np.array(values_a, dtype=float), np.array(values_b, dtype=float))


def _code(codes_a, codes_b) -> Comparison:
    return Comparison(Nominal("c"), ("exact", "different"),
                      np.array(codes_a, dtype=np.int64), np.array(codes_b, dtype=np.int64))


@st.composite
def blocks(draw):
    n_ext = draw(st.integers(0, 14))
    n_rel = draw(st.integers(0, 14))
    comparisons, weights = [], []
    for _ in range(draw(st.integers(1, 3))):
        # weights from a small set: many combinations share one cost, some are out of order, and
        # 0.1 + 0.2 differs from 0.3 by less than the tie tolerance
        pick = st.sampled_from([-3.0, -1.0, 0.0, 0.1, 0.2, 0.3, 1.0, 2.0, 4.0])
        if draw(st.booleans()):
            values = st.lists(st.sampled_from(METRIC_VALUES), min_size=n_ext + n_rel, max_size=n_ext + n_rel)
            both = draw(values)
            comparisons.append(_metric(both[:n_ext], both[n_ext:]))
            weights.append(np.array([draw(pick) for _ in range(3)]))
        else:
            both = draw(st.lists(st.integers(-1, 3), min_size=n_ext + n_rel, max_size=n_ext + n_rel))
            comparisons.append(_code(both[:n_ext], both[n_ext:]))
            weights.append(np.array([draw(pick) for _ in range(2)]))
    return MatchWeights(tuple(comparisons), tuple(weights))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks())
def test_links_and_ties_equal_the_dense_procedure_ii(model):
    rows, cols, cost, n_best = fs_candidates.level_greedy(model)
    expected = _dense(BlockTask(0, model, "greedy"))
    np.testing.assert_array_equal(rows, expected.rows)
    np.testing.assert_array_equal(cols, expected.cols)
    np.testing.assert_array_equal(cost, expected.distance)
    np.testing.assert_array_equal(n_best, expected.n_best)


def test_hand_computed_block():
    # external 0: 10 → release 1 (10.5, near) beats release 0 (20, far); external 1: 10 → the
    # remaining release 0, far, whose tie count is 1 of the two release records
    model = MatchWeights((_metric([10.0, 10.0], [20.0, 10.5]),), (np.array([3.0, 1.0, -2.0]),))
    rows, cols, cost, n_best = fs_candidates.level_greedy(model)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert cost.tolist() == [2.0, 5.0]  # W_max 3 minus the weights 1 and −2
    assert n_best.tolist() == [1, 1]
    assert greedy(model.cost(np.arange(2), np.arange(2)))[1].tolist() == [1, 0]


def test_levels_of_another_meaning_are_left_to_the_pairwise_solvers(monkeypatch):
    model = MatchWeights((_metric([10.0, 10.0], [20.0, 10.5]),), (np.array([3.0, 1.0, -2.0]),))
    monkeypatch.setattr(Comparison, "levels", lambda self, ext, rel, pairs: np.full(  # all "far"
        (len(ext),) if pairs else (len(ext), len(rel)), 2, dtype=np.int8))
    assert fs_candidates.level_greedy(model) is None
    relabelled = MatchWeights((Comparison(Metric("x"), ("exact", "near (<= 0.2)", "far"),
                                          np.array([1.0]), np.array([1.0])),), (np.array([3.0, 1.0, -2.0]),))
    assert fs_candidates.level_greedy(relabelled) is None


def test_string_keys_are_left_to_the_pairwise_solvers():
    texts = np.array(["a", "b"], dtype=object)
    string = Comparison(String("s"), ("exact", "similar", "different"),
                        np.array([0, 1]), np.array([1, 0]), texts=texts)
    assert fs_candidates.level_greedy(MatchWeights((string,), (np.array([2.0, 0.0, -1.0]),))) is None


def test_a_large_block_is_solved_by_levels_with_the_dense_links(monkeypatch):
    rng = np.random.default_rng(3)
    n = 700
    truth = np.round(rng.lognormal(3, 1, n))
    external = pd.DataFrame({"id": np.arange(n), "x": truth, "y": rng.integers(1, 5, n)})
    release = external.assign(x=np.round(truth * rng.uniform(0.85, 1.15, n)))
    spec = Linkage(keys=(Metric("x"), Metric("y")), method="greedy",
                       intruder="fellegi-sunter")
    monkeypatch.setattr("attack.linkage.solvers.LOOP_LOAD_SECONDS", 0.0)  # the loops are worth loading
    large = link(external, release, spec, jobs=1)
    monkeypatch.setattr("attack.linkage.solvers.GREEDY_DENSE_PAIRS", n * n)
    dense = link(external, release, spec, jobs=1)
    assert [s.solver for s in large.solutions] == ["match-levels"]
    assert [s.solver for s in dense.solutions] == ["dense"]
    np.testing.assert_array_equal(large.release_row, dense.release_row)
    np.testing.assert_array_equal(large.n_best, dense.n_best)


def test_costs_within_the_tie_tolerance_count_as_ties():
    # (exact, exact) weighs 0.1 + 0.2, (near, missing) 0.3 + 0: two costs 5.6e-17 apart, one tie
    model = MatchWeights((_metric([10.0], [10.5, 10.0]), _code([1], [-1, 1])),
                         (np.array([0.1, 0.3, -1.0]), np.array([0.2, -1.0])))
    rows, cols, cost, n_best = fs_candidates.level_greedy(model)
    assert cols.tolist() == [1] and n_best.tolist() == [2]
    assert _dense(BlockTask(0, model, "greedy")).n_best.tolist() == [2]


def test_term_frequency_weights_are_left_to_the_pairwise_solvers():
    model = MatchWeights((_code([0, 1], [1, 0]),), (np.array([2.0, -1.0]),))
    assert fs_candidates.level_greedy(model) is not None
    model.value_weights = (np.array([5.0, 1.0]),)  # exact agreement on rare code 0 weighs more
    assert fs_candidates.level_greedy(model) is None
