"""Confident links, the intruder's precision and a complete ground truth, on a hand-computed case."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.risk.evaluation import (
    evaluate,
    wilson_interval,
)
from attack.risk.mass import mass_attack
from attack.risk.settings import Evaluation

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
