"""Microaggregation methods (docs/method/protection.md; worked example 5 (docs/reference/worked-examples.md)).

Two reference implementations live here as test oracles: the direct O(n²/k) MDAV scan that
``attack.microaggregation.mdav`` replaced (the fast index must give identical groups), and a
port of sdcMicro's C++ ``Mdav`` (``src/Mdav.h``) with its single-precision distances and
row-order tie rules, checked against sdcMicro's printed output (worked example 5.3 (docs/reference/worked-examples.md)).
"""

from __future__ import annotations

import json
import math
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_data import SDCMICRO

from attack.errors import InputError
from attack.protect import mdav_index, microaggregation
from attack.protect.microaggregation import (
    bootstrap_microaggregation,
    correlation_groups,
    grouped_microaggregation,
    hoehne_joint_microaggregation,
    hoehne_microaggregation,
    hoehne_size_search,
    mdav,
    punctual_microaggregation,
    punctual_unprotectable_cells,
    random_microaggregation,
    separate_group_sizes,
    separate_microaggregation,
)

F_MA_001_INPUT = [356, 670, 815, 132, 613, 916, 538, 348, 3, 396, 401]
F_MA_001E_OUTPUT = [247, 800.3333333333, 800.3333333333, 247, 517.3333333333, 800.3333333333,
                    517.3333333333, 247, 247, 247, 517.3333333333]
