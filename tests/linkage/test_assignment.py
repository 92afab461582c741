"""Assignment methods against hand-computed fixtures, brute force and naive references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from fixtures import TABLE_13_1_A, TABLE_13_1_B
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attack.linkage.assignment import greedy, hungarian, nearest, sequential
from attack.linkage.distances import build_distance_model
from attack.linkage.keys import Metric


@pytest.fixture(scope="module")
def table_13_1_cost() -> np.ndarray:
    keys = [Metric(c) for c in TABLE_13_1_A.columns]
    model = build_distance_model(TABLE_13_1_A, TABLE_13_1_B, keys)
    return model.cost(np.arange(4), np.arange(4))


def _pairs(result):
    rows, cols = result
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True)]


def test_table_13_1_exact_optimum(table_13_1_cost):
    rows, cols = hungarian(table_13_1_cost)
    assert _pairs((rows, cols)) == [(0, 2), (1, 1), (2, 0), (3, 3)]  # a1-b3, a2-b2, a3-b1, a4-b4
    assert table_13_1_cost[rows, cols].sum() == pytest.approx(1.877714750068, abs=1e-9)


def test_table_13_1_procedure_ii(table_13_1_cost):
    rows, cols = greedy(table_13_1_cost)
    assert _pairs((rows, cols)) == [(0, 1), (1, 2), (2, 0), (3, 3)]  # a1-b2, a2-b3, a3-b1, a4-b4
    assert table_13_1_cost[rows, cols].sum() == pytest.approx(2.399355304123, abs=1e-9)


def test_table_13_1_procedure_i_depends_on_order(table_13_1_cost):
    forward = sequential(table_13_1_cost)
    assert _pairs(forward) == [(0, 1), (1, 2), (2, 0), (3, 3)]
    backward = sequential(table_13_1_cost, order=np.array([3, 2, 1, 0]))
    assert _pairs(backward) == [(0, 2), (1, 1), (2, 0), (3, 3)]
    assert table_13_1_cost[backward].sum() == pytest.approx(1.877714750068, abs=1e-9)


def test_table_13_1_enumeration_ranks(table_13_1_cost):
    totals = sorted(
        table_13_1_cost[np.arange(4), list(p)].sum() for p in itertools.permutations(range(4))
    )
    assert totals[0] == pytest.approx(1.877714750068, abs=1e-9)
    assert totals[1] == pytest.approx(2.399355304123, abs=1e-9)
    assert totals[-1] == pytest.approx(9.563217565574, abs=1e-9)


def test_nearest_is_not_one_to_one():
    cost = np.array([[0.1, 0.5], [0.2, 0.9], [0.3, 0.3]])
    assert _pairs(nearest(cost)) == [(0, 0), (1, 0), (2, 0)]  # tie in row 2: first column


def test_empty_and_degenerate_blocks():
    for method in (hungarian, greedy, sequential, nearest):
        rows, cols = method(np.zeros((0, 3)))
        assert rows.size == cols.size == 0
    assert _pairs(greedy(np.array([[0.4, 0.2, 0.2]]))) == [(0, 1)]
    assert _pairs(greedy(np.array([[0.4], [0.2], [0.2]]))) == [(1, 0)]


def brute_force_minimum(cost: np.ndarray) -> float:
    """Minimum total over every one-to-one assignment of min(n, m) pairs."""
    n, m = cost.shape
    if n <= m:
        return min(cost[np.arange(n), list(p)].sum() for p in itertools.permutations(range(m), n))
    return min(cost[list(p), np.arange(m)].sum() for p in itertools.permutations(range(n), m))


def naive_procedure_ii(cost: np.ndarray) -> list[tuple[int, int]]:
    """Sorted-pairs Procedure II exactly as printed, ties by (external row, release row)."""
    pairs = sorted((cost[i, j], i, j) for i in range(cost.shape[0]) for j in range(cost.shape[1]))
    used_rows, used_cols, out = set(), set(), []
    for _, i, j in pairs:
        if i not in used_rows and j not in used_cols:
            used_rows.add(i)
            used_cols.add(j)
            out.append((i, j))
    return sorted(out)


def naive_procedure_i(cost: np.ndarray, order) -> list[tuple[int, int]]:
    free = list(range(cost.shape[1]))
    out = []
    for i in order:
        if not free:
            break
        j = min(free, key=lambda c: (cost[i, c], c))
        free.remove(j)
        out.append((i, j))
    return sorted(out)


shapes = st.tuples(st.integers(1, 6), st.integers(1, 6))
# few distinct values so that ties are frequent, as after microaggregation
tied = shapes.flatmap(lambda s: arrays(np.float64, s, elements=st.sampled_from([0.0, 0.25, 0.5, 1.0])))
continuous = shapes.flatmap(
    lambda s: arrays(np.float64, s, elements=st.floats(0, 10, allow_nan=False, allow_subnormal=False))
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(tied, continuous))
def test_hungarian_equals_brute_force(cost):
    rows, cols = hungarian(cost)
    assert rows.size == min(cost.shape)
    assert len(set(rows)) == rows.size and len(set(cols)) == cols.size
    assert cost[rows, cols].sum() == pytest.approx(brute_force_minimum(cost), abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(st.one_of(tied, continuous))
def test_greedy_equals_naive_sorted_pairs(cost):
    assert _pairs(greedy(cost)) == naive_procedure_ii(cost)


@settings(max_examples=200, deadline=None)
@given(st.one_of(tied, continuous), st.randoms(use_true_random=False))
def test_sequential_equals_naive_procedure_i(cost, rnd):
    order = list(range(cost.shape[0]))
    rnd.shuffle(order)
    assert _pairs(sequential(cost, np.array(order))) == naive_procedure_i(cost, order)


@settings(max_examples=200, deadline=None)
@given(st.one_of(tied, continuous))
def test_hungarian_total_never_exceeds_greedy(cost):
    total_exact = cost[hungarian(cost)].sum()
    assert total_exact <= cost[greedy(cost)].sum() + 1e-9
    assert total_exact <= cost[sequential(cost)].sum() + 1e-9


@settings(max_examples=100, deadline=None)
@given(continuous, st.randoms(use_true_random=False))
def test_hungarian_total_does_not_depend_on_row_order(cost, rnd):
    perm = list(range(cost.shape[0]))
    rnd.shuffle(perm)
    assert cost[perm][hungarian(cost[perm])].sum() == pytest.approx(cost[hungarian(cost)].sum(), abs=1e-9)


def test_greedy_on_large_random_block_matches_naive():
    rng = np.random.default_rng(7)
    cost = rng.integers(0, 30, size=(60, 45)).astype(float)  # many ties
    assert _pairs(greedy(cost)) == naive_procedure_ii(cost)
