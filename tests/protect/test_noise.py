"""Noise methods (docs/method/protection.md; worked example 6 (docs/reference/worked-examples.md): F-N-11, F-N-13, F-N-14 and the statistical
property tests with n = 100,000)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.protect.noise import (
    additive_noise,
    controlled_noise,
    controlled_values,
    hoehne_noise,
    kim_transform,
    lognormal_noise,
    mixture_noise,
    moment_correction,
    uniform_noise,
)

N = 100_000


@pytest.fixture(scope="module")
def firms() -> pd.DataFrame:
    """100,000 skewed positive firms with correlated turnover and costs, some zeros and signs."""
    rng = np.random.default_rng(20240501)
    logs = rng.multivariate_normal([10.0, 9.0], [[1.0, 0.6], [0.6, 0.8]], size=N)
    profit = rng.normal(0.0, 1000.0, N)
    profit[:1000] = 0.0
    return pd.DataFrame({
        "unit_id": np.arange(N),
        "wz": rng.choice(["1511", "2875"], N),
        "turnover": np.exp(logs[:, 0]),
        "costs": np.exp(logs[:, 1]),
        "profit": profit,
    })


@pytest.fixture(scope="module")
def normal_pair() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    x = rng.multivariate_normal([100.0, 50.0], [[400.0, 150.0], [150.0, 100.0]], size=N)
    return pd.DataFrame({"a": x[:, 0], "b": x[:, 1]})


SMALL = pd.DataFrame({
    "id": ["u1", "u2", "u3", "u4", "u5"],
    "x": [10, 0, 30, 40, 50],
    "y": [1.5, np.nan, -2.0, 4.0, 8.0],
})

METHODS = [
    lambda d, s: additive_noise(d, ["x", "y"], 0.1, seed=s),
    lambda d, s: additive_noise(d, ["x", "y"], 0.1, kim_correction=False, seed=s),
    lambda d, s: mixture_noise(d, ["x", "y"], 0.08, 0.02, seed=s),
    lambda d, s: hoehne_noise(d, ["x", "y"], 0.08, 0.02, seed=s),
    lambda d, s: controlled_noise(d, ["x", "y"], 0.08, 0.02, seed=s),
    lambda d, s: uniform_noise(d, ["x", "y"], seed=s),
    lambda d, s: lognormal_noise(d.assign(y=d["y"].abs()), ["x", "y"], 0.0005, shift=1.0,
                                 seed=s),
]


# --- printed/derived fixtures ---------------------------------------------------------------------


def test_f_n_11_controlled_values() -> None:
    out = controlled_values([100, 50, 30, 20, 10], [0.1] * 4)
    np.testing.assert_allclose(out, [90, 55, 33, 22, 10], rtol=0, atol=1e-9)
    assert out.sum() == pytest.approx(210, abs=1e-9)


def test_f_n_13_moment_correction() -> None:
    original = pd.DataFrame({"x": [1, 2, 3, 4]})
    noisy = pd.DataFrame({"x": [1.1, 1.8, 3.3, 4.4]})
    out = moment_correction(original, noisy, ["x"])["x"].to_numpy()
    np.testing.assert_allclose(
        out, [1.151919053235, 1.760729803387, 3.065324267998, 4.022026875380], rtol=0, atol=1e-9)
    assert out.mean() == pytest.approx(2.5, abs=1e-12)
    assert out.std() == pytest.approx(1.118033988750, abs=1e-9)
    assert out.std(ddof=1) == pytest.approx(np.std([1, 2, 3, 4], ddof=1), abs=1e-12)
    assert noisy["x"].tolist() == [1.1, 1.8, 3.3, 4.4]


def test_f_n_14_kim_correction() -> None:
    out = kim_transform(np.array([1.5, 1.9, 3.4, 3.6]), 0.1, 2.5)
    np.testing.assert_allclose(
        out, [1.546537410754, 1.927922446453, 3.358116330321, 3.548808848170], rtol=0, atol=1e-9)


# --- statistical properties (worked example 6 (docs/reference/worked-examples.md)) ------------------------------------------------------


def test_mult_f08_s02_properties(firms: pd.DataFrame) -> None:
    cols = ["turnover", "costs", "profit"]
    release = mixture_noise(firms, cols, 0.08, 0.02, seed=11)
    factor = release["turnover"].to_numpy() / firms["turnover"].to_numpy()
    assert factor.mean() == pytest.approx(1.0, abs=0.001)
    assert (factor < 1).mean() == pytest.approx(0.5, abs=0.005)
    assert factor.std() == pytest.approx(math.hypot(0.08, 0.02), abs=0.001)
    assert math.hypot(0.08, 0.02) == pytest.approx(0.082462, abs=1e-6)
    for col in cols:
        assert (np.sign(release[col]) == np.sign(firms[col])).all()
    assert (release["profit"].to_numpy()[:1000] == 0).all()
    np.testing.assert_allclose(release["costs"] / release["turnover"],
                               firms["costs"] / firms["turnover"], rtol=1e-14)
    np.testing.assert_allclose(release["profit"] / release["turnover"],
                               firms["profit"] / firms["turnover"], rtol=1e-14, atol=0)


def test_hoe_f08_s02_properties(firms: pd.DataFrame) -> None:
    release = hoehne_noise(firms, ["turnover", "costs"], 0.08, 0.02, seed=12)
    f1 = release["turnover"].to_numpy() / firms["turnover"].to_numpy()
    f2 = release["costs"].to_numpy() / firms["costs"].to_numpy()
    against = np.sign(f1 - 1) != np.sign(f2 - 1)
    assert against.mean() < 2 * 1e-4                # each value crosses with P(Z < −4) ≈ 3e-5
    base = np.where(f1 + f2 > 2, 1.08, 0.92)
    assert np.std(f1 - base) == pytest.approx(0.02, abs=0.0005)
    assert np.std(f2 - base) == pytest.approx(0.02, abs=0.0005)
    assert (f1 > 1).mean() == pytest.approx(0.5, abs=0.005)
    assert not np.allclose(f1, f2)                  # one factor per value, not per record


def test_additive_covariance_and_kim(normal_pair: pd.DataFrame) -> None:
    cov = normal_pair.cov().to_numpy()
    raw = additive_noise(normal_pair, ["a", "b"], 0.1, kim_correction=False, seed=3)
    np.testing.assert_allclose(raw.cov().to_numpy(), 1.1 * cov, rtol=0.02)
    assert raw.corr().iloc[0, 1] == pytest.approx(normal_pair.corr().iloc[0, 1], abs=0.01)
    kim = additive_noise(normal_pair, ["a", "b"], 0.1, seed=3)
    np.testing.assert_allclose(kim.cov().to_numpy(), cov, rtol=0.02)
    sd = normal_pair.std().to_numpy()
    assert (np.abs(kim.mean().to_numpy() - normal_pair.mean().to_numpy()) < 0.01 * sd).all()
    # The corrected file is the Kim transform of the uncorrected one with the same noise.
    np.testing.assert_allclose(kim.to_numpy(),
                               kim_transform(raw.to_numpy(), 0.1, normal_pair.mean().to_numpy()))


def test_kim_winkler_eq_6_66(firms: pd.DataFrame) -> None:
    d = 0.0005
    release = lognormal_noise(firms, ["turnover", "costs"], d, seed=5)
    for col in ("turnover", "costs"):
        noise = np.log(release[col].to_numpy()) - np.log(firms[col].to_numpy())
        assert abs(noise.mean()) < 4 * noise.std() / math.sqrt(N)
        sigma_w2 = np.var(np.log(firms[col].to_numpy())) * d
        assert noise.var() == pytest.approx(sigma_w2, rel=0.02)
        estimate = np.var(np.log(release[col].to_numpy())) * d / (1 + d)
        assert estimate == pytest.approx(noise.var(), rel=0.02)
    both = np.log(release[["turnover", "costs"]].to_numpy()) - np.log(
        firms[["turnover", "costs"]].to_numpy())
    assert np.corrcoef(both, rowvar=False)[0, 1] == pytest.approx(
        np.corrcoef(np.log(firms[["turnover", "costs"]].to_numpy()), rowvar=False)[0, 1],
        abs=0.02)                                  # noise correlated like the logs


def test_controlled_noise_keeps_totals(firms: pd.DataFrame) -> None:
    sample = firms.iloc[:20_000]
    release = controlled_noise(sample, ["turnover", "costs"], 0.08, 0.02, seed=9)
    for col in ("turnover", "costs"):
        assert release[col].sum() == pytest.approx(sample[col].sum(), rel=1e-12)
        factor = release[col].to_numpy() / sample[col].to_numpy()
        # all but the smallest move by roughly f
        assert np.median(np.abs(factor - 1)) == pytest.approx(0.08, abs=0.005)
        # cumulative deviations stay small: subtotals by size are kept
        order = np.argsort(-sample[col].to_numpy(), kind="stable")
        drift = np.cumsum(release[col].to_numpy()[order] - sample[col].to_numpy()[order])
        assert np.abs(drift).max() <= 0.2 * sample[col].max()


def test_controlled_hoehne_start_uses_base_factors() -> None:
    data = pd.DataFrame({"x": [20.0, 100.0, 50.0, 30.0, 10.0]})
    out = controlled_noise(data, ["x"], 0.1, 0.02, hoehne_start=True, seed=4)["x"]
    assert out[1] == pytest.approx(90.0, abs=1e-12)
    assert out[2] == pytest.approx(55.0, abs=1e-12)
    assert out.sum() == pytest.approx(210.0, abs=1e-9)
    plain = controlled_noise(data, ["x"], 0.1, 0.02, seed=4)["x"]
    assert plain[1] != pytest.approx(90.0, abs=1e-6)


def test_controlled_negative_last_value_fails_after_redraws() -> None:
    data = pd.DataFrame({"x": [100.0, 99.0, 98.0, 1.0]})
    with pytest.raises(InputError, match="100 attempts") as info:
        controlled_noise(data, ["x"], 0.5, 0.0, seed=1)
    assert info.value.column == "x"


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=30),
       st.lists(st.floats(0.001, 0.999), min_size=30, max_size=30))
def test_controlled_values_keep_total(values: list[float], w: list[float]) -> None:
    x = np.sort(np.asarray(values))[::-1]
    out = controlled_values(x, w[: x.size - 1])
    assert out.sum() == pytest.approx(x.sum(), rel=1e-9, abs=1e-6)
    if x.size > 1:
        assert out[0] == pytest.approx((1 - w[0]) * x[0])


def test_controlled_values_rejects_wrong_length() -> None:
    with pytest.raises(InputError, match="4 factors"):
        controlled_values([5, 4, 3, 2, 1], [0.1, 0.1])


def test_trans_grupp_blocks(firms: pd.DataFrame) -> None:
    sample = firms.iloc[:250]
    noisy = mixture_noise(sample, ["turnover"], 0.11, 0.03, seed=2)
    out = moment_correction(sample, noisy, ["turnover"], block=100)["turnover"].to_numpy()
    order = np.argsort(-sample["turnover"].to_numpy(), kind="stable")
    for block in (order[:100], order[100:]):        # 100 and 150 (remainder absorbed)
        orig = sample["turnover"].to_numpy()[block]
        assert out[block].mean() == pytest.approx(orig.mean(), rel=1e-12)
        assert out[block].std() == pytest.approx(orig.std(), rel=1e-9)
    whole = moment_correction(sample, noisy, ["turnover"])["turnover"]
    assert whole.mean() == pytest.approx(sample["turnover"].mean(), rel=1e-12)
    assert not np.allclose(whole.to_numpy(), out)


def test_moment_correction_constant_block_only_shifted() -> None:
    original = pd.DataFrame({"x": [0.0, 0.0, 0.0, 5.0]})
    out = moment_correction(original, original.copy(), ["x"])
    np.testing.assert_allclose(out["x"], [0.0, 0.0, 0.0, 5.0])
    zeros = pd.DataFrame({"x": [0.0, 0.0]})
    assert moment_correction(zeros, zeros, ["x"])["x"].tolist() == [0.0, 0.0]


def test_moment_correction_rejects_mismatch() -> None:
    with pytest.raises(InputError) as info:
        moment_correction(pd.DataFrame({"x": [1.0, 2.0]}), pd.DataFrame({"x": [1.0, np.nan]}),
                          ["x"])
    assert (info.value.column, info.value.row) == ("x", 2)
    with pytest.raises(InputError, match="block"):
        moment_correction(SMALL, SMALL, ["x"], block=1)


# --- common contract ------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:log-normal noise with shift")
@pytest.mark.parametrize("method", METHODS)
def test_contract(method) -> None:
    before = SMALL.copy()
    a = method(SMALL, 42)
    pd.testing.assert_frame_equal(SMALL, before)                      # input untouched
    pd.testing.assert_frame_equal(a, method(SMALL, 42))               # deterministic
    assert not a[["x", "y"]].equals(method(SMALL, 43)[["x", "y"]])    # seed matters
    assert a["id"].tolist() == SMALL["id"].tolist()
    assert a.index.equals(SMALL.index)
    assert a["x"].dtype == "float64" and a["y"].dtype == "float64"
    assert a["y"].isna().tolist() == SMALL["y"].isna().tolist()       # missing stays missing


def test_columns_use_their_own_streams() -> None:
    two = hoehne_noise(SMALL, ["x", "y"], 0.08, 0.02, seed=1)
    one = hoehne_noise(SMALL, ["x"], 0.08, 0.02, seed=1)
    assert two["x"].tolist() == one["x"].tolist()


@pytest.mark.parametrize(("call", "column"), [
    (lambda: mixture_noise(SMALL, ["id"], 0.08, 0.02), "id"),
    (lambda: hoehne_noise(SMALL.assign(x=[1, np.inf, 2, 3, 4]), ["x"], 0.08, 0.02), "x"),
    (lambda: additive_noise(SMALL, ["x", "missing"], 0.1), "missing"),
    (lambda: lognormal_noise(SMALL, ["x"], 0.0005), "x"),
    (lambda: additive_noise(SMALL.assign(z=1.0), ["x", "z"], 0.1), "z"),
])
def test_rejects_bad_columns(call, column: str) -> None:
    with pytest.raises(InputError) as info:
        call()
    assert info.value.column == column


def test_rejects_infinite_value_row() -> None:
    with pytest.raises(InputError) as info:
        mixture_noise(SMALL.assign(x=[1, 2, -np.inf, 3, 4]), ["x"], 0.08, 0.02)
    assert info.value.row == 3


@pytest.mark.parametrize("call", [
    lambda: mixture_noise(SMALL, ["x"], 0.0, 0.02),
    lambda: mixture_noise(SMALL, ["x"], -0.1, 0.02),
    lambda: mixture_noise(SMALL, ["x"], 1.0, 0.02),
    lambda: hoehne_noise(SMALL, ["x"], 0.08, -0.01),
    lambda: controlled_noise(SMALL, ["x"], 0.08, -0.01),
    lambda: additive_noise(SMALL, ["x"], 0.0),
    lambda: lognormal_noise(SMALL, ["x"], 1.0, shift=1.0),
    lambda: lognormal_noise(SMALL, ["x"], -0.1, shift=1.0),
    lambda: uniform_noise(SMALL, ["x"], 1.5, 0.5),
    lambda: mixture_noise(SMALL, ["x"], 0.08, 0.02, seed=-1),
])
def test_rejects_bad_parameters(call) -> None:
    with pytest.raises(InputError, match="parameter|seed"):
        call()


def test_hoehne_warns_only_above_half_f() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hoehne_noise(SMALL, ["x"], 0.04, 0.02)     # the handbook's boundary set
    with pytest.warns(UserWarning, match="f/2"):
        hoehne_noise(SMALL, ["x"], 0.04, 0.021)


def test_lognormal_shift_warns_about_zeros() -> None:
    with pytest.warns(UserWarning, match="zeros"):
        out = lognormal_noise(SMALL, ["x"], 0.0005, shift=1.0)
    assert out["x"][1] != 0.0
    positive = SMALL.assign(x=[1, 2, 3, 4, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lognormal_noise(positive, ["x"], 0.0005)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_subnormal=False), min_size=2, max_size=40),
       st.integers(0, 2**32))
def test_mixture_keeps_signs_and_ratios(values: list[float], seed: int) -> None:
    data = pd.DataFrame({"a": values, "b": [2.5 * v for v in values]})
    out = mixture_noise(data, ["a", "b"], 0.11, 0.03, seed=seed)
    assert (np.sign(out["a"]) == np.sign(data["a"])).all()
    np.testing.assert_allclose(out["b"], 2.5 * out["a"], rtol=1e-14)
    factor = out["a"][data["a"] != 0] / data["a"][data["a"] != 0]
    assert ((factor > 0) & (factor < 2)).all()
