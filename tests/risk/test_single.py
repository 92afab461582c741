"""Single attacks and R(u) (docs/method/single-attacks.md) on hand-made cases and the demo population."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.datasets.demo import demo_source
from attack.risk.single import (
    CORRECT,
    FALSE,
    NONE,
    NONE_AMBIGUOUS,
    NONE_NO_KNOWLEDGE,
    endangered,
    knowledge_from_original,
    market_leaders,
    single_attack,
    size_groups,
    target_usefulness,
    targets_by_size,
    unit_risk,
)

CAT = ["nace", "east_west"]
MET = ["employees", "turnover"]


def _knowledge() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["T1", "T2", "T3", "T4", "T5", "T6"],
        "nace": ["1511", "1512", "1513", "1514", "1515", "1516"],
        "east_west": ["W"] * 6,
        "employees": [1000.0, 2000.0, 3000.0, 4000.0, 5000.0, np.nan],
        "turnover": [500.0, 800.0, 1000.0, 2000.0, 3000.0, 100.0],
    })


def _release() -> pd.DataFrame:
    rows = [
        ("T1", "1511", "W", 1020, 510),    # the only candidate, the right unit -> correct
        ("X2", "1512", "W", 2050, 790),    # the only candidate, another unit -> false
        ("T2", "1512", "E", 2000, 800),    # T2 itself, but region differs -> not a candidate
        ("T3", "1513", "W", 3000, 1500),   # turnover 50% off -> outside the window -> none
        ("T4", "1514", "W", 4010, 2005),   # close
        ("Y4", "1514", "W", 4300, 2150),   # in the window but far: ratio <= 0.5 -> unique
        ("T5", "1515", "W", 5100, 3050),   # two candidates at the same distance -> ambiguous
        ("Y5", "1515", "W", 4900, 2950),
        ("T6", "1516", "W", 100, 100),     # T6's knowledge lacks employees
    ]
    return pd.DataFrame(rows, columns=["rid", "nace", "east_west", "employees", "turnover"])


@pytest.fixture(scope="module")
def result():
    return single_attack(_knowledge(), "id", _release(), "rid", categorical=CAT, metric=MET)


def test_outcomes(result):
    assert list(result.targets) == ["T1", "T2", "T3", "T4", "T5", "T6"]
    assert list(result.outcome) == [CORRECT, FALSE, NONE, CORRECT, NONE_AMBIGUOUS, NONE_NO_KNOWLEDGE]
    assert list(result.linked) == ["T1", "X2", None, "T4", None, None]
    assert list(result.candidates) == [1, 1, 0, 2, 2, 0]


def test_distance_ratio(result):
    # max–min over knowledge × release: both minima are 0 (3000 and 100 occur on both sides),
    # maxima (5000 − 100)² and (3050 − 100)²
    se, st = 4900.0**2, 2950.0**2
    expected = (10**2 / se + 5**2 / st) / (300**2 / se + 150**2 / st)
    assert result.ratio[3] == pytest.approx(expected, rel=1e-12)
    assert expected < 0.01
    assert result.ratio[4] == pytest.approx(1.0)
    assert np.isnan(result.ratio[[0, 1, 2, 5]]).all()


def test_summary_and_invariants(result):
    s = result.summary()
    assert s == {
        "sought": 6, "unique": 3, "correct": 2, "false": 1, "none": 3, "none_ambiguous": 1,
        "none_no_knowledge": 1, "not_reidentified": 4,
        "identification_probability": pytest.approx(2 / 6),
        "false_match_rate": pytest.approx(1 / 3),
    }
    assert s["sought"] == s["unique"] + s["none"]
    assert s["unique"] == s["correct"] + s["false"]
    assert s["not_reidentified"] == s["false"] + s["none"]


def test_by_group(result):
    labels = ["1000-4999"] * 4 + [">=5000"] * 2
    groups = result.by_group(labels)
    assert list(groups) == ["1000-4999", ">=5000"]
    small, large = groups["1000-4999"], groups[">=5000"]
    assert (small["sought"], small["unique"], small["correct"], small["false"], small["none"]) == (
        4, 3, 2, 1, 1)
    assert small["false_match_rate"] == pytest.approx(1 / 3)
    assert small["identification_probability"] == pytest.approx(0.5)
    assert (large["sought"], large["unique"], large["none"], large["none_no_knowledge"]) == (
        2, 0, 2, 1)
    assert large["false_match_rate"] is None
    assert large["identification_probability"] == 0
    assert result.by_group(dict(zip(result.targets, labels, strict=True))) == groups


def test_window_and_delta_settings():
    knowledge, release = _knowledge(), _release()
    wide = single_attack(knowledge, "id", release, "rid", categorical=CAT, metric=MET, window=0.5)
    assert wide.outcome[2] == CORRECT  # turnover 1500 vs 1000 is inside a 50% window
    strict = single_attack(knowledge, "id", release, "rid", categorical=CAT, metric=MET,
                           delta=0.001)
    assert strict.outcome[3] == NONE_AMBIGUOUS
    # boundary: exactly 10% off is inside the window
    edge = release.copy()
    edge.loc[0, "employees"] = 1100
    assert single_attack(knowledge, "id", edge, "rid", categorical=CAT,
                         metric=MET).outcome[0] == CORRECT
    # missing code in the knowledge -> no knowledge
    nocode = knowledge.copy()
    nocode.loc[0, "nace"] = None
    assert single_attack(nocode, "id", release, "rid", categorical=CAT,
                         metric=MET).outcome[0] == NONE_NO_KNOWLEDGE


def test_targets_by_size_inclusive():
    original = pd.DataFrame({
        "id": ["a", "b", "c", "d", "e"], "employees": [999, 1000, 4999, 5000, np.nan],
    })
    targets = targets_by_size(original, "id")
    assert list(targets) == ["b", "c", "d"]
    assert list(size_groups(original, "id", targets)) == ["1000-4999", "1000-4999", ">=5000"]


def test_market_leaders_per_group_and_prefix():
    original = pd.DataFrame({
        "id": ["a", "b", "c", "d", "e", "f", "g"],
        "nace": ["1511", "1511", "1511", "1520", "1511", "2211", "1511"],
        "east_west": ["W", "W", "W", "W", "E", "W", "W"],
        "turnover": [100.0, 300.0, 200.0, 250.0, 50.0, 10.0, 300.0],
    })
    # per nace × east_west, top 2; b and g tie at 300 -> id order
    assert list(market_leaders(original, "id", top=2)) == ["e", "b", "g", "d", "f"]
    # NACE division: 1511 and 1520 form one group "15"
    assert list(market_leaders(original, "id", top=3, prefix=2)) == ["e", "b", "g", "d", "f"]
    assert list(market_leaders(original, "id", top=1, by=("nace",), prefix={"nace": 2})) == [
        "b", "f"]


def test_knowledge_noise():
    original = pd.DataFrame({
        "id": [f"u{i}" for i in range(50)],
        "nace": ["1511"] * 50, "east_west": ["W", "E"] * 25,
        "employees": np.arange(1, 51) * 100.0, "turnover": np.arange(1, 51) * 1000.0,
    })
    targets = ["u7", "u3", "u40"]
    first = knowledge_from_original(original, "id", targets, relative_error=0.1, seed=5)
    again = knowledge_from_original(original, "id", targets, relative_error=0.1, seed=5)
    other = knowledge_from_original(original, "id", targets, relative_error=0.1, seed=6)
    pd.testing.assert_frame_equal(first, again)
    assert not first["turnover"].equals(other["turnover"])
    assert list(first["id"]) == targets
    truth = original.set_index("id").loc[targets]
    assert list(first["east_west"]) == list(truth["east_west"])
    for column in ("employees", "turnover"):
        factor = first[column].to_numpy() / truth[column].to_numpy()
        assert np.all((factor >= 0.9) & (factor <= 1.1))
        assert np.all(factor != 1.0)
    exact = knowledge_from_original(original, "id", targets, relative_error=0.0)
    assert list(exact["turnover"]) == list(truth["turnover"])


def test_unit_risk_and_endangered(result):
    usefulness = {"T1": 1.0, "T4": 0.5}
    mass = {"T1": 0.1, "T2": 0.7, "Z": 0.2}
    risk = unit_risk(result, usefulness, mass).set_index("unit")
    assert risk.loc["T1"].tolist() == [1.0, 0.1, 1.0]
    assert risk.loc["T2"].tolist() == [0.0, 0.7, 0.7]   # false link: R_E = 0
    assert risk.loc["T4"].tolist() == [0.5, 0.0, 0.5]
    assert risk.loc["Z"].tolist() == [0.0, 0.2, 0.2]   # not attacked
    assert risk.loc[["T3", "T5", "T6"], "R"].tolist() == [0.0, 0.0, 0.0]
    out = endangered(unit_risk(result, usefulness, mass), tau=0.5)
    assert dict(zip(out["unit"], out["reason"], strict=True)) == {
        "T1": "single attack", "T2": "mass attack", "T4": "single attack"}


def test_target_usefulness(result):
    original = _release().rename(columns={"rid": "id"})
    original.loc[original["id"] == "T1", "employees"] = 1000  # release 1020: 2% off -> useful
    original.loc[original["id"] == "T1", "turnover"] = 600    # release 510: 15% off -> not
    original = original[original["id"] != "X2"]
    shares = target_usefulness(result, original, "id", _release(), "rid", MET, gamma=0.10)
    assert shares == {"T1": 0.5, "T4": 1.0}


def test_demo_formal_exact_and_microaggregated():
    original, uid = demo_source("original", 3000, 1)
    formal, _ = demo_source("formal", 3000, 1)
    micro, _ = demo_source("microaggregated", 3000, 1)
    targets = targets_by_size(original, uid)
    assert len(targets) > 50
    exact = knowledge_from_original(original, uid, targets, relative_error=0.0)
    on_formal = single_attack(exact, uid, formal, uid, categorical=CAT, metric=MET).summary()
    assert on_formal["sought"] == len(targets)
    assert on_formal["correct"] == on_formal["unique"] == len(targets)
    assert on_formal["identification_probability"] == 1.0
    assert on_formal["false_match_rate"] == 0.0

    noisy = knowledge_from_original(original, uid, targets, relative_error=0.05, seed=1)
    on_micro = single_attack(noisy, uid, micro, uid, categorical=CAT, metric=MET).summary()
    assert on_micro["sought"] == on_micro["unique"] + on_micro["none"]
    assert on_micro["identification_probability"] < on_formal["identification_probability"]
    # same noisy knowledge against FORMAL: microaggregation still lowers the probability
    noisy_formal = single_attack(noisy, uid, formal, uid, categorical=CAT, metric=MET).summary()
    assert on_micro["identification_probability"] < noisy_formal["identification_probability"]