CASC = SDCMICRO / "CASCrefmicrodata.csv"
# Derived with the sdcMicro port below (aggr = 3): record 1 is grouped with records 87 and 172;
# its AFNLWGT, AGI and PTOTVAL become the means of (270914, 228613, 298070), (45554, 52084,
# 52390) and (45527, 52042, 52260).
CASC_ROW_1 = [797597 / 3, 150028 / 3, 49943.0]

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def _groups(result: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Group label per row: rows with the same tuple of released values."""
    _, labels = np.unique(result[columns].to_numpy(), axis=0, return_inverse=True)
    return labels.ravel()


def _partition(labels: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(np.flatnonzero(labels == label)) for label in np.unique(labels)}


# --- separate microaggregation: fixtures ----------------------------------------------------------


def test_fixture_f_ma_9() -> None:
    data = pd.DataFrame({"x": [10, 7, 3, 9, 1, 4, 8], "label": list("abcdefg")})
    result = separate_microaggregation(data, ["x"], k=3, seed=0)
    np.testing.assert_allclose(result["x"], [9, 3.75, 3.75, 9, 3.75, 3.75, 9], rtol=0, atol=1e-9)
    assert result["x"].dtype == np.float64
    pd.testing.assert_series_equal(result["label"], data["label"])
    assert data["x"].dtype == np.int64  # input untouched


def test_fixture_f_ma_001e() -> None:
    data = pd.DataFrame({"x": F_MA_001_INPUT})
    result = separate_microaggregation(data, ["x"], k=3)["x"].to_numpy()
    np.testing.assert_allclose(result, F_MA_001E_OUTPUT, rtol=0, atol=1e-9)
    assert math.isclose(result.sum(), 5188.0, rel_tol=0, abs_tol=1e-9)
    assert math.isclose(result.var(), 52972.4738292011, rel_tol=0, abs_tol=1e-6)


def test_fixture_f_ma_10_variance_shrinks() -> None:
    result = separate_microaggregation(pd.DataFrame({"x": [1, 2, 3, 4, 5, 6]}), ["x"])["x"]
    np.testing.assert_allclose(result, [2, 2, 2, 5, 5, 5])
    assert math.isclose(np.var([1, 2, 3, 4, 5, 6]), 2.916666666667, abs_tol=1e-12)
    assert math.isclose(result.to_numpy().var(), 2.25, abs_tol=1e-12)


def test_remainder_joins_smallest_group() -> None:
    data = pd.DataFrame({"x": np.arange(10.0)})  # groups 9,8,7 | 6,5,4 | 3,2,1,0
    result = separate_microaggregation(data, ["x"], k=3)["x"].to_numpy()
    np.testing.assert_allclose(result, [1.5] * 4 + [5.0] * 3 + [8.0] * 3)
    sizes = separate_group_sizes(data, ["x"], k=3)
    assert [s.to_dict() for s in sizes] == [
        {"variables": ["x"], "groups": 3, "units": 10, "sizes": {"3": 2, "4": 1}}]


def test_columns_are_aggregated_separately_with_missing_values() -> None:
    data = pd.DataFrame({
        "a": [1.0, np.nan, 3.0, 5.0, 7.0, 11.0, 9.0],
        "b": pd.array([6, 5, 4, 3, 2, 1, None], dtype="Int64"),
        "c": ["x"] * 7,
    }, index=list("pqrstuv"))
    result = separate_microaggregation(data, ["a", "b"], k=3)
    np.testing.assert_allclose(result["a"], [3.0, np.nan, 3.0, 3.0, 9.0, 9.0, 9.0])
    np.testing.assert_allclose(result["b"], [5.0, 5.0, 5.0, 2.0, 2.0, 2.0, np.nan])
    assert result.index.equals(data.index)
    pd.testing.assert_series_equal(result["c"], data["c"])


def test_ties_are_broken_by_seeded_key_not_row_position() -> None:
    data = pd.DataFrame({"x": [2.0, 2.0, 2.0, 2.0, 0.0, 0.0]})  # 2,2,2 | 2,0,0: one tied 2 drops
    dropped = set()
    for seed in range(30):
        result = separate_microaggregation(data, ["x"], seed=seed)["x"].to_numpy()
        low = np.flatnonzero(np.isclose(result[:4], 2 / 3))
        assert low.size == 1
        dropped.add(int(low[0]))
        again = separate_microaggregation(data, ["x"], seed=seed)["x"]
        np.testing.assert_array_equal(result, again)
    assert len(dropped) >= 3


@pytest.mark.parametrize("k", [2, 1, 0, -3, 2.5, True])
def test_small_or_invalid_k_is_rejected(k: object) -> None:
    with pytest.raises(InputError):
        separate_microaggregation(pd.DataFrame({"x": [1.0, 2.0, 3.0]}), ["x"], k=k)


@pytest.mark.parametrize("column", [["a", "b", "c"], [True, False, True]])
def test_non_numeric_column_is_rejected(column: list) -> None:
    with pytest.raises(InputError) as info:
        separate_microaggregation(pd.DataFrame({"x": column}), ["x"])
    assert info.value.column == "x"


def test_other_input_errors() -> None:
    data = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.inf], "y": [1.0, 2.0, np.nan, np.nan]})
    with pytest.raises(InputError):
        separate_microaggregation(data, ["missing"])
    with pytest.raises(InputError):
        separate_microaggregation(data, ["x"])
    with pytest.raises(InputError):
        separate_microaggregation(data, ["y"])
    with pytest.raises(InputError):
        separate_microaggregation(data.iloc[:3], ["x", "x"])
    for bad in (-0.1, math.inf, math.nan, "0.1", True):
        with pytest.raises(InputError):
            separate_microaggregation(data.iloc[:3], ["x"], min_gap=bad)
    with pytest.raises(InputError):
        separate_microaggregation(data.iloc[:3], ["x"], min_gap=0.1, k_max=2)


# --- separate microaggregation with a minimum gap ------------------------------------------


def test_min_gap_enlarges_groups_until_the_gap() -> None:
    # 100..97: next triple 96, 95, 50 has mean 80.3 (gap 18% of 98.5) -> group of 4;
    # 96, 95, 50 (mean 80.3) vs 49, 48, 47 (mean 48): gap reached; the tail of 2 joins the last
    x = [100, 99, 98, 97, 96, 95, 50, 49, 48, 47, 46, 45]
    data = pd.DataFrame({"x": x[::-1]})
    result = separate_microaggregation(data, ["x"], min_gap=0.15)["x"].to_numpy()[::-1]
    np.testing.assert_allclose(result, [98.5] * 4 + [241 / 3] * 3 + [47] * 5, rtol=0, atol=1e-12)
    assert separate_group_sizes(data, ["x"], min_gap=0.15)[0].counts == {3: 1, 4: 1, 5: 1}
    capped = separate_microaggregation(data, ["x"], min_gap=0.15, k_max=3)
    pd.testing.assert_frame_equal(capped, separate_microaggregation(data, ["x"]))


def test_min_gap_merges_groups_with_zero_mean() -> None:
    # 1, 0, -1 has mean 0 (relative gap undefined) -> enlarged to 1, 0, -1, -10 (mean -2.5)
    x = [1, 0, -1, -10, -11, -12, -20, -21, -22]
    result = separate_microaggregation(pd.DataFrame({"x": x}), ["x"], min_gap=0.07)["x"]
    np.testing.assert_allclose(result, [-2.5] * 4 + [-17.2] * 5, rtol=0, atol=1e-12)
    zeros = separate_group_sizes(pd.DataFrame({"x": [0.0] * 7}), ["x"], min_gap=0.1)
    assert zeros[0].counts == {7: 1}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(finite, finite.map(round)), min_size=3, max_size=60),
       st.integers(min_value=3, max_value=5), st.sampled_from([0.0, 0.07, 0.15, 0.5]),
       st.sampled_from([None, 5, 8]), st.integers(min_value=0, max_value=2**16))
def test_min_gap_groups_share_values_and_keep_sums(values: list[float], k: int, gap: float,
                                                   k_max: int | None, seed: int) -> None:
    if len(values) < k:
        values = values * k
    if k_max is not None and k_max < k:
        k_max = k
    data = pd.DataFrame({"x": values})
    result = separate_microaggregation(data, ["x"], k=k, seed=seed, min_gap=gap, k_max=k_max)
    released = result["x"].to_numpy()
    _, counts = np.unique(released, return_counts=True)
    assert counts.min() >= k
    assert math.isclose(released.sum(), sum(values), rel_tol=1e-9,
                        abs_tol=1e-9 * sum(abs(v) for v in values) + 1e-9)
    sizes = separate_group_sizes(data, ["x"], k=k, seed=seed, min_gap=gap, k_max=k_max)[0]
    assert min(sizes.counts) >= k and sum(s * c for s, c in sizes.counts.items()) == len(values)
    if k_max is not None:
        assert max(sizes.counts) <= k_max + k - 1  # only a tail can push past the cap
    if gap == 0:
        pd.testing.assert_frame_equal(result, separate_microaggregation(data, ["x"], k=k,
                                                                        seed=seed))


# --- separate microaggregation: properties --------------------------------------------------------


@st.composite
def columns_and_k(draw: st.DrawFn) -> tuple[list[float], int]:
    k = draw(st.integers(min_value=3, max_value=7))
    values = draw(st.lists(st.one_of(finite, finite.map(round), st.just(float("nan"))),
                           min_size=k, max_size=60))
    if sum(not math.isnan(v) for v in values) < k:
        values = values + [1.0] * k
    return values, k


@settings(max_examples=60, deadline=None)
@given(columns_and_k(), st.integers(min_value=0, max_value=2**32 - 1))
def test_every_value_shared_by_k_units_and_sum_preserved(case: tuple[list[float], int],
                                                         seed: int) -> None:
    values, k = case
    x = np.array(values)
    result = separate_microaggregation(pd.DataFrame({"x": x}), ["x"], k=k, seed=seed)["x"]
    result = result.to_numpy()
    missing = np.isnan(x)
    np.testing.assert_array_equal(np.isnan(result), missing)
    _, counts = np.unique(result[~missing], return_counts=True)
    assert counts.min() >= k
    assert math.isclose(result[~missing].sum(), x[~missing].sum(),
                        rel_tol=1e-9, abs_tol=1e-9 * np.abs(x[~missing]).sum())


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=3, max_size=50, unique=True), st.randoms(use_true_random=False),
       st.integers(min_value=3, max_value=6))
def test_result_does_not_depend_on_row_order(values: list[float], rnd, k: int) -> None:
    if len(values) < k:
        values = values + [2e6 + i for i in range(k)]
    x = np.array(values)
    permutation = np.array(rnd.sample(range(x.size), x.size))
    direct = separate_microaggregation(pd.DataFrame({"x": x}), ["x"], k=k, seed=1)["x"].to_numpy()
    shuffled = separate_microaggregation(pd.DataFrame({"x": x[permutation]}), ["x"], k=k,
                                         seed=2)["x"].to_numpy()
    np.testing.assert_allclose(shuffled, direct[permutation], rtol=0, atol=0)


# --- Höhne one-dimensional microaggregation (worked example 5.1 (docs/reference/worked-examples.md)) ------------------------------

F_MA_001A = [800.3333333333, 800.3333333333, 657.5498920276, 517.3333333333, 517.3333333333,
             393.2025779000, 366.6666666667, 366.6666666667, 336.9719233982, 158.7167747731, 67.5]
F_MA_001B = [871.7250539862, 871.7250539862, 657.5498920276, 579.3987110500, 579.3987110500,
             393.2025779000, 381.5140383009, 381.5140383009, 336.9719233982, 132.0, 3.0]
F_MA_001C = [871.7250539862] * 2 + [657.5498920276] + [579.3987110500] * 2 + [393.2025779000] \
    + [434.3851648344] * 2 + [122.0765567771] * 3


def _sorted_output(**options: object) -> np.ndarray:
    """Höhne output on the seed-001 column, in descending order of the input values."""
    x = np.array(F_MA_001_INPUT, dtype=float)
    result = hoehne_microaggregation(pd.DataFrame({"x": x}), ["x"], **options)["x"].to_numpy()
    return result[np.argsort(-x)]


def test_fixture_f_ma_001a_documented_output() -> None:
    out = _sorted_output(variant="documented")
    np.testing.assert_allclose(out, F_MA_001A, rtol=0, atol=1e-9)
    assert math.isclose(out.mean(), 452.9643486151, abs_tol=1e-9)
    assert math.isclose(out.var(), 50777.9173254792, abs_tol=1e-6)
    # the documentation prints the list truncated to two decimals
    assert [math.floor(v * 100) / 100 for v in out] == [
        800.33, 800.33, 657.54, 517.33, 517.33, 393.20, 366.66, 366.66, 336.97, 158.71, 67.5]


def test_fixture_f_ma_001a_legacy_shuffle_is_a_seeded_permutation() -> None:
    data = pd.DataFrame({"x": F_MA_001_INPUT})
    shuffled = hoehne_microaggregation(data, ["x"], variant="documented", legacy_shuffle=True,
                                       seed=5)["x"].to_numpy()
    np.testing.assert_allclose(np.sort(shuffled)[::-1], F_MA_001A, rtol=0, atol=1e-9)
    again = hoehne_microaggregation(data, ["x"], variant="documented", legacy_shuffle=True,
                                    seed=5)["x"].to_numpy()
    np.testing.assert_array_equal(shuffled, again)
    in_place = _sorted_output(variant="documented")[np.argsort(np.argsort(-data["x"]))]
    assert not np.allclose(shuffled, in_place)


def test_fixture_f_ma_001b_own_remainder_group() -> None:
    out = _sorted_output(remainder="own_group")
    np.testing.assert_allclose(out, F_MA_001B, rtol=0, atol=1e-9)
    assert math.isclose(out.mean(), 471.6363636364, abs_tol=1e-9)
    assert math.isclose(out.var(), 68494.0495867769, abs_tol=1e-6)


def test_fixture_f_ma_001c_merged_remainder_is_the_default() -> None:
    out = _sorted_output()
    np.testing.assert_allclose(out, F_MA_001C, rtol=0, atol=1e-9)
    assert math.isclose(out.mean(), 471.6363636364, abs_tol=1e-9)
    assert math.isclose(out.var(), 68494.0495867769, abs_tol=1e-6)


def test_fixture_f_ma_001d_group_size_search() -> None:
    data = pd.DataFrame({"x": F_MA_001_INPUT})
    (search,) = hoehne_size_search(data, ["x"], m=3, remainder="own_group")
    assert search.sizes == (3, 4, 5)
    np.testing.assert_allclose(search.variance_sums, [22498.9166666667, 39214.9375, 28719.28],
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(search.weighted_variance_sums, [63336.5, 136601.75, 143596.4],
                               rtol=0, atol=1e-9)
    assert search.chosen == 3
    assert json.loads(json.dumps(search.to_dict()))["chosen"] == 3
    np.testing.assert_allclose(_sorted_output(remainder="own_group", variable_size=True),
                               F_MA_001B, rtol=0, atol=1e-9)


def test_variable_size_picks_the_natural_clusters_and_ties_keep_the_smaller() -> None:
    x = [100.0, 100.1, 100.2, 100.3, 50.0, 50.1, 50.2, 50.3, 10.0, 10.1, 10.2, 10.3]
    data = pd.DataFrame({"x": x, "flat": [7.0] * 12})
    by_column = {s.column: s for s in hoehne_size_search(data, ["x", "flat"])}
    assert by_column["x"].chosen == 4
    assert by_column["flat"].variance_sums == (0.0, 0.0, 0.0) and by_column["flat"].chosen == 3
    result = hoehne_microaggregation(data, ["x"], variable_size=True)["x"].to_numpy()
    sd = math.sqrt(0.0125)  # population SD of each cluster of four
    expected = np.repeat([100.15, 50.15, 10.15], 4) + np.tile([-sd, -sd, sd, sd], 3)
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-9)


def test_fixture_f_ma_12_group_of_four() -> None:
    result = hoehne_microaggregation(pd.DataFrame({"x": [10, 12, 17, 21]}), ["x"], m=4)["x"]
    np.testing.assert_allclose(result, [10.698837366479, 10.698837366479, 19.301162633521,
                                        19.301162633521], rtol=0, atol=1e-9)
    assert math.isclose(result.to_numpy().var(), 18.5, abs_tol=1e-12)


def test_hoehne_missing_values_and_errors() -> None:
    data = pd.DataFrame({"x": [5.0, np.nan, 1.0, 3.0], "y": [1.0, 2.0, np.nan, np.nan]})
    result = hoehne_microaggregation(data, ["x"])["x"].to_numpy()
    assert np.isnan(result[1])
    assert math.isclose(np.nanmean(result), 3.0) and math.isclose(np.nanvar(result), 8 / 3)
    for options in ({"variant": "documented", "remainder": "merge_last"}, {"variant": "java"},
                    {"remainder": "drop"}, {"m": 2}):
        with pytest.raises(InputError):
            hoehne_microaggregation(data, ["x"], **options)
    with pytest.raises(InputError) as info:
        hoehne_microaggregation(data, ["y"])
    assert info.value.column == "y"


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=3, max_size=40, unique=True), st.integers(3, 6),
       st.sampled_from(["merge_last", "own_group"]), st.booleans())
def test_hoehne_keeps_every_group_mean_and_variance(values: list[float], m: int, remainder: str,
                                                    variable_size: bool) -> None:
    if len(values) < m:
        values = values + [2e6 + i for i in range(m)]
    x = np.array(values)
    data = pd.DataFrame({"x": x})
    out = hoehne_microaggregation(data, ["x"], m=m, variable_size=variable_size,
                                  remainder=remainder)["x"].to_numpy()
    size = hoehne_size_search(data, ["x"], m=m, remainder=remainder)[0].chosen \
        if variable_size else m
    order = np.argsort(-x)
    full, rest = divmod(x.size, size)
    bounds = list(range(0, full * size + 1, size))
    if rest and remainder == "own_group":
        bounds.append(x.size)
    bounds[-1] = x.size
    scale = np.abs(x).max()
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        group, released = x[order[lo:hi]], out[order[lo:hi]]
        assert math.isclose(released.mean(), group.mean(), rel_tol=1e-9, abs_tol=1e-9 * scale)
        assert math.isclose(released.var(), group.var(), rel_tol=1e-7,
                            abs_tol=1e-7 * scale ** 2)


def test_hoehne_joint_group_of_four_is_fixture_f_ma_12() -> None:
    result = hoehne_joint_microaggregation(pd.DataFrame({"x": [21, 10, 17, 12]}), ["x"], k=4)
    np.testing.assert_allclose(result["x"], [19.301162633521, 10.698837366479, 19.301162633521,
                                             10.698837366479], rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_hoehne_joint_keeps_group_means_and_variances(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = rng.lognormal(2, 1, 23)
    data = pd.DataFrame({"a": size * rng.lognormal(0, 0.2, 23),
                         "b": size * rng.lognormal(0, 0.2, 23), "c": rng.normal(0, 1, 23)})
    columns = ["a", "b", "c"]
    result = hoehne_joint_microaggregation(data, columns, k=4, seed=seed)
    labels = _groups(mdav(data, columns, k=4, seed=seed), columns)
    sizes = np.bincount(labels)
    assert sizes.min() >= 4 and sizes.max() <= 7
    for label in range(sizes.size):
        rows = np.flatnonzero(labels == label)
        plus = []
        for column in columns:
            before, after = data[column].to_numpy()[rows], result[column].to_numpy()[rows]
            assert math.isclose(after.mean(), before.mean(), rel_tol=1e-12)
            assert math.isclose(after.var(), before.var(), rel_tol=1e-9)
            plus.append(tuple(rows[after > after.mean()]))
        assert len(set(plus)) == 1  # the same units take the upper values in every column
        if rows.size == 4:
            assert len(plus[0]) == 2
    # the upper rows of a group are its b = rint(n_g / 2) largest first-component scores
    z = ((data[columns] - data[columns].mean()) / data[columns].std(ddof=0)).to_numpy()
    loading = np.linalg.svd(z, full_matrices=False)[2][0]
    score = z @ (loading if loading.sum() > 0 else -loading)
    for label in range(sizes.size):
        rows = np.flatnonzero(labels == label)
        upper = rows[result["c"].to_numpy()[rows] > data["c"].to_numpy()[rows].mean()]
        top = rows[np.argsort(score[rows])][rows.size - int(np.rint(rows.size / 2)):]
        assert set(upper) == set(top)


# --- MDAV: oracles --------------------------------------------------------------------------------


def _direct_mdav_groups(z: np.ndarray, k: int, tiebreak: np.ndarray) -> np.ndarray:
    """The direct MDAV scan that the fast index replaced (O(n²/k)): every search looks at all
    remaining records. Only its centroid changed: the correctly rounded column sums
    (``math.fsum``) over the count, which do not depend on the record order."""
    n = z.shape[0]
    group = np.full(n, -1, dtype=np.int64)
    rows, points, keys = np.arange(n), np.ascontiguousarray(z.T), tiebreak
    label = 0

    def centroid() -> np.ndarray:
        return np.array([math.fsum(column) for column in points]) / rows.size

    def distances(reference: np.ndarray) -> np.ndarray:
        d = np.square(points[0] - reference[0])
        for j in range(1, points.shape[0]):
            d += np.square(points[j] - reference[j])
        return d

    def farthest(reference: np.ndarray) -> int:
        d = distances(reference)
        ties = np.flatnonzero(d == d.max())
        return int(ties[np.argmax(keys[ties])])

    def take_group(centre: int) -> None:
        nonlocal rows, points, keys, label
        d = distances(points[:, centre])
        d[centre] = -1.0
        kth = np.partition(d, k - 1)[k - 1]
        chosen = d < kth
        ties = np.flatnonzero(d == kth)
        chosen[ties[np.argsort(keys[ties], kind="stable")[:k - int(chosen.sum())]]] = True
        group[rows[chosen]] = label
        label += 1
        rows, points, keys = rows[~chosen], points[:, ~chosen], keys[~chosen]

    while rows.size >= 3 * k:
        r = farthest(centroid())
        r_point = points[:, r].copy()
        take_group(r)
        take_group(farthest(r_point))
    if rows.size >= 2 * k:
        take_group(farthest(centroid()))
    group[rows] = label
    return group


def _sdcmicro_mdav(x: np.ndarray, k: int) -> np.ndarray:
    """Group labels of sdcMicro's ``Mdav`` (src/Mdav.h, called by ``microaggregation(method=
    "mdav")`` through R/mdav.R), ported step by step: weights 1 / population variance
    (E[x²] − E[x]²); squared weighted differences cast to float and summed in float; while at
    least 2k records remain, r = first record (row order) farthest from the centroid, s = first
    record farthest from r (before r's group is removed), and each group = the k records nearest
    in float distance, equally near ones in reverse row order (the hash-list insertion); the
    remaining k to 2k − 1 records form the last group."""
    n, p = x.shape
    weights = np.ones(p)
    for j in range(p):
        mean = square = 0.0
        for value in x[:, j].tolist():
            mean += value
            square += value * value
        variance = square / n - (mean / n) ** 2
        if variance:
            weights[j] /= variance

    def distances(reference: np.ndarray, rows: np.ndarray) -> np.ndarray:
        d = np.zeros(rows.size, dtype=np.float32)
        for j in range(p):
            d = d + (np.square(x[rows, j] - reference[j]) * weights[j]).astype(np.float32)
        return d

    alive, group, label = np.arange(n), np.full(n, -1), 0
    while alive.size >= 2 * k:
        centre = np.add.accumulate(x[alive], axis=0)[-1] / alive.size
        current = alive[np.argmax(distances(centre, alive))]
        for _ in range(1 if alive.size < 3 * k else 2):
            d = distances(x[current], alive)
            farthest = alive[np.argmax(d)]
            chosen = alive[np.lexsort((-np.arange(alive.size), d))[:k]]
            group[chosen] = label
            label += 1
            alive = alive[~np.isin(alive, chosen)]
            current = farthest
    group[alive] = label
    return group


SDC_VAR1 = [0.5, 1.0, 1.2, 0.3, 3.0, 0.1]
SDC_VAR2 = [20, 4, 5, 27, 53, 11]


def test_sdcmicro_port_reproduces_the_printed_k2_groups() -> None:
    """worked example 5.3 (docs/reference/worked-examples.md) (sdcMicro's printed output): the port is faithful on it."""
    labels = _sdcmicro_mdav(np.column_stack([SDC_VAR1, SDC_VAR2]).astype(float), 2)
    assert _partition(labels) == {(0, 5), (1, 2), (3, 4)}


# --- MDAV -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("standardise", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_mdav_sdcmicro_fixture_k2(standardise: bool, seed: int) -> None:
    """worked example 5.3 (docs/reference/worked-examples.md): groups {1,6}, {2,3}, {4,5} on raw and on z-scored data."""
    data = pd.DataFrame({"Var1": SDC_VAR1, "Var2": SDC_VAR2, "label": list("abcdef")})
    result = mdav(data, ["Var1", "Var2"], k=2, seed=seed, standardise=standardise)
    np.testing.assert_allclose(result["Var1"], [0.30, 1.10, 1.10, 1.65, 1.65, 0.30],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(result["Var2"], [15.5, 4.5, 4.5, 40.0, 40.0, 15.5],
                               rtol=0, atol=1e-12)
    assert result["Var2"].dtype == np.float64
    pd.testing.assert_series_equal(result["label"], data["label"])
    assert data["Var2"].tolist() == SDC_VAR2  # input untouched


@pytest.mark.parametrize(("n", "k"), [(n, k) for k in (2, 3, 5)
                                        for n in (2, 3, 5, 6, 8, 9, 11, 12, 17, 40, 101) if n >= k])
def test_mdav_group_sizes_shared_values_and_means(n: int, k: int) -> None:
    rng = np.random.default_rng(n * 10 + k)
    data = pd.DataFrame({"a": rng.lognormal(5, 2, n), "b": rng.normal(0, 1, n),
                         "c": rng.integers(0, 1000, n)})
    columns = ["a", "b", "c"]
    result = mdav(data, columns, k=k, seed=3)
    sizes = np.bincount(_groups(result, columns))
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    for column in columns:
        _, counts = np.unique(result[column], return_counts=True)
        assert counts.min() >= k
        assert math.isclose(result[column].mean(), data[column].mean(), rel_tol=1e-12,
                            abs_tol=1e-12 * data[column].abs().mean())
    assert result.index.equals(data.index)


@st.composite
def mdav_cases(draw: st.DrawFn) -> tuple[np.ndarray, int, int]:
    """Small data with many ties: few distinct levels, duplicated records, constant columns."""
    k = draw(st.integers(min_value=2, max_value=5))
    p = draw(st.integers(min_value=1, max_value=3))
    n = draw(st.integers(min_value=k, max_value=70))
    levels = draw(st.sampled_from([2, 3, 10, 0]))
    element = st.integers(0, levels - 1).map(float) if levels else finite
    x = np.array(draw(st.lists(element, min_size=n * p, max_size=n * p))).reshape(n, p)
    copies = draw(st.lists(st.integers(0, n - 1), max_size=n))
    x = np.vstack([x, x[copies]])
    return x, k, draw(st.integers(min_value=0, max_value=2**32 - 1))


def _small_leaves() -> mock._patch:
    """Leaves of at most 2 records, so that small data build deep trees and exercise every
    bound (with the default leaves a small file sits in one leaf and is scanned whole)."""
    return mock.patch.object(mdav_index, "LEAF", 2)


@settings(max_examples=60, deadline=None)
@given(mdav_cases())
def test_mdav_groups_equal_the_direct_scan(case) -> None:
    x, k, seed = case
    z = microaggregation._standardised(x)
    tiebreak = microaggregation._tiebreak(seed, x.shape[0])
    with _small_leaves():
        fast = microaggregation._mdav_groups(z, k, tiebreak)
    np.testing.assert_array_equal(fast, _direct_mdav_groups(z, k, tiebreak))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300,
                          max_value=1e300), min_size=1, max_size=40),
       st.data())
