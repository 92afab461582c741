"""Tests for attack.synth_attacks (docs/method/synthetic-attacks.md, worked example 9.3 (docs/reference/worked-examples.md))."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from attack.errors import InputError
from attack.io.columns import type_frame
from attack.synthetic_attacks import anonymeter as sa
from attack.synthetic_attacks.anonymeter import (
    UNTRUSTED,
    Rate,
    correct_guesses,
    inference,
    linkability,
    residual_risk,
    singling_out,
    singling_out_probability_integral,
    success_rate,
)
from attack.synthetic_attacks.space import prepare

TOL = 1e-9


def population(n: int, seed: int) -> pd.DataFrame:
    """Mixed-type records from one fixed distribution; different seeds give independent draws."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "income": rng.lognormal(10, 1, n).round(-1),
        "sex": rng.choice(["F", "M"], n),
        "region": rng.choice([f"R{i}" for i in range(12)], n),
        "hours": rng.normal(38, 8, n).round(1),
    })


# ---------------------------------------------------------------------------------------------
# Statistics: worked example 9.3 (docs/reference/worked-examples.md)


@pytest.mark.parametrize("k, rate, error", [
    (100, 0.202287302138, 0.035001803167),
    (50, 0.103049736185, 0.026372173447),
    (10, 0.023659683422, 0.012760499825),
])
def test_wilson_rates_fixture(k, rate, error):
    r = success_rate(k, 500)
    assert r.rate == pytest.approx(rate, abs=TOL)
    assert r.error == pytest.approx(error, abs=TOL)
    assert r.low == pytest.approx(rate - error, abs=TOL)
    assert r.high == pytest.approx(rate + error, abs=TOL)
    assert (r.n, r.k) == (500, k)


def test_residual_risk_fixture():
    risk = residual_risk(success_rate(100, 500), success_rate(50, 500))
    assert risk.value == pytest.approx(0.110638872586, abs=TOL)
    assert risk.error == pytest.approx(0.046974211173, abs=TOL)
    assert risk.low == pytest.approx(0.063664661412, abs=TOL)
    assert risk.high == pytest.approx(0.157613083759, abs=TOL)


def test_residual_risk_clipped_when_control_beats_main():
    far = residual_risk(success_rate(10, 500), success_rate(100, 500))
    assert (far.value, far.low, far.high) == (0.0, 0.0, 0.0) and far.error > 0
    near = residual_risk(success_rate(45, 500), success_rate(50, 500))
    assert near.value == 0.0 and near.low == 0.0 and 0 < near.high < 0.1


def test_residual_risk_undefined_when_control_rate_is_one():
    control = Rate(rate=1.0, error=0.0, low=1.0, high=1.0, n=10, k=10.0)
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert residual_risk(success_rate(5, 10), control) is None


def test_wilson_interval_touches_bounds_at_zero_and_all():
    none, every = success_rate(0, 3), success_rate(3, 3)
    assert none.low == 0.0 and none.rate > 0 and none.high < 1
    assert every.high == 1.0 and every.rate < 1 and every.low > 0


@pytest.mark.parametrize("n, w_max, expected", [(100, 0.01, 0.002652824925),
                                                 (1000, 1 / 1000, 0.000264344806)])
def test_singling_out_integral_fixture(n, w_max, expected):
    assert singling_out_probability_integral(n, 0.0, w_max) == pytest.approx(expected, abs=1e-12)
    numeric, _ = integrate.quad(lambda w: n * w * (1 - w) ** (n - 1), 0.0, w_max)
    assert numeric == pytest.approx(expected, abs=1e-12)


def test_rate_input_errors():
    with pytest.raises(InputError):
        success_rate(1, 0)
    with pytest.raises(InputError):
        success_rate(6, 5)
    with pytest.raises(InputError):
        success_rate(1, 5, confidence=1.0)


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 10_000), data=st.data(), confidence=st.floats(0.5, 0.999))
def test_rate_and_risk_ranges(n, data, confidence):
    k_main = data.draw(st.integers(0, n))
    k_control = data.draw(st.integers(0, n))
    main, control = success_rate(k_main, n, confidence), success_rate(k_control, n, confidence)
    for r in (main, control):
        assert 0 <= r.low <= r.rate <= r.high <= 1 and r.error > 0
    risk = residual_risk(main, control)
    assert 0 <= risk.low <= risk.value <= risk.high <= 1
    if k_main <= k_control:
        assert risk.value == 0.0


