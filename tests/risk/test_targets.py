"""Usefulness by type of target (docs/method/risk.md): hand-computed fixtures for every type,
the released scale of a coarsened target, and the refusal of a degenerate comparison."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.risk.evaluation import evaluate
from attack.risk.mass import mass_attack
from attack.risk.settings import Evaluation
from attack.risk.targets import parse_target


def _run(true: list, released: list, target: str, links: list[int] | None = None, **settings) -> dict:
    n = len(true)
    ids = np.array([f"u{i}" for i in range(n)], dtype=object)
    original = pd.DataFrame({"id": ids, "t": true})
    release = pd.DataFrame({"id": ids, "t": released})
    spec = Evaluation.of(gamma=[0.1], tau=0.5, targets=[target], identity="discloses-nothing", **settings)
    links = list(range(n)) if links is None else links
    return evaluate(np.asarray(links), ids, release, ids, spec, original=original, original_ids=ids,
                    id_columns=("id",))


def test_a_categorical_target_released_unchanged_after_a_reidentification_is_disclosed():
    # 4 units, 3 linked correctly (the 4th to unit 0: false); codes released unchanged:
    # h = 3/4, u = 3/3, P = 0.75 >= τ
    result = _run(["A", "B", "C", "D"], ["A", "B", "C", "D"], "t:categorical", links=[0, 1, 2, 0])
    assert result["reidentification_rate"] == 0.75
    assert result["usefulness"]["0.1"] == 1.0
    assert result["disclosure_risk"]["0.1"] == 0.75
    assert result["passed"] is False
    assert result["judged_on"]["targets"] == {"t": {"type": "categorical"}}


def test_categorical_agreement_and_agreement_at_a_prefix():
    # two of four codes changed: u = 2/4; at prefix 2, "2519" agrees with "2511": u = 3/4
    true, released = ["2511", "2512", "4711", "4712"], ["2511", "2519", "4711", "5612"]
    assert _run(true, released, "t:categorical")["disclosure_risk"]["0.1"] == 0.5
    assert _run(true, released, "t:categorical:prefix=2")["disclosure_risk"]["0.1"] == 0.75


def test_ordinal_by_rank_distance():
    # order low < mid < high; within 1 rank: low→mid useful, low→high not, high→high useful: u = 2/3
    result = _run(["low", "low", "high"], ["mid", "high", "high"], "t:ordinal:order=low|mid|high:within=1")
    assert result["usefulness"]["0.1"] == pytest.approx(2 / 3)
    exact = _run(["low", "low", "high"], ["mid", "high", "high"], "t:ordinal:order=low|mid|high")
    assert exact["usefulness"]["0.1"] == pytest.approx(1 / 3)
    with pytest.raises(InputError, match="not in the declared order"):
        _run(["low"], ["medium"], "t:ordinal:order=low|mid|high")


def test_strings_after_normalisation():
    # " MULLER " and "Müller" both normalise to "muller", "Straße 1" case-folds to "strasse 1";
    # "Mueller" stays "mueller": u = 2/3
    result = _run(["Müller", "Straße 1", "Müller"], [" MULLER ", "strasse 1", "Mueller"], "t:string")
    assert result["usefulness"]["0.1"] == pytest.approx(2 / 3)


def test_dates_within_a_tolerance_in_days():
    # 19 days apart: useful at days=30; 60 days apart: not; u = 1/2; without a tolerance u = 0
    true, released = ["2000-01-01", "2000-01-01"], ["2000-01-20", "2000-03-01"]
    assert _run(true, released, "t:date:days=30")["usefulness"]["0.1"] == 0.5
    assert _run(true, released, "t:date")["usefulness"]["0.1"] == 0.0


def test_a_date_released_as_the_year_is_compared_on_the_year():
    result = _run([19151111, 19870203, 20010101], [1915, 1987, 2002], "t:date")
    assert result["usefulness"]["0.1"] == pytest.approx(2 / 3)
    assert result["judged_on"]["targets"]["t"]["compared_on"] == "the released year"


def test_a_number_coarsened_by_truncation_is_compared_on_the_released_scale():
    # 25 birth dates released as years (1915 against 19151111): the original truncated to 10^4;
    # every correctly linked unit's year is right, u = 1 (never a silent 0)
    true = [19150000 + 101 * i for i in range(25)]
    result = _run(true, [t // 10000 for t in true], "t")
    assert result["usefulness"]["0.1"] == 1.0
    assert "truncated to 10^4" in result["judged_on"]["targets"]["t"]["compared_on"]


def test_a_number_released_in_thousands_is_compared_in_thousands():
    # 25 turnovers released in thousands (rounded): 24 as the original rounds them, one off by 1
    true = [123_456.0 + 10_007 * i for i in range(25)]
    released = [round(t / 1000) for t in true]
    released[3] += 1
    result = _run(true, released, "t")
    assert result["usefulness"]["0.1"] == pytest.approx(24 / 25)
    assert "rounded to 10^3" in result["judged_on"]["targets"]["t"]["compared_on"]


def test_a_comparison_on_another_scale_stops_naming_column_and_an_example_pair():
    true = [1000.0 + 37 * i for i in range(25)]
    with pytest.raises(InputError, match=r"column 't'.*released value 1000000 against its original 1000"):
        _run(true, [t * 1000 for t in true], "t")
    with pytest.raises(InputError, match="recoded classes"):
        _run([str(i % 3) for i in range(25)], [["x", "y", "z"][i % 3] for i in range(25)], "t")


def test_numeric_targets_keep_the_relative_deviation_rule():
    # worked example 1.4: deviations 0.1, 0.1, 0.1 and 0.100001 are not below γ = 0.1
    result = _run([200.0, 10.0, 300.0, 100.0], [180.0, 11.0, 330.0, 110.0001], "t")
    assert result["usefulness"]["0.1"] == 0.0
    assert result["judged_on"]["targets"] == {"t": {"type": "numeric"}}


def test_target_spellings_are_checked():
    assert parse_target("nace:categorical:prefix=2").label() == "nace:categorical:prefix=2"
    for bad, message in [("x:colour", "unknown type"), ("x:date:tolerance=3", "is not one of"),
                         ("x:categorical:prefix=0", "above 0"), ("x:ordinal:order=a|a", "twice")]:
        with pytest.raises(InputError, match=message):
            parse_target(bad)


def test_recoded_classes_are_compared_through_the_protection_log(tmp_path):
    # 30 units with classes a, b, c, d; the release recodes a, b → "low" and c, d → "high", and
    # one unit's released class is off. Without the code map the run stops (no prefix maps the
    # codes); with the protection log the original is recoded the same way: u = 29/30.
    true = [["a", "b", "c", "d"][i % 4] for i in range(30)]
    recode = {"a": "low", "b": "low", "c": "high", "d": "high"}
    released = [recode[v] for v in true]
    released[5] = "high" if released[5] == "low" else "low"
    with pytest.raises(InputError, match="recoded classes"):
        _run(true, released, "t")
    ids = np.array([f"u{i}" for i in range(30)], dtype=object)
    original = pd.DataFrame({"id": ids, "k": ["x"] * 30, "t": true})
    release = original.assign(t=released)
    spec = Evaluation.of(gamma=[0.1], tau=0.5, targets=["t"], identity="discloses-nothing")
    scored = evaluate(np.arange(30), ids, release, ids, spec, original=original, original_ids=ids,
                      id_columns=("id",), recodings={"t": recode})
    assert scored["usefulness"]["0.1"] == pytest.approx(29 / 30)
    # the same map read from the protection log file of attack protect
    log = tmp_path / "rel.protection.json"
    log.write_text(json.dumps({"method": "coarsen", "details": {"t": {"mapping": recode}}}))
    linked = mass_attack(original[["id", "k"]], release, original=original, keys=["k:nominal"], external_id="id",
                         release_id="id", tau=0.5, targets=["t"], protection_log=log, identity="discloses-nothing")
    assert linked.figures["judged_on"]["targets"]["t"] == {
        "type": "categorical", "compared_on": "the original recoded as the protection log records"}
    with pytest.raises(InputError, match="protection log"):
        mass_attack(original[["id", "k"]], release, keys=["k:nominal"], external_id="id", release_id="id",
                    tau=0.5, protection_log=tmp_path / "missing.json")
