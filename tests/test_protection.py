"""FORMAL, separate and joint (MDAV) microaggregation (PROTECTION.md §0, §3.1-3.2, §3.6;
FIXTURES.md §5)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.protection import formal_release, mdav, separate_microaggregation

F_MA_001E_INPUT = [356, 670, 815, 132, 613, 916, 538, 348, 3, 396, 401]
F_MA_001E_OUTPUT = [247, 800.3333333333, 800.3333333333, 247, 517.3333333333, 800.3333333333,
                    517.3333333333, 247, 247, 247, 517.3333333333]


@pytest.fixture
def original() -> pd.DataFrame:
    return pd.DataFrame({
        "unit_id": [f"U{i:07d}" for i in range(1, 21)],
        "name": [f"Firm {i}" for i in range(1, 21)],
        "nace": ["1511", "2875"] * 10,
        "turnover": np.linspace(100.0, 2000.0, 20),
    })


# --- FORMAL ---------------------------------------------------------------------------------------


def test_formal_drops_identifiers_and_shuffles(original: pd.DataFrame) -> None:
    release = formal_release(original, seed=11, identifiers=["name"])
    assert list(release.columns) == ["unit_id", "nace", "turnover"]
    assert release.index.equals(pd.RangeIndex(len(original)))
    assert not release["unit_id"].equals(original["unit_id"])
    restored = release.set_index("unit_id").loc[original["unit_id"]].reset_index()
    pd.testing.assert_frame_equal(restored, original.drop(columns="name"))
    assert "name" in original.columns


def test_formal_is_seeded(original: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(formal_release(original, 4), formal_release(original, 4))
    assert not formal_release(original, 4).equals(formal_release(original, 5))


def test_formal_rejects_unknown_identifier(original: pd.DataFrame) -> None:
    with pytest.raises(InputError):
        formal_release(original, 1, identifiers=["address"])


# --- separate microaggregation: fixtures ----------------------------------------------------------


def test_fixture_f_ma_9() -> None:
    data = pd.DataFrame({"x": [10, 7, 3, 9, 1, 4, 8], "label": list("abcdefg")})
    result = separate_microaggregation(data, ["x"], k=3, seed=0)
    np.testing.assert_allclose(result["x"], [9, 3.75, 3.75, 9, 3.75, 3.75, 9], rtol=0, atol=1e-9)
    assert result["x"].dtype == np.float64
    pd.testing.assert_series_equal(result["label"], data["label"])
    assert data["x"].dtype == np.int64  # input untouched


def test_fixture_f_ma_001e() -> None:
    data = pd.DataFrame({"x": F_MA_001E_INPUT})
    result = separate_microaggregation(data, ["x"], k=3)["x"].to_numpy()
    np.testing.assert_allclose(result, F_MA_001E_OUTPUT, rtol=0, atol=1e-9)
    assert math.isclose(result.sum(), 5188.0, rel_tol=0, abs_tol=1e-9)
    assert math.isclose(result.var(), 52972.4738292011, rel_tol=0, abs_tol=1e-6)


def test_remainder_joins_smallest_group() -> None:
    data = pd.DataFrame({"x": np.arange(10.0)})  # groups 9,8,7 | 6,5,4 | 3,2,1,0
    result = separate_microaggregation(data, ["x"], k=3)["x"].to_numpy()
    np.testing.assert_allclose(result, [1.5] * 4 + [5.0] * 3 + [8.0] * 3)


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


# --- separate microaggregation: properties --------------------------------------------------------

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def columns_and_k(draw: st.DrawFn) -> tuple[list[float], int]:
    k = draw(st.integers(min_value=3, max_value=7))
    values = draw(st.lists(st.one_of(finite, finite.map(round), st.just(float("nan"))),
                           min_size=k, max_size=60))
    if sum(not math.isnan(v) for v in values) < k:
        values = values + [1.0] * k
    return values, k


@settings(max_examples=150, deadline=None)
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


@settings(max_examples=100, deadline=None)
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


# --- joint microaggregation (MDAV) ----------------------------------------------------------------

SDC_VAR1 = [0.5, 1.0, 1.2, 0.3, 3.0, 0.1]
SDC_VAR2 = [20, 4, 5, 27, 53, 11]


@pytest.mark.parametrize("standardise", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_mdav_sdcmicro_fixture_k2(standardise: bool, seed: int) -> None:
    """FIXTURES.md §5.3: groups {1,6}, {2,3}, {4,5} on raw and on z-scored data."""
    data = pd.DataFrame({"Var1": SDC_VAR1, "Var2": SDC_VAR2, "label": list("abcdef")})
    result = mdav(data, ["Var1", "Var2"], k=2, seed=seed, standardise=standardise)
    np.testing.assert_allclose(result["Var1"], [0.30, 1.10, 1.10, 1.65, 1.65, 0.30],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(result["Var2"], [15.5, 4.5, 4.5, 40.0, 40.0, 15.5],
                               rtol=0, atol=1e-12)
    assert result["Var2"].dtype == np.float64
    pd.testing.assert_series_equal(result["label"], data["label"])
    assert data["Var2"].tolist() == SDC_VAR2  # input untouched


def _groups(result: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Group label per row: rows with the same tuple of released values."""
    _, labels = np.unique(result[columns].to_numpy(), axis=0, return_inverse=True)
    return labels.ravel()


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


@settings(max_examples=100, deadline=None)
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
