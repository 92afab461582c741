"""Certificates: digest, input fingerprints, tamper detection, rerun equality, confidentiality."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

from attack.cli import main
from attack.io.fingerprint import sha256_file
from attack.study import certificate

MARKER = 987654.321  # an original value that must never reach a report


@pytest.fixture()
def scenario(tmp_path: Path) -> Path:
    original = ORIGINAL.astype({"costs": float})
    original.loc[5, "costs"] = MARKER
    EXTERNAL.to_csv(tmp_path / "external.csv", index=False)
    RELEASE.to_csv(tmp_path / "release.csv", index=False)
    original.to_csv(tmp_path / "original.csv", index=False)
    path = tmp_path / "scenario.toml"
    path.write_text(
        """
title = "fixture"
[data]
external = { path = "external.csv", id = "unit_id", codes = ["wz"] }
release = { path = "release.csv", id = "unit_id", codes = ["wz"] }
original = { path = "original.csv", id = "unit_id", codes = ["wz"] }
[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["wz", "region"]
[evaluation]
gamma = [0.1]
targets = ["turnover", "employees", "costs"]
cells = ["wz"]
[output]
json = "out/result.json"
html = "out/report.html"
""",
        encoding="utf-8",
    )
    return path


def _run(scenario: Path) -> Path:
    result = CliRunner().invoke(main, ["run", str(scenario), "--jobs", "1"])
    assert result.exit_code == 1, result.output  # the fixture is NOT PASSED at τ = 0.5
    return scenario.parent / "out" / "result.certificate.json"


def _verify(cert: Path, *extra: str):
    """``attack verify`` of a certificate written into out/ beside inputs one folder up."""
    return CliRunner().invoke(main, ["verify", str(cert), "--root", str(cert.parent.parent), *extra])


def test_run_writes_a_sealed_certificate_with_every_input(scenario):
    cert_path = _run(scenario)
    cert = json.loads(cert_path.read_text())
    assert {(i["role"], i["path"]) for i in cert["inputs"]} == {
        ("scenario", "../scenario.toml"),
        ("external", "../external.csv"),
        ("release", "../release.csv"),
        ("original", "../original.csv"),
    }
    assert all(len(i["sha256"]) == 64 for i in cert["inputs"])
    external = next(i for i in cert["inputs"] if i["role"] == "external")
    assert external["sha256"] == sha256_file(scenario.parent / "external.csv")
    assert cert["verdict"]["factually_anonymous"] is False
    assert cert["verdict"]["failing_cells"] == [{"run": "fixture", "cell": {"wz": "22"}}]
    assert cert["scenario"]["intruders"][0]["linkage"]["method"] == "greedy"
    assert cert["scenario"]["evaluation"]["tau"] == 0.5
    cells = {c["cell"]["wz"]: c for c in cert["results"][0]["cells"]}
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(2 / 9)
    assert (cert_path.parent / "result.certificate.html").read_text().count(">NOT PASSED<") == 1
    verified = _verify(cert_path)
    assert verified.exit_code == 0, verified.output
    assert verified.output.count("SHA-256 matches") == 4


@pytest.mark.parametrize("name", ["external.csv", "release.csv", "original.csv", "scenario.toml"])
def test_one_changed_byte_in_any_input_is_detected(scenario, name):
    cert_path = _run(scenario)
    target = scenario.parent / name
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    verified = _verify(cert_path)
    assert verified.exit_code == 1
    assert f"../{name}: SHA-256" in verified.output
    assert "does NOT match" in verified.output


def test_missing_input_and_altered_certificate_are_detected(scenario):
    cert_path = _run(scenario)
    (scenario.parent / "original.csv").unlink()
    assert "file not found" in _verify(cert_path).output
    cert = json.loads(cert_path.read_text())
    cert["results"][0]["cells"][0]["n_correct"] += 1
    cert_path.write_text(json.dumps(cert))
    verified = _verify(cert_path)
    assert verified.exit_code == 1
    assert "the certificate itself was altered" in verified.output


def test_rerun_reproduces_the_figures_and_catches_forged_ones(scenario):
    cert_path = _run(scenario)
    verified = _verify(cert_path, "--rerun")
    assert verified.exit_code == 0, verified.output
    assert "rerun: figures identical" in verified.output
    cert = json.loads(cert_path.read_text())
    cert["results"][0]["cells"][0]["disclosure_risk"]["0.1"] = 0.3  # forged (verdict unchanged), resealed
    cert["digest"] = certificate.digest(cert)
    cert_path.write_text(json.dumps(cert))
    verified = _verify(cert_path, "--rerun")
    assert verified.exit_code == 1
    assert "figures differ" in verified.output


def test_not_a_certificate_is_a_user_error(tmp_path):
    bad = tmp_path / "c.json"
    bad.write_text("{not json")
    result = _verify(bad)
    assert result.exit_code == 2
    assert "not a certificate" in result.output


def test_reports_and_certificates_carry_no_original_values_or_ids(scenario):
    _run(scenario)
    out = scenario.parent / "out"
    for name in ("result.json", "report.html", "result.certificate.json", "result.certificate.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "987654" not in text, name
        for unit in ORIGINAL.unit_id:
            assert f'"{unit}"' not in text and f">{unit}<" not in text, (name, unit)


def test_demo_certificate_verifies_and_reruns(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--units", "800", "--out", str(tmp_path), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    verified = _verify(tmp_path / "certificate.json", "--rerun")
    assert verified.exit_code == 0, verified.output
    assert verified.output.count("SHA-256 matches") == 5
    cert = json.loads((tmp_path / "certificate.json").read_text())
    assert cert["kind"] == "demo" and cert["rerun"] == {"n_units": 800, "seed": 1, "method": "greedy"}
    assert cert["verdict"]["factually_anonymous"] is False  # the worst case against FORMAL fails


def test_quiet_verbose_and_timings(scenario):
    quiet = CliRunner().invoke(main, ["run", str(scenario), "--jobs", "1", "--quiet"])
    assert quiet.exit_code == 1 and quiet.output == ""
    out = scenario.parent / "out" / "result.json"
    assert "timings" not in json.loads(out.read_text())["runs"][0]
    loud = CliRunner().invoke(main, ["run", str(scenario), "--jobs", "1", "--verbose", "--timings"])
    assert loud.exit_code == 1
    assert "timings (fixture): checks" in loud.output and "linkage" in loud.output
    assert set(json.loads(out.read_text())["runs"][0]["timings"]) == {"checks", "linkage", "evaluation"}
