"""End-to-end mass attack on worked example 1 (docs/reference/worked-examples.md), blocking, and linkage invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fixtures import EXTERNAL, ORIGINAL, RELEASE
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.linkage.blocking import Block, interval_labels, make_blocks
from attack.linkage.keys import Metric
from attack.linkage.link import link
from attack.linkage.settings import Linkage
from attack.risk.mass import AttackInput, run_attack
from attack.risk.settings import Evaluation

KEYS = (Metric("turnover"), Metric("employees"))
BLOCKS = (Block("wz"), Block("region"))
EVALUATION = Evaluation.of(
    gamma=[0.1], tau=0.5, targets=("turnover", "employees", "costs"),
    cells=["wz"],
)


def _attack(method: str, external: pd.DataFrame = EXTERNAL):
    spec = Linkage(keys=KEYS, block=BLOCKS, method=method)
    data = AttackInput(external, "unit_id", RELEASE, "unit_id", ORIGINAL, "unit_id")
    return run_attack(data, spec, EVALUATION)


def _linked_units(outcome, external: pd.DataFrame = EXTERNAL) -> list[str | None]:
    """The release unit each external record (in file order) is linked to, None for no link."""
    linked = dict(zip(outcome.links.external_id, outcome.links.release_id, strict=True))
    return [linked.get(unit) for unit in external.unit_id]


def test_fixture_block_costs():
    links = link(EXTERNAL, RELEASE, Linkage(keys=KEYS, block=BLOCKS))
    blocks = {b.key: b for b in links.blocking}
    assert set(blocks) == {("15", "W"), ("22", "W")}
    b15 = blocks[("15", "W")]
    np.testing.assert_array_equal(b15.external, [0, 1, 2])
    np.testing.assert_array_equal(b15.release, [0, 1, 3])  # r1, r2, r4
    expected = [
        [0.378669729958, 0.002388524824, 0.003265306122],
        [0.297580982640, 0.000816326531, 0.001572198294],
        [0.002994476250, 0.384909391935, 0.396173662403],
    ]
    np.testing.assert_allclose(links.model.cost(b15.external, b15.release), expected, atol=1e-12)
    b22 = blocks[("22", "W")]
    np.testing.assert_allclose(
        links.model.cost(b22.external, b22.release),
        [[0.013323257539, 0.002388524824], [0.006671735758, 0.021630984160]],
        atol=1e-12,
    )


@pytest.mark.parametrize(
    "method, units",
    [
        ("greedy", ["u2", "u1", "u3", "u5", "u6"]),
        ("hungarian", ["u1", "u2", "u3", "u5", "u6"]),
        ("sequential", ["u1", "u2", "u3", "u5", "u6"]),
        ("nearest", ["u1", "u1", "u3", "u5", "u6"]),
    ],
)
def test_fixture_links(method, units):
    assert _linked_units(_attack(method)) == units


def test_fixture_block_totals():
    greedy_links = link(EXTERNAL, RELEASE, Linkage(keys=KEYS, block=BLOCKS, method="greedy"))
    exact_links = link(EXTERNAL, RELEASE, Linkage(keys=KEYS, block=BLOCKS, method="hungarian"))
    assert greedy_links.block_totals[0] == pytest.approx(0.007076108903, abs=1e-12)
    assert exact_links.block_totals[0] == pytest.approx(0.006955199367, abs=1e-12)


def _cells(result):
    return {c["cell"]["wz"]: c for c in result["cells"]}


def test_fixture_scores_procedure_ii():
    result = _attack("greedy").figures
    assert result["n_external"] == 5 and result["n_verifiable"] == 5
    assert result["n_correct"] == 3 and result["n_false"] == 2 and result["n_none"] == 0
    assert result["reidentification_rate"] == pytest.approx(3 / 5, abs=1e-12)
    assert result["usefulness"]["0.1"] == pytest.approx(7 / 9, abs=1e-12)
    assert result["disclosure_risk"]["0.1"] == pytest.approx(7 / 15, abs=1e-12)
    cells = _cells(result)
    assert (cells["15"]["n_verifiable"], cells["15"]["n_correct"], cells["15"]["n_false"]) == (3, 1, 2)
    assert cells["15"]["false_match_rate"] == pytest.approx(2 / 3)
    assert cells["15"]["usefulness"]["0.1"] == pytest.approx(2 / 3)
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(2 / 9)
    assert cells["15"]["passed"] is True
    assert cells["22"]["usefulness"]["0.1"] == pytest.approx(5 / 6)
    assert cells["22"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 6)
    assert cells["22"]["passed"] is False
    assert result["passed"] is False and result["n_failing_cells"] == 1


def test_fixture_scores_exact():
    result = _attack("hungarian").figures
    assert result["reidentification_rate"] == 1.0
    assert result["usefulness"]["0.1"] == pytest.approx(10 / 15)
    cells = _cells(result)
    assert cells["15"]["usefulness"]["0.1"] == pytest.approx(5 / 9)
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 9)


def test_fixture_worst_case():
    worst = ORIGINAL[["unit_id", "wz", "region", "turnover", "employees"]]
    for method in ("greedy", "hungarian"):
        outcome = _attack(method, worst)
        assert _linked_units(outcome, worst) == ["u2", "u1", "u3", "u4", "u5", "u6"]  # o1->r4, o2->r2
        cells = _cells(outcome.figures)
        assert (cells["15"]["n_verifiable"], cells["15"]["n_correct"]) == (4, 2)
        assert cells["15"]["usefulness"]["0.1"] == pytest.approx(5 / 6)
        assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 12)
        assert cells["22"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 6)
    # o5-r5 = o6-r3 exactly (worked example 1.6 (docs/reference/worked-examples.md)): equal distances of two different records, not
    # two equally near candidates of one record, so no link counts as tied
    outcome = _attack("greedy", worst)
    assert outcome.links.distance[4] == outcome.links.distance[5]
    assert list(outcome.links.n_best) == [1] * 6
    assert outcome.figures["linkage"]["n_tied_links"] == 0


def test_matcher_never_sees_identifiers():
    spec = Linkage(keys=KEYS, block=BLOCKS)
    assert set(spec.release_columns()) == {"turnover", "employees", "wz", "region"}
    assert set(spec.external_columns()) == {"turnover", "employees", "wz", "region"}


def test_prefix_and_bins_classifiers():
    frame = pd.DataFrame({"nace": ["1511", "152", None], "turnover": ["999", "1000", "5e6"]})
    assert list(Block("nace", prefix=2).classes(frame)) == ["15", "15", None]
    labels = Block("turnover", bins=(1000.0, 1e6)).classes(frame)
    assert list(labels) == ["[-inf, 1000)", "[1000, 1e+06)", "[1e+06, inf)"]
    assert interval_labels((1.0,)) == ["[-inf, 1)", "[1, inf)"]


def test_block_without_partner_gives_none_and_all_without_partner_is_an_error():
    ext = pd.DataFrame({"g": ["a", "b", "c"], "x": [1.0, 2.0, 3.0]})
    rel = pd.DataFrame({"g": ["a", "a", "d"], "x": [1.0, 5.0, 3.0]})
    blocking = make_blocks(ext, rel, [Block("g")])
    assert [b.key for b in blocking] == [("a",)]
    np.testing.assert_array_equal(blocking.external_without_block, [1, 2])
    with pytest.raises(InputError, match="no external record shares its block"):
        make_blocks(ext.iloc[1:], rel, [Block("g")])


def test_missing_blocking_value_links_nothing():
    ext = pd.DataFrame({"g": ["a", None], "x": [1.0, 2.0]})
    rel = pd.DataFrame({"g": ["a", None], "x": [1.0, 2.0]})
    links = link(ext, rel, Linkage(keys=(Metric("x"),), block=(Block("g"),)))
    np.testing.assert_array_equal(links.release_row, [0, -1])


blocked_frames = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from("abc"), min_size=n, max_size=n),
        st.lists(st.integers(0, 20), min_size=n, max_size=n),
    )
)


@settings(max_examples=60, deadline=None)
@given(blocked_frames, blocked_frames, st.sampled_from(["greedy", "hungarian", "sequential", "nearest"]))
def test_blocking_never_links_across_blocks(ext, rel, method):
    external = pd.DataFrame({"g": ext[0], "x": np.array(ext[1], float)})
    release = pd.DataFrame({"g": rel[0], "x": np.array(rel[1], float)})
    if not set(ext[0]) & set(rel[0]):
        return
    links = link(external, release, Linkage(keys=(Metric("x"),), block=(Block("g"),), method=method))
    linked = links.release_row >= 0
    assert (external.g.to_numpy()[linked] == release.g.to_numpy()[links.release_row[linked]]).all()
    if method != "nearest":
        assert len(set(links.release_row[linked])) == linked.sum()
    # every external record whose block exists on both sides and has free partners is linked
    for block in links.blocking:
        assert linked[block.external].sum() == (
            block.external.size if method == "nearest" else min(block.external.size, block.release.size)
        )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1000, allow_nan=False), min_size=2, max_size=25, unique=True), st.randoms(use_true_random=False))
def test_links_do_not_depend_on_release_row_order_without_ties(values, rnd):
    """Without tied distances, Procedure II and the exact solver ignore the release order."""
    ext = pd.DataFrame({"id": [f"u{i}" for i in range(len(values))], "x": np.array(values) + 0.5})
    rel = pd.DataFrame({"id": [f"u{i}" for i in range(len(values))], "x": np.array(values)})
    perm = list(range(len(values)))
    rnd.shuffle(perm)
    shuffled = rel.iloc[perm].reset_index(drop=True)
    for method in ("greedy", "hungarian"):
        spec = Linkage(keys=(Metric("x"),), method=method)
        a = link(ext, rel, spec)
        b = link(ext, shuffled, spec)
        cost = a.model.cost(np.arange(len(values)), np.arange(len(values)))
        if len(np.unique(cost)) < cost.size:
            continue  # ties: the release position legitimately decides
        assert list(rel.id[a.release_row]) == list(shuffled.id[b.release_row])


def test_sequential_seed_shuffles_order_reproducibly():
    ext = pd.DataFrame({"x": [1.0, 1.1, 1.2, 5.0]})
    rel = pd.DataFrame({"x": [1.05, 5.0, 9.0]})
    spec = Linkage(keys=(Metric("x"),), method="sequential", seed=3)
    first = link(ext, rel, spec).release_row
    np.testing.assert_array_equal(first, link(ext, rel, spec).release_row)
    assert (first >= 0).sum() == 3
    assert link(ext, rel, spec).to_dict()["order"] == "random (seed 3)"


def test_exact_runs_report_the_gap_to_procedure_ii():
    outcome = _attack("hungarian")
    audit = outcome.figures["linkage"]["greedy_audit"]
    assert outcome.figures["linkage"]["optimal_blocks"] == 2
    assert outcome.figures["linkage"]["approximate_blocks"] == []
    # worked example 1.3 (docs/reference/worked-examples.md): block (15, W) greedy 0.007076108903 vs exact 0.006955199367; block 22 equal
    assert audit["gap"] == pytest.approx(0.007076108903 - 0.006955199367, abs=1e-12)


def test_readers_are_asked_for_the_needed_columns_only():
    from attack.risk.mass import needed_columns, release_columns

    spec = Linkage(keys=KEYS, block=BLOCKS)
    assert needed_columns("external", "unit_id", spec, EVALUATION, True) == [
        "unit_id", "turnover", "employees", "wz", "region",
    ]
    # the release is read whole: every column gets a role (attack.risk.roles); these it must have
    assert needed_columns("release", "unit_id", spec, EVALUATION, True) is None
    assert release_columns("unit_id", spec, EVALUATION, True) == [
        "unit_id", "turnover", "employees", "wz", "region", "turnover", "employees", "costs",
    ]
    assert needed_columns("original", "unit_id", spec, EVALUATION, True) == [
        "unit_id", "turnover", "employees", "costs", "wz",
    ]
    # without declared targets every numeric column may be evaluated: read everything
    assert needed_columns("release", "unit_id", spec, Evaluation.of(), True) is None
