"""Multi-pass blocking: the union of the passes' candidate pairs, each pair once, and links only
on candidate pairs."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.linkage.blocking import AnyBlock, Block
from attack.linkage.keys import Metric, String
from attack.linkage.link import link
from attack.linkage.passes import block_passes, make_pass_blocks
from attack.linkage.settings import Linkage


def _frame(rows):
    return pd.DataFrame(rows, columns=["a", "b", "x"]).astype({"a": object, "b": object})


def _global_pairs(blocking):
    out = set()
    for block in blocking:
        rows, cols = block.pairs.nonzero()
        out |= set(zip(block.external[rows].tolist(), block.release[cols].tolist(), strict=True))
    return out


codes = st.sampled_from(["p", "q", "r", None])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(codes, codes), min_size=1, max_size=8),
       st.lists(st.tuples(codes, codes), min_size=1, max_size=8))
def test_union_of_passes_is_brute_force_union(ext_rows, rel_rows):
    ext = _frame([(a, b, 0.0) for a, b in ext_rows])
    rel = _frame([(a, b, 0.0) for a, b in rel_rows])
    brute = {(i, j) for i, (a, b) in enumerate(ext_rows) for j, (c, d) in enumerate(rel_rows)
             if (a is not None and a == c) or (b is not None and b == d)}
    try:
        blocking = make_pass_blocks(ext, rel, [(Block("a"),), (Block("b"),)])
    except InputError:
        assert not brute
        return
    assert _global_pairs(blocking) == brute
    assert blocking.n_candidate_pairs == len(brute)  # a pair found by both passes counts once
    covered = {i for i, _ in brute}
    assert set(blocking.external_without_block.tolist()) == set(range(len(ext_rows))) - covered
    seen = np.concatenate([b.external for b in blocking])
    assert seen.size == np.unique(seen).size  # components do not overlap


def test_passes_take_one_alternative_of_each_entry():
    a, b, c = Block("a"), Block("b"), Block("c")
    assert block_passes([c, a, b], [0, 1, 1]) == [(c, a), (c, b)]
    spec = Linkage(keys=["x:metric"], block=["c", "a|b"])
    assert spec.block_groups == (0, 1, 1) and spec.to_dict()["blocking"] == ["c", "a|b"]
    table = Linkage(keys=["x:metric"], block=[{"any": ["a:soundex", {"name": "b", "prefix": 1}]}])
    assert table.to_dict()["blocking"] == ["a:soundex|b:prefix=1"] and table.block_groups == (0, 0)
    assert Linkage(keys=["x:metric"], block=["c", "a"]).block_groups == ()


def test_a_second_pass_recovers_a_pair_the_first_loses():
    # unit 0 has a typo in "a"; the pass on "b" still proposes it. Unit 2 agrees on nothing.
    ext = _frame([("p", "k", 1.0), ("q", "m", 5.0), ("r", "z", 9.0)])
    rel = _frame([("P", "k", 1.0), ("q", "m", 5.0), ("s", "y", 9.0)])
    keys = (Metric("x"),)
    one = link(ext, rel, Linkage(keys=keys, block=(Block("a"),), method="hungarian"), jobs=1)
    assert one.release_row.tolist() == [-1, 1, -1]
    both = Linkage(keys=keys, block=(AnyBlock(Block("a"), Block("b")),), method="hungarian")
    for intruder in ("distance", "fellegi-sunter"):
        links = link(ext, rel, both.model_copy(update={"intruder": intruder}), jobs=1)
        assert links.release_row.tolist() == [0, 1, -1]  # the closest non-candidate (row 2) is no link
        assert links.blocking.to_dict()["n_passes"] == 2 and links.blocking.n_candidate_pairs == 2


def test_a_pair_no_pass_proposes_is_no_link():
    # candidates e0-r0 (a), e1-r0 (b), e1-r1 (a); e0-r1 agree on x but no pass proposes them.
    # Cost (max-min): e0-r0 1, e1-r1 1, e1-r0 0, not linking D = 1: best is e1-r0 alone.
    ext = _frame([("p", "k", 1.0), ("q", "m", 5.0)])
    rel = _frame([("p", "m", 5.0), ("q", "z", 1.0)])
    for method in ("greedy", "hungarian"):
        spec = Linkage(keys=(Metric("x"),), block=(AnyBlock(Block("a"), Block("b")),), method=method)
        links = link(ext, rel, spec, jobs=1)
        assert links.release_row.tolist() == [-1, 0]
        assert len(links.blocking.blocks) == 1 and links.blocking.n_candidate_pairs == 3


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("pq"), st.integers(0, 9)), min_size=2, max_size=9),
       st.lists(st.tuples(st.sampled_from("pq"), st.integers(0, 9)), min_size=2, max_size=9),
       st.sampled_from(["greedy", "hungarian"]))
def test_one_pass_twice_links_as_one_pass(ext_rows, rel_rows, method):
    ext = _frame([(a, "-", float(x)) for a, x in ext_rows])
    rel = _frame([(a, "-", float(x)) for a, x in rel_rows])
    keys = (Metric("x"),)
    try:
        plain = link(ext, rel, Linkage(keys=keys, block=(Block("a"),), method=method), jobs=1)
    except InputError:
        return
    twice = link(ext, rel, Linkage(keys=keys, block=(AnyBlock(Block("a"), Block("a")),), method=method),
                 jobs=1)
    np.testing.assert_array_equal(plain.distance, twice.distance)
    if method == "hungarian":
        assert plain.distance[plain.linked].sum() == twice.distance[twice.linked].sum()
    else:
        np.testing.assert_array_equal(plain.release_row, twice.release_row)


def test_candidate_model_costs_are_the_models_on_candidates_only():
    from attack.linkage.distances import build_distance_model
    from attack.linkage.passes import CandidateModel

    rng = np.random.default_rng(3)
    ext = pd.DataFrame({"x": rng.normal(size=7), "n": rng.choice(["anna", "anne", "jan"], 7)})
    rel = pd.DataFrame({"x": rng.normal(size=5), "n": rng.choice(["anna", "jon", "jan"], 5)})
    model = build_distance_model(ext, rel, [Metric("x"), String("n", weight=2.0)])
    import scipy.sparse as sp

    mask = rng.random((7, 5)) < 0.4
    restricted = CandidateModel(model, sp.csr_matrix(mask))
    rows, cols = np.array([6, 0, 3]), np.array([4, 1, 0, 2])
    full, cost = model.cost(rows, cols), restricted.cost(rows, cols)
    sub = mask[np.ix_(rows, cols)]
    np.testing.assert_array_equal(cost[sub], full[sub])
    assert (cost[~sub] == restricted.barrier).all() and restricted.barrier == 3.0  # weights 1 + 2, fill 1
    r, c = np.meshgrid(rows, cols, indexing="ij")
    np.testing.assert_array_equal(restricted.pair_cost(r.ravel(), c.ravel()), cost.ravel())
