"""The paths for large blocks agree with the dense reference (issue: national-register scale)."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.linkage import solvers
from attack.linkage.assignment import hungarian
from attack.linkage.blocking import Block
from attack.linkage.candidates import embedding
from attack.linkage.distances import build_distance_model
from attack.linkage.keys import Metric, Nominal, Ordinal
from attack.linkage.link import link
from attack.linkage.settings import Linkage

BUDGET = 2**30


@contextmanager
def candidates_everywhere():
    """Send every block with more than one pair to the large-block solvers."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solvers, "DENSE_PAIRS", 1)
        patch.setattr(solvers, "DENSE_BYTES_PER_PAIR", 2**62)
        yield


def _frames(draw, n, with_missing):
    values = st.integers(0, 4)
    def column(size, missing):
        raw = draw(st.lists(values, min_size=size, max_size=size))
        out = np.array(raw, dtype=float)
        if missing and size > 1:  # a key column with no value at all is refused as input
            out[draw(st.integers(0, size - 1))] = np.nan
        return out
    return pd.DataFrame(
        {
            "g": draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n)),
            "x": column(n, with_missing),
            "y": column(n, False),
            "f": draw(st.lists(st.sampled_from(["p", "q"]), min_size=n, max_size=n)),
            "o": draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=n, max_size=n)),
        }
    )


@st.composite
def blocked_data(draw):
    with_missing = draw(st.booleans())
    ext = _frames(draw, draw(st.integers(1, 30)), with_missing)
    rel = _frames(draw, draw(st.integers(1, 30)), False)
    keys = [Metric("x"), Metric("y", weight=0.5)]
    extra = draw(st.sampled_from(["nominal", "ordinal", "none"]))
    if extra == "nominal":
        keys.append(Nominal("f", weight=0.3))
    elif extra == "ordinal":
        keys.append(Ordinal("o", weight=0.3))
    return ext, rel, tuple(keys)


def _links(ext, rel, keys, method, budget):
    spec = Linkage(keys=keys, block=(Block("g"),), method=method)
    return link(ext, rel, spec, memory_budget=budget)


@settings(max_examples=120, deadline=None)
@given(blocked_data(), st.sampled_from(["greedy", "sequential", "nearest"]))
def test_large_block_paths_equal_dense_pair_for_pair(data, method):
    ext, rel, keys = data
    if not set(ext.g) & set(rel.g):
        return
    dense = _links(ext, rel, keys, method, BUDGET)
    with candidates_everywhere():
        large = _links(ext, rel, keys, method, BUDGET)
    assert {s.solver for s in dense.solutions} == {"dense"}
    np.testing.assert_array_equal(large.release_row, dense.release_row)
    np.testing.assert_array_equal(large.distance, dense.distance)  # bit for bit
    np.testing.assert_array_equal(large.n_best, dense.n_best)
    assert {s.solver for s in large.solutions} <= {"kd-tree", "chunked", "dense"}