def test_mdav_centroid_sums_are_exact(values: list[float], data: st.DataObject) -> None:
    # the running column sum (values in, grouped values out) is math.fsum of those left
    parts = np.zeros((1, mdav_index.PARTIALS))
    used = np.zeros(1, dtype=np.int64)
    for value in values:
        mdav_index._grow(parts, used, 0, value)
    gone = data.draw(st.sets(st.integers(0, len(values) - 1)))
    for at in gone:
        mdav_index._grow(parts, used, 0, -values[at])
    left = [value for at, value in enumerate(values) if at not in gone]
    assert mdav_index._rounded(parts, used, 0) == math.fsum(left)


def test_mdav_rejects_values_whose_squared_distances_overflow() -> None:
    data = pd.DataFrame({"x": [1e200, 2e200, 3e200, 4e200], "y": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InputError, match="overflow"):
        mdav(data, ["x", "y"], k=2, standardise=False)
    standardised = mdav(data, ["x", "y"], k=2)             # z-scores are small
    assert standardised["y"].tolist() == [1.5, 1.5, 3.5, 3.5]
    assert standardised["x"].tolist() == [1.5e200, 1.5e200, 3.5e200, 3.5e200]


@pytest.mark.parametrize("n", [9, 31, 300])
def test_mdav_groups_equal_the_direct_scan_when_records_coincide(n: int) -> None:
    # every distance is 0: the record farthest from r is r itself (largest key), in r's own
    # group, so the search overlapped with r's nearest is redone after the group is taken
    z = np.zeros((n, 2))
    tiebreak = microaggregation._tiebreak(5, n)
    direct = _direct_mdav_groups(z, 3, tiebreak)
    with _small_leaves():
        np.testing.assert_array_equal(microaggregation._mdav_groups(z, 3, tiebreak), direct)
    assert np.bincount(direct).min() >= 3


def _farthest_by_scan(points: np.ndarray, alive: np.ndarray, keys: np.ndarray,
                      c: np.ndarray) -> int:
    """Position of the remaining record farthest from ``c`` (ties: largest key), by scan."""
    distance = ((points - c) ** 2).sum(axis=1)
    where = np.flatnonzero(alive)
    return int(where[np.lexsort((keys[where], distance[where]))[-1]])


def test_mdav_outer_shell_answers_only_what_it_can_prove() -> None:
    # the shell holds the 20 records farthest from ref, all in a cluster out along the first
    # axis; for centroids moved along that axis the farthest record ends up on the other side,
    # outside the shell: the shell must then say it cannot tell (-1), never give a wrong one
    rng = np.random.default_rng(3)
    z = rng.normal(0, 1, (400, 3))
    z[:30, 0] += 8.0
    z[30:38] = z[38]                                 # coinciding records: ties
    keys = microaggregation._tiebreak(2, 400)
    rotation = mdav_index._rotation(z)
    with _small_leaves():
        tree = mdav_index._Tree(z, keys, np.arange(400), rotation)
    arrays = tree.arrays()
    margin = mdav_index.MARGIN * np.abs(z).max() * 3
    tree.alive[np.isin(tree.rows, rng.choice(np.arange(30, 400), 150, replace=False))] = False
    ref = tree.points[tree.alive].mean(axis=0)
    shell = mdav_index._shell(arrays, ref, 20)
    assert shell[0].size == 20 and np.all(np.diff(shell[1]) <= 0) and shell[2] < shell[1][-1]
    answers = []
    for step in np.linspace(0.0, 14.0, 29):
        c = ref + np.array([step, 0.0, 0.0]) + 0.01 * rng.normal(0, 1, 3)
        found, _ = mdav_index._outermost(c, arrays, shell, margin)
        answers.append(found >= 0)
        if found >= 0:
            assert found == _farthest_by_scan(tree.points, tree.alive, tree.keys, c)
        found, _ = mdav_index._farthest_from_centroid(c, arrays, shell, rotation, margin)
        assert found == _farthest_by_scan(tree.points, tree.alive, tree.keys, c)
    assert answers[0] and not all(answers)


def test_mdav_nearest_list_takes_each_record_once() -> None:
    # a thread may read a leaf a second time (two threads share a counter without locks):
    # the list of nearest must not take the same record twice
    rng = np.random.default_rng(5)
    z = rng.normal(0, 1, (40, 2))
    with _small_leaves():
        tree = mdav_index._Tree(z, np.arange(40.0), np.arange(40), mdav_index._rotation(z))
    near_d, near_k, near = np.full(3, np.inf), np.full(3, np.inf), np.full(3, -1)
    q = tree.points[0].copy()
    for _ in range(2):
        mdav_index._closer(0, tree.points, tree.alive, tree.keys, q, 0, 40, near_d, near_k, near)
    distance = ((tree.points - q) ** 2).sum(axis=1)
    assert near.tolist() == (np.argsort(distance, kind="stable")[1:4]).tolist()


def test_mdav_nearest_lists_of_two_threads_merge_each_record_once() -> None:
    # thread lists (distance, key, position): record 7 is in both; the k - 1 = 3 nearest are
    # 7, 4 and then 9 (same distance as 5, smaller key)
    near_d = np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 9.0]])
    near_k = np.array([[0.5, 0.2, 0.9], [0.5, 0.1, 0.3]])
    near = np.array([[7, 4, 5], [7, 9, 2]])
    assert mdav_index._nearest_of(11, near_d, near_k, near).tolist() == [11, 7, 4, 9]


