"""Scoring rules of docs/method/risk.md: rates, usefulness with γ, zero and missing rules, cells."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.cli import main
from attack.errors import InputError
from attack.io.columns import type_frame
from attack.risk.evaluation import (
    default_targets,
    evaluate,
    wilson_interval,
)
from attack.risk.mass import mass_attack
from attack.risk.settings import Evaluation
from attack.risk.thresholds import gammas_from


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
                    original=truth, original_ids=truth["id"].to_numpy(dtype=object), id_columns=("id",))


def test_usefulness_is_strict_and_relative_to_the_truth():
    # worked example 1.4 (docs/reference/worked-examples.md): deviations exactly equal to γ are not useful
    truth = _release({"w": [200.0, 10.0, 300.0, 100.0]})
    release = _release({"w": [180.0, 11.0, 330.0, 110.0001]})
    spec = Evaluation.of(gamma=["0.10"], targets=("w",))
    result = _score(release, truth, [0, 1, 2, 3], spec)
    assert result["usefulness"]["0.1"] == 0.0
    loose = Evaluation.of(gamma=[0.1000001], targets=("w",))
    assert _score(release, truth, [0, 1, 2, 3], loose)["usefulness"]["0.1000001"] == 0.75


def test_zero_rule_and_missing_values():
    truth = _release({"w": [0.0, 0.0, np.nan, 5.0, 5.0]})
    release = _release({"w": [0.0, 0.001, 3.0, np.nan, 5.0]})
    spec = Evaluation.of(gamma=[0.1], targets=("w",))
    result = _score(release, truth, [0, 1, 2, 3, 4], spec)
    # evaluated: rows 0, 1, 3, 4 (true value missing in row 2); useful: rows 0 and 4
    assert result["usefulness"]["0.1"] == pytest.approx(2 / 4)
    tolerant = Evaluation.of(gamma=[0.1], targets=("w",), zero_tolerance=0.01)
    assert _score(release, truth, [0, 1, 2, 3, 4], tolerant)["usefulness"]["0.1"] == pytest.approx(3 / 4)


def test_usefulness_is_one_when_nothing_is_evaluable_and_risk_zero_without_hits():
    truth = _release({"w": [np.nan, np.nan]})
    release = _release({"w": [1.0, 2.0]})
    spec = Evaluation.of(gamma=[0.1], targets=("w",))
    result = _score(release, truth, [0, 1], spec)
    assert result["usefulness"]["0.1"] == 1.0 and result["disclosure_risk"]["0.1"] == 1.0
    result = _score(release, truth, [1, 0], spec)
    assert result["usefulness"]["0.1"] is None and result["disclosure_risk"]["0.1"] == 0.0


def test_per_variable_gamma():
    truth = _release({"a": [100.0, 100.0], "b": [100.0, 100.0]})
    release = _release({"a": [104.0, 108.0], "b": [104.0, 108.0]})
    spec = Evaluation.of(gamma=[0.05], gamma_by_variable={"b": [0.1]}, targets=("a", "b"))
    result = _score(release, truth, [0, 1], spec)
    assert result["usefulness"]["0.05"] == pytest.approx(3 / 4)
    assert result["usefulness_by_variable"]["0.05"] == {"a": 0.5, "b": 1.0}
    with pytest.raises(InputError, match="one per γ"):
        gammas_from([0.05, 0.1], {"b": [0.1]})


def test_unverifiable_records_stay_out_of_the_denominator():
    release = _release({"w": [1.0, 2.0, 3.0]})
    spec = Evaluation.of(gamma=[0.1], targets=("w",))
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
    spec = Evaluation.of(gamma=[0.01])
    result = evaluate(np.array([0, 1]), ids, release, ids, spec)
    assert result["usefulness"]["0.01"] == 1.0
    assert result["evaluation"]["targets"] == ["w"]


def test_unit_missing_from_original_is_an_error():
    release = _release({"w": [1.0, 2.0]})
    truth = release.iloc[:1]
    spec = Evaluation.of(gamma=[0.1], targets=("w",))
    with pytest.raises(InputError, match="not in the original"):
        _score(release, truth, [0, 1], spec)


def test_cells_in_natural_order_and_tau_is_strict():
    truth = _release({"size": [10.0, 60.0, 600.0, 60.0], "w": [1.0, 1.0, 1.0, 1.0]})
    release = truth.copy()
    spec = Evaluation.of(
        gamma=[0.1], tau=0.5, targets=("w",),
        cells=["size:bins=20,100"],
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
    spec = Evaluation.of(gamma=[0.1], tau=0.5, targets=("w",))
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
    spec = Evaluation.of(targets=("w",))
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


# Confident links, the intruder's precision and a complete ground truth, on a hand-computed case.

RELEASE = pd.DataFrame({"id": ["a", "b", "c", "d"], "x": [10.0, 20.0, 30.0, 40.0]})
RELEASE_IDS = RELEASE["id"].to_numpy(dtype=object)
# e0 a→a correct (0.95); e1 b→c false (0.6); e2 a (second record of a)→d false (0.3);
# e3 z (not in the release)→b (0.92); e4 unknown id, no link; e5 c, no link
EXTERNAL_IDS = np.array(["a", "b", "a", "z", None, "c"], dtype=object)
LINKS = np.array([0, 2, 3, 1, -1, -1])
PROBABILITY = np.array([0.95, 0.6, 0.3, 0.92, np.nan, np.nan])


def _evaluate(**spec) -> dict:
    spec = Evaluation.of(gamma=[0.1], targets=("x",), **spec)
    return evaluate(LINKS, EXTERNAL_IDS, RELEASE, RELEASE_IDS, spec, match_probability=PROBABILITY)


def test_default_truth_keeps_the_handbook_figures():
    r = _evaluate()
    assert (r["n_verifiable"], r["n_matched"], r["n_correct"], r["n_false"], r["n_none"]) == (4, 3, 1, 2, 1)
    assert r["reidentification_rate"] == 0.25
    assert r["false_match_rate"] == pytest.approx(2 / 3)
    assert r["precision"] == pytest.approx(1 / 3) and r["precision_ci"] == wilson_interval(1, 3)
    assert "n_no_counterpart" not in r
    # two external records of unit a: three units verifiable, one re-identified
    assert (r["n_units_verifiable"], r["n_units_reidentified"]) == (3, 1)
    assert "truth_complete" not in r["evaluation"]


def test_complete_truth_counts_links_without_counterpart_as_false():
    r = _evaluate(truth_complete=True)
    assert (r["n_no_counterpart"], r["n_linked_no_counterpart"]) == (2, 1)
    assert (r["n_verifiable"], r["n_matched"], r["n_correct"], r["n_false"], r["n_none"]) == (4, 4, 1, 3, 1)
    assert r["reidentification_rate"] == 0.25  # the hit rate does not change
    assert r["false_match_rate"] == 0.75 and r["false_match_rate_ci"] == wilson_interval(3, 4)
    assert r["precision"] == 0.25
    # cells hold the records whose unit is in the release
    assert r["cells"][0]["n_matched"] == 3 and r["cells"][0]["precision"] == pytest.approx(1 / 3)
    assert r["evaluation"]["truth_complete"] is True


def test_confident_links_per_threshold():
    r = _evaluate(truth_complete=True)
    c = r["confident"]
    assert list(c) == ["0.5", "0.9", "0.99"]
    # P >= 0.5: e0, e1 and, without counterpart, e3
    assert (c["0.5"]["n_confident"], c["0.5"]["n_confident_correct"]) == (3, 1)
    assert c["0.5"]["precision"] == pytest.approx(1 / 3)
    assert c["0.5"]["confident_rate"] == 0.25 and c["0.5"]["confident_rate_ci"] == wilson_interval(1, 4)
    assert (c["0.9"]["n_confident"], c["0.9"]["precision"]) == (2, 0.5)
    assert c["0.99"] == {"n_confident": 0, "n_confident_correct": 0, "confident_rate": 0.0,
                         "confident_rate_ci": wilson_interval(0, 4), "precision": None, "precision_ci": None}
    # per cell, without the record that has no counterpart
    assert r["cells"][0]["confident"]["0.5"]["n_confident"] == 2
    assert _evaluate()["confident"]["0.5"]["precision"] == 0.5


def test_tau_on_the_confident_links():
    r = _evaluate(min_probability=[0.5], risk_on="confident")
    assert (r["n_matched"], r["n_correct"]) == (2, 1)  # e2's link (0.3) is dropped
    assert list(r["confident"]) == ["0.5"]
    assert "confident links" in r["evaluation"]["risk_on"]
    with pytest.raises(InputError, match="risk_on"):
        Evaluation.of(risk_on="some")
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        Evaluation.of(min_probability=[1.5])


def _files(tmp_path):
    rng = np.random.default_rng(0)
    units = [f"u{i}" for i in range(60)]
    release = pd.DataFrame({"unit": units, "turnover": rng.lognormal(5, 1, 60).round(1),
                            "sector": rng.choice(list("ABCDEFGH"), 60), "town": rng.choice(list("PQRSTUVW"), 60)})
    external = release.iloc[10:].copy()
    external["unit"] = [f"u{i}" for i in range(10, 50)] + [f"v{i}" for i in range(10)]
    external.loc[external.index[-2:], "unit"] = "u12"  # two more records of one unit
    release.to_csv(tmp_path / "rel.csv", index=False)
    external.to_csv(tmp_path / "ext.csv", index=False)
    return tmp_path / "ext.csv", tmp_path / "rel.csv"


def test_duplicate_external_ids_need_a_complete_truth(tmp_path):
    ext, rel = _files(tmp_path)
    args = {"keys": ["turnover:metric:log", "sector:nominal", "town:nominal"], "external_id": "unit",
                "release_id": "unit", "tau": 0.5, "targets": ["turnover"]}
    with pytest.raises(InputError, match="duplicate identifier"):
        mass_attack(ext, rel, **args)
    result = mass_attack(ext, rel, truth_complete=True, intruder="fellegi-sunter", **args)
    assert result.figures["n_no_counterpart"] == 8
    # u10..u49 and two more records of u12: 42 records of 40 units
    assert (result.figures["n_verifiable"], result.figures["n_units_verifiable"]) == (42, 40)
    assert "match_probability" in result.links.columns


def test_cli_link_fellegi_sunter(tmp_path):
    ext, rel = _files(tmp_path)
    out = tmp_path / "r.json"
    args = ["link", "--external", ext, "--release", rel, "--external-id", "unit", "--release-id", "unit",
            "--key", "turnover:metric:log", "--key", "sector:nominal", "--key", "town:nominal",
            "--target", "turnover", "--intruder", "fellegi-sunter", "--truth-complete",
            "--min-probability", "0.8", "--json", out, "--quiet"]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(out.read_text())
    assert list(doc["confident"]) == ["0.8"]
    assert doc["linkage"]["intruder"] == "fellegi-sunter"
    assert doc["linkage"]["match_probability"]["model"] == "fellegi-sunter"
    assert doc["n_no_counterpart"] == 8 and doc["evaluation"]["truth_complete"] is True
    bad = CliRunner().invoke(main, [str(a) for a in args[:-4] + ["--intruder", "oracle"]])
    assert bad.exit_code == 2
