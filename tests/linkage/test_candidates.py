"""Procedure II over groups of identical key values equals the dense Procedure II (issue 29).

Links, distances (bit for bit) and tie counts are compared with the dense rounds of
:func:`attack.linkage.assignment.greedy` on blocks full of ties, on raw keys of large magnitude
and on standardised distances crowded near zero.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attack.linkage import candidates, solvers
from attack.linkage.candidates import embedding, rounding, tree_greedy, value_groups
from attack.linkage.distances import build_distance_model
from attack.linkage.keys import Metric, Nominal
from attack.linkage.solvers import BlockTask, solve_block


def _dense(model):
    return solvers._dense(BlockTask(0, model, "greedy"))


def _assert_same(model):
    dense = _dense(model)
    rows, cols, dist, n_best = tree_greedy(model, embedding(model))
    np.testing.assert_array_equal(rows, dense.rows)
    np.testing.assert_array_equal(cols, dense.cols)
    np.testing.assert_array_equal(dist, dense.distance)  # bit for bit
    np.testing.assert_array_equal(n_best, dense.n_best)


@st.composite
def tied_blocks(draw):
    """Two files of up to 60 records drawn from a few values, so most distances tie."""
    n_ext, n_rel = draw(st.integers(1, 60)), draw(st.integers(1, 60))
    spread = draw(st.integers(1, 6))

    def frame(n):
        return pd.DataFrame({
            "x": draw(st.lists(st.integers(0, spread), min_size=n, max_size=n)),
            "y": draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
            "f": draw(st.lists(st.sampled_from("pq"), min_size=n, max_size=n)),
        }).astype({"x": float, "y": float})

    keys = [Metric("x")]
    if draw(st.booleans()):
        keys.append(Metric("y", weight=draw(st.sampled_from([0.5, 1.0, 2.0]))))
    if draw(st.booleans()):
        keys.append(Nominal("f", weight=0.3))
    standardise = draw(st.sampled_from(["maxmin", "none", "sd"]))
    return build_distance_model(frame(n_ext), frame(n_rel), keys, standardise=standardise)


@settings(max_examples=150, deadline=None)
@given(tied_blocks(), st.sampled_from([1, 2, 8]))
def test_greedy_over_value_groups_equals_dense_with_many_ties(model, leaf):
    assume(embedding(model) is not None)  # keys without spread: no embedding, the dense path
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(candidates, "LEAF", leaf)  # deep trees on small blocks too
        _assert_same(model)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e6, 1e9, 1e12]))
def test_raw_keys_of_large_magnitude_link_as_dense(seed, magnitude):
    """Unstandardised values near ``magnitude`` differing by small steps: the embedded
    coordinates round far more than the distances between records, and the margin must say so."""
    rng = np.random.default_rng(seed)
    ext = pd.DataFrame({"x": magnitude + rng.integers(0, 40, 80) * 0.1, "y": rng.integers(0, 3, 80) * 1.0})
    rel = pd.DataFrame({"x": magnitude + rng.integers(0, 40, 120) * 0.1, "y": rng.integers(0, 3, 120) * 1.0})
    model = build_distance_model(ext, rel, [Metric("x"), Metric("y")], standardise="none")
    _assert_same(model)


def test_distances_crowded_near_zero_link_as_dense():
    """Max–min standardisation of a very heavy tail (Pareto, shape 0.5; no single value spans the
    range, which attack.linkage.outliers would stop): most distances are below 1e-12, the tie
    tolerance, as with raw turnover in a business register."""
    rng = np.random.default_rng(5)
    turnover = np.round(rng.pareto(0.5, 1500) * 1000 + 1, 1)
    employees = rng.integers(20, 60, 1500).astype(float)
    release = pd.DataFrame({"t": turnover, "e": employees})
    pick = rng.choice(1500, 800, replace=False)
    external = pd.DataFrame({"t": np.round(turnover[pick] * rng.normal(1, 0.05, 800), 1),
                             "e": employees[pick] + rng.integers(-1, 2, 800)})
    model = build_distance_model(external, release, [Metric("t"), Metric("e")])
    dense = _dense(model)
    assert np.median(dense.distance) < 1e-9 and (dense.n_best > 1).mean() > 0.2
    _assert_same(model)


def test_value_groups_by_identical_values_rows_ascending():
    values = np.array([[1.0, 2.0, 1.0, 1.0, 2.0], [0.0, 0.0, 0.0, 3.0, 0.0]])
    ptr, rows = value_groups(values)
    groups = [rows[ptr[g]:ptr[g + 1]].tolist() for g in range(ptr.size - 1)]
    assert sorted(groups) == [[0, 2], [1, 4], [3]]
    assert value_groups(np.array([[-0.0, 0.0]]))[0].size == 3  # bits, not ==: two groups


def test_rounding_margin_grows_with_the_coordinates():
    small = rounding(np.zeros((3, 2)), np.full((4, 2), 0.5))
    large = rounding(np.zeros((3, 2)), np.full((4, 2), 5e8))
    assert small[1] < 1e-14 < large[1]
    assert large[3] > 0  # below it the lower bound would fall as the distance grows


def test_greedy_blocks_above_the_dense_bound_take_the_tree():
    rng = np.random.default_rng(1)
    frame = lambda n: pd.DataFrame({"x": rng.integers(0, 50, n) * 1.0})  # noqa: E731
    model = build_distance_model(frame(600), frame(700), [Metric("x")])  # 420,000 pairs
    solution = solve_block(BlockTask(0, model, "greedy"))
    assert solution.solver == "kd-tree"
    dense = _dense(model)
    np.testing.assert_array_equal(solution.cols, dense.cols)
    np.testing.assert_array_equal(solution.n_best, dense.n_best)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40), st.data())
def test_rank_value_is_the_value_of_that_rank(values, data):
    """The k-d tree's median (compiled selection) equals NumPy's, duplicates included."""
    from attack.linkage.compiled import rank_value

    values = np.array(values, dtype=float)
    k = data.draw(st.integers(0, values.size - 1))
    buffer = np.concatenate([values, [99.0, -99.0]])  # only the first n values are read
    assert rank_value(buffer, values.size, k) == np.partition(values, k)[k]
    assert sorted(buffer[: values.size]) == sorted(values) and list(buffer[values.size:]) == [99.0, -99.0]
