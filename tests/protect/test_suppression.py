"""Local and risk-based suppression (attack.protect.suppression): k-anonymity by brute force,
sdcMicro's published suppression counts, hand-made cases."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_data import SDCMICRO

from attack import InputError, frequency_risk
from attack.protect.catalogue import METHODS, protect
from attack.protect.suppression import local_suppression, risk_suppression
from attack.risk.frequencies import key_codes, key_frequencies

TESTDATA2 = SDCMICRO / "testdata2.csv"
KEYS7 = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def _min_fk(frame: pd.DataFrame, keys) -> float:
    return float(key_frequencies(key_codes(frame, list(keys)))[0].min())


def _compatible_counts(rows: np.ndarray) -> np.ndarray:
    """Brute force of sdcMicro's f_k with alpha = 1 (missing = -1 matches anything; a complete
    record of two or more keys does not count records whose keys are all missing)."""
    n, m = rows.shape
    out = np.zeros(n, dtype=int)
    for i in range(n):
        for j in range(n):
            match = all(a < 0 or b < 0 or a == b for a, b in zip(rows[i], rows[j], strict=True))
            if match and not (m > 1 and (rows[i] >= 0).all() and (rows[j] < 0).all()):
                out[i] += 1
        if (rows[i] < 0).all():
            out[i] = n
    return out


def test_sdcmicro_published_counts_on_testdata2() -> None:
    """sdcMicro 5.8.1 tests/testthat/test_localSuppression.R: localSuppression(testdata2, keyVars=1:7)
    (k = 2, default importance) makes 97 suppressions, and kAnon with strata ageG =
    cut(age, 5) makes 109. The sdcmicro variant repeats both counts exactly; the default never
    suppresses more."""
    frame = pd.read_csv(TESTDATA2)
    exact = local_suppression(frame, KEYS7, k=2, variant="sdcmicro")
    assert exact.total == 97
    best = local_suppression(frame, KEYS7, k=2)
    assert best.total <= 97 and best.total == 64
    assert _min_fk(best.data, KEYS7) >= 2
    # R's cut(x, 5): five equal-width intervals over the range widened by 1/1000 at both ends
    age = frame["age"].to_numpy(float)
    breaks = np.linspace(age.min(), age.max(), 6)
    breaks[0] -= (age.max() - age.min()) / 1000
    breaks[-1] += (age.max() - age.min()) / 1000
    strata = pd.cut(age, breaks, labels=False)
    importance = exact.settings["importance"]  # sdcMicro ranks the keys once, on the whole file
    total = sum(local_suppression(part, KEYS7, k=2, importance=importance, variant="sdcmicro").total
                for _, part in frame.groupby(strata))
    assert total == 109


def test_default_importance_suppresses_keys_with_many_categories_first() -> None:
    frame = pd.read_csv(TESTDATA2)
    result = local_suppression(frame, KEYS7, k=2)
    categories = [frame[k].nunique() for k in KEYS7]
    # fewest categories = rank 1 (most important); ties keep the column order
    assert result.settings["importance"] == list(np.argsort(np.argsort(categories, kind="stable")) + 1)
    assert result.suppressed["urbrur"] <= result.suppressed["water"]  # 2 against 9+ categories


rows_strategy = st.integers(2, 3).flatmap(lambda m: st.lists(
    st.lists(st.integers(-1, 2), min_size=m, max_size=m), min_size=3, max_size=14))


@settings(max_examples=60, deadline=None)
@given(rows_strategy, st.integers(2, 3))
def test_result_is_k_anonymous_and_changes_only_suppressed_values(rows, k) -> None:
    codes = np.array(rows)
    frame = pd.DataFrame(np.where(codes < 0, np.nan, codes), columns=[f"k{j}" for j in range(codes.shape[1])])
    frame["other"] = np.arange(len(frame))
    if k > len(frame):
        return
    result = local_suppression(frame, list(frame.columns[:-1]), k=k)
    out = key_codes(result.data, list(frame.columns[:-1]))
    assert _compatible_counts(out).min() >= k
    before = frame.iloc[:, :-1].to_numpy()
    after = result.data.iloc[:, :-1].to_numpy(dtype=float)
    kept = ~np.isnan(after)
    assert np.array_equal(before[kept], after[kept])
    assert int((np.isnan(after) & ~np.isnan(before)).sum()) == result.total
    assert result.data["other"].tolist() == frame["other"].tolist()
    sdc = local_suppression(frame, list(frame.columns[:-1]), k=k, variant="sdcmicro")
    assert result.total <= sdc.total


@pytest.mark.parametrize("seed", range(6))
def test_no_fewer_than_the_brute_force_optimum(seed) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(6, 3))
    frame = pd.DataFrame(codes, columns=["a", "b", "c"])
    result = local_suppression(frame, ["a", "b", "c"], k=2)
    optimum = None
    cells = [(i, j) for i in range(6) for j in range(3)]
    for size in range(0, len(cells) + 1):
        for chosen in combinations(cells, size):
            trial = codes.copy()
            for i, j in chosen:
                trial[i, j] = -1
            if _compatible_counts(trial).min() >= 2:
                optimum = size
                break
        if optimum is not None:
            break
    assert optimum is not None and optimum <= result.total <= optimum + 3


def test_hand_case() -> None:
    # (1,1) x3, (1,2) once: suppress b of the last record -> (1, NA) matches the three others
    frame = pd.DataFrame({"a": [1, 1, 1, 1], "b": [1, 1, 1, 2]})
    result = local_suppression(frame, ["a", "b"], k=2, importance=[1, 2])
    assert result.suppressed == {"a": 0, "b": 1}
    assert result.data["b"].isna().tolist() == [False, False, False, True]
    result = local_suppression(frame, ["a", "b"], k=2, importance=[2, 1])
    assert result.suppressed == {"a": 0, "b": 1}  # a does not separate the record: b is the only choice


def test_combs_reach_k_on_every_subset() -> None:
    frame = pd.read_csv(TESTDATA2)
    keys = ["urbrur", "roof", "walls", "water"]
    result = local_suppression(frame, keys, k=3, combs=[2])
    for pair in combinations(keys, 2):
        assert _min_fk(result.data, pair) >= 3


def test_risk_suppression_hand_case() -> None:
    frame = pd.read_csv(SDCMICRO / "francdat.csv")
    keys = ["Key1", "Key2", "Key3", "Key4"]
    risk = frequency_risk(frame, keys, weight="w", suda=False).risk
    result = risk_suppression(frame, keys, threshold=0.15, variable="Key4", weight="w")
    assert result.data["Key4"].isna().tolist() == list(risk > 0.15)
    assert result.suppressed["Key4"] == 3  # F = 17, 8, 5: log(F)/(F − 1) = 0.177, 0.297, 0.402
    after = frequency_risk(result.data, keys, weight="w", suda=False).risk
    assert (after <= risk + 1e-15).all()  # suppressing never raises a risk (sdcMicro's test_localSupp.R)


def test_catalogue_entries_and_errors() -> None:
    assert {"local-suppression", "risk-suppression"} <= set(METHODS)
    frame = pd.read_csv(TESTDATA2)
    done = protect(frame, "local-suppression", ["k=2", "importance=1|2|3"], columns=["urbrur", "roof", "walls"])
    assert done.log["details"]["all"]["k"] == 2
    assert sum(done.log["changed_values"].values()) == done.log["details"]["all"]["total"]
    with pytest.raises(InputError):
        protect(frame, "local-suppression", ["importance=1|2"], columns=["urbrur", "roof", "walls"])
    with pytest.raises(InputError):
        local_suppression(frame.head(2), ["urbrur"], k=3)
    with pytest.raises(InputError):
        local_suppression(frame, ["urbrur", "roof"], combs=[3])


def test_francdat_k2_needs_three_suppressions_the_optimum() -> None:
    """Records 5 and 6 differ only in Key4 (one suppression); records 4 and 7 are at distance 2
    from every record, so each needs one of its own: three is the least possible."""
    frame = pd.read_csv(SDCMICRO / "francdat.csv")
    keys = ["Key1", "Key2", "Key3", "Key4"]
    result = local_suppression(frame, keys, k=2)
    assert result.total == 3
    assert _compatible_counts(key_codes(result.data, keys)).min() >= 2