def test_assess_verdict_and_warnings():
    main, control = success_rate(100, 500), success_rate(50, 500)
    high = residual_risk(main, control).high
    ok = sa._assess("x", main, success_rate(10, 500), control, confidence=0.95, tau=high + 1e-6,
                    parameters={})
    assert ok.passed is True and ok.risk_basis == "residual" and ok.warnings == ()
    at_bound = sa._assess("x", main, success_rate(10, 500), control, confidence=0.95, tau=high,
                          parameters={})
    assert at_bound.passed is False  # strict: the upper bound must lie below τ
    no_control = sa._assess("x", main, success_rate(100, 500), None, confidence=0.95, tau=None,
                            parameters={})
    assert no_control.passed is None and no_control.risk_basis == "main"
    assert no_control.risk.value == main.rate and no_control.risk.high == main.high
    assert UNTRUSTED in no_control.warnings  # baseline rate equal to the attack rate
    undefined = Rate(rate=1.0, error=0.0, low=1.0, high=1.0, n=10, k=10.0)
    with pytest.warns(RuntimeWarning):
        bad = sa._assess("x", main, success_rate(0, 500), undefined, confidence=0.95, tau=0.9,
                         parameters={})
    assert bad.risk is None and bad.passed is False and sa.UNDEFINED_RESIDUAL in bad.warnings
    json.dumps(bad.to_dict())


# ---------------------------------------------------------------------------------------------
# Query evaluation against brute force


def brute_count(values: np.ndarray, queries: sa._Queries) -> np.ndarray:
    counts = []
    for cols, ops, vals in zip(queries.columns, queries.ops, queries.values, strict=True):
        ok = np.ones(len(values), dtype=bool)
        for c, op, v in zip(cols, ops, vals, strict=True):
            x = values[:, c]
            present = ~np.isnan(x)
            ok &= [x == v, present & (x != v), x < v, x > v, x <= v, x >= v, ~present,
                   present][op]
        counts.append(int(ok.sum()))
    return np.array(counts)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), p=st.integers(1, 4),
       a=st.integers(1, 3), nq=st.integers(1, 40))
def test_count_matches_equals_brute_force(seed, n, p, a, nq):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 5, (n, p)).astype(float)
    values[rng.random((n, p)) < 0.15] = np.nan
    a = min(a, p)
    columns = np.argsort(rng.random((nq, p)), axis=1)[:, :a]
    queries = sa._canonical(columns, rng.integers(0, 8, (nq, a)),
                            rng.integers(-1, 6, (nq, a)).astype(float))
    table = sa._Table.build(values)
    expected = brute_count(values, queries)
    np.testing.assert_array_equal(sa._count_matches(table, queries), expected)
    np.testing.assert_array_equal(sa._singles_out(table, queries), expected == 1)
    subsets = rng.random((3, n)) < 0.5
    by_subset = sa._count_matches(table, queries, subsets)
    for subset, counts in zip(subsets, by_subset, strict=True):
        np.testing.assert_array_equal(counts, brute_count(values[subset], queries))


def test_count_matches_chunked(monkeypatch):
    rng = np.random.default_rng(5)
    values = rng.integers(0, 6, (120, 3)).astype(float)
    queries = sa._canonical(np.tile([0, 1, 2], (80, 1)), rng.integers(0, 6, (80, 3)),
                            rng.integers(0, 6, (80, 3)).astype(float))
    monkeypatch.setattr(sa, "CHUNK_ROWS", 7)
    table, expected = sa._Table.build(values), brute_count(values, queries)
    np.testing.assert_array_equal(sa._count_matches(table, queries), expected)
    np.testing.assert_array_equal(sa._singles_out(table, queries), expected == 1)
    assert (expected == 1).any() and (expected > 1).any()


