"""The cluster-aware intruder scored beside the person-level one (docs/method/structure.md), on the
hand-computed households of tests/linkage/test_clusters.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from attack.linkage.settings import Linkage
from attack.risk.mass import AttackInput, mass_attack, run_attack
from attack.risk.settings import Evaluation

# H1 = {30, 60} is released as {31, 58}, H2 = {31, 50} as {30, 51}; the person-level intruder
# (Procedure II) takes 30–30 and 31–31 first, both false, then 50–51 and 60–58: 2 of 4 persons.
# The cluster-aware intruder links H2–R2 (cost 2) and H1–R1 (cost 5): both households, 4 persons.
EXTERNAL = pd.DataFrame({"pid": list("abcdefgh"), "hid": ["H1", "H1", "H2", "H2", "H3", "H3", "H4", "H4"],
                         "region": ["n"] * 4 + ["s"] * 4, "age": [30, 60, 31, 50, 20, 70, 45, 46]})
RELEASE = pd.DataFrame({"pid": list("abcdefgh"), "hh": ["R1", "R1", "R2", "R2", "R3", "R3", "R4", "R4"],
                        "region": ["n"] * 4 + ["s"] * 4, "age": [31, 58, 30, 51, 45, 46, 20, 70]})
# In region s the release swapped the values of H3 and H4, so no link there is right.


def _result(**evaluation):
    spec = Linkage(keys=["age:metric"], block=["region"], standardise="none", cluster="hid:hh")
    data = AttackInput(EXTERNAL, "pid", RELEASE, "pid")
    return run_attack(data, spec, Evaluation.of(tau=0.5, targets=("age",), gamma=[0.1], **evaluation))


def test_levels_reported_side_by_side():
    figures = _result().figures
    structure = figures["structure"]
    assert figures["n_correct"] == 4  # the run's figures are the cluster-aware intruder's
    assert figures["passed"] is False
    assert structure["persons_alone"]["n_correct"] == 2
    assert structure["persons_through_cluster"]["n_correct"] == 4
    assert structure["gain"] == 2.0
    clusters = structure["clusters"]
    assert (clusters["n_verifiable"], clusters["n_reidentified"], clusters["reidentification_rate"]) == (4, 2, 0.5)
    assert clusters["passed"] is False  # 0.5 is not below τ = 0.5
    assert structure["any_intruder"]["n_reidentified"] == 4
    assert structure["any_intruder"]["by_intruder"]["person-level"]["n_only_this"] == 0
    assert structure["passed"] is False
    assert structure["linkage"]["signature_blocks"] == 2


def test_cluster_level_cells():
    clusters = _result(cells=["region"]).figures["structure"]["clusters"]
    by_cell = {c["label"]: (c["n_verifiable"], c["n_reidentified"], c["passed"]) for c in clusters["cells"]}
    assert by_cell == {"region n": (2, 2, False), "region s": (2, 0, True)}
    assert clusters["n_failing_cells"] == 1


def test_household_risk_beside_it():
    risk = _result().figures["structure"]["household_risk"]
    # region alone: 4 persons in each region, individual risk 1/4, household of two 1 − (3/4)² = 7/16
    assert risk["keys"] == ["region"]
    assert risk["expected_reidentifications"] == pytest.approx(8 * 7 / 16)


def test_mass_attack_takes_the_cluster_column():
    result = mass_attack(EXTERNAL, RELEASE.rename(columns={"hh": "hid"}), keys=["age:metric"], blocks=["region"],
                         external_id="pid", release_id="pid", tau=0.5, targets=["age"], standardise="none",
                         cluster="hid")
    assert result.figures["structure"]["persons_through_cluster"]["n_correct"] == 4
    assert result.figures["linkage"]["cluster"] == "hid"


def test_command_line(tmp_path):
    from click.testing import CliRunner

    from attack.cli import main

    EXTERNAL.to_csv(tmp_path / "e.csv", index=False)
    RELEASE.to_csv(tmp_path / "r.csv", index=False)
    common = ["link", "--external", str(tmp_path / "e.csv"), "--release", str(tmp_path / "r.csv"), "--external-id",
              "pid", "--release-id", "pid", "--key", "age:metric", "--block", "region", "--standardise", "none",
              "--target", "age", "--quiet"]
    out = tmp_path / "out.json"
    result = CliRunner().invoke(main, [*common, "--cluster", "hid:hh", "--json", str(out)])
    assert result.exit_code == 1, result.output  # 4 of 8 persons, every age within 10 %
    assert json.loads(out.read_text())["structure"]["persons_through_cluster"]["n_correct"] == 4
    broken = CliRunner().invoke(main, [*common, "--cluster", "hid:household"])
    assert broken.exit_code == 2 and "Traceback" not in broken.output and "household" in broken.output
    panel = CliRunner().invoke(main, [*common, "--wave", "hid:hh"])  # waves H1, H2 … against R1, R2 …
    assert panel.exit_code == 2 and "share no wave" in panel.output