@pytest.mark.parametrize("kind", ["lognormal", "integers", "normal"])
def test_mdav_groups_equal_the_direct_scan_on_larger_data(kind: str) -> None:
    rng = np.random.default_rng(11)
    n = 1800
    x = {"lognormal": lambda: rng.lognormal(3, 1.5, (n, 4)) * rng.lognormal(0, 1, (n, 1)),
         "integers": lambda: rng.integers(0, 5, (n, 3)).astype(float),
         "normal": lambda: rng.normal(0, 1, (n, 6))}[kind]()
    z = microaggregation._standardised(x)
    tiebreak = microaggregation._tiebreak(4, n)
    direct = _direct_mdav_groups(z, 3, tiebreak)
    np.testing.assert_array_equal(microaggregation._mdav_groups(z, 3, tiebreak), direct)
    with _small_leaves():
        np.testing.assert_array_equal(microaggregation._mdav_groups(z, 3, tiebreak), direct)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=5),
       st.lists(st.tuples(finite.map(round), finite), min_size=5, max_size=40),
       st.integers(min_value=0, max_value=2**32 - 1))
def test_mdav_shares_values_and_keeps_sums_with_ties(k: int, rows: list, seed: int) -> None:
    data = pd.DataFrame(rows + rows[:2], columns=["a", "b"])  # duplicates force ties
    result = mdav(data, ["a", "b"], k=k, seed=seed)
    for column in ("a", "b"):
        _, counts = np.unique(result[column], return_counts=True)
        assert counts.min() >= k
        assert math.isclose(result[column].sum(), data[column].sum(), rel_tol=1e-9,
                            abs_tol=1e-9 * data[column].abs().sum() + 1e-9)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_mdav_does_not_depend_on_row_order(k: int) -> None:
    rng = np.random.default_rng(k)
    n = 157
    data = pd.DataFrame({"x": rng.lognormal(3, 1.5, n), "y": rng.normal(0, 5, n),
                         "z": rng.uniform(0, 1, n)})  # continuous: no ties
    permutation = rng.permutation(n)
    direct = mdav(data, ["x", "y", "z"], k=k, seed=1)
    shuffled = mdav(data.iloc[permutation], ["x", "y", "z"], k=k, seed=2)
    pd.testing.assert_frame_equal(shuffled, direct.iloc[permutation])


