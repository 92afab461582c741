"""What a verdict rests on (docs/method/risk.md, docs/method/roles.md): a generated person file
of the FEBRL kind ends NOT PASSED and says why in its first lines; nothing is judged on
nothing; the identity limit; direct identifiers declared harmless are recorded."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from attack.cli import main
from attack.risk.evaluation import evaluate
from attack.risk.mass import mass_attack
from attack.risk.settings import Evaluation


def _persons(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Original, release and external file of generated persons: the release coarsens the date
    of birth to the year and leaves the record id in; the external file has typo'd surnames."""
    rng = np.random.default_rng(seed)
    syllables = ["ka", "ro", "mi", "ta", "ne", "lo", "su", "ve", "da", "ri", "po", "chu", "an", "el", "ov"]
    surname = ["".join(rng.choice(syllables, 3)) for _ in range(n)]
    suburb = rng.choice([f"suburb{i}" for i in range(40)], n)
    original = pd.DataFrame({
        "unit": [f"p{i}" for i in range(n)], "rec_id": [f"rec-{i}-org" for i in range(n)], "surname": surname,
        "suburb": suburb, "postcode": [f"2{int(s[6:]):03d}" for s in suburb], "state": rng.choice(["nsw", "vic", "qld"], n),
        "date_of_birth": [int(f"{y}{m:02d}{d:02d}") for y, m, d in
                          zip(rng.integers(1920, 2000, n), rng.integers(1, 13, n), rng.integers(1, 29, n), strict=True)],
    })
    release = original.assign(date_of_birth=original["date_of_birth"] // 10000)
    external = original[["unit", "surname", "suburb", "postcode", "state"]].copy()
    external["surname"] = [s[:1] + "x" + s[2:] if rng.random() < 0.3 else s for s in external["surname"]]
    return original, release, external


def _link(tmp_path, release: pd.DataFrame, *extra: str):
    original, _, external = _persons()
    original.to_csv(tmp_path / "A.csv", index=False)
    external.to_csv(tmp_path / "B.csv", index=False)
    release.to_csv(tmp_path / "rel.csv", index=False)
    args = ["link", "--external", tmp_path / "B.csv", "--release", tmp_path / "rel.csv", "--original",
            tmp_path / "A.csv", "--external-id", "unit", "--release-id", "unit", "--key", "surname:string",
            "--key", "suburb:string", "--key", "postcode:nominal", "--block", "state", "--tau", "0.5",
            "--cell", "state", "--code", "postcode", "--json", tmp_path / "out.json", *extra]
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result, json.loads((tmp_path / "out.json").read_text()) if result.exit_code in (0, 1) else None


def test_a_person_file_with_coarsened_birth_dates_and_a_record_id_is_not_passed(tmp_path):
    result, figures = _link(tmp_path, _persons()[1])
    assert result.exit_code == 1, result.output
    head = result.output.splitlines()[:8]
    assert head[2] == "**NOT PASSED: cells at or above τ = 0.5 for some γ**"
    assert any("Judged on: targets date_of_birth (numeric, compared on the original truncated to 10^4" in line
               for line in head), head
    assert any("direct identifier(s) released: rec_id" in line for line in head), head
    judged = figures["judged_on"]
    assert judged["direct_identifiers"] == ["rec_id"]
    assert judged["identity"] == {"rule": "judged", "limit": 0.5, "on": "all links"}
    assert figures["roles"]["columns"]["rec_id"] == {
        "role": "direct_identifier", "inferred": True, "reason": "named like an identifier and unique per record"}
    # the birth year of every correctly linked person is right: u = 1, P = h, never a silent 0
    assert figures["usefulness"]["0.1"] == 1.0
    assert figures["disclosure_risk"]["0.1"] == figures["reidentification_rate"] > 0.5
    assert all(c["identity_passed"] is False for c in figures["cells"])


def test_without_the_record_id_and_declared_harmless_the_identity_still_judges(tmp_path):
    release = _persons()[1]
    result, figures = _link(tmp_path, release, "--harmless", "rec_id", "--identity", "discloses-nothing",
                            "--target", "surname:string")
    assert result.exit_code == 1
    assert figures["judged_on"]["harmless"] == ["rec_id"] and figures["judged_on"]["reasons"] == []
    assert "Direct identifiers declared harmless: rec_id." in result.output
    dropped, figures = _link(tmp_path, release.drop(columns=["rec_id", "date_of_birth"]), "--identity-limit", "0.99")
    # no target left: judged on identity alone (P = h against τ, h against the limit 0.99)
    assert dropped.exit_code == 1
    assert figures["judged_on"]["targets"] == {} and figures["judged_on"]["identity"]["limit"] == 0.99
    assert figures["disclosure_risk"]["0.1"] == figures["reidentification_rate"] > 0.5
    assert [c["identity_passed"] for c in figures["cells"]] == [c["reidentification_rate"] < 0.99
                                                                for c in figures["cells"]]


def _exact(n: int = 12, **settings) -> dict:
    ids = np.array([f"u{i}" for i in range(n)], dtype=object)
    frame = pd.DataFrame({"id": ids, "w": np.arange(n) + 10.0})
    spec = Evaluation.of(gamma=[0.1], tau=0.5, **settings)
    probability = np.full(n, 0.999)
    return evaluate(np.arange(n), ids, frame, ids, spec, id_columns=("id",), match_probability=probability)


def test_nothing_is_judged_on_nothing():
    # an exact copy, every link at probability 0.999: at P = 1.0 there is no confident link, so
    # P = 0 in every cell, and the verdict would rest on 0 confident links
    result = _exact(min_probability=[1.0], risk_on="confident", identity="discloses-nothing")
    assert all(c["passed"] for c in result["cells"]) and result["passed"] is False
    assert result["judged_on"]["reasons"] == [
        "the verdict would rest on 0 confident links, fewer than the minimum of 3"]
    few = _exact(n=2, identity="discloses-nothing", min_scored=3, targets=["w"])
    assert few["judged_on"]["reasons"][0] == "the verdict would rest on 2 scored unit(s), fewer than the minimum of 3"
    nothing = _exact(identity="discloses-nothing")
    assert nothing["judged_on"]["targets"] == {"w": {"type": "numeric"}}
    empty = _exact(identity="discloses-nothing", roles={"w": "other"})
    assert empty["judged_on"]["reasons"] == [
        "nothing is judged: no target is scored and identity is declared to disclose nothing"]


def test_learned_weights_resting_on_one_unit_are_not_passed():
    n = 20
    ids = [f"u{i}" for i in range(n)]
    frame = pd.DataFrame({"id": ids, "w": np.arange(n) * 3.0 + 1, "b": ["x"] * n})
    result = mass_attack(frame, frame.assign(w=frame["w"] * 10), keys=["b:nominal"], external_id="id",
                         release_id="id", tau=0.5, targets=["w"], learn_weights=0.95, seed=1,
                         identity="discloses-nothing")
    assert result.figures["n_verifiable"] == 1
    assert result.passed is False
    assert "1 scored unit(s)" in result.figures["judged_on"]["reasons"][0]
