"""Analysis-potential checks and the utility profile (docs/method/utility.md; worked example 7 (docs/reference/worked-examples.md))."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from attack.errors import InputError
from attack.utility.profile import (
    EXCEEDS,
    NA,
    WITHIN,
    Case,
    Family,
    Thresholds,
    absolute_status,
    relative_status,
    sign_status,
    utility_profile,
    value_changes,
)
from attack.utility.regression import Model

# --- threshold boundaries (worked example 7 (docs/reference/worked-examples.md), docs/method/utility.md) -------------------------------------


def _status(fn, o, r, *args):
    return fn(np.array([o], dtype=float), np.array([r], dtype=float), *args)


def test_relative_boundary_exactly_ten_percent_is_within():
    deviation, status, _ = _status(relative_status, 100, 110, 0.10)
    assert deviation[0] == pytest.approx(0.1) and status == [WITHIN]
    assert _status(relative_status, 100, 110.0001, 0.10)[1] == [EXCEEDS]
    assert _status(relative_status, 100, 90, 0.10)[1] == [WITHIN]
    assert _status(relative_status, -100, -89.99, 0.10)[1] == [EXCEEDS]
    # binary rounding: 3 → 3.3 is exactly 10 %
    assert _status(relative_status, 3, 3.3, 0.10)[1] == [WITHIN]


def test_correlation_boundaries():
    assert _status(absolute_status, 0.30, 0.19, 0.10)[1] == [EXCEEDS]
    assert _status(absolute_status, 0.30, 0.40, 0.10)[1] == [WITHIN]  # |Δ| = 0.1 in decimal
    assert _status(absolute_status, 0.30, 0.35, 0.05)[1] == [WITHIN]
    assert _status(absolute_status, 0.30, 0.3500001, 0.05)[1] == [EXCEEDS]
    assert _status(sign_status, 0.04, -0.01)[0] == [EXCEEDS]
    assert _status(sign_status, 0.04, 0.0)[0] == [WITHIN]  # an exact zero is not a change
    assert _status(sign_status, 0.0, -0.3)[0] == [WITHIN]


def test_zero_original_rule():
    o = np.array([0.0, 0.0, 0.0, np.nan, 5.0])
    r = np.array([0.0, 1e-9, np.nan, 1.0, np.nan])
    _, status, reason = relative_status(o, r, 0.10)
    assert status == [NA, EXCEEDS, EXCEEDS, NA, EXCEEDS]
    assert reason == [
        "zero original",
        "zero original",
        "undefined in release",
        "undefined in original",
        "undefined in release",
    ]
    _, status, _ = relative_status(o[:2], r[:2], 0.10, epsilon=1e-6)
    assert status == [NA, NA]


def _family(statuses, tolerance=0.10, kind="relative"):
    cases = tuple(
        Case("v", f"c{i}", 1.0, 1.0, 0.05 * i, s, "zero original" if s == NA else None)
        for i, s in enumerate(statuses)
    )
    return Family("f", "m", kind, 0.1, tolerance, cases)


def test_family_share_counts_na_out_of_the_denominator():
    family = _family([EXCEEDS] + [WITHIN] * 9 + [NA, NA])
    summary = family.summary()
    assert (summary["cases"], summary["exceedances"], summary["not_applicable"]) == (12, 1, 2)
    assert summary["share"] == pytest.approx(0.1) and summary["passed"] is True  # 10 % passes
    assert summary["zero_original"] == 2
    assert summary["mean_deviation"] == pytest.approx(0.05 * np.mean(range(10)))
    assert _family([EXCEEDS, EXCEEDS] + [WITHIN] * 8 + [WITHIN]).passed is False
    assert _family([NA]).summary()["share"] is None and _family([NA]).passed is None
    assert _family([WITHIN], kind="p-value").summary()["mean_deviation"] is None


# --- hand-made profile with known exceedance counts ----------------------------------------------

ORIGINAL = pd.DataFrame(
    {
        "id": ["u1", "u2", "u3", "u4", "u5", "u6"],
        "g": ["A", "A", "A", "B", "B", "B"],
        "x": [1.0, 2, 3, 10, 20, 30],
        "y": [5.0, 5, 6, 1, 2, 3],
        "z": [1.0, 2, 3, 4, 5, 6],
    }
)
RELEASE = ORIGINAL.assign(x=[1.0, 2, 3, 12, 24, 36], z=[6.0, 5, 4, 3, 2, 1])


def test_hand_made_profile_counts():
    profile = utility_profile(ORIGINAL, RELEASE, variables=["x", "y", "z"], by=["g"])
    got = {k: (v["cases"], v["exceedances"]) for k, v in profile.summary().items()}
    assert got == {
        "means": (9, 4),  # x: all 11 → 13, B 20 → 24; z: A 2 → 5, B 5 → 2
        "medians": (9, 4),  # x: all 6.5 → 7.5, B; z: A, B
        "sds": (9, 2),  # x: all +21.5 %, B +20 %
        "variances": (9, 2),  # same cells, +47.7 % and +44 % > 30 %
        "t_tests": (9, 2),  # z in A and B: t = 3 / sqrt(2/3), df 4, p = 0.021
        "frequencies": (3, 0),
        "structural_zeros": (3, 0),
        "pearson": (3, 2),  # (x, z) and (y, z) change sign
        "spearman": (3, 2),
        "correlation_signs": (6, 4),
    }
    means = profile.family("means")
    assert means.share == pytest.approx(4 / 9) and means.passed is False
    assert profile.family("t_tests").passed is False
    x_b = next(c for c in means.cases if c.variable == "x" and c.scope == "g=B")
    assert (x_b.original, x_b.release, x_b.n_original, x_b.n_release) == (20, 24, 3, 3)
    assert x_b.deviation == pytest.approx(0.2)
    z_a = next(c for c in profile.family("t_tests").cases if c.variable == "z" and c.scope == "g=A")
    assert z_a.deviation == pytest.approx(2 * stats.t.sf(3 / math.sqrt(2 / 3), 4))
    assert profile.scopes == ("all", "g")
    json.dumps(profile.to_dict(), allow_nan=False)


def test_hand_made_profile_per_record_measures():
    shuffled = RELEASE.iloc[[5, 3, 0, 2, 4, 1]]
    profile = utility_profile(
        ORIGINAL, shuffled, variables=["x", "y", "z"], by=["g"], per_record="id", paired=True
    )
    record = profile.per_record
    assert (record.matched, record.deleted, record.added, record.complete) == (6, 0, 0, 6)
    shares = {v.variable: (v.exceedances, v.evaluated) for v in record.values}
    assert shares == {"x": (3, 6), "y": (0, 6), "z": (6, 6)}
    paired = {(c.variable, c.scope): c.status for c in profile.family("paired_t_tests").cases}
    # x in B: differences 2, 4, 6 → t = 4 / (2/√3), df 2, p = 0.0377 < 0.10
    assert paired[("x", "g=B")] == EXCEEDS and paired[("y", "all")] == WITHIN
    x_b = next(
        c for c in profile.family("paired_t_tests").cases if (c.variable, c.scope) == ("x", "g=B")
    )
    assert x_b.deviation == pytest.approx(stats.ttest_rel([12, 24, 36], [10, 20, 30]).pvalue)
    [g] = profile.categorical
    assert (g.aligned, g.changed, g.conditional_entropy) == (6, 0, 0.0)
    assert g.entropy_original == pytest.approx(1.0)
    json.dumps(profile.to_dict(), allow_nan=False)


# --- robustness --------------------------------------------------------------------------------


def test_one_unit_subpopulation_is_na_for_sd_and_t_test():
    original = pd.DataFrame({"g": ["A", "A", "B"], "x": [1.0, 3.0, 5.0]})
    profile = utility_profile(original, original.assign(x=[1.0, 3.0, 6.0]), by=["g"])
    sd_b = next(c for c in profile.family("sds").cases if c.scope == "g=B")
    t_b = next(c for c in profile.family("t_tests").cases if c.scope == "g=B")
    mean_b = next(c for c in profile.family("means").cases if c.scope == "g=B")
    assert (sd_b.status, sd_b.reason) == (NA, "undefined in original")
    assert (t_b.status, t_b.reason) == (NA, "undefined in original")
    assert mean_b.status == EXCEEDS and mean_b.deviation == pytest.approx(0.2)
    json.dumps(profile.to_dict(), allow_nan=False)


def test_constant_and_all_zero_columns():
    original = pd.DataFrame({"c": [5.0] * 4, "z": [0.0] * 4, "x": [1.0, 2, 3, 5]})
    profile = utility_profile(original, original.assign(x=[1.0, 2, 3, 4]))
    by_var = {c.variable: c for c in profile.family("sds").cases}
    assert (by_var["c"].status, by_var["c"].reason) == (NA, "zero original")
    means = {c.variable: c for c in profile.family("means").cases}
    assert (means["z"].status, means["z"].reason) == (NA, "zero original")
    pearson = {c.variable: c for c in profile.family("pearson").cases}
    assert pearson["c, x"].status == NA and pearson["c, z"].reason == "undefined in original"
    assert profile.descriptive["z"][0].gini is None and profile.descriptive["c"][0].cv == 0.0
    perturbed = utility_profile(original, original.assign(c=[5.0, 5, 5, 6]))
    assert next(c for c in perturbed.family("sds").cases if c.variable == "c").status == EXCEEDS
    json.dumps(profile.to_dict(), allow_nan=False)


def test_missing_values_are_left_out_and_counted():
    rng = np.random.default_rng(4)
    x = rng.normal(size=60)
    y = x + rng.normal(size=60)
    x[[3, 17]] = np.nan
    y[[17, 40, 41]] = np.nan
    original = pd.DataFrame({"x": x, "y": y})
    release = original.assign(y=original.y * 1.5)
    profile = utility_profile(original, release)
    assert profile.missing == {"x": (2, 2), "y": (3, 3)}
    ok = ~np.isnan(x) & ~np.isnan(y)
    [pearson] = profile.family("pearson").cases
    assert pearson.original == pytest.approx(stats.pearsonr(x[ok], y[ok])[0], abs=1e-12)
    [spearman] = profile.family("spearman").cases
    assert spearman.original == pytest.approx(stats.spearmanr(x[ok], y[ok])[0], abs=1e-12)
    means = {c.variable: c for c in profile.family("means").cases}
    assert means["x"].original == pytest.approx(np.nanmean(x))
    assert means["y"].n_original == 57


def test_vanished_subpopulation_exceeds_and_new_cell_counts_as_zero_original():
    original = pd.DataFrame({"g": ["A", "A", "B", "B"], "x": [1.0, 2, 3, 4]})
    release = pd.DataFrame({"g": ["A", "A", "C", "C"], "x": [1.0, 2, 3, 4]})
    profile = utility_profile(original, release, by=["g"])
    means = {c.scope: c for c in profile.family("means").cases}
    assert (means["g=B"].status, means["g=B"].reason) == (EXCEEDS, "undefined in release")
    assert (means["g=C"].status, means["g=C"].reason) == (NA, "undefined in original")
    freq = {c.scope: c for c in profile.family("frequencies").cases}
    assert freq["g=B"].deviation == 1.0 and freq["g=B"].status == EXCEEDS
    assert (freq["g=C"].status, freq["g=C"].reason) == (EXCEEDS, "zero original")


def test_crosses_and_deleted_units():
    original = pd.DataFrame(
        {
            "id": range(8),
            "nace": ["C", "C", "C", "C", "G", "G", "G", "G"],
            "region": [1, 1, 2, 2, 1, 1, 2, 2],
            "x": [1.0, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    release = original.drop(index=[7])
    profile = utility_profile(
        original,
        release,
        variables=["x"],
        by=["nace", "region"],
        crosses=[("nace", "region")],
        per_record="id",
    )
    assert profile.scopes == ("all", "nace", "region", "nace*region")
    freq = {
        (c.variable, c.scope): (c.original, c.release) for c in profile.family("frequencies").cases
    }
    assert freq[("nace*region", "nace=G, region=2")] == (2, 1)
    assert freq[("all", "all")] == (8, 7)
    assert profile.family("frequencies").exceedances == 4  # all, G, region 2, G × 2
    assert (profile.per_record.matched, profile.per_record.deleted) == (7, 1)
    means = {c.scope: c for c in profile.family("means").cases}
    assert means["nace=G, region=2"].n_release == 1


def test_structural_zeros_with_and_without_identity():
    original = pd.DataFrame({"id": [1, 2, 3, 4], "x": [0.0, 1, -2, 3], "y": [1.0, 2, 3, 4]})
    release = original.assign(x=[0.5, 0, 2, 3])
    with_id = utility_profile(original, release, per_record="id")
    case = next(c for c in with_id.family("structural_zeros").cases if c.variable == "x")
    assert case.status == EXCEEDS and case.deviation == pytest.approx(3 / 4)
    assert "zero→non-zero 1, non-zero→zero 1, sign flips 1" in case.reason
    assert with_id.family("structural_zeros").tolerance == 0
    assert with_id.family("structural_zeros").passed is False  # 1 of 2 > tolerance 0
    without = utility_profile(original, release)
    case = next(c for c in without.family("structural_zeros").cases if c.variable == "x")
    assert case.status == EXCEEDS and "negatives 1→0" in case.reason
    same_counts = utility_profile(original, original.assign(x=[0.0, 4, -1, 3]))
    assert same_counts.family("structural_zeros").exceedances == 0


def test_weighted_means_and_t_tests():
    rng = np.random.default_rng(9)
    n = 40
    original = pd.DataFrame(
        {"g": rng.choice(["a", "b"], n), "x": rng.lognormal(size=n), "w": rng.uniform(1, 9, n)}
    )
    release = original.assign(x=original.x * rng.normal(1, 0.2, n))
    profile = utility_profile(original, release, variables=["x"], by=["g"], weights="w")
    for case in profile.family("weighted_means").cases:
        rows = original.g == case.scope[2:] if case.scope != "all" else original.g.notna()
        assert case.original == pytest.approx(
            np.average(original.x[rows], weights=original.w[rows])
        )
        assert case.release == pytest.approx(np.average(release.x[rows], weights=release.w[rows]))
    [whole] = [c for c in profile.family("weighted_t_tests").cases if c.scope == "all"]

    def linearised(frame):
        w, x = frame.w.to_numpy(), frame.x.to_numpy()
        m = np.average(x, weights=w)
        return m, n / (n - 1) * np.sum((w * (x - m)) ** 2) / w.sum() ** 2

    (m1, v1), (m2, v2) = linearised(original), linearised(release)
    dof = (v1 + v2) ** 2 / (v1**2 / (n - 1) + v2**2 / (n - 1))
    assert whole.deviation == pytest.approx(2 * stats.t.sf(abs(m2 - m1) / math.sqrt(v1 + v2), dof))


def test_input_errors():
    with pytest.raises(InputError) as info:
        utility_profile(ORIGINAL, RELEASE, by=["nace"])
    assert info.value.column == "nace"
    with pytest.raises(InputError, match="paired"):
        utility_profile(ORIGINAL, RELEASE, paired=True)
    with pytest.raises(InputError, match="two or more"):
        utility_profile(ORIGINAL, RELEASE, crosses=[("g",)])
    with pytest.raises(InputError, match="non-negative weight") as info:
        utility_profile(ORIGINAL.assign(w=[1, 2, -1, 1, 1, 1]), RELEASE.assign(w=1.0), weights="w")
    assert (info.value.column, info.value.row) == ("w", 3)
    with pytest.raises(InputError, match="duplicate identifier"):
        utility_profile(ORIGINAL, RELEASE.assign(id="u1"), per_record="id")
    with pytest.raises(InputError, match="lacks: costs"):
        utility_profile(ORIGINAL, RELEASE, models=["x ~ costs"])
    with pytest.raises(InputError, match="no numeric variable"):
        utility_profile(ORIGINAL[["id", "g"]], RELEASE[["id", "g"]], by=["g"])


@pytest.mark.parametrize(("setting", "value", "text"), [
    ("interval_k", -0.1, "greater than or equal to 0"), ("cov_range", "all", "'i<j' or 'i<=j'")])
def test_a_setting_outside_its_rule_is_refused_by_name(setting, value, text):
    with pytest.raises(InputError, match=text) as info:
        utility_profile(ORIGINAL, RELEASE, **{setting: value})
    assert info.value.field == setting


def test_profile_with_models_reports_regression_families():
    rng = np.random.default_rng(2)
    n = 500
    original = pd.DataFrame({"x": rng.lognormal(size=n), "u": rng.normal(size=n)})
    original["y"] = 1 + 2 * np.log(original.x) + original.u
    release = original.assign(x=original.x * 1.3)  # shifts the intercept only
    profile = utility_profile(
        original,
        release,
        variables=["x", "y"],
        models=["y ~ log(x)", Model("y ~ x", se="hc1")],
    )
    coefficients = {(c.scope, c.variable): c for c in profile.family("coefficients").cases}
    intercept = coefficients[("ols: y ~ log(x)", "intercept")]
    slope = coefficients[("ols: y ~ log(x)", "log(x)")]
    assert slope.deviation == pytest.approx(0.0, abs=1e-9) and slope.status == WITHIN
    assert intercept.release == pytest.approx(intercept.original - slope.original * math.log(1.3))
    assert profile.family("coefficient_signs").cases[0].status in (WITHIN, EXCEEDS)
    assert len(profile.family("significance").cases) == 4
    assert profile.to_dict()["models"][1]["se"] == "hc1"
    json.dumps(profile.to_dict(), allow_nan=False)


def test_many_category_cross_keeps_sorted_labels():
    from attack.utility.profile import _category_codes, _scope

    rng = np.random.default_rng(0)
    n = 2000
    frame = pd.DataFrame({c: rng.permutation(n).astype(str) for c in "abcd"})
    coded = {c: _category_codes(frame, frame.iloc[:10], c) for c in "abcd"}
    scope = _scope(list("abcd"), coded, n)  # 2000⁴ > 2⁴⁰: the key is compacted on the way
    expected = sorted(zip(frame.a, frame.b, frame.c, frame.d, strict=True))
    assert scope.labels == tuple(f"a={a}, b={b}, c={c}, d={d}" for a, b, c, d in expected)
    assert scope.labels[scope.cells_original[7]] == "a={}, b={}, c={}, d={}".format(*frame.iloc[7])
    assert (scope.cells_release == scope.cells_original[:10]).all()


# --- brute force against an independent implementation -----------------------------------------


def _expected_relative(o: float, r: float, t: float = 0.10) -> str:
    if not np.isfinite(o):
        return NA
    if not np.isfinite(r):
        return EXCEEDS
    if o == 0:
        return EXCEEDS if r != 0 else NA
    return EXCEEDS if abs(r - o) / abs(o) > t + 1e-12 else WITHIN


def _expected_t(a: np.ndarray, b: np.ndarray) -> str:
    if a.size < 2:
        return NA
    if b.size < 2:
        return EXCEEDS
    if a.var() == 0 and b.var() == 0:
        return WITHIN if a.mean() == b.mean() else EXCEEDS
    return EXCEEDS if stats.ttest_ind(a, b, equal_var=False).pvalue < 0.10 else WITHIN


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy, the reference
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 25), zeros=st.floats(0, 0.5))
def test_subpopulation_families_match_brute_force(seed, n, zeros):
    rng = np.random.default_rng(seed)
    x = np.round(rng.lognormal(size=(n, 2)), 1) * (rng.random((n, 2)) > zeros)
    original = pd.DataFrame({"g": rng.choice(["p", "q", "r"], n), "a": x[:, 0], "b": x[:, 1]})
    release = original.assign(a=np.round(original.a * rng.uniform(0.8, 1.2, n), 1))
    release = release.iloc[rng.permutation(n)[: max(1, n - rng.integers(0, 3))]]
    profile = utility_profile(original, release, variables=["a", "b"], by=["g"])
    cells = [("all", None)] + [(f"g={g}", g) for g in sorted(set(original.g) | set(release.g))]
    funcs = {"means": np.mean, "medians": np.median, "sds": lambda v: np.std(v, ddof=1)}
    for family, func in funcs.items():
        got = {(c.variable, c.scope): c.status for c in profile.family(family).cases}
        minimum = 2 if family == "sds" else 1
        for v in ("a", "b"):
            for label, g in cells:
                o = original[v][original.g == g] if g else original[v]
                r = release[v][release.g == g] if g else release[v]
                stat_o = func(o) if len(o) >= minimum else np.nan
                stat_r = func(r) if len(r) >= minimum else np.nan
                assert got[(v, label)] == _expected_relative(stat_o, stat_r), (family, v, label)
    got = {(c.variable, c.scope): c.status for c in profile.family("t_tests").cases}
    for v in ("a", "b"):
        for label, g in cells:
            o = (original[v][original.g == g] if g else original[v]).to_numpy()
            r = (release[v][release.g == g] if g else release[v]).to_numpy()
            assert got[(v, label)] == _expected_t(o, r), (v, label)
    freq = {c.scope: (c.original, c.release) for c in profile.family("frequencies").cases}
    for label, g in cells[1:]:
        assert freq[label] == ((original.g == g).sum(), (release.g == g).sum())
    for kind, fn in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        [case] = profile.family(kind).cases
        if len(release) >= 2 and release.a.std() > 0 and release.b.std() > 0:
            assert case.release == pytest.approx(fn(release.a, release.b)[0], abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_profile_does_not_depend_on_row_order(seed):
    rng = np.random.default_rng(seed)
    n = 30
    original = pd.DataFrame(
        {
            "id": np.arange(n),
            "g": rng.choice(["a", "b"], n),
            "x": rng.normal(size=n),
            "y": rng.lognormal(size=n),
        }
    )
    release = original.assign(x=original.x + rng.normal(0, 0.3, n)).iloc[: n - 2]
    base = utility_profile(original, release, by=["g"], per_record="id", paired=True)
    shuffled = utility_profile(
        original.iloc[rng.permutation(n)],
        release.iloc[rng.permutation(n - 2)],
        by=["g"],
        per_record="id",
        paired=True,
    )
    counts = [
        {k: (v["cases"], v["exceedances"], v["not_applicable"]) for k, v in p.summary().items()}
        for p in (base, shuffled)
    ]
    assert counts[0] == counts[1]
    a, b = base.per_record, shuffled.per_record
    assert a.il1s == pytest.approx(b.il1s) and a.scores.score_i == pytest.approx(b.scores.score_i)
    assert a.values == b.values


def test_value_changes_zero_rule_and_structure():
    change = value_changes(
        "x", np.array([0.0, 0, 10, 10, -1, np.nan]), np.array([0.0, 2, 11, 12, 1, 5]), 0.10
    )
    assert (change.n, change.evaluated, change.exceedances) == (5, 4, 3)
    assert (change.zero_to_nonzero, change.nonzero_to_zero, change.sign_flips) == (1, 0, 1)
    assert change.share == pytest.approx(0.75)


def test_thresholds_are_validated_and_used():
    with pytest.raises(InputError):
        Thresholds(relative=0)
    with pytest.raises(InputError):
        Thresholds(tolerance=1.5)
    loose = utility_profile(
        ORIGINAL, RELEASE, variables=["x"], by=["g"], thresholds=Thresholds(relative=0.25)
    )
    assert loose.family("means").exceedances == 0
    assert loose.to_dict()["thresholds"]["relative"] == 0.25


def test_a_profile_prints_in_one_line_naming_the_families_exceeded() -> None:
    rng = np.random.default_rng(0)
    original = pd.DataFrame({"x": rng.lognormal(3, 1, 400), "y": rng.lognormal(2, 1, 400)})
    release = original.assign(x=original["x"] * 1.5)  # every mean of x 50 % off
    profile = utility_profile(original, release)
    text = repr(profile)
    assert "\n" not in text and len(text) < 300
    assert text.startswith("UtilityProfile(400 original and 400 release rows, 2 variables; ")
    assert "exceeded: " in text and "means" in text.split("exceeded: ")[1]