def test_mdav_groups_jointly_not_separately() -> None:
    # x and y sort the records in opposite orders; joint groups share them across columns
    data = pd.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0],
                         "y": [12.0, 11.0, 10.0, 3.0, 2.0, 1.0]})
    result = mdav(data, ["x", "y"], k=3)
    np.testing.assert_allclose(result["x"], [2, 2, 2, 11, 11, 11])
    np.testing.assert_allclose(result["y"], [11, 11, 11, 2, 2, 2])


def test_mdav_ties_are_broken_by_seeded_key_not_row_position() -> None:
    # raw distances: (0, 10) lies farthest from the centroid (0, 2); (-1, 0) and (1, 0) are
    # equally near to it, (0, -2) is farther
    data = pd.DataFrame({"x": [0.0, -1.0, 1.0, 0.0], "y": [10.0, 0.0, 0.0, -2.0]})
    partners = set()
    for seed in range(30):
        result = mdav(data, ["x", "y"], k=2, seed=seed, standardise=False)
        partner = 1 if result["y"][1] == 5.0 else 2
        assert result["y"][partner] == 5.0 and result["y"][3 - partner] == -1.0
        partners.add(partner)
        again = mdav(data, ["x", "y"], k=2, seed=seed, standardise=False)
        pd.testing.assert_frame_equal(result, again)
    assert partners == {1, 2}


