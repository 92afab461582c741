"""Component distances, standardisation and weights (worked example 2 (docs/reference/worked-examples.md), docs/method/linkage.md)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from fixtures import TABLE_13_1_A, TABLE_13_1_B
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.linkage.distances import build_distance_model, string_distances
from attack.linkage.fellegi_sunter import comparisons
from attack.linkage.keys import (
    Hierarchical,
    Metric,
    Nominal,
    Ordinal,
    String,
    hierarchy_distance_table,
    parse_key,
)
from attack.linkage.settings import Linkage


def _cost(a: dict, b: dict, keys, **kwargs) -> np.ndarray:
    ext, rel = pd.DataFrame(a), pd.DataFrame(b)
    model = build_distance_model(ext, rel, keys, **kwargs)
    return model.cost(np.arange(len(ext)), np.arange(len(rel)))


def test_metric_squared_raw():
    cost = _cost({"v": [14008906]}, {"v": [14825332]}, [Metric("v")], standardise="none")
    assert cost[0, 0] == 666551413476


def test_metric_absolute_and_log_raw():
    cost = _cost({"v": [3.0]}, {"v": [7.0]}, [Metric("v")], standardise="none",
                 metric_distance="absolute")
    assert cost[0, 0] == 4.0
    cost = _cost({"v": [3.0]}, {"v": [7.0]}, [Metric("v", log=True)], standardise="none")
    assert cost[0, 0] == pytest.approx((np.log(4) - np.log(8)) ** 2, abs=1e-15)


def test_nominal_eq_13_1():
    cost = _cost({"f": ["GmbH", "GmbH"]}, {"f": ["GmbH", "AG"]}, [Nominal("f")],
                 standardise="none")
    np.testing.assert_array_equal(cost, [[0, 1], [0, 1]])


def test_ordinal_eq_13_2():
    key = Ordinal("c", order=("c1", "c2", "c3", "c4", "c5"))
    cost = _cost({"c": ["c2", "c3"]}, {"c": ["c5", "c3"]}, [key], standardise="none")
    assert cost[0, 0] == pytest.approx(0.6, abs=1e-12)
    assert cost[1, 1] == 0
    branches = Ordinal("b", order=tuple(str(i) for i in range(1, 10)))
    cost = _cost({"b": ["1"]}, {"b": ["9"]}, [branches], standardise="none")
    assert cost[0, 0] == pytest.approx(8 / 9, abs=1e-12)


def test_ordinal_order_taken_from_sorted_values_is_numeric():
    cost = _cost({"c": ["2", "10"]}, {"c": ["9", "2"]}, [Ordinal("c")], standardise="none")
    # categories 2 < 9 < 10 (natural order, not text order): r = 3
    np.testing.assert_allclose(cost, [[1 / 3, 0], [1 / 3, 2 / 3]])


def test_ordinal_unknown_category_names_row():
    key = Ordinal("c", order=("a", "b"))
    with pytest.raises(InputError, match="row 2"):
        _cost({"c": ["a", "z"]}, {"c": ["a", "b"]}, [key])


# worked example 3 (docs/reference/worked-examples.md), hierarchy with L = 4 levels: section, division, group, class.
PARENTS = {
    "1511": "151", "1512": "151", "151": "15", "152": "15", "1520": "152",
    "15": "D", "16": "D", "24": "D", "45": "F",
}


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("1511", "1511", 0.0),
        ("151", "1511", 0.0),
        ("15", "1511", 0.0),
        ("1511", "1512", 0.25),
        ("1511", "1520", 0.5),
        ("151", "152", 0.5),
        ("15", "16", 0.75),
        ("15", "24", 0.75),
        ("15", "45", 1.0),
    ],
)
def test_hierarchical_fixtures(a, b, expected):
    table = hierarchy_distance_table([a], [b], parents=PARENTS)
    assert table[0, 0] == pytest.approx(expected, abs=1e-12)
    assert hierarchy_distance_table([b], [a], parents=PARENTS)[0, 0] == table[0, 0]


def test_hierarchical_lca_mode():
    assert hierarchy_distance_table(["15"], ["1511"], parents=PARENTS, mode="lca")[0, 0] == 0.5
    assert hierarchy_distance_table(["1511"], ["1511"], parents=PARENTS, mode="lca")[0, 0] == 0.0


def test_hierarchical_prefix_levels():
    # levels 2, 3, 4 digits: L = 3; "1511" vs "1512" share the group (p = 2) -> 1/3
    table = hierarchy_distance_table(["1511", "10", "151"], ["1512", "1011", "16"], levels=(2, 3, 4))
    np.testing.assert_allclose(table, [[1 / 3, 1, 1], [1, 0, 1], [0, 1, 1]])


def test_hierarchical_prefix_rejects_code_off_levels():
    with pytest.raises(InputError, match="not one of the levels"):
        hierarchy_distance_table(["15"], ["151"], levels=(2, 4))


def test_hierarchical_key_in_a_model_uses_prefix_lengths_present():
    key = Hierarchical("nace")
    cost = _cost({"nace": ["10", "1011"]}, {"nace": ["101", "1021"]}, [key], standardise="none")
    # levels from the codes present: 2, 3, 4 -> L = 3
    np.testing.assert_allclose(cost, [[0, 0], [0, 2 / 3]])


def test_string_distances():
    cost = _cost({"n": ["Mueller GmbH"]}, {"n": ["Muller GmbH"]}, [String("n")],
                 standardise="none")
    assert cost[0, 0] == pytest.approx(1 / 12, abs=1e-12)
    jw = _cost({"n": ["MARTHA"]}, {"n": ["MARHTA"]}, [String("n", string_method="jaro_winkler")],
               standardise="none")
    assert jw[0, 0] == pytest.approx(1 - 0.9611111111111111, abs=1e-12)


def test_maxmin_fixture_values():
    # component values {0, 2, 8} over A x B -> {0, 0.25, 1}; sqrt to build squared diffs 0, 2, 8
    cost = _cost({"v": [0.0]}, {"v": [0.0, np.sqrt(2), np.sqrt(8)]}, [Metric("v")])
    np.testing.assert_allclose(cost, [[0, 0.25, 1]], atol=1e-12)


def test_constant_component_standardises_to_zero():
    cost = _cost({"v": [1.0, 4.0]}, {"v": [2.5, 2.5]}, [Metric("v")])
    np.testing.assert_array_equal(cost, np.zeros((2, 2)))


def test_table_13_1_extremes_and_totals():
    keys = [Metric(c) for c in TABLE_13_1_A.columns]
    model = build_distance_model(TABLE_13_1_A, TABLE_13_1_B, keys)
    expected_extremes = [
        (1361314816, 974747467849),
        (11370384, 36580005081),
        (40538689, 70799630724),
        (3704548225, 9817631556100),
        (1960275625, 24001984269124),
    ]
    for comp, off, scale, (lo, hi) in zip(model.components, model.offsets, model.scales, expected_extremes, strict=True):
        assert comp.extremes() == (lo, hi)
        assert (off, off + scale) == (lo, hi)
    cost = model.cost(np.arange(4), np.arange(4))
    expected = [
        [2.341141196813, 0.302003464804, 1.039851522795, 2.505406331518],
        [3.167370003405, 0.530784392070, 1.790273004116, 1.975163270963],
        [0.251373631540, 1.931035515687, 1.246459229861, 0.911639240150],
        [0.349555828493, 1.621363565294, 1.959405714963, 0.055705203662],
    ]
    np.testing.assert_allclose(cost, expected, atol=1e-9, rtol=0)


def test_weights_scale_components():
    a = {"x": [0.0, 1.0], "y": ["a", "b"]}
    b = {"x": [0.0, 2.0], "y": ["a", "a"]}
    unweighted = _cost(a, b, [Metric("x"), Nominal("y")])
    weighted = _cost(a, b, [Metric("x", weight=3.0), Nominal("y", weight=0.5)])
    x_part = np.array([[0, 1], [0.25, 0.25]])
    y_part = np.array([[0, 0], [1, 1]])
    np.testing.assert_allclose(unweighted, x_part + y_part)
    np.testing.assert_allclose(weighted, 3 * x_part + 0.5 * y_part)


def test_missing_takes_maximum_by_default_and_skip_rescales():
    a = {"x": [0.0, np.nan], "y": [0.0, 0.0]}
    b = {"x": [0.0, 4.0], "y": [0.0, 2.0]}
    keys = [Metric("x"), Metric("y")]
    cost = _cost(a, b, keys)
    # x extremes over non-missing pairs: min 0, max 16 -> missing x counts as 1
    np.testing.assert_allclose(cost, [[0, 2], [1, 2]])
    skip = _cost(a, b, [Metric("x", missing="skip"), Metric("y")])
    # missing x dropped, y scaled to the full weight 2
    np.testing.assert_allclose(skip, [[0, 2], [0, 2]])


def test_missing_codes_are_not_equal():
    cost = _cost({"f": [None, "a"]}, {"f": [None, "a"]}, [Nominal("f")])
    np.testing.assert_array_equal(cost, [[1, 1], [1, 0]])


def test_range_standardisation_is_gower_like():
    a = {"x": [0.0, 10.0]}
    b = {"x": [5.0, 20.0]}
    cost = _cost(a, b, [Metric("x")], standardise="range", metric_distance="absolute")
    np.testing.assert_allclose(cost, [[0.25, 1.0], [0.25, 0.5]])
    ordinal = _cost({"c": ["1"]}, {"c": ["3"]}, [Ordinal("c", order=("1", "2", "3"))],
                    standardise="range")
    assert ordinal[0, 0] == pytest.approx(1.0)


def test_sd_standardisation():
    a = {"x": [0.0, 2.0]}
    b = {"x": [4.0, 6.0]}
    sd = np.std([0, 2, 4, 6], ddof=1)
    cost = _cost(a, b, [Metric("x")], standardise="sd")
    np.testing.assert_allclose(cost, [[16 / sd**2, 36 / sd**2], [4 / sd**2, 16 / sd**2]])


def test_unknown_key_type_and_options_rejected():
    with pytest.raises(InputError, match="unknown key type"):
        parse_key("x:fuzzy")
    with pytest.raises(InputError, match="unknown field 'log'"):  # the log transform is for metric keys
        Nominal("x", log=True)
    with pytest.raises(InputError, match="weight"):
        Metric("x", weight=-1)


values = st.lists(st.integers(-50, 50), min_size=1, max_size=7)


@settings(max_examples=150, deadline=None)
@given(values, values, st.sampled_from(["squared", "absolute"]))
def test_metric_extremes_equal_brute_force(a, b, kind):
    model = build_distance_model(
        pd.DataFrame({"x": np.array(a, float)}), pd.DataFrame({"x": np.array(b, float)}),
        [Metric("x")], standardise="none", metric_distance=kind,
    )
    raw = model.cost(np.arange(len(a)), np.arange(len(b)))
    assert model.components[0].extremes() == (raw.min(), raw.max())


codes = st.lists(st.sampled_from(["1", "2", "3", "4", "5"]), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(codes, codes, st.sampled_from(["nominal", "ordinal"]))
def test_code_extremes_equal_brute_force(a, b, kind):
    key = Ordinal("c", order=("1", "2", "3", "4", "5")) if kind == "ordinal" else Nominal("c")
    model = build_distance_model(pd.DataFrame({"c": a}), pd.DataFrame({"c": b}), [key], standardise="none")
    raw = model.cost(np.arange(len(a)), np.arange(len(b)))
    assert model.components[0].extremes() == pytest.approx((raw.min(), raw.max()), abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(values, values)
def test_maxmin_standardised_components_span_zero_to_one(a, b):
    model = build_distance_model(
        pd.DataFrame({"x": np.array(a, float)}), pd.DataFrame({"x": np.array(b, float)}),
        [Metric("x")],
    )
    cost = model.cost(np.arange(len(a)), np.arange(len(b)))
    assert cost.min() == 0
    assert cost.max() in (0.0, 1.0)


def test_distance_of_a_block_equals_the_full_matrix_restricted():
    rng = np.random.default_rng(0)
    a = pd.DataFrame({"x": rng.normal(size=12), "c": rng.choice(list("abc"), 12)})
    b = pd.DataFrame({"x": rng.normal(size=9), "c": rng.choice(list("abc"), 9)})
    model = build_distance_model(a, b, [Metric("x"), Nominal("c")])
    full = model.cost(np.arange(12), np.arange(9))
    for rows, cols in itertools.islice(
        zip([np.array([0, 3, 5]), np.array([11])], [np.array([1, 2]), np.array([0, 8])], strict=True), 2
    ):
        np.testing.assert_array_equal(model.cost(rows, cols), full[np.ix_(rows, cols)])


def test_ordinal_categories_must_be_unique():
    with pytest.raises(InputError, match="listed twice"):
        Ordinal("c", order=("a", "b", "a"))


# Damerau–Levenshtein and token-set distances of string keys, by hand.

@pytest.mark.parametrize("a, b, levenshtein, damerau", [
    ("MARTHA", "MARHTA", 2 / 6, 1 / 6),   # one transposition of adjacent letters
    ("CA", "ABC", 3 / 3, 2 / 3),          # unrestricted Damerau: CA -> AC -> ABC (OSA would need 3)
    ("SMITH", "SMITH", 0.0, 0.0),
])
def test_damerau_counts_a_transposition_once(a, b, levenshtein, damerau):
    assert string_distances([a], [b], "levenshtein")[0, 0] == pytest.approx(levenshtein)
    assert string_distances([a], [b], "damerau")[0, 0] == pytest.approx(damerau)


def test_token_set_distance():
    # a shared token set: order does not matter, a subset agrees fully
    assert string_distances(["12 main street"], ["main street 12"], "token_set")[0, 0] == 0.0
    assert string_distances(["main street"], ["main street 12"], "token_set")[0, 0] == 0.0
    # common "john"; sorted "john smith" vs "john smyth": Indel similarity 2*9/20 = 0.9 is the largest
    assert string_distances(["smith john"], ["john smyth"], "token_set")[0, 0] == pytest.approx(0.1)
    pairs = string_distances(["a b", "x"], ["b a", "y"], "token_set", pairs=True)
    np.testing.assert_allclose(pairs, [0.0, 1.0])


# A key over given and family name that forgives swapping them, in both intruders.

EXT = pd.DataFrame({"given": ["Anna", "Meier", "Anna", None], "family": ["Meier", "Anna", None, None]})
REL = pd.DataFrame({"given": ["anna", "Jan"], "family": ["meier", "Kos"]})


def test_distance_takes_the_better_arrangement():
    key = parse_key("given:string:normalise:swap=family")
    assert key.swap_with == "family" and Linkage(keys=(key,)).release_columns() == ["given", "family"]
    cost = build_distance_model(EXT, REL, [key], standardise="none").cost(np.arange(4), np.arange(2))
    assert cost[0, 0] == 0.0 and cost[1, 0] == 0.0          # straight and swapped
    # straight: "anna"/"jan" 3 edits of 4, "meier"/"kos" 5 of 5; crossed: "anna"/"kos" 4 of 4,
    # "meier"/"jan" 5 of 5
    assert cost[0, 1] == pytest.approx(min(0.75 + 1.0, 1.0 + 1.0) / 2)
    assert cost[2, 0] == pytest.approx((0.0 + 1.0) / 2)     # a missing family name counts 1
    assert cost[3].tolist() == [1.0, 1.0]                   # no names: missing, the largest distance
    plain = build_distance_model(EXT, REL, [String("given", normalise=True)], standardise="none")
    assert plain.cost(np.arange(2), np.arange(1))[1, 0] == 1.0


def test_fellegi_sunter_levels():
    comp = comparisons(EXT, REL, [parse_key("given:string:swap=family")])[0]
    levels = comp.levels(np.arange(4), np.arange(2), pairs=False)
    assert levels[:, 0].tolist() == [0, 0, 3, -1] and levels[3, 1] == -1
    pairs = comp.levels(np.array([0, 1, 2, 3]), np.array([0, 0, 0, 1]), pairs=True)
    assert pairs.tolist() == [0, 0, 3, -1]


def test_swap_needs_a_string_key_and_another_column():
    with pytest.raises(InputError):
        Nominal("given", swap_with="family")
    with pytest.raises(InputError):
        String("given", swap_with="given")


def test_the_other_name_column_is_read_and_guarded():
    from attack.risk.mass import AttackInput, code_columns, run_attack
    from attack.risk.settings import Evaluation

    spec = Linkage(keys=(String("given", swap_with="family"),))
    assert code_columns(spec) == ["given", "family"]
    with pytest.raises(InputError, match="intruder does not know"):  # the release's id as the other name
        run_attack(AttackInput(EXT.assign(id=[1, 2, 3, 4]), "id", REL, "family"), spec, Evaluation.of())
