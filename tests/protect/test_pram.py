"""PRAM (docs/method/protection.md; worked example 8 (docs/reference/worked-examples.md): F-P-1 to F-P-7 and rejection of non-stochastic
matrices)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.protect.pram import (
    binary_estimator,
    category_frequencies,
    estimate_original,
    expected_counts,
    invariant_matrix,
    pram,
    regressor_bias,
    simple_matrix,
)

# docs/reference/worked-examples.md F-P-1 (handbook Table 28.3): rows θ (and 1 − θ), columns π.
PIS = [0.99, 0.95, 0.90, 0.85, 0.80, 0.75, 0.70, 0.65, 0.60, 0.55]
TABLE_28_3 = {
    0.98: [0.331, 0.722, 0.847, 0.900, 0.930, 0.949, 0.963, 0.974, 0.984, 0.992],
    0.90: [0.084, 0.327, 0.512, 0.633, 0.719, 0.786, 0.840, 0.885, 0.926, 0.964],
    0.82: [0.046, 0.205, 0.360, 0.483, 0.584, 0.671, 0.747, 0.816, 0.880, 0.941],
    0.74: [0.031, 0.148, 0.278, 0.393, 0.496, 0.592, 0.680, 0.764, 0.845, 0.923],
    0.66: [0.024, 0.119, 0.232, 0.338, 0.441, 0.539, 0.635, 0.728, 0.820, 0.910],
    0.58: [0.021, 0.104, 0.207, 0.309, 0.410, 0.510, 0.609, 0.707, 0.805, 0.903],
    0.50: [0.020, 0.100, 0.200, 0.300, 0.400, 0.500, 0.600, 0.700, 0.800, 0.900],
}

MEN_WOMEN = pd.DataFrame([[0.8, 0.2], [0.2, 0.8]], index=["m", "w"], columns=["m", "w"])
DSB = pd.DataFrame([[0.6, 0.4, 0.0], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7]],
                   index=["D", "S", "B"], columns=["D", "S", "B"])


@pytest.mark.parametrize("theta", sorted(TABLE_28_3))
def test_f_p_1_regressor_bias_table_28_3(theta: float) -> None:
    for t in (theta, 1 - theta):
        got = regressor_bias(t, np.array(PIS))
        np.testing.assert_allclose(got, TABLE_28_3[theta], rtol=0, atol=0.0005)
    assert regressor_bias(0.5, 0.99) == pytest.approx(0.02, abs=1e-12)


def test_f_p_2_invariant_binary() -> None:
    for lam, pi1, pi0 in ((0.8, 0.89386, 0.90614), (0.6, 0.78772, 0.81228)):
        p = invariant_matrix({"1": 0.4693, "0": 1 - 0.4693}, lam)
        assert p.loc["1", "1"] == pytest.approx(pi1, abs=1e-9)
        assert p.loc["0", "0"] == pytest.approx(pi0, abs=1e-9)
        assert round(p.loc["1", "1"], 4) == round(pi1, 4)


def test_f_p_3_invariant_three_categories() -> None:
    theta = pd.Series({"a": 0.5, "b": 0.3, "c": 0.2})
    p = invariant_matrix(theta * 1000, 0.8)             # counts are normalised
    expected = [[0.9, 0.06, 0.04], [0.1, 0.86, 0.04], [0.1, 0.06, 0.84]]
    np.testing.assert_allclose(p.to_numpy(), expected, rtol=0, atol=1e-12)
    assert list(p.index) == ["a", "b", "c"] and list(p.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(p.to_numpy().T @ theta.to_numpy(), theta.to_numpy(), atol=1e-15)
    np.testing.assert_allclose(1 - np.diag(p.to_numpy()), [0.10, 0.14, 0.16], atol=1e-12)
    np.testing.assert_allclose(expected_counts(theta, p), theta, atol=1e-15)


def test_f_p_4_expected_counts_and_inversion() -> None:
    np.testing.assert_allclose(expected_counts({"m": 90, "w": 80}, MEN_WOMEN), [88, 82])
    est = estimate_original({"m": 80, "w": 100}, MEN_WOMEN)
    np.testing.assert_allclose(est, [73.333333333333, 106.666666666667], atol=1e-9)
    assert list(est.index) == ["m", "w"]


def test_f_p_5_three_category_matrix() -> None:
    released = expected_counts(pd.Series({"D": 100, "S": 50, "B": 50}), DSB)
    np.testing.assert_allclose(released, [70, 90, 40], atol=1e-12)
    np.testing.assert_allclose(estimate_original(released, DSB), [100, 50, 50], atol=1e-9)
    # labels align by name, not position
    shuffled = DSB.loc[["B", "D", "S"], ["S", "B", "D"]]
    np.testing.assert_allclose(expected_counts({"B": 50, "D": 100, "S": 50}, shuffled),
                               [40, 70, 90], atol=1e-12)


def test_f_p_6_symmetric_binary_estimator() -> None:
    est = binary_estimator(0.9 * 0.3 + 0.1 * 0.7, 0.9)
    assert est.theta == pytest.approx(0.3, abs=1e-12)
    assert est.variance == pytest.approx(0.140625, abs=1e-12)
    assert est.to_dict() == {"theta": est.theta, "variance": est.variance}


def test_f_p_7_debiased_shares() -> None:
    assert binary_estimator(0.6003, 0.95).theta == pytest.approx(0.611444, abs=5e-7)
    assert binary_estimator(0.5920, 0.90).theta == pytest.approx(0.615, abs=1e-12)


def test_asymmetric_estimator_from_invariant_matrix() -> None:
    p = invariant_matrix({"0": 0.7, "1": 0.3}, 0.8)
    pi1, pi0 = p.loc["1", "1"], p.loc["0", "0"]
    share = 0.3 * pi1 + 0.7 * (1 - pi0)
    est = binary_estimator(share, pi1, pi0)
    assert est.theta == pytest.approx(0.3, abs=1e-12)
    var = (0.3 * (pi1 * (1 - pi1) - pi0 * (1 - pi0)) + pi0 * (1 - pi0)) / (pi1 + pi0 - 1) ** 2
    assert est.variance == pytest.approx(var, rel=1e-12)
    with pytest.raises(InputError, match="no information"):
        binary_estimator(0.5, 0.5)


@pytest.mark.parametrize("matrix", [
    pd.DataFrame([[0.8, 0.1], [0.2, 0.8]], index=["0", "1"], columns=["0", "1"]),   # row sum 0.9
    pd.DataFrame([[0.8, 0.2], [0.3, 0.8]], index=["0", "1"], columns=["0", "1"]),   # row sum 1.1
    pd.DataFrame([[1.2, -0.2], [0.2, 0.8]], index=["0", "1"], columns=["0", "1"]),
    pd.DataFrame([[0.8, 0.2], [0.2, 0.8]], index=["0", "1"], columns=["0", "2"]),
    pd.DataFrame([[0.8, 0.2]], index=["0"], columns=["0", "1"]),
    pd.DataFrame([[np.nan, 1.0], [0.2, 0.8]], index=["0", "1"], columns=["0", "1"]),
])
def test_rejects_non_stochastic_matrices(matrix: pd.DataFrame) -> None:
    data = pd.DataFrame({"g": ["0", "1", "0"]})
    with pytest.raises(InputError, match="PRAM matrix"):
        pram(data, "g", matrix=matrix)
    with pytest.raises(InputError, match="PRAM matrix"):
        expected_counts({"0": 1}, matrix)


def test_column_convention_is_rejected_with_a_hint() -> None:
    # the taxonomy of anonymisation methods's slide notation p_jk = P(Y^a = j | Y = k): columns sum to 1, rows do not
    column_stochastic = pd.DataFrame([[0.9, 0.3], [0.1, 0.7]], index=["a", "b"],
                                     columns=["a", "b"])
    with pytest.raises(InputError, match="row-stochastic"):
        expected_counts({"a": 1}, column_stochastic)


def test_unknown_category_names_column_and_row() -> None:
    data = pd.DataFrame({"sex": ["m", "w", None, "x"]})
    with pytest.raises(InputError, match="'x'") as info:
        pram(data, "sex", matrix=MEN_WOMEN)
    assert (info.value.column, info.value.row) == ("sex", 4)


@pytest.mark.parametrize("kwargs", [{}, {"matrix": MEN_WOMEN, "lam": 0.8}, {"lam": 1.0},
                                    {"lam": 0.0}, {"lam": -0.5}])
def test_rejects_parameters(kwargs: dict) -> None:
    with pytest.raises(InputError):
        pram(pd.DataFrame({"sex": ["m", "w"]}), "sex", **kwargs)


def test_rejects_bad_probabilities() -> None:
    for call in (lambda: simple_matrix(1.1), lambda: regressor_bias(0.0, 0.9),
                 lambda: regressor_bias(0.5, 1.5), lambda: binary_estimator(0.5, 0.9, 1.2)):
        with pytest.raises(InputError):
            call()


def test_invariant_pram_empirical_frequencies() -> None:
    rng = np.random.default_rng(1)
    data = pd.DataFrame({"wz": rng.choice(["15", "22", "28", "37"], 100_000,
                                          p=[0.5, 0.3, 0.15, 0.05])})
    before = category_frequencies(data, "wz")
    release = pram(data, "wz", lam=0.8, seed=5)
    after = category_frequencies(release, "wz")
    assert list(after.index) == list(before.index)
    shares_before = before / before.sum()
    np.testing.assert_allclose(after / after.sum(), shares_before, atol=0.005)
    switched = (release["wz"] != data["wz"]).mean()
    expected_switch = float((0.2 * (1 - shares_before) * shares_before).sum())
    assert switched == pytest.approx(expected_switch, abs=0.005)


def test_simple_pram_empirical_transitions() -> None:
    data = pd.DataFrame({"flag": np.repeat([0, 1], 50_000)})
    release = pram(data, "flag", matrix=simple_matrix(0.9), seed=8)
    assert release["flag"].dtype == np.int64
    stay0 = (release["flag"][:50_000] == 0).mean()
    stay1 = (release["flag"][50_000:] == 1).mean()
    assert stay0 == pytest.approx(0.9, abs=0.005) and stay1 == pytest.approx(0.9, abs=0.005)


def test_zero_probability_never_drawn() -> None:
    data = pd.DataFrame({"g": ["D"] * 5000 + ["S"] * 5000 + ["B"] * 5000})
    release = pram(data, "g", matrix=DSB, seed=3)
    assert not ((data["g"] == "D") & (release["g"] == "B")).any()
    assert set(release["g"]) == {"D", "S", "B"}


def test_pram_contract_and_missing() -> None:
    data = pd.DataFrame({"id": range(8), "sex": ["m", "w", None, "m", "w", "m", "w", "m"]})
    before = data.copy()
    a = pram(data, "sex", matrix=MEN_WOMEN, seed=4)
    pd.testing.assert_frame_equal(data, before)
    pd.testing.assert_frame_equal(a, pram(data, "sex", matrix=MEN_WOMEN, seed=4))
    assert a["sex"].isna().tolist() == data["sex"].isna().tolist()
    assert a["id"].tolist() == list(range(8))
    outs = {tuple(pram(data, "sex", matrix=MEN_WOMEN, seed=s)["sex"].fillna("-")) for s in
            range(10)}
    assert len(outs) > 1


def test_numeric_codes_compare_as_text() -> None:
    data = pd.DataFrame({"size": [1.0, 2.0, np.nan, 2.0]})
    matrix = pd.DataFrame([[0.0, 1.0], [1.0, 0.0]], index=[1, 2], columns=["1", "2"])
    out = pram(data, "size", matrix=matrix)
    assert out["size"].tolist()[:2] == [2.0, 1.0] and np.isnan(out["size"][2])
    nullable = pram(data.astype("Int64"), "size", matrix=matrix)["size"]
    assert nullable.dtype == "Int64" and nullable.tolist() == [2, 1, pd.NA, 1]


def test_joint_pram_keeps_composite_categories() -> None:
    data = pd.DataFrame({"sex": ["m", "w"] * 500, "region": ["E", "W"] * 500})
    labels = pd.Index([("m", "E"), ("w", "W"), ("m", "W"), ("w", "E")], tupleize_cols=False)
    matrix = pd.DataFrame([[0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                          index=labels, columns=labels)
    out = pram(data, ["sex", "region"], matrix=matrix, seed=1)
    pairs = set(zip(out["sex"], out["region"], strict=True))
    assert pairs == {("m", "E"), ("w", "W")}
    assert (out["sex"] != data["sex"]).mean() == pytest.approx(0.5, abs=0.06)
    freq = category_frequencies(data, ["sex", "region"])
    assert dict(freq) == {("m", "E"): 500, ("w", "W"): 500}
    inv = pram(data, ["sex", "region"], lam=0.5, seed=2)
    assert set(zip(inv["sex"], inv["region"], strict=True)) == {("m", "E"), ("w", "W")}
    with pytest.raises(InputError, match="tuples"):
        pram(data, ["sex", "region"], matrix=MEN_WOMEN)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.01, 100), min_size=2, max_size=8), st.floats(0.01, 0.99))
def test_invariant_matrix_is_stochastic_and_invariant(counts: list[float], lam: float) -> None:
    freq = pd.Series(counts, index=[f"c{i}" for i in range(len(counts))])
    p = invariant_matrix(freq, lam).to_numpy()
    theta = freq.to_numpy() / freq.sum()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(p.T @ theta, theta, atol=1e-12)
    np.testing.assert_allclose(np.diag(p), lam + (1 - lam) * theta, atol=1e-12)
    np.testing.assert_allclose(estimate_original(pd.Series(theta, index=freq.index),
                                                 invariant_matrix(freq, lam)), theta, atol=1e-9)