def test_mdav_small_inputs() -> None:
    data = pd.DataFrame({"x": [1.0, 2.0, 4.0], "y": [7, 7, 7]})  # constant column is fine
    result = mdav(data, ["x", "y"], k=3)
    np.testing.assert_allclose(result["x"], [7 / 3] * 3)
    np.testing.assert_allclose(result["y"], [7.0] * 3)
    empty = mdav(data.iloc[:0], ["x", "y"], k=3)
    assert len(empty) == 0 and empty["y"].dtype == np.float64


@pytest.mark.parametrize("k", [1, 0, -3, 2.5, True, "3"])
def test_mdav_rejects_invalid_k(k: object) -> None:
    with pytest.raises(InputError):
        mdav(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), ["x"], k=k)


@pytest.mark.parametrize("column", [["a", "b", "c"], [True, False, True]])
def test_mdav_rejects_non_numeric_column(column: list) -> None:
    data = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": column})
    with pytest.raises(InputError) as info:
        mdav(data, ["x", "y"], k=2)
    assert info.value.column == "y"


def test_mdav_other_input_errors() -> None:
    data = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, np.nan, 3.0, 4.0],
                         "z": [1.0, 2.0, np.inf, 4.0]})
    with pytest.raises(InputError) as info:
        mdav(data, ["x", "y"], k=2)
    assert (info.value.column, info.value.row) == ("y", 2)
    for columns in (["missing"], ["z"], ["x", "x"], []):
        with pytest.raises(InputError):
            mdav(data, columns, k=2)
    with pytest.raises(InputError):
        mdav(data.iloc[:2], ["x"], k=3)


