"""Reference regressions on original and release (docs/method/utility.md; worked example 7 (docs/reference/worked-examples.md))."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from attack.errors import InputError
from attack.utility.regression import (
    INTERCEPT,
    Model,
    build_design,
    compare_model,
    fit_model,
    joint_ma_t_factor,
    mean_relative_deviation,
    parse_formula,
    relative_deviations,
    significance_band,
)

TINY = pd.DataFrame({"y": [1.0, 3, 2, 5, 4], "x": [1.0, 2, 3, 4, 5]})


def _binary_data(seed: int = 3, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = rng.uniform(0.5, 3, size=n)
    eta = -0.3 + 1.2 * x1 - 0.4 * x2
    return pd.DataFrame({"b": (eta + rng.logistic(size=n) > 0).astype(float), "x1": x1, "x2": x2})


# --- formula grammar --------------------------------------------------------------------------


def test_formula_terms_logs_and_intercept():
    f = parse_formula("y ~ x1 + log(x2) + `turn over`")
    assert f.response.column == "y" and not f.response.log
    assert f.coefficient_names == (INTERCEPT, "x1", "log(x2)", "turn over")
    assert f.columns == ("y", "x1", "x2", "turn over")
    assert parse_formula("log(y) ~ x - 1").coefficient_names == ("x",)
    assert parse_formula("log(y) ~ x - 1").response.log
    assert parse_formula("y ~ 0 + x").intercept is False
    assert parse_formula("y ~ x + 1").intercept is True
    assert parse_formula("y ~ 1").coefficient_names == (INTERCEPT,)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("y ~ sqrt(x)", "unknown function 'sqrt'"),
        ("y x", "expected '~'"),
        ("y ~ x +", "missing at the end"),
        ("y ~ x - z", "only '- 1'"),
        ("y ~ x + x", "given twice"),
        ("y ~ 2", "only 0 or 1"),
        ("y ~ log(x", "expected log(column)"),
        ("y ~ 0", "no regressor"),
        ("y ~ x * z", "cannot read"),
    ],
)
def test_formula_errors(text, fragment):
    with pytest.raises(InputError, match="model formula") as info:
        parse_formula(text)
    assert fragment in str(info.value)


def test_unknown_columns_are_all_named():
    with pytest.raises(InputError) as info:
        build_design(TINY, parse_formula("y ~ x + log(costs) + staff"))
    assert "costs, staff" in str(info.value)
    assert info.value.column == "costs"


def test_model_options_are_validated():
    with pytest.raises(InputError, match="estimator"):
        Model("y ~ x", estimator="tobit")
    with pytest.raises(InputError, match="standard errors"):
        Model("y ~ x", se="hc3")
    with pytest.raises(InputError, match="group size"):
        Model("y ~ x", ma_group_size=1)


# --- OLS ----------------------------------------------------------------------------------------


def test_ols_closed_form_on_five_points():
    fit, _ = fit_model(TINY, Model("y ~ x"))
    # slope = Sxy / Sxx = 8 / 10, intercept = 3 − 0.8 · 3; RSS = 3.6, σ² = 1.2
    assert fit.coef == pytest.approx([0.6, 0.8], abs=1e-12)
    assert fit.se[1] == pytest.approx(math.sqrt(1.2 / 10), abs=1e-12)
    assert fit.se[0] == pytest.approx(math.sqrt(1.2 * (1 / 5 + 9 / 10)), abs=1e-12)
    t = 0.8 / math.sqrt(0.12)
    assert fit.p[1] == pytest.approx(2 * stats.t.sf(t, 3), abs=1e-12)


def test_ols_hc1_closed_form_on_five_points():
    fit, _ = fit_model(TINY, Model("y ~ x", se="hc1"))
    # Σ (x − x̄)² e² / Sxx² · n / (n − k) with e = (−0.4, 0.8, −1.0, 1.2, −0.6)
    assert fit.se[1] == pytest.approx(math.sqrt(4.16 / 100 * 5 / 3), abs=1e-12)


def test_ols_matches_lstsq_and_sandwich_formula():
    rng = np.random.default_rng(7)
    n = 200
    x = rng.normal(size=(n, 3))
    y = 1 + x @ [0.5, -2, 0.1] + rng.normal(size=n) * (1 + np.abs(x[:, 0]))
    frame = pd.DataFrame({"y": y, "a": x[:, 0], "b": x[:, 1], "c": np.exp(x[:, 2])})
    design = np.column_stack([np.ones(n), x[:, 0], x[:, 1], x[:, 2]])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    e = y - design @ coef
    bread = np.linalg.inv(design.T @ design)
    classical, _ = fit_model(frame, Model("y ~ a + b + log(c)"))
    robust, _ = fit_model(frame, Model("y ~ a + b + log(c)", se="hc1"))
    assert classical.coef == pytest.approx(coef, abs=1e-10)
    assert classical.se == pytest.approx(np.sqrt(np.diag(bread) * (e @ e) / (n - 4)), rel=1e-10)
    sandwich = bread @ (design.T * e**2) @ design @ bread * n / (n - 4)
    assert robust.se == pytest.approx(np.sqrt(np.diag(sandwich)), rel=1e-10)
    assert classical.names == (INTERCEPT, "a", "b", "log(c)")


def test_missing_and_log_undefined_rows_are_dropped_listwise_and_counted():
    frame = pd.DataFrame(
        {
            "y": [1.0, 2, np.nan, 4, 5, 6, 7],
            "x": [1.0, 2, 3, 0, -1, 5, 8],
            "z": [1.0, 0, 2, 3, 1, 4, 2],
        }
    )
    fit, design = fit_model(frame, Model("y ~ log(x) + z"))
    assert (fit.n_used, fit.n_missing, fit.n_log_undefined) == (4, 1, 2)
    assert design.rows.tolist() == [0, 1, 5, 6]
    expected = np.linalg.lstsq(
        np.column_stack([np.ones(4), np.log([1.0, 2, 5, 8]), [1.0, 0, 4, 2]]),
        [1.0, 2, 6, 7],
        rcond=None,
    )[0]
    assert fit.coef == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("column", [[3.0] * 6, [0.0] * 6])
def test_constant_or_all_zero_regressor_is_named(column):
    frame = pd.DataFrame({"y": [1.0, 2, 4, 3, 6, 5], "x": [1.0, 2, 3, 4, 5, 7], "c": column})
    with pytest.raises(InputError, match="term\\(s\\) c are constant or collinear"):
        fit_model(frame, Model("y ~ x + c"))


def test_too_few_rows():
    with pytest.raises(InputError, match="2 usable rows for 2 coefficients"):
        fit_model(TINY.iloc[:2], Model("y ~ x"))


# --- logit and probit ---------------------------------------------------------------------------


def _neg_loglik(beta, x, y, estimator):
    eta = x @ beta
    if estimator == "logit":
        return -np.sum(y * eta - np.logaddexp(0, eta))
    return -np.sum(stats.norm.logcdf((2 * y - 1) * eta))


@pytest.mark.parametrize("estimator", ["logit", "probit"])
def test_binary_models_match_scipy_optimize(estimator):
    frame = _binary_data()
    fit, _ = fit_model(frame, Model("b ~ x1 + log(x2)", estimator=estimator))
    x = np.column_stack([np.ones(len(frame)), frame.x1, np.log(frame.x2)])
    y = frame.b.to_numpy()
    best = optimize.minimize(
        _neg_loglik, np.zeros(3), args=(x, y, estimator), method="BFGS", options={"gtol": 1e-10}
    )
    assert fit.coef == pytest.approx(best.x, abs=1e-5)
    # standard errors: inverse of the numerical Hessian of the negative log-likelihood
    h, k = 1e-4, 3
    hessian = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            ei, ej = np.eye(k)[i] * h, np.eye(k)[j] * h
            hessian[i, j] = (
                _neg_loglik(fit.coef + ei + ej, x, y, estimator)
                - _neg_loglik(fit.coef + ei - ej, x, y, estimator)
                - _neg_loglik(fit.coef - ei + ej, x, y, estimator)
                + _neg_loglik(fit.coef - ei - ej, x, y, estimator)
            ) / (4 * h * h)
    assert fit.se == pytest.approx(np.sqrt(np.diag(np.linalg.inv(hessian))), rel=1e-4)
    assert fit.p == pytest.approx(2 * stats.norm.sf(np.abs(fit.coef / fit.se)), abs=1e-14)


def test_logit_hc1_sandwich():
    frame = _binary_data(seed=5)
    fit, _ = fit_model(frame, Model("b ~ x1 + x2", estimator="logit", se="hc1"))
    x = np.column_stack([np.ones(len(frame)), frame.x1, frame.x2])
    p = 1 / (1 + np.exp(-x @ fit.coef))
    bread = np.linalg.inv((x.T * (p * (1 - p))) @ x)
    scores = x * (frame.b.to_numpy() - p)[:, None]
    n = len(frame)
    cov = bread @ scores.T @ scores @ bread * n / (n - 3)
    assert fit.se == pytest.approx(np.sqrt(np.diag(cov)), rel=1e-8)


def test_binary_model_needs_01_response_and_convergence():
    with pytest.raises(InputError, match="needs a 0/1 response") as info:
        fit_model(TINY, Model("y ~ x", estimator="probit"))
    assert info.value.column == "y"
    separated = pd.DataFrame({"b": [0.0, 0, 0, 1, 1, 1], "x": [1.0, 2, 3, 4, 5, 6]})
    with pytest.raises(InputError, match="did not converge"):
        fit_model(separated, Model("b ~ x", estimator="logit"))


# --- comparison (worked example 7 (docs/reference/worked-examples.md)) ----------------------------------------------------------------

F_U_4_ORIGINAL = (0.415, 0.339, 0.058, 0.113, 0.055, 1.804)
F_U_4 = [
    ((0.478, 0.319, 0.028, 0.097, 0.06, 1.66), (15.18, 5.90, 51.72, 14.16, 9.09, 7.98), 17.34),
    ((0.348, 0.396, 0.054, 0.136, 0.066, 1.567), (16.14, 16.81, 6.90, 20.35, 20.00, 13.14), 15.56),
    ((0.354, 0.376, 0.067, 0.131, 0.069, 1.636), (14.70, 10.91, 15.52, 15.93, 25.45, 9.31), 15.30),
    ((0.425, 0.322, 0.062, 0.121, 0.055, 1.741), (2.41, 5.01, 6.90, 7.08, 0.00, 3.49), 4.15),
]


@pytest.mark.parametrize("release, deviations, mean", F_U_4)
def test_f_u_4_relative_coefficient_deviations(release, deviations, mean):
    rd = relative_deviations(F_U_4_ORIGINAL, release)
    assert np.round(100 * rd, 2).tolist() == list(deviations)
    assert round(100 * mean_relative_deviation(F_U_4_ORIGINAL, release), 2) == mean


def test_f_u_4_only_column_4_within_ten_percent():
    within = [bool(np.all(relative_deviations(F_U_4_ORIGINAL, r) <= 0.10)) for r, _, _ in F_U_4]
    assert within == [False, False, False, True]


def test_zero_original_coefficient_is_left_out_of_the_mean():
    assert np.isnan(relative_deviations([0.0, 2.0], [1.0, 2.2])[0])
    assert mean_relative_deviation([0.0, 2.0], [1.0, 2.2]) == pytest.approx(0.1)
    assert mean_relative_deviation([0.0], [1.0]) is None


def test_f_u_6_joint_ma_t_factor():
    assert joint_ma_t_factor(1000, 4, 200) == pytest.approx(0.443606975367, abs=1e-12)
    with pytest.raises(InputError):
        joint_ma_t_factor(1000, 4, 4)


@pytest.mark.parametrize(
    "p, band",
    [
        (0.0099, "<0.01"),
        (0.01, "<0.05"),
        (0.0499, "<0.05"),
        (0.05, "<0.10"),
        (0.0999, "<0.10"),
        (0.10, ">=0.10"),
        (0.7, ">=0.10"),
        (None, None),
        (float("nan"), None),
    ],
)
def test_significance_bands(p, band):
    assert significance_band(p) == band


def test_compare_model_rows_and_t_correction():
    rng = np.random.default_rng(11)
    n = 1000
    original = pd.DataFrame({"y": rng.normal(size=n), "x": rng.normal(size=n)})
    original["y"] += 0.5 * original.x
    release = original.copy()
    release["x"] = -1.0 * original.x  # flips the slope's sign, keeps |t|
    cmp = compare_model(original, release, Model("y ~ x", ma_group_size=5))
    slope = cmp.coefficients[1]
    assert slope.term == "x" and slope.sign_change is True
    assert slope.deviation == pytest.approx(2.0)
    assert slope.band_change is False and slope.t_deviation == pytest.approx(2.0)
    factor = math.sqrt((200 - 2) / (1000 - 2))
    assert cmp.t_factor == pytest.approx(factor)
    assert slope.t_release_corrected == pytest.approx(slope.t_release * factor)
    assert cmp.coefficients[0].deviation == pytest.approx(0.0, abs=1e-12)
    assert cmp.mean_relative_deviation == pytest.approx(1.0)


def test_release_that_cannot_be_fitted_is_recorded_not_raised():
    original = pd.DataFrame({"y": [1.0, 2, 4, 3, 6], "x": [1.0, 2, 3, 4, 5]})
    release = original.assign(x=3.0)
    cmp = compare_model(original, release, Model("y ~ x"))
    assert cmp.release is None and "constant or collinear" in cmp.release_error
    assert all(c.release is None and c.sign_change is None for c in cmp.coefficients)
    assert cmp.to_dict()["release"] is None


def test_log_coverage_counts_units_losing_and_gaining_a_log():
    original = pd.DataFrame({"y": [1.0, 2, 3, 4, 5, 7], "x": [1.0, 0, 2, 3, 4, 6]})
    release = pd.DataFrame({"y": [1.0, 2, 3, 4, 5, 7], "x": [1.0, 0.5, 2, -1, 0, 6]})
    rows = (np.arange(6), np.arange(6))
    cmp = compare_model(original, release, Model("y ~ log(x)"), aligned=rows)
    assert (cmp.log_lost, cmp.log_gained) == (2, 1)
    coverage = cmp.to_dict()["log_coverage"]
    assert coverage["original_log_undefined"] == 1 and coverage["release_log_undefined"] == 2


@settings(max_examples=40, deadline=None)
@given(
    scale=st.floats(0.01, 100),
    seed=st.integers(0, 10_000),
)
def test_ols_scaling_the_response_scales_coefficients_not_t(scale, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {"y": rng.normal(size=30), "x": rng.normal(size=30), "z": rng.normal(size=30)}
    )
    base, _ = fit_model(frame, Model("y ~ x + z"))
    scaled, _ = fit_model(frame.assign(y=frame.y * scale), Model("y ~ x + z"))
    assert scaled.coef == pytest.approx(base.coef * scale, rel=1e-8, abs=1e-12)
    assert scaled.statistic == pytest.approx(base.statistic, rel=1e-8, abs=1e-9)
    same = compare_model(frame, frame.copy(), Model("y ~ x + z"))
    assert all(c.deviation == 0 and c.band_change is False for c in same.coefficients)