def test_random_queries_respect_column_kinds():
    data = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0], "c": ["a", None, "b", "b"]})
    numeric = np.array([True, False])
    [matrix], _ = sa._encode([data], ["x", "c"], numeric)
    q = sa._random_queries(sa._Table.build(matrix), numeric, 400, 2,
                           np.random.default_rng(0))
    missing = np.isin(q.ops, [sa.ISNULL, sa.NOTNULL])
    categorical = q.columns == 1
    assert set(np.unique(q.ops[categorical & ~missing])) == {sa.EQ, sa.NE}
    assert set(np.unique(q.ops[~categorical & ~missing])) == set(range(6))
    assert missing.any() and (np.sort(q.columns, axis=1) == [0, 1]).all()


# ---------------------------------------------------------------------------------------------
# Singling out: hand-counted cases


def test_univariate_hand_counted():
    # Synthetic rows (1,a) (2,b) (2,c) (5,c): queries num<=1, num>=5, num==1, num==5, cat=='a',
    # cat=='b' each select one synthetic record (6 queries).
    synthetic = pd.DataFrame({"num": [1, 2, 2, 5], "cat": ["a", "b", "c", "c"]})
    # Original: only num==5 selects exactly one record.
    original = pd.DataFrame({"num": [1, 1, 3, 5, 7], "cat": ["a", "b", "b", "c", "a"]})
    # Control (same size): num<=1, num==5 and cat=='b' single out.
    control = pd.DataFrame({"num": [0, 5, 9, 9, 8], "cat": ["b", "a", "a", "c", "c"]})
    r = singling_out(original, synthetic, control, mode="univariate", n_attacks=10,
                     quote_examples=True)
    assert (r.main.n, r.main.k, r.control.k) == (6, 1, 3)
    assert r.parameters["n_queries"] == 6 and r.parameters["n_attacks_requested"] == 10
    assert any("only 6 of the 10" in w for w in r.warnings)
    assert r.parameters["examples"] == ["num == 5"]
    assert "control_size_correction" not in r.parameters
    short = singling_out(original, synthetic, control, mode="univariate", n_attacks=4)
    assert short.main.n == 4 and not any("only" in w for w in short.warnings)


def test_multivariate_hand_counted():
    # median(num) = 2.5. Record (1,a) gives num<=1 & cat=='a' (1 synthetic row: kept),
    # (2,a) num<=2 & cat=='a' (2 rows), (3,b) num>=3 & cat=='b' (2 rows),
    # (4,b) num>=4 & cat=='b' (kept).
    synthetic = pd.DataFrame({"num": [1, 2, 3, 4], "cat": ["a", "a", "b", "b"]})
    original = pd.DataFrame({"num": [0, 1, 4, 4], "cat": ["a", "a", "b", "a"]})
    r = singling_out(original, synthetic, mode="multivariate", n_cols=2, n_attacks=5, quote_examples=True,
                     max_attempts=2000)
    assert (r.main.n, r.main.k) == (2, 1)
    assert r.parameters["n_attempts"] == 2000
    assert r.parameters["examples"] == ["num >= 4 & cat == 'b'"]
    assert r.control is None and r.risk.value == r.main.rate


def test_duplicates_removed_first():
    synthetic = pd.DataFrame({"num": [1, 1, 2, 2, 2], "cat": ["a", "a", "b", "b", "c"]})
    # Deduplicated: (1,a) (2,b) (2,c) → num<=1, num==1, cat=='a', cat=='b', cat=='c'.
    r = singling_out(synthetic, synthetic, mode="univariate", n_attacks=50)
    assert r.parameters["n_queries"] == 5 and r.main.k == 5
    assert r.parameters["rows_after_deduplication"] == {"original": 3, "synthetic": 3}


