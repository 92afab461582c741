"""CAP family (docs/method/synthetic-attacks.md): synthpop table measures, SDMetrics CAP trio and
DisclosureProtection, binning, Papavasiliou (2020) kNN attribution; fixtures worked example 9.1 (docs/reference/worked-examples.md)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.synthetic_attacks import cap
from attack.synthetic_attacks.cap import (
    Binning,
    cap_scores,
    disclosure_protection,
    disclosure_protection_estimate,
    table_measures,
)

# worked example 9.1 (docs/reference/worked-examples.md)
TOY_ORIGINAL = pd.DataFrame({"q": list("AABBCDEF"), "t": list("xxxyyxyx")})
TOY_SYNTHETIC = pd.DataFrame({"q": list("AAABCCDE"), "t": list("xxyyyxxx")})


def test_table_measures_toy_fixture():
    m = table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t")
    assert (m.n_original, m.n_synthetic, m.n_b) == (8, 8, 7)
    expected = {
        "uio_pct": 50.0, "uis_pct": 50.0, "uiois_pct": 37.5, "repu_pct": 25.0,
        "dorig_pct": 75.0, "dsyn_pct": 37.5, "is_pct": 87.5, "iso_pct": 62.5, "dis_pct": 50.0,
        "disco_pct": 25.0, "disdio_pct": 12.5, "base_capd": 0.53125, "capd": 0.875,
        "caps": 0.708333333333, "dcap_d": 0.479166666667, "dcap_s": 0.479166666667,
        "dcap_b": 0.547619047619, "tcap_b_pct": 28.571428571429, "tcap_pct": 50.0,
    }
    for name, value in expected.items():
        assert getattr(m, name) == pytest.approx(value, abs=1e-11), name
    out = m.to_dict()
    assert out["keys"] == ["q"] and out["disco_pct"] == 25.0 and out["binning"] == {}


def test_sdmetrics_trio_and_protection_toy_fixture():
    s = cap_scores(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t")
    assert s.n_scored == 7 and s.n_original == 8
    assert s.sdmetrics_cap_score == pytest.approx(0.452380952381, abs=1e-11)
    assert s.sdmetrics_zero_cap_score == pytest.approx(0.520833333333, abs=1e-11)
    assert s.sdmetrics_generalized_cap_score == pytest.approx(0.442708333333, abs=1e-11)
    assert s.to_dict()["sdmetrics_cap_score"] == pytest.approx(0.452380952381, abs=1e-11)
    p = disclosure_protection(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t")
    assert p.baseline_protection == 0.5
    assert p.score == pytest.approx(0.904761904762, abs=1e-11)
    assert p.n_scored == 7


# -- brute force: SDMetrics' attackers written out record by record (docs/method/synthetic-attacks.md) --------


def _sdmetrics_brute(original, synthetic, keys, sensitive):
    def rows(frame, columns):
        return [tuple(r) for r in frame[columns].to_numpy().tolist()]

    table: dict[tuple, list[tuple]] = {}
    for key, secret in zip(rows(synthetic, keys), rows(synthetic, sensitive), strict=True):
        table.setdefault(key, []).append(secret)
    cap_sum, cap_n, zero_sum, gen_sum = 0.0, 0, 0.0, 0.0
    for key, secret in zip(rows(original, keys), rows(original, sensitive), strict=True):
        if key in table:
            p = table[key].count(secret) / len(table[key])
            cap_sum, cap_n, zero_sum = cap_sum + p, cap_n + 1, zero_sum + p
        distance = {k: sum(a != b for a, b in zip(k, key, strict=True)) for k in table}
        best = min(distance.values())
        pool = [v for k, values in table.items() if distance[k] == best for v in values]
        gen_sum += pool.count(secret) / len(pool)
    n = len(original)
    return (cap_sum / cap_n if cap_n else None), zero_sum / n, gen_sum / n, cap_n


def _frame(draw_codes, n_keys, n_sens):
    columns = {f"k{i}": draw_codes[:, i] for i in range(n_keys)}
    columns.update({f"s{j}": draw_codes[:, n_keys + j] for j in range(n_sens)})
    return pd.DataFrame(columns)


def _random_pair(seed, n_o, n_s, n_keys, n_sens, levels):
    rng = np.random.default_rng(seed)
    o = _frame(rng.integers(0, levels, size=(n_o, n_keys + n_sens)), n_keys, n_sens)
    s = _frame(rng.integers(0, levels, size=(n_s, n_keys + n_sens)), n_keys, n_sens)
    return o, s, [f"k{i}" for i in range(n_keys)], [f"s{j}" for j in range(n_sens)]


@pytest.mark.parametrize("groupby_cost", [0, 10**9])
@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_o=st.integers(1, 25),
    n_s=st.integers(1, 25),
    n_keys=st.integers(1, 4),
    n_sens=st.integers(1, 2),
    levels=st.integers(1, 4),
)
def test_trio_matches_brute_force(groupby_cost, seed, n_o, n_s, n_keys, n_sens, levels):
    # both Hamming searches (grouping by agreeing columns; blocked distance matrix)
    original, synthetic, keys, sens = _random_pair(seed, n_o, n_s, n_keys, n_sens, levels)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cap, "GROUPBY_COST", groupby_cost)
        mp.setattr(cap, "BLOCK_ELEMENTS", 7)
        got = cap_scores(original, synthetic, keys, sens)
    want_cap, want_zero, want_gen, want_n = _sdmetrics_brute(original, synthetic, keys, sens)
    assert got.n_scored == want_n
    if want_cap is None:
        assert got.cap is None and got.sdmetrics_cap_score is None
    else:
        assert got.cap == pytest.approx(want_cap, abs=1e-12)
    assert got.zero_cap == pytest.approx(want_zero, abs=1e-12)
    assert got.generalized_cap == pytest.approx(want_gen, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_o=st.integers(1, 40),
    n_s=st.integers(1, 40),
    n_keys=st.integers(1, 3),
    levels=st.integers(1, 5),
)
def test_sdmetrics_cap_relations_and_ranges(seed, n_o, n_s, n_keys, levels):
    # docs/method/synthetic-attacks.md: CategoricalCAP = 1 − DCAP_b, ZeroCAP = 1 − DCAP_d
    original, synthetic, keys, sens = _random_pair(seed, n_o, n_s, n_keys, 1, levels)
    m = table_measures(original, synthetic, keys, sens)
    s = cap_scores(original, synthetic, keys, sens)
    assert s.sdmetrics_zero_cap_score == pytest.approx(1 - m.dcap_d, abs=1e-12)
    if m.n_b == 0:
        assert m.dcap_b is None and s.cap is None and m.tcap_b_pct is None
    else:
        assert s.sdmetrics_cap_score == pytest.approx(1 - m.dcap_b, abs=1e-12)
    assert s.n_scored == m.n_b
    out = m.to_dict()
    # UiS and DCAP_s mix N_s into an N_d measure (or back), so their ceiling is a size ratio
    ceiling = {"uis_pct": 100.0 * n_s / n_o, "dcap_s": n_o / n_s}
    for name, value in out.items():
        if name.endswith("_pct") and value is not None:
            assert 0.0 <= value <= ceiling.get(name, 100.0) + 1e-9, name
        elif name in ("base_capd", "capd", "caps", "dcap_d", "dcap_s", "dcap_b") and value:
            assert 0.0 <= value <= ceiling.get(name, 1.0) + 1e-12, name
    for value in (s.cap, s.zero_cap, s.generalized_cap):
        assert value is None or 0.0 <= value <= 1.0 + 1e-12
    assert m.iso_pct <= m.is_pct and m.disco_pct <= m.iso_pct and m.disdio_pct <= m.disco_pct
    assert m.uiois_pct <= m.uio_pct and m.repu_pct <= m.uiois_pct and m.dis_pct <= m.is_pct
    if n_o == n_s and m.n_b:
        # docs/method/synthetic-attacks.md with N_s = N_d
        assert m.tcap_b_pct >= m.disco_pct - 1e-9
        assert m.tcap_pct is None or m.tcap_pct + 1e-9 >= m.tcap_b_pct
        assert m.dcap_b + 1e-12 >= m.dcap_s == pytest.approx(m.dcap_d)


def test_rows_in_any_order_give_the_same_measures():
    original, synthetic, keys, sens = _random_pair(7, 60, 50, 2, 1, 3)
    a = table_measures(original, synthetic, keys, sens).to_dict()
    b = table_measures(original.sample(frac=1, random_state=1),
                       synthetic.sample(frac=1, random_state=2), keys, sens).to_dict()
    for name, value in a.items():
        assert b[name] == pytest.approx(value), name


def test_identical_synthetic_gives_maximal_values():
    original, _, keys, sens = _random_pair(3, 200, 1, 3, 1, 4)
    m = table_measures(original, original.copy(), keys, sens)
    assert m.dorig_pct > 10 and m.uio_pct > 5  # the toy has disclosive cells and uniques
    assert m.caps == pytest.approx(m.capd)
    assert m.dcap_d == pytest.approx(m.capd) and m.dcap_b == pytest.approx(m.capd)
    assert m.disco_pct == pytest.approx(m.dorig_pct) == pytest.approx(m.dsyn_pct)
    assert m.disdio_pct == pytest.approx(m.dorig_pct)
    assert m.is_pct == 100.0 and m.iso_pct == 100.0 and m.repu_pct == m.uio_pct
    assert m.tcap_b_pct == pytest.approx(m.dorig_pct) and m.tcap_pct == 100.0
    s = cap_scores(original, original.copy(), keys, sens)
    assert s.cap == pytest.approx(m.capd) and s.generalized_cap == pytest.approx(m.capd)


def test_independent_synthetic_is_near_the_baseline():
    rng = np.random.default_rng(11)
    n = 40_000

    def draw():
        return pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n),
                             "t": rng.choice(["x", "y", "z"], n, p=[0.5, 0.3, 0.2])})

    m = table_measures(draw(), draw(), ["a", "b"], "t")
    assert m.base_capd == pytest.approx(0.38, abs=0.01)
    assert m.dcap_d == pytest.approx(m.base_capd, abs=0.01)
    assert m.capd == pytest.approx(m.base_capd, abs=0.01)
    assert m.disco_pct == 0.0


def test_missing_value_is_a_level_of_its_own():
    original = pd.DataFrame({"k": ["a", None, None, np.nan], "t": [1, 1, 2, None]})
    synthetic = pd.DataFrame({"k": [None, "a"], "t": [1, np.nan]})
    s = cap_scores(original, synthetic, "k", "t")
    # "a" finds t = missing (wrong for t = 1); the three missing keys find t = 1
    assert s.n_scored == 4
    assert s.cap == pytest.approx((0 + 1 + 0 + 0) / 4)


def test_multiple_sensitive_columns_form_one_tuple():
    original = pd.DataFrame({"k": [1, 1], "s1": ["x", "x"], "s2": ["u", "v"]})
    synthetic = pd.DataFrame({"k": [1, 1, 1], "s1": ["x", "x", "y"], "s2": ["u", "w", "u"]})
    s = cap_scores(original, synthetic, "k", ["s1", "s2"])
    assert s.cap == pytest.approx((1 / 3 + 0) / 2)
    m = table_measures(original, synthetic, "k", ["s1", "s2"])
    assert m.dcap_d == pytest.approx(s.zero_cap)


# -- binning (docs/method/synthetic-attacks.md) ------------------------------------------------------------


def test_binning_is_fitted_on_the_original_only():
    original = pd.DataFrame({"x": [0.0, 10.0, 20.0, 30.0, 40.0], "t": list("abcde")})
    far = pd.DataFrame({"x": [-1000.0, 5.0, 1000.0], "t": list("abc")})
    m = table_measures(original, far, "x", "t", binning={"x": Binning.equal_width(4)})
    edges = m.binning["x"].edges
    assert edges == pytest.approx((10.0, 20.0, 30.0))  # original's range only
    assert m.to_dict()["binning"]["x"]["inner_edges"] == pytest.approx([10.0, 20.0, 30.0])
    fitted = m.binning["x"]
    # open outer bins; (a, b] intervals
    assert fitted.codes(np.array([-1000.0, 0.0, 10.0, 10.5, 40.0, 1000.0, np.nan])).tolist() == [
        0, 0, 0, 1, 3, 3, 4
    ]
    q = Binning.quantile(4).fit(np.array([1.0, 2, 3, 4, 5, 6, 7, 8, np.nan]), "x")
    assert q.edges == pytest.approx(tuple(np.quantile([1, 2, 3, 4, 5, 6, 7, 8], [0.25, 0.5, 0.75])))
    ties = Binning.quantile(4).fit(np.array([0.0, 0, 0, 0, 0, 0, 5, 9]), "x")
    assert ties.edges == pytest.approx((0.0, 1.25))
    left = Binning.breaks([10, 50, 250], closed="left").fit(np.array([1.0]), "x")
    assert left.codes(np.array([9.0, 10.0, 49.9, 50.0, 250.0])).tolist() == [0, 1, 1, 2, 3]
    # refitting on a different synthetic file changes nothing
    m2 = table_measures(original, original, "x", "t", binning={"x": Binning.equal_width(4)})
    assert m2.binning["x"].edges == edges


def test_equal_width_matches_pandas_cut_and_disclosure_protection_bins():
    rng = np.random.default_rng(5)
    real = rng.normal(size=300)
    labels, full = pd.cut(real, 10, labels=False, retbins=True)
    fitted = Binning.equal_width(10).fit(real, "x")
    assert fitted.codes(real).tolist() == labels.tolist()
    synth = rng.normal(scale=3, size=300)
    bins = full.copy()
    bins[0], bins[-1] = -np.inf, np.inf
    assert fitted.codes(synth).tolist() == pd.cut(synth, bins, labels=False).tolist()


def test_disclosure_protection_with_continuous_columns_and_undefined_values():
    rng = np.random.default_rng(2)
    original = pd.DataFrame({"x": rng.normal(size=50), "t": rng.integers(0, 2, 50)})
    synthetic = pd.DataFrame({"x": rng.normal(size=40), "t": rng.integers(0, 2, 40)})
    p = disclosure_protection(original, synthetic, "x", "t", continuous=["x"], method="zero_cap")
    assert p.binning["x"].spec == Binning.equal_width(10)
    direct = cap_scores(original, synthetic, "x", "t", binning={"x": Binning.equal_width(10)})
    assert p.cap_protection == pytest.approx(1 - direct.zero_cap)
    assert p.score == pytest.approx(min(p.cap_protection / 0.5, 1.0))
    # docs/method/synthetic-attacks.md: a constant sensitive column (baseline 0) → undefined, not 0 or 1
    constant = disclosure_protection(original.assign(t=1), synthetic, "x", "t", continuous=["x"])
    assert constant.baseline_protection == 0.0 and constant.score is None
    # no key found → undefined CAP with n_scored = 0
    apart = disclosure_protection(original.assign(k="a"), synthetic.assign(k="b"), "k", "t")
    assert apart.cap_protection is None and apart.score is None and apart.n_scored == 0
    assert apart.to_dict()["score"] is None


def test_disclosure_protection_estimate_is_seeded_and_full_sample_exact():
    original, synthetic, keys, sens = _random_pair(9, 120, 90, 2, 1, 3)
    a = disclosure_protection_estimate(original, synthetic, keys, sens, num_rows_subsample=30,
                                       num_iterations=4, seed=1)
    b = disclosure_protection_estimate(original, synthetic, keys, sens, num_rows_subsample=30,
                                       num_iterations=4, seed=1)
    assert a == b and a.n_iterations_defined == 4
    full = disclosure_protection(original, synthetic, keys, sens, method="generalized_cap")
    whole = disclosure_protection_estimate(original, synthetic, keys, sens,
                                           method="generalized_cap", num_rows_subsample=500,
                                           num_iterations=2, seed=3)
    assert whole.cap_protection == pytest.approx(full.cap_protection)
    assert whole.baseline_protection == full.baseline_protection == pytest.approx(1 - 1 / 3)


@pytest.mark.parametrize(
    "call",
    [
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, "missing", "t"),
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC.drop(columns="t"), "q", "t"),
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, [], "t"),
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "q"),
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC.iloc[:0], "q", "t"),
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t",
                               binning={"q": Binning.quantile(3)}),
        lambda: table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t",
                               binning={"other": Binning.quantile(3)}),
        lambda: Binning.quantile(0),
        lambda: Binning.breaks([3, 1]),
        lambda: Binning.breaks([]),
        lambda: cap_scores(TOY_ORIGINAL, TOY_SYNTHETIC, ["q", "q"], "t"),
        lambda: disclosure_protection(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t", method="majority"),
        lambda: disclosure_protection(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t", continuous=["q"]),
        lambda: disclosure_protection_estimate(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t",
                                               num_iterations=0),
    ],
)
def test_bad_input_raises_input_error(call):
    with pytest.raises(InputError):
        call()


def test_input_error_names_the_row_of_a_non_number():
    original = pd.DataFrame({"x": ["1", "2", "many"], "t": [1, 2, 3]})
    with pytest.raises(InputError) as err:
        table_measures(original, original, "x", "t", binning={"x": Binning.equal_width(2)})
    assert err.value.column == "x" and err.value.row == 3


def test_toy_relation_counts_are_consistent():
    # N_b is the original records whose key occurs in the synthetic data (iS · N_d / 100)
    m = table_measures(TOY_ORIGINAL, TOY_SYNTHETIC, "q", "t")
    assert m.n_b == round(m.is_pct * m.n_original / 100)
    assert math.isclose(m.dcap_b * m.n_b, m.dcap_d * m.n_original)


# -- Papavasiliou (2020) inverse-distance-weighted attribution (docs/method/synthetic-attacks.md, worked example 9.2 (docs/reference/worked-examples.md)) ----


def test_inverse_distance_weights_and_vote_fixture():
    assert cap.inverse_distance_weights(np.array([1, 2.5, 2.5, 5])) == pytest.approx(
        [0.5, 0.2, 0.2, 0.1]
    )
    assert cap.inverse_distance_weights(np.array([[0.0, 3.0, 0.0]])).tolist() == [[0.5, 0, 0.5]]
    weights = np.array([[0.3, 0.4, 0.25, 0.05]])
    assert cap.weighted_vote(weights, np.array([0, 1, 0, 2]), 3).tolist() == [0]  # a = 0.55
    # exact tie → first category in the fixed order
    assert cap.weighted_vote(np.array([[0.5, 0.5]]), np.array([2, 1]), 3).tolist() == [1]


def test_knn_attribution_reproduces_the_weighted_mean_fixture():
    # distances (1, 2.5, 2.5, 5) → weights (0.5, 0.2, 0.2, 0.1); values (2, 5, 5, 5) → 3.5
    original = pd.DataFrame({"x": [0.0], "y": [4.25]})  # truth = the simple mean
    synthetic = pd.DataFrame({"x": [1.0, 2.5, -2.5, 5.0], "y": [2.0, 5.0, 5.0, 5.0]})
    r = cap.knn_attribution(original, synthetic, "x", "y", target_type="numeric", scaling="none")
    assert r.mse == pytest.approx(0.75**2)
    assert r.baseline_mse == pytest.approx((4.25 - 4.25) ** 2)
    assert r.useful_share == 0.0 and r.baseline_useful_share == 1.0  # |3.5−4.25|/4.25 > 0.1
    assert r.n_exact == 0 and r.preparation["scaling"] == "none"
    vote_o = pd.DataFrame({"x": [0.0, 0.0], "y": ["b", "a"]})
    vote_s = pd.DataFrame({"x": [1 / 0.3, 1 / 0.4, -1 / 0.25, 1 / 0.05], "y": list("abac")})
    v = cap.knn_attribution(vote_o, vote_s, "x", "y", target_type="categorical", scaling="none")
    assert v.accuracy == 0.5 and v.majority_class == "a"
    assert v.baseline_majority_accuracy == 0.5
    assert v.baseline_marginal_accuracy == pytest.approx((0.25 + 0.5) / 2)


@pytest.mark.parametrize("k", [None, 1, 2])
def test_zero_distance_uses_every_exact_match(k):
    original = pd.DataFrame({"x": [1.0], "y": [2.0]})
    synthetic = pd.DataFrame({"x": [1.0, 5.0, 1.0, 1.0, 1.1], "y": [0.0, 100.0, 3.0, 3.0, 50.0]})
    r = cap.knn_attribution(original, synthetic, "x", "y", target_type="numeric",
                            scaling="none", k=k)
    assert r.n_exact == 1
    assert r.mse == pytest.approx(0.0)  # (0 + 3 + 3) / 3 = 2
    ties = pd.DataFrame({"x": [1.0, 1.0, 7.0], "y": ["b", "a", "b"]})
    for truth, accuracy in (("a", 1.0), ("b", 0.0)):
        v = cap.knn_attribution(pd.DataFrame({"x": [1.0], "y": [truth]}), ties, "x", "y",
                                target_type="categorical", scaling="none", k=k)
        assert v.accuracy == accuracy


def _idw_brute(original, synthetic, keys, target, k, categorical):
    """Papavasiliou (2020) written out per record: z-scores (sd with n − 1) of the original, Euclidean."""
    x_o = original[keys].to_numpy(float)
    x_s = synthetic[keys].to_numpy(float)
    mean, sd = x_o.mean(axis=0), x_o.std(axis=0, ddof=1)
    z_o, z_s = (x_o - mean) / sd, (x_s - mean) / sd
    values = synthetic[target].to_numpy()
    out = []
    for row in z_o:
        d = np.sqrt(((z_s - row) ** 2).sum(axis=1))
        if (d == 0).any():
            use, w = np.flatnonzero(d == 0), np.ones(int((d == 0).sum()))
        else:
            # distances equal up to rounding are ties, broken by the lower synthetic row
            use = np.lexsort((np.arange(len(d)), np.round(d, 12)))[: k or len(d)]
            w = 1 / d[use]
        w = w / w.sum()
        if categorical:
            score = {c: w[values[use] == c].sum() for c in sorted(set(values[use]))}
            best = max(score.values())
            out.append(next(c for c in sorted(score) if score[c] >= best - 1e-12))
        else:
            mean = float((w * values[use]).sum())
            out.append(0.0 if abs(mean) <= cap.ROUNDING * np.abs(values[use]).max() else mean)
    return np.array(out)


def _tie_at_cutoff(original, synthetic, k):
    """Whether some original record has distinct synthetic records at the same non-zero distance
    across its k-th neighbour: which of them is used then rests on the last bit of a distance
    computed in a different order, not on the method."""
    if k is None or k >= len(synthetic):
        return False
    x_o, x_s = original[["a", "b"]].to_numpy(float), synthetic[["a", "b"]].to_numpy(float)
    mean, sd = x_o.mean(axis=0), x_o.std(axis=0, ddof=1)
    d = np.sqrt(((((x_s - mean) / sd)[None] - ((x_o - mean) / sd)[:, None]) ** 2).sum(axis=2))
    d.sort(axis=1)
    return bool(np.any((np.abs(d[:, k - 1] - d[:, k]) < 1e-9) & (d[:, k - 1] > 0)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([None, 1, 3]),
       n_o=st.integers(3, 20), n_s=st.integers(3, 20))
def test_knn_attribution_matches_brute_force(seed, k, n_o, n_s):
    rng = np.random.default_rng(seed)

    def draw(n):  # coarse values so that exact matches and distance ties occur
        return pd.DataFrame({"a": rng.integers(0, 3, n).astype(float),
                             "b": rng.integers(0, 3, n).astype(float),
                             "y": rng.integers(-2, 3, n).astype(float),
                             "c": rng.choice(["p", "q", "r"], n)})

    original, synthetic = draw(n_o), draw(n_s)
    if (original[["a", "b"]].std() == 0).any() or _tie_at_cutoff(original, synthetic, k):
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cap, "BLOCK_ELEMENTS", 5)
        num = cap.knn_attribution(original, synthetic, ["a", "b"], "y", target_type="numeric",
                                  k=k, gamma=0.5)
        cat = cap.knn_attribution(original, synthetic, ["a", "b"], "c",
                                  target_type="categorical", k=k)
    guess = _idw_brute(original, synthetic, ["a", "b"], "y", k, categorical=False)
    truth = original["y"].to_numpy()
    assert num.mse == pytest.approx(np.mean((guess - truth) ** 2), abs=1e-9)
    with np.errstate(divide="ignore", invalid="ignore"):
        useful = np.where(truth == 0, guess == 0, np.abs(guess - truth) / np.abs(truth) < 0.5)
    assert num.useful_share == pytest.approx(useful.mean())
    votes = _idw_brute(original, synthetic, ["a", "b"], "c", k, categorical=True)
    assert cat.accuracy == pytest.approx(np.mean(votes == original["c"].to_numpy()))
    for share in (num.useful_share, cat.accuracy, cat.baseline_marginal_accuracy):
        assert 0.0 <= share <= 1.0


def test_knn_baselines_zero_rule_and_seeded_sample():
    original = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0.0, 10.0, 0.0, 4.0]})
    synthetic = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0.0, 9.5, 1e-9, 4.0]})
    r = cap.knn_attribution(original, synthetic, "x", "y", target_type="numeric")
    # exact matches everywhere: ŷ = (0, 9.5, 1e-9, 4); 1e-9 against a true 0 is not useful
    assert r.n_exact == 4 and r.useful_share == 0.75
    assert r.mse == pytest.approx((0.25 + 1e-18) / 4)
    mean = synthetic["y"].mean()
    assert r.baseline_mse == pytest.approx(np.mean((mean - original["y"]) ** 2))
    tolerant = cap.knn_attribution(original, synthetic, "x", "y", target_type="numeric",
                                   zero_tolerance=1e-6)
    assert tolerant.useful_share == 1.0
    a = cap.knn_attribution(original, synthetic, "x", "y", target_type="numeric",
                            n_attacks=2, seed=4)
    assert a == cap.knn_attribution(original, synthetic, "x", "y", target_type="numeric",
                                    n_attacks=2, seed=4)
    assert a.n_attacked == 2 and a.seed == 4 and a.to_dict()["n_attacks"] == 2


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": 0},
        {"n_attacks": 5},
        {"target_type": "ordinal"},
        {"gamma": 0.0},
        {"scaling": "log"},
    ],
)
def test_knn_attribution_bad_input(kwargs):
    original = pd.DataFrame({"x": [0.0, 1.0, 2.0], "y": [1.0, 2.0, 3.0]})
    options = {"target_type": "numeric", **kwargs}
    with pytest.raises(InputError):
        cap.knn_attribution(original, original, "x", "y", **options)
    with pytest.raises(InputError):
        cap.knn_attribution(original, original, ["x", "y"], "y", target_type="numeric")
