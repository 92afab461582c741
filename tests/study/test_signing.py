"""Signed certificates: keys, signatures, verdicts checked against their own figures, exit codes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

import attack
from attack.cli import main
from attack.study import certificate

SCENARIO = """
title = "fixture"
[data]
external = {{ path = "external.csv", id = "unit_id", codes = ["wz"] }}
release = {{ path = "release.csv", id = "unit_id", codes = ["wz"] }}
original = {{ path = "original.csv", id = "unit_id", codes = ["wz"] }}
[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["wz", "region"]
[evaluation]
gamma = [0.1]
tau = {tau}
targets = ["turnover", "employees", "costs"]
cells = ["wz"]
identity = "discloses-nothing"
[output]
json = "out/result.json"
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    for name, frame in (("external", EXTERNAL), ("release", RELEASE), ("original", ORIGINAL)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return tmp_path


def _scenario(folder: Path, tau: float = 0.5) -> Path:
    path = folder / "scenario.toml"
    path.write_text(SCENARIO.format(tau=tau), encoding="utf-8")
    return path


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    result = invoke("keygen", "--out", tmp_path / "keys")
    assert result.exit_code == 0, result.output
    return tmp_path / "keys"


def _signed(folder: Path, keys: Path, tau: float = 0.5) -> Path:
    result = invoke("run", _scenario(folder, tau), "--sign", keys / "private.pem", "--quiet")
    assert result.exit_code == (0 if tau == 1.0 else 1), result.output
    return folder / "out" / "result.certificate.json"


def _rewrite(path: Path, change) -> None:
    cert = json.loads(path.read_text(encoding="utf-8"))
    change(cert)
    path.write_text(json.dumps(cert), encoding="utf-8")


def test_keygen_writes_an_owner_only_private_key_and_refuses_to_overwrite(keys):
    assert stat.S_IMODE((keys / "private.pem").stat().st_mode) == 0o600
    assert (keys / "public.pem").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    again = invoke("keygen", "--out", keys)
    assert again.exit_code == 2 and "refusing to overwrite" in again.output
    assert "Traceback" not in again.output


def test_a_signed_certificate_verifies_with_its_key_only(folder, keys, tmp_path):
    cert = _signed(folder, keys)
    good = invoke("verify", cert, "--root", folder, "--public-key", keys / "public.pem", "--rerun")
    assert good.exit_code == 0, good.output
    assert "✔ signature valid" in good.output and "authentic and consistent" in good.output
    assert "✘" not in good.output
    invoke("keygen", "--out", tmp_path / "other")
    other = invoke("verify", cert, "--root", folder, "--public-key", tmp_path / "other" / "public.pem")
    assert other.exit_code == 1 and "✘ signed by key" in other.output
    plain = invoke("verify", cert, "--root", folder)  # no key: intact, but never called authentic
    assert plain.exit_code == 0 and "signer is not verified" in plain.output
    assert "authentic" not in plain.output


@pytest.mark.parametrize("where", ["created", "risk", "verdict"])
def test_any_change_breaks_the_signature(folder, keys, where):
    cert = _signed(folder, keys)
    if where == "created":  # one byte of the certificate
        _rewrite(cert, lambda c: c.update(created=c["created"][:-2] + ("00" if c["created"][-2:] != "00" else "01")))
    elif where == "risk":
        _rewrite(cert, lambda c: c["results"][0]["cells"][0]["disclosure_risk"].update({"0.1": 0.3}))
    else:
        _rewrite(cert, lambda c: c["verdict"].update(factually_anonymous=True))
    result = invoke("verify", cert, "--root", folder, "--public-key", keys / "public.pem")
    assert result.exit_code == 1
    assert "✘ signature does NOT match" in result.output


def test_a_flipped_verdict_with_a_recomputed_digest_is_caught_with_and_without_a_key(folder, keys):
    cert = _signed(folder, keys)

    def forge(c):
        c["verdict"].update(factually_anonymous=True, failing_cells=[], statement="certified")
        c["results"][0]["cells"][1]["passed"] = True
        c["results"][0]["passed"] = True
        c["digest"] = certificate.digest(c)

    _rewrite(cert, forge)
    for extra in ([], ["--public-key", keys / "public.pem"]):
        result = invoke("verify", cert, "--root", folder, *extra)
        assert result.exit_code == 1
        assert "✔ digest matches" in result.output  # the forger resealed it ...
        assert "✘ verdict does NOT follow from the figures" in result.output  # ... the figures say no
        assert "cell wz=22: marked PASSED" in result.output


def test_an_unsigned_certificate_is_never_reported_as_signed(folder, keys):
    result = invoke("run", _scenario(folder), "--quiet")
    cert = folder / "out" / "result.certificate.json"
    assert result.exit_code == 1 and "signature" not in json.loads(cert.read_text())
    plain = invoke("verify", cert, "--root", folder)
    assert plain.exit_code == 0 and "• unsigned" in plain.output and "authentic" not in plain.output
    with_key = invoke("verify", cert, "--root", folder, "--public-key", keys / "public.pem")
    assert with_key.exit_code == 1 and "✘ unsigned" in with_key.output


def test_an_encrypted_key_needs_its_passphrase(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("ATTACK_KEY_PASS", "correct horse")
    assert invoke("keygen", "--out", tmp_path / "k", "--passphrase-env", "ATTACK_KEY_PASS").exit_code == 0
    private = tmp_path / "k" / "private.pem"
    assert "ENCRYPTED" in private.read_text()
    missing = invoke("run", _scenario(folder), "--sign", private)
    assert missing.exit_code == 2 and "passphrase" in missing.output
    assert not (folder / "out").exists()  # no output before the key is usable
    monkeypatch.setenv("WRONG", "battery staple")
    wrong = invoke("run", _scenario(folder), "--sign", private, "--passphrase-env", "WRONG")
    assert wrong.exit_code == 2 and "Traceback" not in wrong.output
    right = invoke("run", _scenario(folder), "--sign", private, "--passphrase-env", "ATTACK_KEY_PASS", "--quiet")
    assert right.exit_code == 1
    ok = invoke("verify", folder / "out" / "result.certificate.json", "--root", folder, "--public-key", tmp_path / "k" / "public.pem")
    assert ok.exit_code == 0, ok.output


def test_certificates_carry_environment_and_no_absolute_path(folder, keys):
    cert_path = _signed(folder, keys)
    text = cert_path.read_text(encoding="utf-8")
    cert = json.loads(text)
    assert str(folder) not in text and "/tmp" not in text
    assert set(cert["environment"]) >= {"python", "numpy", "pandas", "scipy", "platform"}
    assert cert["created"].endswith("+00:00")
    assert cert["signature"]["algorithm"] == "Ed25519"
    assert cert["signature"]["public_key_fingerprint"].startswith("SHA256:")
    page = cert_path.with_suffix(".html").read_text(encoding="utf-8")
    assert cert["signature"]["public_key_fingerprint"] in page and "attack verify" in page


def test_exit_codes_of_run(folder):
    assert invoke("run", _scenario(folder, tau=1.0), "--quiet").exit_code == 0   # every cell below τ
    assert invoke("run", _scenario(folder, tau=0.5), "--quiet").exit_code == 1   # cell 22 fails
    broken = _scenario(folder).read_text().replace("tau = 0.5", 'tau = "half"')
    (folder / "scenario.toml").write_text(broken, encoding="utf-8")
    result = invoke("run", folder / "scenario.toml")
    assert result.exit_code == 2 and "field evaluation.tau" in result.output


def test_certify_from_python(folder, keys):
    result = attack.Scenario.from_toml(_scenario(folder)).run()
    sealed = result.certify(folder / "c.json", sign=keys / "private.pem")
    assert sealed["verdict"]["factually_anonymous"] is False
    outcome = attack.verify(folder / "c.json", public_key=keys / "public.pem")
    assert outcome.ok and outcome.authentic
    assert outcome.signer == sealed["signature"]["public_key_fingerprint"]


def test_synthetic_certificate_is_signed_and_checked(tmp_path, keys):
    from attack.datasets.demo import demo_source

    original, uid = demo_source("original", n_units=600, seed=2)
    original = original.drop(columns=[uid])[["turnover", "employees", "nace"]]
    original.iloc[:300].to_csv(tmp_path / "train.csv", index=False)
    original.iloc[300:].to_csv(tmp_path / "holdout.csv", index=False)
    original.iloc[:300].to_csv(tmp_path / "copy.csv", index=False)  # a "synthetic" copy: must fail
    cert = tmp_path / "synth.certificate.json"
    result = invoke("synth", "--original", tmp_path / "train.csv", "--synthetic", tmp_path / "copy.csv",
                    "--holdout", tmp_path / "holdout.csv", "--n-attacks", 50, "--code", "nace",
                    "--certificate", cert, "--sign", keys / "private.pem")
    assert result.exit_code == 1, result.output  # a copy of the training data is NOT PASSED
    sealed = json.loads(cert.read_text())
    assert sealed["kind"] == "synthetic" and sealed["verdict"]["factually_anonymous"] is False
    assert {i["role"] for i in sealed["inputs"]} == {"original", "synthetic", "holdout"}
    good = invoke("verify", cert, "--public-key", keys / "public.pem")
    assert good.exit_code == 0, good.output

    def forge(c):
        c["verdict"].update(factually_anonymous=True, failing_checks=[])
        c["digest"] = certificate.digest(c)

    _rewrite(cert, forge)
    assert invoke("verify", cert).exit_code == 1
    assert invoke("verify", cert, "--public-key", keys / "public.pem").exit_code == 1