def test_queries_are_not_quoted_unless_asked():
    """A successful query singles out a real record: it stays out of the results by default."""
    synthetic = pd.DataFrame({"x": [1.0, 1.0, np.nan, 3.0, 3.0], "y": [0, 1, 0, 1, 0]})
    original = pd.DataFrame({"x": [np.nan, 2.0, 2.0], "y": [1, 1, 0]})
    r = singling_out(original, synthetic, mode="univariate", n_attacks=50)
    assert "examples" not in r.to_dict()["parameters"]


def test_single_missing_value_gives_null_query():
    synthetic = pd.DataFrame({"x": [1.0, 1.0, np.nan, 3.0, 3.0], "y": [0, 1, 0, 1, 0]})
    original = pd.DataFrame({"x": [np.nan, 2.0, 2.0], "y": [1, 1, 0]})
    r = singling_out(original, synthetic, mode="univariate", n_attacks=50, quote_examples=True)
    # x is null (1 synthetic row, 1 original row) is the only univariate query.
    assert (r.main.n, r.main.k) == (1, 1) and r.parameters["examples"] == ["x is null"]


def test_control_size_correction_applied():
    original, control = population(1200, 1), population(500, 2)
    r = singling_out(original, original, control, n_attacks=300, seed=3)
    info = r.parameters["control_size_correction"]
    model = sa._size_model
    factor = model(np.array(1200.0), info["w_eff"], info["norm"]) / model(
        np.array(500.0), info["w_eff"], info["norm"])
    assert info["factor"] == pytest.approx(float(factor), rel=1e-12)
    assert r.control.k == pytest.approx(r.parameters["control_successes_raw"] * factor)
    assert len(info["subsample_sizes"]) == 50 and info["subsample_sizes"][0] == 50
    # beside the corrected risk: the risk without extrapolation, and the interval over the
    # factor's bootstrap interval, which covers the decided interval
    low, high = info["factor_interval"]
    assert 0 < low <= high and info["fit_bootstraps"] == 100
    raw = sa.residual_risk(r.main, sa.success_rate(r.parameters["control_successes_raw"], r.main.n))
    assert r.parameters["risk_without_correction"] == raw.to_dict()
    with_fit = r.parameters["risk_interval_with_fit"]
    assert with_fit[0] <= r.risk.low and with_fit[1] >= r.risk.high
    at_high = sa.residual_risk(r.main, sa.success_rate(min(r.parameters["control_successes_raw"] * high, r.main.n),
                                                       r.main.n))
    assert with_fit[0] <= at_high.low


# ---------------------------------------------------------------------------------------------
# Singling out: behaviour on copies and independent releases


@pytest.mark.parametrize("mode", ["univariate", "multivariate"])
def test_copy_release_is_risky_independent_release_is_not(mode):
    original, control, independent = population(1500, 1), population(1500, 2), population(1500, 3)
    copy = singling_out(original, original, control, mode=mode, n_attacks=300, tau=0.2)
    assert copy.main.k == copy.main.n  # every query singles out its source record
    assert copy.risk.low > 0.5 and copy.passed is False
    fresh = singling_out(original, independent, control, mode=mode, n_attacks=300, tau=0.2)
    assert fresh.risk.low == 0.0 and fresh.passed is True
    assert fresh.baseline.rate < fresh.main.rate


def test_singling_out_deterministic():
    original, synthetic = population(400, 1), population(400, 4)
    a = singling_out(original, synthetic, population(300, 2), seed=7, quote_examples=True).to_dict()
    b = singling_out(original, synthetic, population(300, 2), seed=7, quote_examples=True).to_dict()
    assert json.dumps(a) == json.dumps(b)
    c = singling_out(original, synthetic, population(300, 2), seed=8, quote_examples=True).to_dict()
    assert c["parameters"]["examples"] != a["parameters"]["examples"]


