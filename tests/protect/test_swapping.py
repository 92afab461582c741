"""Rank swapping and swapping within groups (docs/method/protection.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.protect.swapping import group_swap, rank_swap, swap_partners, swap_window


def spec_partners(n: int, w: int, u: np.ndarray) -> dict[int, int]:
    """docs/method/protection.md written out literally with sets, for comparison."""
    unswapped = set(range(n))
    pairs: dict[int, int] = {}
    for i in range(n):
        if i not in unswapped:
            continue
        candidates = sorted(j for j in unswapped if i < j <= i + w)
        if not candidates:
            continue
        j = candidates[int(u[i] * len(candidates))]
        pairs[i], pairs[j] = j, i
        unswapped -= {i, j}
    return pairs


@pytest.fixture(scope="module")
def firms() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 5000
    turnover = rng.lognormal(10, 1, n)
    return pd.DataFrame({
        "id": np.arange(n),
        "turnover": turnover,
        "costs": turnover * rng.uniform(0.5, 0.9, n),
        "employees": rng.integers(1, 20, n),           # many ties
    })


def test_swap_window() -> None:
    assert swap_window(1, 1000) == 10
    assert swap_window(1, 150) == 1
    assert swap_window(1, 50) == 1
    assert swap_window(2.5, 1000) == 25
    for p in (0, -1, 101):
        with pytest.raises(InputError):
            swap_window(p, 100)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 200), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_partners_match_the_specification(n: int, w: int, seed: int) -> None:
    u = np.random.default_rng(seed).random(n)
    partner = swap_partners(n, w, u)
    expected = spec_partners(n, w, u)
    assert {r: int(p) for r, p in enumerate(partner) if p >= 0} == expected
    swapped = np.flatnonzero(partner >= 0)
    assert (partner[partner[swapped]] == swapped).all()          # an involution: pairs
    assert (np.abs(partner[swapped] - swapped) <= w).all()
    assert (partner[swapped] != swapped).all()


def test_rank_swap_keeps_distributions_and_window(firms: pd.DataFrame) -> None:
    before = firms.copy()
    out = rank_swap(firms, ["turnover", "costs", "employees"], 1, seed=4)
    pd.testing.assert_frame_equal(firms, before)
    assert out["id"].tolist() == firms["id"].tolist()
    assert out["employees"].dtype == "float64"
    w = swap_window(1, len(firms))
    for col in ("turnover", "costs", "employees"):
        np.testing.assert_array_equal(np.sort(out[col]), np.sort(firms[col].astype(float)))
    for col in ("turnover", "costs"):                            # distinct values: ranks unique
        rank = firms[col].rank(method="first").to_numpy().astype(int) - 1
        by_rank = np.empty(len(firms), dtype=int)
        by_rank[rank] = np.arange(len(firms))
        changed = np.flatnonzero(out[col].to_numpy() != firms[col].to_numpy())
        assert changed.size > 0.9 * len(firms)
        source_rank = pd.Series(rank, index=firms[col].to_numpy())[out[col].to_numpy()[changed]]
        assert (np.abs(source_rank.to_numpy() - rank[changed]) <= w).all()
        # pairs exchange values: the source unit received this unit's value
        source = by_rank[source_rank.to_numpy()]
        np.testing.assert_array_equal(out[col].to_numpy()[source], firms[col].to_numpy()[changed])
    assert out["turnover"].corr(out["costs"]) < firms["turnover"].corr(firms["costs"])


def test_rank_swap_deterministic_and_seeded(firms: pd.DataFrame) -> None:
    a = rank_swap(firms, ["turnover", "employees"], 2, seed=1)
    pd.testing.assert_frame_equal(a, rank_swap(firms, ["turnover", "employees"], 2, seed=1))
    assert not a["turnover"].equals(rank_swap(firms, ["turnover"], 2, seed=2)["turnover"])
    # own stream per column: the first column does not depend on the others
    assert a["turnover"].equals(rank_swap(firms, ["turnover"], 2, seed=1)["turnover"])


def test_rank_swap_missing_and_errors() -> None:
    data = pd.DataFrame({"x": [5.0, np.nan, 1.0, 3.0, 2.0, np.nan, 4.0], "c": list("abcdefg")})
    out = rank_swap(data, ["x"], 50, seed=0)
    assert out["x"].isna().tolist() == data["x"].isna().tolist()
    assert sorted(out["x"].dropna()) == [1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(InputError) as info:
        rank_swap(data, ["c"], 1)
    assert info.value.column == "c"
    with pytest.raises(InputError, match="percentage"):
        rank_swap(data, ["x"], 0)


def test_group_swap_permutes_within_groups() -> None:
    rng = np.random.default_rng(0)
    n = 3000
    data = pd.DataFrame({
        "wz": rng.choice(["15", "22", "28"], n),
        "region": rng.choice(["E", "W", None], n),
        "turnover": rng.lognormal(5, 1, n),
        "legal": rng.choice(["AG", "GmbH", "KG"], n),
    })
    data.loc[::7, "turnover"] = np.nan
    before = data.copy()
    out = group_swap(data, ["turnover", "legal"], ["wz", "region"], seed=6)
    pd.testing.assert_frame_equal(data, before)
    assert out[["wz", "region"]].equals(data[["wz", "region"]])
    assert out["turnover"].isna().tolist() == data["turnover"].isna().tolist()
    assert out["legal"].dtype == data["legal"].dtype
    for _, rows in data.groupby(["wz", "region"], dropna=False).groups.items():
        for col in ("turnover", "legal"):
            assert sorted(out.loc[rows, col].dropna()) == sorted(data.loc[rows, col].dropna())
    assert (out["turnover"] != data["turnover"]).mean() > 0.8
    # columns are permuted separately: a unit's values do not travel together
    pairs_before = set(zip(data["turnover"].round(9), data["legal"], strict=True))
    pairs_after = set(zip(out["turnover"].round(9), out["legal"], strict=True))
    assert len(pairs_before & pairs_after) < 0.6 * n
    pd.testing.assert_frame_equal(out, group_swap(data, ["turnover", "legal"], ["wz", "region"],
                                                  seed=6))
    assert not out.equals(group_swap(data, ["turnover", "legal"], ["wz", "region"], seed=7))


def test_group_swap_errors() -> None:
    data = pd.DataFrame({"g": ["a", "b"], "x": [1, 2]})
    with pytest.raises(InputError) as info:
        group_swap(data, ["x"], ["g", "nope"])
    assert info.value.column == "nope"
    with pytest.raises(InputError, match="grouping"):
        group_swap(data, ["x", "g"], "g")
