"""Frequency risk (attack.risk.frequency): sdcMicro's published test values, brute force and
hand-computed cases."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_data import SDCMICRO as SDC
from scipy.special import gammaln

from attack import InputError, frequency_risk
from attack.risk.frequencies import key_codes, key_frequencies
from attack.risk.individual import household_risk, individual_risk, risk_threshold

nan = np.nan
# The 8 x 3 example of sdcMicro 5.8.1's tests/testthat/test_freqCalc.R and test_indivRisk.R
# (sdcTools/sdcMicro on GitHub), with its weights.
W = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
A = [2, 3, 2, 2, 3, 3, 1, 2]
B = [3, 3, 3, 3, 3, 3, 4, 3]


def _freq(columns: dict, weights=None, alpha: float = 1.0):
    frame = pd.DataFrame(columns)
    return key_frequencies(key_codes(frame, list(frame.columns)), weights, alpha)


@pytest.mark.parametrize(("columns", "weights", "fk", "big_fk"), [
    # test_freqCalc.R: "data frame, numeric values (weighted)"
    ({"A": A, "B": B, "C": [1, 3, 1, 2, 1, 1, 1, 1]}, W, [3, 1, 3, 1, 2, 2, 1, 3],
     [108.0, 45.5, 108.0, 17.0, 100.0, 100.0, 123.5, 108.0]),
    # "numeric values with missing values (weighted)"
    ({"A": A, "B": B, "C": [1, 3, nan, 2, 1, 1, nan, 1]}, W, [3, 1, 4, 2, 2, 2, 1, 3],
     [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]),
    # "with one column and one row with NAs (weighted)"
    ({"A": [2, 3, nan, 2, 3, 3, 1, 2], "B": [3, 3, nan, 3, 3, 3, 4, 3], "C": [nan] * 8}, W,
     [4, 4, 8, 4, 4, 4, 2, 4], [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0]),
    # "one column with NAs (weighted)"
    ({"A": [2, 3, nan, 2, 1, nan, 1, 2]}, W, [5, 3, 8, 5, 4, 8, 4, 5],
     [133.0, 92.5, 394.0, 133.0, 262.5, 394.0, 262.5, 133.0]),
    # "more columns than rows"
    (dict(zip("ABCDEFGH", np.array([2, 3, nan, 2, 3, 3, 1, nan, 3, 3, nan, 3, 3, 2, 2, 3, nan, nan, 1, 2, nan,
                                      nan, 4, 4]).reshape(8, 3), strict=True)), np.array([18.0, 45.5, 122]), [1, 2, 2],
     [18.0, 167.5, 167.5]),
])
def test_frequencies_equal_sdcmicro_published_values(columns, weights, fk, big_fk) -> None:
    got_fk, got_big = _freq(columns, weights)
    assert got_fk.tolist() == fk
    assert got_big.tolist() == big_fk
    assert _freq(columns)[1].tolist() == fk  # unweighted: F_k = f_k


MISSING_3 = {"A": [2, 3, 2, 2, 3, 3, 1, nan], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, nan, 2, 1, 1, nan, 1]}
FULL_3 = {"A": A, "B": B, "C": [1, 3, 1, 2, 1, 1, 1, 1]}


@pytest.mark.parametrize(("columns", "method", "expected"), [
    # sdcMicro 5.8.1 tests/testthat/test_indivRisk.R, weighted, qual = 1
    (FULL_3, "approx", [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883, 0.03931625, 0.01369863]),
    (FULL_3, "exact", [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883, 0.03931625, 0.01355297]),
    (MISSING_3, "approx", [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066, 0.009836066,
                           0.039316254, 0.005973716]),
    (MISSING_3, "exact", [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889, 0.009756889,
                          0.039316254, 0.005962551]),
])
def test_individual_risk_equals_sdcmicro_published_values(columns, method, expected) -> None:
    fk, big_fk = _freq(columns, W)
    assert individual_risk(fk, big_fk, method) == pytest.approx(expected, abs=6e-9)


def test_unweighted_risk_is_one_over_fk_with_missing_values() -> None:
    fk, _ = _freq(MISSING_3)  # test_indivRisk.R, survey = FALSE
    assert individual_risk(fk, None) == pytest.approx([1 / 3, 1, 1 / 4, 1 / 2, 1 / 3, 1 / 3, 1, 1 / 5])


@pytest.mark.parametrize("f", [3, 4, 5, 7])
@pytest.mark.parametrize("p", [0.04, 0.3, 0.75])
def test_exact_risk_is_the_negative_binomial_expectation_of_one_over_F(f, p) -> None:
    """E[1/F | f] with F − f negative binomial (f successes, probability p), summed directly."""
    h = np.arange(f, f + 400_000)
    log_mass = gammaln(h) - gammaln(f) - gammaln(h - f + 1) + f * np.log(p) + (h - f) * np.log1p(-p)
    direct = float(np.sum(np.exp(log_mass) / h))
    assert individual_risk(np.array([f]), np.array([f / p]), "exact")[0] == pytest.approx(direct, rel=1e-9)
    approx = individual_risk(np.array([f]), np.array([f / p]), "approx")[0]
    assert approx == pytest.approx(p / (f - 1 + p))


def test_francdat_hand_computed() -> None:
    """francdat with Key1-Key4 and weight w (sdcMicro's indivRisk example): four sample uniques
    with F_k = 17, 541, 8, 5 and risk log(F)/(F − 1); pairs with risk p/(1−p) − (p/(1−p))² log(1/p)."""
    frame = pd.read_csv(SDC / "francdat.csv")
    result = frequency_risk(frame, ["Key1", "Key2", "Key3", "Key4"], weight="w")
    assert result.fk.tolist() == [2, 2, 2, 1, 1, 1, 1, 2]
    assert result.big_fk.tolist() == [110, 84.5, 84.5, 17, 541, 8, 5, 110]
    for i, big in zip([3, 4, 5, 6], [17, 541, 8, 5], strict=True):
        assert result.risk[i] == pytest.approx(np.log(big) / (big - 1), rel=1e-12)
    p = 2 / 110
    assert result.risk[0] == pytest.approx(p / (1 - p) - (p / (1 - p)) ** 2 * np.log(1 / p), rel=1e-12)
    assert result.expected_reidentifications == pytest.approx(result.risk.sum())
    assert result.global_risk == pytest.approx(result.risk.sum() / 8)
    assert result.k_violations(2) == 4 and result.k_violations(3) == 8
    assert result.above_threshold == int((result.risk > 0.1).sum()) == 3
    assert not result.passed


cells = st.lists(st.lists(st.sampled_from([0, 1, 2, None]), min_size=3, max_size=3), min_size=1, max_size=14)


@settings(max_examples=60, deadline=None)
@given(cells)
def test_with_alpha_one_fk_counts_the_records_a_record_is_compatible_with(rows) -> None:
    """Brute force: two records are compatible when they agree wherever both are observed; a
    record whose keys are all missing gets n, and a complete record does not count the records
    whose keys are all missing (sdcMicro's rules)."""
    frame = pd.DataFrame(rows, columns=list("abc"), dtype=object)
    weights = np.arange(1, len(rows) + 1, dtype=float)
    fk, big_fk = key_frequencies(key_codes(frame, list("abc")), weights)
    for i, r in enumerate(rows):
        mates = [j for j, s in enumerate(rows)
                 if all(x is None or y is None or x == y for x, y in zip(r, s, strict=True))
                 and not (None not in r and all(y is None for y in s))]
        if all(x is None for x in r):
            mates = list(range(len(rows)))
        assert fk[i] == len(mates)
        assert big_fk[i] == pytest.approx(weights[mates].sum())


@settings(max_examples=40, deadline=None)
@given(cells, st.sampled_from([0.0, 0.5]))
def test_alpha_weights_only_the_partners_with_missing_keys(rows, alpha) -> None:
    """A complete record counts exact matches plus alpha per compatible record with missing keys
    (not all missing); a record with missing keys counts its own combination, alpha per other
    compatible record with missing keys and every compatible complete record in full."""
    frame = pd.DataFrame(rows, columns=list("abc"), dtype=object)
    fk, _ = key_frequencies(key_codes(frame, list("abc")), None, alpha)

    def compatible(r, s):
        return all(x is None or y is None or x == y for x, y in zip(r, s, strict=True))

    for i, r in enumerate(rows):
        if all(x is None for x in r):
            continue
        same = sum(s == r for s in rows)
        complete = sum(None not in s and compatible(r, s) for s in rows)
        partial = sum(None in s and s != r and compatible(r, s) for s in rows)
        if None not in r:
            partial -= sum(all(y is None for y in s) for s in rows)
            assert fk[i] == pytest.approx(same + alpha * partial)
        else:
            assert fk[i] == pytest.approx(same + alpha * partial + complete)


def test_household_risk_by_product_and_inclusion_exclusion_agree_with_enumeration() -> None:
    rng = np.random.default_rng(3)
    risk = rng.uniform(0, 0.4, 9)
    household = np.array([0, 0, 0, 1, 2, 2, 2, 2, 1])
    brute = {}
    for h in range(3):
        members = risk[household == h]
        total = 0.0
        for size in range(1, len(members) + 1):  # Boole's formula over every subset
            total += (-1) ** (size + 1) * sum(np.prod(c) for c in combinations(members, size))
        brute[h] = total
    expected = [brute[h] for h in household]
    assert household_risk(risk, household, "product") == pytest.approx(expected, rel=1e-12)
    assert household_risk(risk, household, "inclusion-exclusion") == pytest.approx(expected, rel=1e-12)


def test_inclusion_exclusion_has_no_household_size_cap() -> None:
    risk = np.full(400, 0.003)  # beyond the 256 members μ-Argus's Boole routine holds
    out = household_risk(risk, np.zeros(400, dtype=int), "inclusion-exclusion")
    assert out == pytest.approx(1 - 0.997**400, rel=1e-9)


def test_household_risk_on_testdata() -> None:
    frame = pd.read_csv(SDC / "testdata.csv")
    keys = ["urbrur", "roof", "walls", "water", "sex"]  # sdcMicro's measure_risk example
    result = frequency_risk(frame, keys, weight="sampling_weight", household="ori_hid", suda=False)
    by_hand = 1 - pd.Series(1 - result.risk).groupby(frame["ori_hid"]).transform("prod")
    assert result.household_risk == pytest.approx(by_hand.to_numpy(), abs=1e-15)
    assert result.to_dict()["household_risk"]["expected_reidentifications"] == pytest.approx(by_hand.sum())


def test_risk_threshold_hand_computed() -> None:
    # descending 0.5, 0.3, 0.3, 0.1, 0.1 (sum 1.3); target 0.1 · 5 = 0.5: at 0.3 the sum is
    # 0.8 + 0.3·1 = 1.1, at 0.1 it is 0.2 + 0.1·3 = 0.5 (not below), never found -> 0
    assert risk_threshold(np.array([0.1, 0.5, 0.3, 0.1, 0.3]), 0.1) == 0.0
    # target 0.25 · 5 = 1.25: at 0.3: 1.1 < 1.25 -> r* = 0.3
    assert risk_threshold(np.array([0.1, 0.5, 0.3, 0.1, 0.3]), 0.25) == 0.3
    assert risk_threshold(np.array([0.1, 0.5, 0.3, 0.1, 0.3]), 0.5) is None  # already safe
    with pytest.raises(InputError):
        risk_threshold(np.array([0.1]), 1.0)


def test_results_follow_the_rows_and_json_has_aggregates_only() -> None:
    frame = pd.read_csv(SDC / "testdata.csv")
    keys = ["urbrur", "roof", "walls", "water", "sex"]
    result = frequency_risk(frame, keys, weight="sampling_weight", sensitive="electcon")
    order = np.random.default_rng(0).permutation(len(frame))
    shuffled = frequency_risk(frame.iloc[order].reset_index(drop=True), keys, weight="sampling_weight",
                              sensitive="electcon")
    assert shuffled.risk == pytest.approx(result.risk[order], rel=1e-12)
    assert (shuffled.suda.score == result.suda.score[order]).all()
    document = result.to_dict()
    assert document == shuffled.to_dict() | {"individual_risk": document["individual_risk"]}
    assert not any(isinstance(v, list) and len(v) == len(frame) for v in _leaves(document))
    assert document["k_anonymity"]["2"]["violating"] == int((result.fk < 2).sum())
    assert document["l_diversity"]["sensitive"] == "electcon"
    assert set(result.records().columns) >= {"fk", "Fk", "risk", "l_diversity", "suda_score", "dis_suda_score"}


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    yield value


def test_bad_inputs_name_the_problem() -> None:
    frame = pd.DataFrame({"a": [1, 2], "w": [1.0, -1.0], "h": [1, None]})
    with pytest.raises(InputError, match="positive"):
        frequency_risk(frame, ["a"], weight="w")
    with pytest.raises(InputError, match="household"):
        frequency_risk(frame, ["a"], household="h")
    with pytest.raises(InputError):
        frequency_risk(frame, ["missing"])
    with pytest.raises(InputError, match="cannot also be a key"):
        frequency_risk(frame, ["a"], weight="a")


@pytest.mark.parametrize(("setting", "value", "text"), [
    ("k", 0, "greater than or equal to 1"), ("threshold", 1.5, "less than or equal to 1"),
    ("max_global_risk", 1.0, "less than 1"), ("alpha", -0.1, "greater than or equal to 0"),
    ("dis_fraction", 0.0, "greater than 0"), ("sampling_fraction", 0.0, "greater than 0"),
    ("population", 0, "greater than or equal to 1"), ("bootstrap", -1, "greater than or equal to 0"),
    ("seed", -1, "greater than or equal to 0"), ("method", "exactly", "'approx' or 'exact'"),
    ("household_method", "sum", "'product' or 'inclusion-exclusion'"), ("k", "3", "whole number"),
])
def test_a_setting_outside_its_rule_is_refused_by_name(setting, value, text) -> None:
    """Each setting's range is declared once, in the signature, and checked before the file is read."""
    with pytest.raises(InputError, match=text) as caught:
        frequency_risk(pd.DataFrame({"a": [1, 2]}), ["a"], **{setting: value})
    assert caught.value.field == setting


def test_frequency_risk_beside_a_linkage_attack_with_categorical_keys() -> None:
    """On the release, over the categorical keys and the blocks, by brute force; absent when every
    key is metric; never part of the verdict."""
    from attack import mass_attack

    rng = np.random.default_rng(1)
    n = 120
    release = pd.DataFrame({"unit_id": [f"u{i}" for i in range(n)], "turnover": rng.lognormal(8, 1, n),
                            "legal": rng.choice(["GmbH", "AG", "KG", "eK", "OHG"], n),
                            "region": rng.choice(["N", "S", "E"], n)})
    release.loc[0, "legal"] = "SE"  # one firm alone in its combination
    run = mass_attack(release, release, keys=["turnover:metric", "legal:nominal"], blocks=["region"],
                             external_id="unit_id", release_id="unit_id", tau=0.5)
    beside = run.figures["frequency_risk"]
    fk = release.groupby(["legal", "region"])["unit_id"].transform("size").to_numpy()
    assert beside["keys"] == ["legal", "region"]
    assert beside["sample_uniques"] == int((fk == 1).sum()) >= 1
    assert beside["k_anonymity"]["3"]["violating"] == int((fk < 3).sum())
    assert beside["expected_reidentifications"] == pytest.approx((1 / fk).sum(), abs=1e-9)
    assert beside["global_risk"] == pytest.approx((1 / fk).mean(), abs=1e-9)
    assert "Frequency risk of the release on legal, region" in run.to_markdown()
    metric_only = mass_attack(release, release, keys=["turnover:metric"], external_id="unit_id",
                                     release_id="unit_id", tau=0.5)
    assert "frequency_risk" not in metric_only.figures
    assert run.passed == all(c["passed"] for c in run.figures["cells"])  # the cells alone decide