def test_singling_out_input_errors():
    data = population(50, 1)
    with pytest.raises(InputError):
        singling_out(data, data, n_attacks=0)
    with pytest.raises(InputError, match="column"):
        singling_out(data, data, columns=["age", "nope"])
    with pytest.raises(InputError):
        singling_out(data, data, mode="bivariate")
    with pytest.raises(InputError):
        singling_out(data, data, n_cols=6)
    with pytest.raises(InputError):
        singling_out(data, data, tau=0.0)
    with pytest.raises(InputError, match="numeric"):
        singling_out(data, data.assign(age=data["age"].astype(str)))
    # Full 2×2×2 factorial: every value and every pair of values occurs at least twice.
    cube = pd.DataFrame([(a, b, c) for a in "xy" for b in "uv" for c in "st"],
                        columns=["a", "b", "c"])
    with pytest.raises(InputError, match="no multivariate query"):
        singling_out(cube, cube, n_cols=2, max_attempts=500)
    with pytest.raises(InputError, match="no univariate query"):
        singling_out(cube, cube, mode="univariate")


def test_to_dict_is_json_ready():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = singling_out(population(200, 1), population(200, 2), population(200, 3),
                         n_attacks=50).to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["attack"] == "singling_out_multivariate"


# ---------------------------------------------------------------------------------------------
# Inference correctness rule: worked example 9.5 (docs/reference/worked-examples.md), docs/method/synthetic-attacks.md pitfalls 1–2


def test_tolerance_pitfall_fixture():
    guess, truth = np.array([-5.0]), np.array([100.0])
    assert np.abs(guess - truth) / (guess + 1e-12) <= 0.05  # Anonymeter's rule calls it correct
    assert not correct_guesses(guess, truth, numeric=True, gamma=0.05)[0]


def test_numeric_guess_rules():
    guesses = np.array([104.0, 105.0, -96.0, 0.0, 1e-9, np.nan, np.nan, 3.0, 110.0])
    truth = np.array([100.0, 100.0, -100.0, 0.0, 0.0, np.nan, 1.0, np.nan, 100.0])
    expected = [True, False, True, True, False, True, False, False, False]
    np.testing.assert_array_equal(correct_guesses(guesses, truth, numeric=True, gamma=0.05),
                                  expected)
    # divides by the true value: 110 vs 100 is 10% off (not < 0.10); 100 vs 110 is 9.09% off
    assert not correct_guesses([110.0], [100.0], numeric=True, gamma=0.10)[0]
    assert correct_guesses([100.0], [110.0], numeric=True, gamma=0.10)[0]


def test_categorical_guess_rules():
    guesses = np.array(["a", None, "a", None, 1], dtype=object)
    truth = np.array(["a", None, None, "b", 1.0], dtype=object)
    np.testing.assert_array_equal(correct_guesses(guesses, truth, numeric=False, gamma=0.1),
                                  [True, True, False, False, True])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=20), st.floats(1e-3, 1.0))
def test_exact_guess_always_correct(values, gamma):
    x = np.array(values)
    assert correct_guesses(x, x, numeric=True, gamma=gamma).all()
    assert not correct_guesses(x + 2 * gamma * np.abs(x) + 1e-3, x, numeric=True,
                               gamma=gamma).any()


# ---------------------------------------------------------------------------------------------
# Linkability and inference


