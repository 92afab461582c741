"""The successive-shortest-path solver of the exact method against SciPy's dense solver."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from attack.linkage.shortest_path import Assignment

PADDING = 7.0


@st.composite
def sparse_graphs(draw):
    """A graph of n rows and m real columns (a random part of all pairs, costs from a few
    integers, so heavily tied, or real numbers), each row with its own "no link" column."""
    n, m = draw(st.integers(1, 9)), draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    tied = draw(st.booleans())
    cost = rng.integers(0, 3, (n, m)).astype(float) if tied else rng.random((n, m)) * 5
    present = rng.random((n, m)) < draw(st.floats(0.2, 1.0))
    rows, cols = np.nonzero(present)
    edge_row = np.concatenate([rows, np.arange(n)])
    edge_col = np.concatenate([cols, m + np.arange(n)])
    edge_cost = np.concatenate([cost[rows, cols], np.full(n, PADDING)])
    first = rng.random(edge_row.size) < 0.5  # the first round sees about half the edges
    first[rows.size:] = True  # and every "no link" edge
    return n, m, edge_row, edge_col, edge_cost, first


def _dense(n, m, edge_row, edge_col, edge_cost):
    matrix = np.full((n, m + n), 1e6)  # 1e6: no edge, dearer than any full assignment of edges
    matrix[edge_row, edge_col] = edge_cost
    return matrix


@settings(max_examples=300, deadline=None)
@given(sparse_graphs())
def test_optimal_and_proven_by_its_potentials_also_after_adding_edges(graph):
    n, m, edge_row, edge_col, edge_cost, first = graph
    state = Assignment(n, m + n)
    state.solve(edge_row[first], edge_col[first], edge_cost[first])
    state.solve(edge_row, edge_col, edge_cost)  # warm start from the first round's solution
    matrix = _dense(n, m, edge_row, edge_col, edge_cost)
    rows, cols = linear_sum_assignment(matrix)
    assert np.unique(state.col_of_row).size == n
    np.testing.assert_array_equal(state.row_of_col[state.col_of_row], np.arange(n))
    total = matrix[np.arange(n), state.col_of_row].sum()
    assert total == pytest.approx(matrix[rows, cols].sum(), abs=1e-9)
    # the potentials prove it: v <= 0, 0 on free columns, reduced costs >= 0, 0 on the matching
    v = state.potential
    assert np.all(v <= 0) and np.all(v[state.row_of_col < 0] == 0)
    u = matrix[np.arange(n), state.col_of_row] - v[state.col_of_row]
    reduced = edge_cost - u[edge_row] - v[edge_col]
    assert reduced.min() >= -1e-9
    assert u.sum() + v.sum() == pytest.approx(total, abs=1e-9)


def test_the_unique_optimum_of_a_random_graph_is_scipys():
    rng = np.random.default_rng(4)
    n, m = 60, 80
    cost = rng.random((n, m))
    rows, cols = np.nonzero(rng.random((n, m)) < 0.3)
    edge_row = np.concatenate([rows, np.arange(n)])
    edge_col = np.concatenate([cols, m + np.arange(n)])
    edge_cost = np.concatenate([cost[rows, cols], np.full(n, PADDING)])
    state = Assignment(n, m + n)
    state.solve(edge_row, edge_col, edge_cost)
    _, expected = linear_sum_assignment(_dense(n, m, edge_row, edge_col, edge_cost))
    np.testing.assert_array_equal(state.col_of_row, expected)


def test_a_new_edge_that_breaks_a_matched_row_frees_it_and_its_column():
    """Row 0 takes column 0 (cost 1) alone; then a cheaper edge to column 1 arrives, which
    row 1 holds at cost 0: row 0 must end in column 1 only if that is cheaper overall."""
    state = Assignment(2, 4)
    state.solve(np.array([0, 1, 0, 1]), np.array([0, 1, 2, 3]), np.array([1.0, 0.0, 9.0, 9.0]))
    np.testing.assert_array_equal(state.col_of_row, [0, 1])
    state.solve(np.array([0, 1, 0, 1, 0, 1]), np.array([0, 1, 2, 3, 1, 0]),
                np.array([1.0, 0.0, 9.0, 9.0, 0.0, 0.5]))
    np.testing.assert_array_equal(state.col_of_row, [1, 0])  # 0 + 0.5 < 1 + 0
    assert state.contains(np.array([1, 1]), np.array([0, 2])).tolist() == [True, False]