@settings(max_examples=60, deadline=None)
@given(blocked_data(), st.sampled_from(["greedy", "sequential", "nearest"]))
def test_candidate_lists_refilled_one_at_a_time_equal_dense(data, method):
    """One first candidate per record: nearly every link needs its list queried again (and the
    tree rebuilt on the free records), which must not change a single link or tie count."""
    from attack.linkage import candidates

    ext, rel, keys = data
    if not set(ext.g) & set(rel.g):
        return
    dense = _links(ext, rel, keys, method, BUDGET)
    with candidates_everywhere(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(candidates, "INITIAL_NEIGHBOURS", 1)
        large = _links(ext, rel, keys, method, BUDGET)
    np.testing.assert_array_equal(large.release_row, dense.release_row)
    np.testing.assert_array_equal(large.distance, dense.distance)
    np.testing.assert_array_equal(large.n_best, dense.n_best)


@settings(max_examples=80, deadline=None)
@given(blocked_data())
def test_sparse_hungarian_is_proven_optimal(data):
    ext, rel, keys = data
    if not set(ext.g) & set(rel.g):
        return
    dense = _links(ext, rel, keys, "hungarian", BUDGET)
    with candidates_everywhere():
        sparse = _links(ext, rel, keys, "hungarian", BUDGET)
    for d, s in zip(dense.solutions, sparse.solutions, strict=True):
        assert s.solver == "sparse"
        assert s.optimal is True
        assert s.rows.size == d.rows.size
        assert s.total == pytest.approx(d.total, abs=1e-9)
        assert s.greedy_total is None or s.greedy_total >= s.total - 1e-9


def test_kd_tree_path_used_for_embeddable_keys():
    rng = np.random.default_rng(1)
    ext = pd.DataFrame({"g": ["a"] * 200, "x": rng.normal(size=200), "f": rng.choice(list("pq"), 200)})
    rel = pd.DataFrame({"g": ["a"] * 250, "x": rng.normal(size=250), "f": rng.choice(list("pq"), 250)})
    keys = (Metric("x"), Nominal("f"))
    with candidates_everywhere():
        large = _links(ext, rel, keys, "greedy", BUDGET)
    assert [s.solver for s in large.solutions] == ["kd-tree"]
    dense = _links(ext, rel, keys, "greedy", BUDGET)
    np.testing.assert_array_equal(large.release_row, dense.release_row)


def test_embedding_reproduces_the_distance_up_to_a_constant():
    rng = np.random.default_rng(2)
    ext = pd.DataFrame({"x": rng.normal(size=7), "y": rng.lognormal(size=7), "f": rng.choice(list("pqr"), 7)})
    rel = pd.DataFrame({"x": rng.normal(size=9), "y": rng.lognormal(size=9), "f": rng.choice(list("pqr"), 9)})
    keys = [Metric("x", weight=2.0), Metric("y", log=True), Nominal("f")]
    model = build_distance_model(ext, rel, keys)
    x_ext, x_rel, constant = embedding(model)
    squared = ((x_ext[:, None, :] - x_rel[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_allclose(squared - constant, model.cost(np.arange(7), np.arange(9)), atol=1e-12)


def test_no_embedding_for_absolute_ordinal_or_missing():
    frame = pd.DataFrame({"x": [1.0, np.nan], "o": ["1", "2"]})
    assert embedding(build_distance_model(frame, frame, [Metric("x")])) is None
    full = pd.DataFrame({"x": [1.0, 2.0], "o": ["1", "2"]})
    assert embedding(build_distance_model(full, full, [Metric("x")], metric_distance="absolute")) is None
    assert embedding(build_distance_model(full, full, [Ordinal("o")])) is None


def test_sparse_hungarian_on_a_larger_block_matches_dense_optimum():
    rng = np.random.default_rng(3)
    base = rng.lognormal(5, 1.5, 600)
    ext = pd.DataFrame({"x": base[:500] * rng.lognormal(0, 0.05, 500), "y": rng.normal(size=500)})
    rel = pd.DataFrame({"x": base, "y": rng.normal(size=600)})
    keys = (Metric("x", log=True), Metric("y"))
    model = build_distance_model(ext, rel, keys)
    cost = model.cost(np.arange(500), np.arange(600))
    optimum = cost[hungarian(cost)].sum()
    with candidates_everywhere():
        sparse = link(ext, rel, Linkage(keys=keys, method="hungarian"), memory_budget=BUDGET)
    (solution,) = sparse.solutions
    assert solution.optimal is True
    assert solution.total == pytest.approx(optimum, abs=1e-9)


def test_the_proof_rejects_a_candidate_graph_too_narrow_for_the_optimum():
    """With one candidate per record, records compete for the same release record and the
    graph's optimum sends some to "no link": the lifted check must refuse it, and the wider
    graph must then reach the dense optimum."""
    from attack.linkage import sparse_hungarian

    rng = np.random.default_rng(5)
    base = rng.normal(size=300)
    ext = pd.DataFrame({"x": np.repeat(base[:100], 2) + rng.normal(0, 0.01, 200)})
    rel = pd.DataFrame({"x": base})
    model = build_distance_model(ext, rel, [Metric("x")])
    padding = float(np.sum([k.weight * f for k, f in zip(model.keys, model.missing_values, strict=True)]))
    cols, costs, bound = sparse_hungarian.candidates(model, 1, BUDGET)
    rows, links, u, p = sparse_hungarian._match(200, 300, cols, costs, padding)
    assert (links >= 300).any()  # some records left without a link in the narrow graph
    assert not sparse_hungarian._proven(u, p, links, bound, embedding(model), 300)
    cost = model.cost(np.arange(200), np.arange(300))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sparse_hungarian, "FIRST_K", 1)
        rows, links, dist, _, proven = sparse_hungarian.solve(model, BUDGET)
    assert proven and dist.sum() == pytest.approx(cost[hungarian(cost)].sum(), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_sparse_hungarian_is_exact_on_distances_near_1e_12(seed):
    """A raw, skewed key standardised by its range gives distances near 1e-12, and a wrong
    assignment costs less than 1e-9 more than the optimum: the proof must hold to the distances
    (brute force: SciPy's dense solver), starting from a graph too narrow for the optimum."""
    from attack.linkage import sparse_hungarian

    rng = np.random.default_rng(seed)
    n_ext, n_rel, spread = 70, 90, 12  # a few records spread over the range, the rest crowded
    turnover = np.concatenate([np.linspace(0, 1e6, spread), 5e5 + rng.normal(0, 30.0, n_rel - spread)])
    pick = rng.choice(np.arange(spread, n_rel), n_ext, replace=False)
    ext = pd.DataFrame({"t": turnover[pick] + rng.normal(0, 15.0, n_ext)})
    model = build_distance_model(ext, pd.DataFrame({"t": turnover}), [Metric("t")])
    cost = model.cost(np.arange(n_ext), np.arange(n_rel))
    assert 1e-13 < np.median(cost.min(axis=1)) < 1e-11
    optimum = cost[hungarian(cost)].sum()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sparse_hungarian, "FIRST_K", 2)
        rows, links, dist, _, proven = sparse_hungarian.solve(model, BUDGET)
    assert proven and rows.size == n_ext
    assert dist.sum() == pytest.approx(optimum, rel=1e-9, abs=0)
    np.testing.assert_array_equal(dist, cost[rows, links])


def test_a_run_with_few_larger_greedy_blocks_stays_dense():
    # 450,000 / 2,000,000 / 2,000,001 pairs; 400 blocks of 1,000,000 pairs take 12 s dense
    assert solvers.greedy_dense_bound([(600, 750), (100, 100)]) == solvers.LOADED_DENSE_PAIRS
    assert solvers.greedy_dense_bound([(1000, 2000)]) == solvers.LOADED_DENSE_PAIRS
    assert solvers.greedy_dense_bound([(1000, 2000), (1, 2_000_001)]) == solvers.GREEDY_DENSE_PAIRS
    assert solvers.greedy_dense_bound([(1000, 1000)] * 400) == solvers.GREEDY_DENSE_PAIRS
    assert solvers.greedy_dense_bound([(600, 750)], memory_budget=450_000 * 16 - 1) == solvers.GREEDY_DENSE_PAIRS


def test_a_small_greedy_run_gives_the_tree_links_without_the_tree():
    rng = np.random.default_rng(5)
    n = 700  # 490,000 pairs: above GREEDY_DENSE_PAIRS
    ext = pd.DataFrame({"g": ["a"] * n, "x": np.round(rng.lognormal(3, 1, n))})
    rel = ext.assign(x=np.round(ext.x * rng.uniform(0.9, 1.1, n)))
    keys = (Metric("x"),)
    small = _links(ext, rel, keys, "greedy", BUDGET)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solvers, "LOOP_LOAD_SECONDS", 0.0)
        tree = _links(ext, rel, keys, "greedy", BUDGET)
    assert [s.solver for s in small.solutions] == ["dense"]
    assert [s.solver for s in tree.solutions] == ["kd-tree"]
    np.testing.assert_array_equal(small.release_row, tree.release_row)
    np.testing.assert_array_equal(small.distance, tree.distance)
    np.testing.assert_array_equal(small.n_best, tree.n_best)