def continuous(n: int, seed: int) -> pd.DataFrame:
    """Records without ties on any column (nearest neighbours are unambiguous)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a1": rng.normal(0, 1, n), "a2": rng.uniform(0, 10, n),
                         "b1": rng.normal(5, 2, n), "b2": rng.exponential(3, n),
                         "secret": rng.lognormal(3, 1, n),
                         "group": rng.choice(["x", "y", "z"], n)})


def test_linkability_hand_counted():
    synthetic = pd.DataFrame({"x": [0.0, 10.0, 20.0], "y": [0.0, 10.0, 5.0]})
    # Nearest on x / on y: (0.5, 0.2) → s0 / s0 linked; (19, 9) → s2 / s1; (11, 4) → s1 / s2.
    original = pd.DataFrame({"x": [0.5, 19.0, 11.0], "y": [0.2, 9.0, 4.0]})
    one = linkability(original, synthetic, aux_columns=(["x"], ["y"]), n_attacks=3)
    assert (one.main.n, one.main.k) == (3, 1)
    # Two neighbours: x-sets {s0,s1} {s2,s1} {s1,s2}, y-sets {s0,s2} {s1,s2} {s2,s0}: all linked.
    two = linkability(original, synthetic, aux_columns=(["x"], ["y"]), n_attacks=3,
                      n_neighbors=2)
    assert two.main.k == 3
    # With 2 of 3 random neighbours per half, two sets always intersect.
    assert two.baseline.k == 3 and UNTRUSTED in two.warnings
    more = linkability(original, synthetic, aux_columns=(["x"], ["y"]), n_attacks=10)
    assert more.main.n == 3 and any("only 3 records" in w for w in more.warnings)


def test_linkability_matches_brute_force():
    original, synthetic, control = continuous(120, 1), continuous(150, 2), continuous(90, 3)
    columns = (["a1", "a2"], ["b1", "b2"])
    r = linkability(original, synthetic, control, aux_columns=columns, n_attacks=60,
                    n_neighbors=3, seed=11)
    numbers = original.drop(columns="group")
    ranges = numbers.max() - numbers.min()
    for frame, rng, rate in ((original, 0, r.main), (control, 1, r.control)):
        targets = sa._targets(frame, 60, sa._rngs(11, 3)[rng])
        sets = []
        for half in columns:
            t, s = targets[half].to_numpy(), synthetic[half].to_numpy()
            d = np.minimum(np.abs(t[:, None] - s[None]) / ranges[half].to_numpy(), 1).mean(2)
            sets.append(np.argsort(d, axis=1, kind="stable")[:, :3])
        expected = sum(bool(set(a) & set(b)) for a, b in zip(*sets, strict=True))
        assert (rate.k, rate.n) == (expected, min(60, len(frame)))


def test_inference_hand_counted():
    synthetic = pd.DataFrame({"x": [0.0, 10.0, 20.0], "y": [100.0, 200.0, -5.0]})
    # guesses: x=1 → 100 (true 105: 4.8% off), x=19 → −5 (true 100: wrong: the tolerance is relative to the true value),
    # x=9 → 200 (true 195: 2.6% off)
    original = pd.DataFrame({"x": [1.0, 19.0, 9.0], "y": [105.0, 100.0, 195.0]})
    r = inference(original, synthetic, aux_columns=["x"], secret="y", n_attacks=3)
    assert (r.main.n, r.main.k) == (3, 2) and r.parameters["gamma"] == 0.10
    strict = inference(original, synthetic, aux_columns=["x"], secret="y", n_attacks=3,
                       gamma=0.04)
    assert strict.main.k == 1
    labels = pd.DataFrame({"x": [0.0, 10.0, 20.0], "y": ["p", "q", None]})
    truth = pd.DataFrame({"x": [1.0, 19.0, 9.0], "y": ["p", None, "p"]})
    categorical = inference(truth, labels, aux_columns=["x"], secret="y", n_attacks=3)
    assert categorical.main.k == 2 and categorical.parameters["secret_numeric"] is False
    coded = inference(original, synthetic, aux_columns=["x"], secret="y", n_attacks=3,
                      categorical=["y"])
    assert coded.main.k == 0  # exact equality for a declared categorical secret


@pytest.mark.parametrize("secret", ["secret", "group"])
def test_inference_copy_and_independent_release(secret):
    original, control, independent = continuous(600, 1), continuous(600, 2), continuous(600, 3)
    aux = ["a1", "a2", "b1", "b2"]
    copy = inference(original, original, control, aux_columns=aux, secret=secret,
                     n_attacks=300, tau=0.3)
    assert copy.main.k == copy.main.n  # the nearest record is the target itself
    assert copy.risk.low > 0.5 and copy.passed is False
    fresh = inference(original, independent, control, aux_columns=aux, secret=secret,
                      n_attacks=300, tau=0.3)
    assert fresh.risk.low == 0.0 and fresh.passed is True


def test_linkability_copy_and_independent_release():
    original, control, independent = continuous(600, 1), continuous(600, 2), continuous(600, 3)
    columns = (["a1", "a2"], ["b1", "b2"])
    copy = linkability(original, original, control, aux_columns=columns, n_attacks=300)
    assert copy.main.k == copy.main.n and copy.risk.low > 0.8
    fresh = linkability(original, independent, control, aux_columns=columns, n_attacks=300,
                        n_neighbors=5)
    assert fresh.risk.low == 0.0


def test_linkability_and_inference_deterministic():
    original, synthetic, control = continuous(200, 1), continuous(200, 2), continuous(200, 3)
    for run in (
        lambda s: linkability(original, synthetic, control, aux_columns=(["a1"], ["b1"]),
                              n_attacks=100, n_neighbors=10, seed=s),
        lambda s: inference(original, synthetic, control, aux_columns=["a1", "b1"],
                            secret="group", n_attacks=100, seed=s),
    ):
        assert json.dumps(run(4).to_dict(), allow_nan=False) == json.dumps(run(4).to_dict())


def test_linkability_and_inference_input_errors():
    data = continuous(30, 1)
    with pytest.raises(InputError, match="both auxiliary sets") as info:
        linkability(data, data, aux_columns=(["a1", "b1"], ["b1"]))
    assert info.value.column == "b1"
    with pytest.raises(InputError, match="not found"):
        linkability(data, data, aux_columns=(["a1"], ["nope"]))
    with pytest.raises(InputError):
        linkability(data, data, aux_columns=(["a1"], []))
    with pytest.raises(InputError):
        linkability(data, data, aux_columns=(["a1"], ["b1"]), n_neighbors=0)
    with pytest.raises(InputError):
        linkability(data, data, aux_columns=(["a1"], ["b1"]), n_attacks=0)
    with pytest.raises(InputError, match="secret"):
        inference(data, data, aux_columns=["a1", "secret"], secret="secret")
    with pytest.raises(InputError, match="not found"):
        inference(data, data, aux_columns=["a1"], secret="nope")
    with pytest.raises(InputError):
        inference(data, data, aux_columns=["a1"], secret="secret", n_attacks=0)
    with pytest.raises(InputError):
        inference(data, data, aux_columns=["a1"], secret="secret", gamma=0.0)


def as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame written as text and typed as the CSV reader types it."""
    return type_frame(frame.astype(str))


