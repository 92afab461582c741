"""Scoring rules of docs/method/risk.md: rates, usefulness with γ, zero and missing rules, cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.io.columns import type_frame
from attack.linkage.blocking import Block
from attack.risk.evaluation import (
    EvaluationSpec,
    default_targets,
    evaluate,
    gammas_from,
    wilson_interval,
)


def test_wilson_interval_matches_fixture():
    # worked example 9.3 (docs/reference/worked-examples.md): centre ± error for 100 of 500, 50 of 500, 10 of 500
    for successes, centre, error in [
        (100, 0.202287302138, 0.035001803167),
        (50, 0.103049736185, 0.026372173447),
        (10, 0.023659683422, 0.012760499825),
    ]:
        low, high = wilson_interval(successes, 500)
        assert low == pytest.approx(centre - error, abs=1e-11)
        assert high == pytest.approx(centre + error, abs=1e-11)
    assert wilson_interval(0, 0) is None
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0


def _release(values: dict) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"u{i}" for i in range(len(next(iter(values.values()))))], **values})


def _score(release, truth, links, spec, external_ids=None):
    ids = release["id"].to_numpy(dtype=object)
    external_ids = ids if external_ids is None else np.asarray(external_ids, dtype=object)
    truth = truth.copy()
    return evaluate(np.asarray(links), external_ids, release, ids, spec,
                    original=truth, original_ids=truth["id"].to_numpy(dtype=object))


def test_usefulness_is_strict_and_relative_to_the_truth():
    # worked example 1.4 (docs/reference/worked-examples.md): deviations exactly equal to γ are not useful
    truth = _release({"w": [200.0, 10.0, 300.0, 100.0]})
    release = _release({"w": [180.0, 11.0, 330.0, 110.0001]})
    spec = EvaluationSpec(gammas=gammas_from(["0.10"]), targets=("w",))
    result = _score(release, truth, [0, 1, 2, 3], spec)
    assert result["usefulness"]["0.1"] == 0.0
    loose = EvaluationSpec(gammas=gammas_from([0.1000001]), targets=("w",))
    assert _score(release, truth, [0, 1, 2, 3], loose)["usefulness"]["0.1000001"] == 0.75


def test_zero_rule_and_missing_values():
    truth = _release({"w": [0.0, 0.0, np.nan, 5.0, 5.0]})
    release = _release({"w": [0.0, 0.001, 3.0, np.nan, 5.0]})
    spec = EvaluationSpec(gammas=gammas_from([0.1]), targets=("w",))
    result = _score(release, truth, [0, 1, 2, 3, 4], spec)
    # evaluated: rows 0, 1, 3, 4 (true value missing in row 2); useful: rows 0 and 4
    assert result["usefulness"]["0.1"] == pytest.approx(2 / 4)
    tolerant = EvaluationSpec(gammas=gammas_from([0.1]), targets=("w",), zero_tolerance=0.01)
    assert _score(release, truth, [0, 1, 2, 3, 4], tolerant)["usefulness"]["0.1"] == pytest.approx(3 / 4)


def test_usefulness_is_one_when_nothing_is_evaluable_and_risk_zero_without_hits():
    truth = _release({"w": [np.nan, np.nan]})
    release = _release({"w": [1.0, 2.0]})
    spec = EvaluationSpec(gammas=gammas_from([0.1]), targets=("w",))
    result = _score(release, truth, [0, 1], spec)
    assert result["usefulness"]["0.1"] == 1.0 and result["disclosure_risk"]["0.1"] == 1.0
    result = _score(release, truth, [1, 0], spec)
    assert result["usefulness"]["0.1"] is None and result["disclosure_risk"]["0.1"] == 0.0


def test_per_variable_gamma():
    truth = _release({"a": [100.0, 100.0], "b": [100.0, 100.0]})
    release = _release({"a": [104.0, 108.0], "b": [104.0, 108.0]})
    spec = EvaluationSpec(gammas=gammas_from([0.05], {"b": [0.1]}), targets=("a", "b"))
    result = _score(release, truth, [0, 1], spec)
    assert result["usefulness"]["0.05"] == pytest.approx(3 / 4)
    assert result["usefulness_by_variable"]["0.05"] == {"a": 0.5, "b": 1.0}
    with pytest.raises(InputError, match="one per γ"):
        gammas_from([0.05, 0.1], {"b": [0.1]})


def test_unverifiable_records_stay_out_of_the_denominator():
    release = _release({"w": [1.0, 2.0, 3.0]})
    spec = EvaluationSpec(gammas=gammas_from([0.1]), targets=("w",))
    ids = ["u0", "x9", None, "u2"]
    result = _score(release, release, [0, 1, 2, 1], spec, external_ids=ids)
    assert result["n_external"] == 4
    assert result["n_verifiable"] == 2
    assert (result["n_correct"], result["n_false"]) == (1, 1)
    assert result["false_match_rate"] == 0.5
    with pytest.raises(InputError, match="no external identifier occurs"):
        _score(release, release, [0], spec, external_ids=["zz"])


def test_without_original_the_release_is_the_truth():
    release = _release({"w": [1.0, 2.0]})
    ids = release["id"].to_numpy(dtype=object)
    spec = EvaluationSpec(gammas=gammas_from([0.01]))
    result = evaluate(np.array([0, 1]), ids, release, ids, spec)
    assert result["usefulness"]["0.01"] == 1.0
    assert result["evaluation"]["targets"] == ["w"]


def test_unit_missing_from_original_is_an_error():
    release = _release({"w": [1.0, 2.0]})
    truth = release.iloc[:1]
    spec = EvaluationSpec(gammas=gammas_from([0.1]), targets=("w",))
    with pytest.raises(InputError, match="not in the original"):
        _score(release, truth, [0, 1], spec)


def test_cells_in_natural_order_and_tau_is_strict():
    truth = _release({"size": [10.0, 60.0, 600.0, 60.0], "w": [1.0, 1.0, 1.0, 1.0]})
    release = truth.copy()
    spec = EvaluationSpec(
        gammas=gammas_from([0.1]), tau=0.5, targets=("w",),
        cells=(Block("size", bins=(20.0, 100.0)),),
    )
    result = _score(release, truth, [0, 1, -1, 2], spec)
    labels = [c["cell"]["size:bins=20,100"] for c in result["cells"]]
    assert labels == ["[-inf, 20)", "[20, 100)", "[100, inf)"]
    rates = [c["disclosure_risk"]["0.1"] for c in result["cells"]]
    assert rates == [1.0, 0.5, 0.0]
    assert [c["passed"] for c in result["cells"]] == [False, False, True]  # 0.5 is not < 0.5
    assert result["n_failing_cells"] == 2


def test_upper_bound_flag():
    truth = _release({"w": [1.0] * 10})
    spec = EvaluationSpec(gammas=gammas_from([0.1]), tau=0.5, targets=("w",))
    links = [0, 1, 2, 3, -1, -1, -1, -1, -1, -1]  # P = 0.4, upper bound above 0.5
    result = _score(truth, truth, links, spec)
    assert result["passed"] is True
    assert result["cells"][0]["upper_bound_exceeds_tau"] is True


outcomes = st.lists(st.integers(-1, 7), min_size=1, max_size=8)


@settings(max_examples=100, deadline=None)
@given(outcomes, st.lists(st.floats(-100, 100, allow_nan=False), min_size=8, max_size=8))
def test_rates_are_proportions(links, noise):
    truth = _release({"w": [float(v) for v in range(8)]})
    release = _release({"w": [float(v) + n for v, n in zip(range(8), noise, strict=True)]})
    ids = release["id"].to_numpy(dtype=object)[: len(links)]
    spec = EvaluationSpec(targets=("w",))
    result = _score(release, truth, links, spec, external_ids=ids)
    assert result["n_correct"] + result["n_false"] + result["n_none"] == result["n_verifiable"]
    for key in ("0.05", "0.1"):
        assert 0 <= result["disclosure_risk"][key] <= result["reidentification_rate"] <= 1
        low, high = result["disclosure_risk_ci"][key]
        assert 0 <= low <= result["disclosure_risk"][key] <= high <= 1


def test_gamma_given_twice_is_rejected_whatever_its_spelling():
    with pytest.raises(InputError, match="given twice"):
        gammas_from(["0.1", "0.10"])
    assert [g.label for g in gammas_from(["0.10", 0.05, "1", 0.1000001])] == ["0.1", "0.05", "1.0", "0.1000001"]


def test_default_targets_follow_column_types_except_in_text_files():
    release = pd.DataFrame({"id": ["a", "b"], "code": ["1", "2"], "w": [1.0, 2.0], "name": ["x", "y"]})
    assert default_targets(release, release, ["id"]) == ["w"]
    text = type_frame(release.astype(str))  # as read from CSV: the column rule types the text
    assert default_targets(text, text, ["id"]) == ["code", "w"]
    assert default_targets(text, text, ["id", "code"]) == ["w"]
