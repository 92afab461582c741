"""Secondary disclosure indicators (docs/method/utility.md; worked example 11 (docs/reference/worked-examples.md))."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attack.utility.anonymity import interval_disclosure, k_anonymity, l_diversity

# --- interval disclosure (docs/method/utility.md) ---------------------------------------------------------


def test_interval_disclosure_counts_records_inside():
    release = np.array([[1.0, 10], [2, 20], [3, 30], [4, 40]])
    original = np.array([[1.05, 10], [2.1, 20], [3, 30.5], [4, 41]])
    result = interval_disclosure(original, release, ["a", "b"], k=0.05)
    # k · sd: 0.0645 and 0.645; record 2 is outside on a, record 4 on b
    assert (result.at_risk, result.share) == (2, 0.5)
    assert result.inside_share == {"a": 0.75, "b": 0.75}
    assert interval_disclosure(original, release, ["a", "b"], max_outside=1).at_risk == 4


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
    assert result.as_dict()["sample_uniques"] == 1
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
    assert result.as_dict()["records_by_l"] == {"1": 3, "2": 3}


def test_missing_key_is_its_own_value():
    data = pd.DataFrame({"a": ["x", None, None, "x"], "s": ["1", "2", None, "1"]})
    assert k_anonymity(data, ["a"]).frequencies.tolist() == [2, 2, 2, 2]
    assert l_diversity(data, ["a"], "s").diversity.tolist() == [1, 1, 1, 1]
