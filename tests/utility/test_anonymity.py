"""Secondary disclosure indicators (docs/method/utility.md; worked example 11 (docs/reference/worked-examples.md))."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attack.utility.anonymity import (
    interval_disclosure,
    k_anonymity,
    l_diversity,
    rank_interval_inside,
)

# --- interval disclosure (docs/method/utility.md) ---------------------------------------------------------


def test_interval_disclosure_counts_records_inside():
    release = np.array([[1.0, 10], [2, 20], [3, 30], [4, 40]])
    original = np.array([[1.05, 10], [2.1, 20], [3, 30.5], [4, 41]])
    result = interval_disclosure(original, release, ["a", "b"], k=0.05)
    # k · sd: 0.0645 and 0.645; record 2 is outside on a, record 4 on b
    assert (result.at_risk, result.share) == (2, 0.5)
    assert result.inside_share == {"a": 0.75, "b": 0.75}
    assert interval_disclosure(original, release, ["a", "b"], max_outside=1).at_risk == 4


def test_rank_and_sd_intervals_by_hand():
    release = np.arange(1.0, 11.0)
    original = np.array([1.5, 2, 5, 4, 5, 6, 7, 8, 9, 12])
    # h = ⌊0.1 · 10⌋ = 1 rank: row 3 (3 → [2, 4]) and row 10 (10 → [9, 10]) are outside
    inside = rank_interval_inside(original, release, 0.1)
    np.testing.assert_array_equal(np.flatnonzero(~inside), [2, 9])
    result = interval_disclosure(original[:, None], release[:, None], ["v"], k=0.1)
    # SD-based: 0.1 · sd(1..10) = 0.3028; rows 1 (0.5), 3 and 10 (2) are outside
    assert result.inside_share == {"v": 0.7} and result.rank_inside_share == {"v": 0.8}
    assert result.value_share == {"sd": 0.7, "rank": 0.8}
    assert result.to_dict()["value_share"] == {"sd": 0.7, "rank": 0.8}


def test_rank_interval_takes_the_whole_run_of_ties():
    release = np.array([1.0, 1, 1, 5])
    original = np.array([0.5, 3, 5, 6])
    # h = 1: the three 1s span ranks 1-3, so their interval is [s_1, s_4] = [1, 5]
    np.testing.assert_array_equal(rank_interval_inside(original, release, 0.25),
                                  [False, True, True, False])


# --- secondary indicators (worked example 11 (docs/reference/worked-examples.md)) -----------------------------------------------------


def test_k_anonymity_table_1():
    data = pd.DataFrame(
        {
            "country": ["Germany", "Switzerland", "Germany", "Germany", "Switzerland"],
            "sex": ["female", "male", "female", "female", "male"],
            "degree": ["Master", "Master", "Bachelor", "Master", "Master"],
        }
    )
    result = k_anonymity(data, ["country", "sex", "degree"], k=2)
    assert result.frequencies.tolist() == [2, 2, 1, 2, 2]
    assert result.violating == 1
    assert result.to_dict()["sample_uniques"] == 1
    assert k_anonymity(data, ["country", "sex", "degree"], k=3).violating == 5


def test_l_diversity_table_2():
    data = pd.DataFrame(
        {
            "gender": ["Male"] * 3 + ["Female"] * 3,
            "age": ["30s"] * 3 + ["20s"] * 3,
            "condition": ["Cancer", "Heart disease", "Heart disease", "Cancer", "Cancer", "Cancer"],
        }
    )
    assert k_anonymity(data, ["gender", "age"]).frequencies.tolist() == [3] * 6
    result = l_diversity(data, ["gender", "age"], "condition")
    assert result.diversity.tolist() == [2, 2, 2, 1, 1, 1]
    assert result.to_dict()["records_by_l"] == {"1": 3, "2": 3}


def test_missing_key_is_its_own_value():
    data = pd.DataFrame({"a": ["x", None, None, "x"], "s": ["1", "2", None, "1"]})
    assert k_anonymity(data, ["a"]).frequencies.tolist() == [2, 2, 2, 2]
    assert l_diversity(data, ["a"], "s").diversity.tolist() == [1, 1, 1, 1]