@pytest.fixture(scope="module")
def casc() -> pd.DataFrame:
    return pd.read_csv(CASC)


@pytest.mark.parametrize("k", [3, 4])
def test_mdav_on_casc_matches_the_sdcmicro_port(casc: pd.DataFrame, k: int) -> None:
    """sdcMicro's ``microaggregation(CASCrefmicrodata, method="mdav", aggr=k)``, derived with
    the port (no R here): the same groups and released values; CASC has no tied records."""
    columns = list(casc.columns)
    result = mdav(casc, columns, k=k, seed=0)
    x = casc.to_numpy(dtype=float)
    reference = _sdcmicro_mdav(x, k)
    assert _partition(_groups(result, columns)) == _partition(reference)
    sizes = np.bincount(reference)
    expected = np.column_stack([np.bincount(reference, weights=x[:, j]) / sizes
                                for j in range(x.shape[1])])[reference]
    np.testing.assert_allclose(result[columns].to_numpy(), expected, rtol=1e-12)


def test_mdav_on_casc_invariants(casc: pd.DataFrame) -> None:
    columns = list(casc.columns)
    result = mdav(casc, columns, k=3, seed=0)
    labels = _groups(result, columns)
    sizes = np.bincount(labels)
    assert sizes.min() >= 3 and sizes.max() <= 5 and sizes.sum() == len(casc) == 1080
    for column in columns:  # released values are the group means of the original values
        means = np.bincount(labels, weights=casc[column].to_numpy(float)) / sizes
        np.testing.assert_allclose(result[column], means[labels], rtol=1e-12)
    permutation = np.random.default_rng(3).permutation(len(casc))
    shuffled = mdav(casc.iloc[permutation], columns, k=3, seed=9)
    pd.testing.assert_frame_equal(shuffled, result.iloc[permutation])
    assert np.flatnonzero(labels == labels[0]).tolist() == [0, 86, 171]
    np.testing.assert_allclose(result.loc[0, ["AFNLWGT", "AGI", "PTOTVAL"]].to_numpy(float),
                               CASC_ROW_1, rtol=1e-12)


# --- grouped microaggregation --------------------------------------------------------------


