"""SUDA (attack.risk.suda): minimal sample uniques against brute-force enumeration, scores and
DIS-SUDA by hand."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_data import SDCMICRO

from attack import InputError
from attack.risk.frequencies import key_codes
from attack.risk.suda import suda_scores


def brute_force_msus(codes: np.ndarray) -> list[set[frozenset[int]]]:
    """Every record's minimal sample uniques by the definition: observed on the set, unique
    there, and no proper subset unique."""
    n, m = codes.shape
    out: list[set[frozenset[int]]] = [set() for _ in range(n)]
    for size in range(1, m + 1):
        for subset in combinations(range(m), size):
            cols = list(subset)
            for r in range(n):
                if (codes[r, cols] < 0).any() or any(s < frozenset(subset) for s in out[r]):
                    continue
                if int((codes[:, cols] == codes[r, cols]).all(axis=1).sum()) == 1:
                    out[r].add(frozenset(subset))
    return out


tables = st.integers(1, 4).flatmap(lambda m: st.lists(
    st.lists(st.integers(-1, 2), min_size=m, max_size=m), min_size=1, max_size=12))


@settings(max_examples=120, deadline=None)
@given(tables)
def test_msus_scores_and_contributions_equal_brute_force(rows) -> None:
    codes = np.array(rows, dtype=np.int64)
    n, m = codes.shape
    size_m = max(m, 3)
    result = suda_scores(codes, tuple(f"k{j}" for j in range(m)))
    msus = brute_force_msus(codes)
    for r in range(n):
        sizes = [len(s) for s in msus[r]]
        assert result.msu_counts[r].tolist() == [sizes.count(s) for s in range(1, m + 1)]
        score = sum(math.factorial(size_m - len(s)) for s in msus[r])
        assert result.score[r] == score
        for j in range(m):
            part = sum(math.factorial(size_m - len(s)) for s in msus[r] if j in s)
            assert result.contributions[r, j] == pytest.approx(part / score if score else 0.0)


def test_francdat_by_hand() -> None:
    """francdat, Key1-Key4 (M = 4, weights 3! for one key, 2! for two): record 4 (3,3,1,5) is
    unique on Key1 and on (Key2, Key4) = (3, 5): 6 + 2; record 5 (4,3,1,4) on Key4 = 4: 6;
    record 6 (4,3,1,1) on (Key1, Key4) = (4, 1) and (Key2, Key4) = (3, 1): 2 + 2; record 7
    (6,2,1,5) on Key1 and on (Key2, Key4) = (2, 5): 6 + 2."""
    frame = pd.read_csv(SDCMICRO / "francdat.csv")
    keys = ("Key1", "Key2", "Key3", "Key4")
    result = suda_scores(key_codes(frame, keys), keys)
    assert result.score.tolist() == [0, 0, 0, 8, 6, 4, 8, 0]
    assert result.contributions[3].tolist() == [0.75, 0.25, 0.0, 0.25]
    assert result.attribute_contributions()["Key3"] == 0.0
    # DIS: U = 4 full-key uniques, P = 4 records in pairs, f = 0.01 (single precision as sdcMicro),
    # Q = 1 + (8 − 4)/20; DIS = 1/(1 + (U/D − U)/(score^Q · Σ score^−Q))
    f = np.float32(0.01)
    d = np.float32(4) * f / (np.float32(4) * f + np.float32(4) * (np.float32(1) - f))
    excess = float(np.float32(4) / d - np.float32(4))
    q = float(np.float32(1.2))
    scores = np.array([8.0, 6.0, 4.0, 8.0])
    expected = 1 / (1 + excess / (scores**q * (scores ** -q).sum()))
    assert result.dis_score[[3, 4, 5, 6]] == pytest.approx(expected, rel=1e-12)
    # U cancels: U/D − U = P(1 − f)/f up to single-precision rounding
    assert excess == pytest.approx(4 * 0.99 / 0.01, rel=1e-6)
    assert (result.dis_score[[0, 1, 2, 7]] == 0).all()


def test_two_keys_are_scored_as_three_like_sdcmicro() -> None:
    codes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    result = suda_scores(codes, ("a", "b"))
    # record 0 is unique on b = 0: weight (3 − 1)! = 2; record 1 (0, 1) only on (a, b): (3 − 2)! = 1
    assert result.score.tolist() == [2.0, 1.0, 0.0, 0.0]


def test_missing_values_are_never_part_of_an_msu() -> None:
    codes = np.array([[-1, 0, 0], [1, 0, 0], [2, 0, 1], [2, 0, 1]])
    result = suda_scores(codes, ("a", "b", "c"))
    assert result.score[0] == 0.0  # its only distinct value is missing
    assert result.msu_counts[1].tolist() == [1, 0, 0]  # a = 1 is unique


def test_limits() -> None:
    with pytest.raises(InputError):
        suda_scores(np.zeros((2, 17), dtype=np.int64), tuple(map(str, range(17))))
    with pytest.raises(InputError):
        suda_scores(np.zeros((2, 3), dtype=np.int64), ("a", "b", "c"), dis_fraction=1.0)