def test_text_files_behave_like_typed_ones():
    original, synthetic, control = population(300, 1), population(300, 2), population(300, 3)
    typed = singling_out(original, synthetic, control, n_attacks=100, seed=2).to_dict()
    text = singling_out(*(as_text(f) for f in (original, synthetic, control)), n_attacks=100,
                        seed=2).to_dict()
    assert text["parameters"]["numeric_columns"] == ["age", "income", "hours"]
    for key in ("main", "control", "baseline", "risk"):
        assert text[key] == typed[key]
    data, other = continuous(100, 1), continuous(100, 2)
    typed_inf = inference(data, other, aux_columns=["a1", "group"], secret="secret",
                          n_attacks=50)
    text_inf = inference(as_text(data), as_text(other), aux_columns=["a1", "group"],
                         secret="secret", n_attacks=50)
    assert text_inf.parameters["secret_numeric"] is True
    assert text_inf.main == typed_inf.main


def test_caller_space_is_used_and_recorded():
    original, synthetic = continuous(200, 1), continuous(200, 2)
    space = prepare(original, metric="euclidean", scaling="zscore")
    r = linkability(original, synthetic, aux_columns=(["a1", "group"], ["b1"]), n_attacks=50,
                    space=space)
    assert r.parameters["space"]["metric"] == "euclidean"
    assert r.parameters["space"]["columns"] == ["a1", "group", "b1"]
    default = inference(original, synthetic, aux_columns=["a1", "group"], secret="b2",
                        n_attacks=50)
    assert default.parameters["space"]["metric"] == "gower_mean"
    assert [c["name"] for c in default.parameters["space"]["categorical"]] == ["group"]


def test_unknown_categorical_column_rejected():
    data = continuous(30, 1)
    with pytest.raises(InputError, match="not found") as info:
        inference(data, data, aux_columns=["a1"], secret="group", categorical=["grup"])
    assert info.value.column == "grup"
    with pytest.raises(InputError, match="not found"):
        singling_out(data, data, categorical=["grup"])