def _clustered(n: int = 60, seed: int = 2) -> pd.DataFrame:
    """Two variable clusters (a*, b*) and independent noise (c, d, e); columns interleaved."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    return pd.DataFrame({
        "a1": a + 0.01 * rng.normal(size=n), "b1": b + 0.1 * rng.normal(size=n),
        "a2": a + 0.01 * rng.normal(size=n), "b2": b + 0.1 * rng.normal(size=n),
        "a3": a + 0.01 * rng.normal(size=n), "b3": b + 0.1 * rng.normal(size=n),
        "c": rng.normal(size=n), "d": rng.normal(size=n), "e": rng.normal(size=n),
    })


def test_correlation_groups_form_triples_and_a_last_group_of_four_or_five() -> None:
    data = _clustered()
    assert correlation_groups(data, ["a1", "b1", "a2", "b2", "a3", "b3", "c"]) == [
        ["a1", "a2", "a3"], ["b1", "b2", "b3", "c"]]
    groups = correlation_groups(data, list(data.columns))
    assert groups[:2] == [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    assert sorted(groups[2]) == ["c", "d", "e"]
    assert correlation_groups(data, ["c", "a1", "d"]) == [["c", "a1", "d"]]


def test_grouped_microaggregation_runs_mdav_per_variable_group() -> None:
    data = _clustered().assign(label="x")
    groups = [["a1", "a2", "a3"], ["b1", "b2", "b3", "c"]]
    result = grouped_microaggregation(data, groups, k=3, seed=4)
    expected = mdav(mdav(data, groups[0], k=3, seed=4), groups[1], k=3, seed=4)
    pd.testing.assert_frame_equal(result, expected)
    automatic = grouped_microaggregation(data, None, k=3, seed=4,
                                         columns=["a1", "b1", "a2", "b2", "a3", "b3", "c"])
    pd.testing.assert_frame_equal(automatic, expected)
    for group in groups:
        assert np.bincount(_groups(result, group)).min() >= 3
    assert not np.array_equal(_groups(result, groups[0]), _groups(result, groups[1]))


def test_grouped_microaggregation_input_errors() -> None:
    data = _clustered()
    for groups, columns in ((None, None), ([["a1"]], ["a1"]), ([["a1", "a2"], ["a2"]], None),
                            ([], None), ([[]], None)):
        with pytest.raises(InputError):
            grouped_microaggregation(data, groups, columns=columns)


# --- stochastic microaggregation -----------------------------------------------------------


def test_random_microaggregation_keeps_means_and_forms_random_groups() -> None:
    rng = np.random.default_rng(8)
    data = pd.DataFrame({"x": rng.lognormal(3, 1, 50), "y": rng.normal(0, 1, 50)})
    result = random_microaggregation(data, ["x", "y"], k=3, seed=1)
    labels = _groups(result, ["x", "y"])
    assert sorted(np.bincount(labels)) == [3] * 15 + [5]
    for column in ("x", "y"):
        assert math.isclose(result[column].mean(), data[column].mean(), rel_tol=1e-12,
                            abs_tol=1e-12)
    pd.testing.assert_frame_equal(result, random_microaggregation(data, ["x", "y"], k=3, seed=1))
    other = random_microaggregation(data, ["x", "y"], k=3, seed=2)
    assert _partition(_groups(other, ["x", "y"])) != _partition(labels)
    with pytest.raises(InputError):
        random_microaggregation(data.assign(y=np.nan), ["x", "y"])


def test_bootstrap_microaggregation_averages_each_record_with_two_draws() -> None:
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0])
    data = pd.DataFrame({"x": x, "y": x * 10})
    result = bootstrap_microaggregation(data, ["x", "y"], seed=3)
    draws = np.random.default_rng(np.random.SeedSequence(3)).integers(0, 7, size=(7, 2))
    np.testing.assert_allclose(result["x"], (x + x[draws].sum(axis=1)) / 3, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result["y"], result["x"] * 10, rtol=1e-12)  # same draws
    pd.testing.assert_frame_equal(result, bootstrap_microaggregation(data, ["x", "y"], seed=3))
    assert not math.isclose(result["x"].mean(), x.mean(), rel_tol=1e-6)  # mean not kept


# --- punctual microaggregation ------------------------------------------------------------


def _market() -> pd.DataFrame:
    return pd.DataFrame({
        "nace": ["A"] * 5 + ["B"] * 2 + ["C"] * 4,
        "region": ["W"] * 11,
        "turnover": [100.0, 50.0, 80.0, 30.0, 60.0, 9.0, 8.0, 5.0, np.nan, 6.0, 7.0],
        "employees": [10.0, 5.0, 8.0, 3.0, np.nan, 2.0, 1.0, 4.0, 2.0, 6.0, 5.0],
    })


def test_punctual_microaggregation_of_the_top_three_per_cell() -> None:
    data = _market()
    result = punctual_microaggregation(data, ["turnover", "employees"], ["nace", "region"],
                                       "turnover")
    np.testing.assert_allclose(result["turnover"],
                               [80, 50, 80, 30, 80, 9, 8, 6, np.nan, 6, 6])
    np.testing.assert_allclose(result["employees"], [9, 5, 9, 3, np.nan, 2, 1, 5, 2, 5, 5])
    assert result["punctual_ma"].tolist() == [1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1]
    assert punctual_unprotectable_cells(data, ["nace", "region"], "turnover") == [
        {"cell": {"nace": "B", "region": "W"}, "units": 2}]
    again = punctual_microaggregation(result.assign(turnover=data["turnover"]), ["employees"],
                                      ["nace"], "turnover", k=4)
    assert again["punctual_ma"].tolist() == [1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1]


def test_punctual_ties_use_the_seeded_key() -> None:
    data = pd.DataFrame({"cell": ["A"] * 4, "turnover": [9.0, 5.0, 5.0, 7.0]})
    chosen = set()
    for seed in range(20):
        flags = punctual_microaggregation(data, ["turnover"], ["cell"], "turnover",
                                          seed=seed)["punctual_ma"]
        assert flags[0] == flags[3] == 1 and flags[1] + flags[2] == 1
        chosen.add(int(flags[2]))
    assert chosen == {0, 1}
    with pytest.raises(InputError):
        punctual_microaggregation(data, ["turnover"], ["sector"], "turnover")
    with pytest.raises(InputError):
        punctual_microaggregation(data.assign(punctual_ma=2), ["turnover"], ["cell"],
                                  "turnover")

