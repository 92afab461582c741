"""`attack verify` against forged certificates, built as an attacker would: edit the JSON,
recompute the digest with ``certificate.digest`` and, where the case is about signed
certificates, sign again with a key of the test. Each class has its own fixture certificate."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

import attack.io.fingerprint as fingerprint
import attack.study.verify as verify_module
from attack.cli import main
from attack.errors import InputError
from attack.study import certificate, signing
from attack.study.verify import verify

SCENARIO = """
title = "forgeries"
intruder = [
  { name = "worst case", role = "worst", external = { path = "worst.csv", id = "unit_id", codes = ["wz"] } },
  { name = "commercial", role = "realistic", external = { path = "external.csv", id = "unit_id", codes = ["wz"] } },
]
[data]
release = { path = "release.csv", id = "unit_id", codes = ["wz"] }
original = { path = "original.csv", id = "unit_id", codes = ["wz"] }
[linkage]
block = ["wz", "region"]
keys = ["turnover:metric", "employees:metric"]
[combine]
lam = 0.2
[natural_protection]
formal = { path = "formal.csv", id = "unit_id", codes = ["wz"] }
[single_attack]
relative_error = 0.0
noisy = ["turnover", "employees"]
exact = ["wz", "region"]
size = { column = "employees", threshold = 25 }
[evaluation]
cells = ["wz"]
gamma = [0.1]
targets = ["turnover", "employees", "costs"]
identity = "discloses-nothing"  # perturbed business data: the cells judge usefulness
"""


def invoke(*args) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def issued(tmp_path_factory) -> tuple[Path, str]:
    """A certificate of a scenario with every verdict-bearing part (two intruders, combined
    measure λ = 0.2, single attacks, natural protection), beside its inputs; the text as issued."""
    folder = tmp_path_factory.mktemp("issued")
    EXTERNAL.to_csv(folder / "external.csv", index=False)
    RELEASE.to_csv(folder / "release.csv", index=False)
    RELEASE.to_csv(folder / "formal.csv", index=False)
    ORIGINAL.to_csv(folder / "original.csv", index=False)
    ORIGINAL.drop(columns=["costs"]).to_csv(folder / "worst.csv", index=False)
    (folder / "scenario.toml").write_text(SCENARIO, encoding="utf-8")
    result = invoke("run", folder / "scenario.toml", "--certificate", folder / "c.json", "--jobs", 1, "--quiet")
    assert result.exit_code == 1, result.output  # cell 22 and three single-attack targets fail
    return folder / "c.json", (folder / "c.json").read_text(encoding="utf-8")


def _as_issued(issued: tuple[Path, str]) -> Path:
    """The issued certificate, fresh for each test (tests overwrite it with their forgery)."""
    path, text = issued
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def cert(issued) -> Path:
    return _as_issued(issued)


def forge(path: Path, change: Callable[[dict], None], key=None) -> Path:
    """Edit the certificate, reseal it (digest) and, with a private key, sign it again."""
    body = json.loads(path.read_text(encoding="utf-8"))
    change(body)
    kept = body.get("signature")  # sealing drops it; a forged entry stays (it is outside the digest)
    certificate.seal(body, key)
    if key is None and kept is not None:
        body["signature"] = kept
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def failed(path: Path, *extra) -> str:
    result = invoke("verify", path, *extra)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "verification FAILED" in result.output
    return result.output


def not_checked(path: Path, *extra) -> str:
    """verify's outcome for inputs it may not open: no check failed, not checked, exit 3."""
    result = invoke("verify", path, *extra)
    assert result.exit_code == 2, result.output
    assert "verification FAILED" not in result.output and "Traceback" not in result.output
    last = result.output.rstrip().splitlines()[-1]
    assert last.startswith(f"certificate {path}: NOT CHECKED: ") and "--root" in last
    return result.output


def test_the_issued_certificate_verifies_and_reruns(cert):
    result = invoke("verify", cert, "--rerun")
    assert result.exit_code == 0, result.output
    assert result.output.count("SHA-256 matches") == 6
    assert "carries every part its scenario asks for" in result.output
    assert "rerun: figures identical" in result.output
    body = json.loads(cert.read_text())
    assert body["single_attack"]["unit_risk"]["n_endangered"] == 3
    assert body["verdict"]["endangered_targets"] == 3 and body["combined"]["lam"] == 0.2


# -- 1. parsing: a file that cannot be read as a certificate is a usage error (exit 2) -------


def _usage_error(path: Path, expected: str) -> None:
    result = invoke("verify", path)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and expected in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_duplicate_verdict_placed_first_is_refused_even_when_signed(cert, tmp_path):
    invoke("keygen", "--out", tmp_path / "k")
    key = signing.load_private_key(tmp_path / "k" / "private.pem")
    forge(cert, lambda c: None, key)  # a genuinely signed certificate ...
    text = cert.read_text()
    forged = '{"verdict": {"factually_anonymous": true, "statement": "certified"}, ' + text[1:]
    cert.write_text(forged)  # ... with a second "verdict" key first: JSON readers keep the last
    _usage_error(cert, "the key 'verdict' occurs twice in one object")
    nested = text.replace('"n_correct":', '"n_correct": 0, "n_correct":', 1)
    cert.write_text(nested)
    _usage_error(cert, "the key 'n_correct' occurs twice")


@pytest.mark.parametrize(("text", "expected"), [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested deeper than"),
    ('{"a": ' * 70 + "1" + "}" * 70, "nested deeper than 64 levels"),
    ("[]", "a JSON list, not an object"),
    ('"certificate"', "a JSON str, not an object"),
    ('{"certificate_version": NaN}', "NaN is not a JSON number"),
    ("{not json", "invalid JSON"),
    ('{"certificate_version": 1}', "not a certificate of version 2"),
    ('{"certificate_version": true}', "not a certificate of version 2"),
])
def test_unreadable_certificates_are_usage_errors(tmp_path, text, expected):
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    _usage_error(path, expected)


def test_not_utf8_and_not_a_file(tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(b'{"title": "M\xfcller"}')
    _usage_error(path, "not UTF-8 text: byte 12")
    with pytest.raises(InputError, match="not a regular file"):
        verify(tmp_path)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    _usage_error(fifo, "not a regular file")  # and it does not hang on the pipe


def test_a_byte_order_mark_is_accepted(cert):
    cert.write_bytes(b"\xef\xbb\xbf" + cert.read_bytes())
    result = invoke("verify", cert)
    assert result.exit_code == 0, result.output


# -- 2. structure: a JSON certificate that breaks its kind's structure fails (exit 1) --------


@pytest.mark.parametrize(("change", "expected"), [
    (lambda c: c["results"].__setitem__(0, {}), "structure: results[0].name: Field required"),
    (lambda c: c.__setitem__("results", []), "structure: results: List should have at least 1 item"),
    (lambda c: c["results"][0].__setitem__("cells", []), "results[0].cells: List should have at least 1 item"),
    (lambda c: c["combined"].__setitem__("cells", []), "combined.cells: List should have at least 1 item"),
    (lambda c: c.__setitem__("signature", "trust me"), "signature: expected an object, found a string"),
    (lambda c: c["results"][1].__setitem__("tau", 0.9), "results[1].tau is 0.9, the scenario's τ is 0.5"),
    (lambda c: c["combined"].__setitem__("tau", 0.9), "combined.tau is 0.9, the scenario's τ is 0.5"),
    (lambda c: c["single_attack"]["unit_risk"].__setitem__("tau", 0.9), "single_attack.unit_risk.tau is 0.9"),
    (lambda c: c["scenario"]["evaluation"].__setitem__("tau", True), "scenario.evaluation.tau: Input should be a valid number"),
    (lambda c: c["results"][0]["cells"][0]["disclosure_risk"].__setitem__("0.1", "0.2"), "disclosure_risk.0.1"),
    (lambda c: c["results"][0]["cells"][0]["disclosure_risk"].clear(), "Dictionary should have at least 1 item"),
    (lambda c: c["results"][0]["cells"][0].__setitem__("passed", 1), "cells[0].passed: Input should be a valid boolean"),
    (lambda c: c["results"][0]["cells"][0]["disclosure_risk"].__setitem__("0.05", 0.1), "one value per γ"),
    (lambda c: c["results"][0]["cells"][0]["disclosure_risk"].__setitem__("0.1", 1.5), "less than or equal to 1"),
    (lambda c: c.pop("single_attack"), "single_attack: Field required"),
    (lambda c: c["single_attack"].__setitem__("unit_risk", {}), "single_attack.unit_risk.n_endangered: Field required"),
    (lambda c: c["verdict"].__setitem__("endangered_targets", "3"), "verdict.endangered_targets: Input should be a valid integer"),
    (lambda c: c["scenario"].__setitem__("lam", None), "scenario.lam and combined disagree"),
    (lambda c: c["inputs"].__setitem__(0, "scenario.toml"), "inputs[0]: expected an object, found a string"),
    (lambda c: c["inputs"][0].__setitem__("sha256", "0" * 63), "inputs[0].sha256: String should match pattern"),
    (lambda c: c["inputs"][0].__setitem__("source", "demo:formal"), "exactly one of path, source"),
    (lambda c: c.__setitem__("kind", "other"), "kind is 'other'"),
])
def test_structural_violations_fail_with_a_line_each(cert, change, expected):
    out = failed(forge(cert, change))
    assert "✔ digest matches" in out  # the forger resealed it: the structure gives it away
    assert expected in out, out
    assert "verdict, inputs and rerun not checked" in out


BEARING = {"passed", "tau", "lam", "factually_anonymous", "n_endangered", "by_reason", "n_targets",
           "endangered_targets", "failing_cells", "disclosure_risk", "cells", "results", "unit_risk", "verdict"}


def test_many_structural_problems_are_summed_up(cert):
    def break_every_cell(c):
        for run in c["results"]:
            for cell in run["cells"]:
                cell["passed"] = "yes"
        c["combined"]["cells"] = [{}] * 30

    out = failed(forge(cert, break_every_cell))
    # 2 runs × 2 cells with a text mark, 30 empty combined cells lacking 4 entries each: 124 problems
    assert out.count("✘ structure:") == 21 and "✘ structure: and 104 more problem(s)" in out, out


def test_every_entry_replaced_by_a_wrong_type_is_answered_without_a_traceback(cert):
    """Each value of the certificate in turn replaced by each kind of wrong value, resealed:
    verify returns (never raises) and never passes a certificate with a verdict-bearing value
    of the wrong type."""
    body = json.loads(cert.read_text())
    paths: list[tuple] = []

    def walk(value, where):
        paths.append(where)
        children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
        for key, child in children:
            if len(paths) < 2000:
                walk(child, (*where, key))

    walk(body, ())
    for where in paths[1:]:
        if where[0] in ("digest", "natural_protection", "certificate_version"):  # the version: exit 2
            continue
        for wrong in ({}, "x", None, True, [], -1):
            forged = json.loads(json.dumps(body))
            parent = forged
            for key in where[:-1]:
                parent = parent[key]
            if json.dumps(parent[where[-1]]) == json.dumps(wrong):
                continue  # not a change
            parent[where[-1]] = wrong
            cert.write_text(json.dumps(certificate.seal(forged)))
            outcome = verify(cert, offline=True)  # returns: no exception escapes
            if where[-1] in BEARING:
                assert not outcome.ok, (where, wrong)


# -- 3. the verdict from every verdict-bearing part ------------------------------------------


def _flip_verdict(c: dict, *, failing=None, endangered=None) -> None:
    failing = c["verdict"]["failing_cells"] if failing is None else failing
    endangered = c["verdict"]["endangered_targets"] if endangered is None else endangered
    c["verdict"] = certificate.attack_verdict(failing, endangered)


def test_cells_of_the_combined_measure_forged_with_the_verdict(cert):
    def change(c):
        c["single_attack"] = None
        for cell in c["combined"]["cells"]:  # the cells forged too: only the single attacks remain
            cell["disclosure_risk"] = {"0.1": 0.1}
            cell["passed"] = True
        c["combined"]["passed"] = True
        _flip_verdict(c, failing=[], endangered=0)

    out = failed(forge(cert, change))
    assert "combined measure, cell wz=22: certified {'0.1': 0.1} (PASSED)" in out


def test_single_attacks_removed_are_missed_by_no_check(cert):
    forge(cert, lambda c: (c.__setitem__("single_attack", None), _flip_verdict(c, endangered=0)))
    out = failed(cert)
    assert "✔ verdict (NOT PASSED) follows" in out  # internally consistent after the forgery ...
    assert "single_attack is missing, the scenario asks for it" in out  # ... but not with its scenario
    rerun = failed(cert, "--rerun")
    assert "rerun skipped: an earlier check failed" in rerun


def test_an_input_dropped_from_the_certificate(cert):
    forge(cert, lambda c: c["inputs"].pop(2))  # the confidential original no longer bound
    out = failed(cert)
    assert "its inputs are not the scenario's (no original input)" in out


def test_the_printable_twin_says_no_check_covers_it(cert):
    from attack.report.certificate import render_html

    body = json.loads(cert.read_text())
    page = render_html(body, "c.json")
    assert "This page is not the certificate" in page and "no check covers it" in page
    assert "--root FOLDER" not in page
    for item in body["inputs"]:
        item["path"] = "../" + item["path"]
    assert "--root FOLDER" in render_html(body, "c.json")


def test_the_rerun_alone_catches_single_attacks_removed_when_the_scenario_is_forged_too(cert):
    """Even without the scenario cross-check, the rerun compares the single attacks."""
    body = json.loads(cert.read_text())
    body["single_attack"] = None
    _flip_verdict(body, endangered=0)
    fresh = verify_module._comparable(body)
    issued = verify_module._comparable(json.loads(cert.read_text()))
    lines = verify_module._differences(fresh, issued, "")
    assert any(line.startswith("single_attack: certified null, rerun {") for line in lines), lines
    assert any(line.startswith("verdict.endangered_targets: certified 0, rerun 3") for line in lines), lines


@pytest.mark.parametrize(("change", "expected"), [
    (lambda c: c["single_attack"]["unit_risk"].update(n_endangered=0), "0 endangered target(s), but the reasons count 3"),
    (lambda c: c["single_attack"]["unit_risk"].update(n_endangered=0, by_reason={}), "verdict endangered_targets is 3; the figures give 0"),
    (lambda c: c["single_attack"]["unit_risk"].update(n_targets=2), "3 endangered of 2 target(s)"),
    (lambda c: c["combined"]["cells"][1].update(passed=True), "combined measure, cell wz=22: certified"),
    (lambda c: c["combined"].update(passed=True), "combined measure: marked PASSED against its cells"),
    (lambda c: c["combined"]["cells"].pop(), "combined measure: cell wz=22 of the runs is missing"),
    (lambda c: c["combined"].update(lam=0.0) or c["scenario"].update(lam=0.0), "with λ = 0.0"),
    (lambda c: c["results"][0]["cells"][0].update(passed=False), "worst case, cell wz=15: marked NOT PASSED"),
    (lambda c: c["results"][1].update(passed=True), "run commercial: marked PASSED against its cells"),
    (lambda c: c["results"][0].update(intruder="worst") or c["results"][1].update(intruder="worst"), "at most one intruder"),
    (lambda c: c["verdict"].update(statement="certified"), "verdict statement is 'certified'"),
    (lambda c: c["verdict"].update(scope="any intruder"), "verdict scope is 'any intruder'"),
    (lambda c: c["verdict"].update(failing_cells=[]), "verdict failing_cells is []"),
    (lambda c: c["results"][0]["judged_on"].update(n_scored_units=1), "fewer than the minimum of 3"),
    (lambda c: c["results"][0]["judged_on"].update(direct_identifiers=["rec_id"]), "direct identifier(s) released: rec_id"),
    (lambda c: c["results"][0]["judged_on"]["identity"].update(limit=0.5)
     or [cell.update(identity_passed=True) for cell in c["results"][0]["cells"]], "against the limit 0.5 says NOT PASSED"),
])
def test_each_verdict_bearing_part_is_recomputed(cert, change, expected):
    out = failed(forge(cert, change))
    assert "✔ structure of a run certificate holds" in out
    assert "✘ verdict does NOT follow from the figures" in out and expected in out, out


def test_a_forgery_signed_again_is_authentic_but_not_consistent(cert, tmp_path):
    invoke("keygen", "--out", tmp_path / "k")
    key = signing.load_private_key(tmp_path / "k" / "private.pem")

    def change(c):
        c["combined"]["cells"][1].update(disclosure_risk={"0.1": 0.4}, passed=True)
        c["combined"]["passed"] = True
        c["single_attack"]["unit_risk"].update(n_endangered=0, by_reason={})
        _flip_verdict(c, failing=[], endangered=0)

    out = failed(forge(cert, change, key), "--public-key", tmp_path / "k" / "public.pem")
    assert "✔ signature valid" in out  # a signer who forges is still caught by the figures
    assert "the runs' cells with λ = 0.2 give {'0.1': 0.8333333333333335} (NOT PASSED)" in out


# -- 4. the rerun compares every figure ------------------------------------------------------


@pytest.mark.parametrize(("change", "expected"), [
    (lambda c: c["natural_protection"][0]["formal"].update(reidentification_rate=0.1),
     "natural_protection[0].formal.reidentification_rate: certified 0.1, rerun 0.6"),
    (lambda c: c["results"][0]["overall"].update(n_correct=0), "results[0].overall.n_correct: certified 0, rerun"),
    (lambda c: c["single_attack"]["summary"].update(correct=0), "single_attack.summary.correct: certified 0, rerun"),
    (lambda c: c["scenario"]["intruders"][0]["linkage"].update(method="optimal"),
     "scenario.intruders[0].linkage.method: certified \"optimal\", rerun \"greedy\""),
    (lambda c: c["seeds"].update(extra=1), "seeds.extra: certified, absent in the rerun"),
])
def test_the_rerun_compares_figures_that_do_not_bear_on_the_verdict(cert, change, expected):
    forge(cert, change)
    assert invoke("verify", cert).exit_code == 0  # nothing the verdict rests on changed ...
    out = failed(cert, "--rerun")  # ... but the rerun compares every figure
    assert "✘ rerun: the figures differ from the certified ones" in out and expected in out, out


# -- 5. input paths stay inside the certificate's folder -------------------------------------


@pytest.fixture()
def opened(monkeypatch) -> list[Path]:
    """The files verify hashes."""
    seen: list[Path] = []
    real = verify_module.sha256_file

    def spy(path):
        seen.append(Path(path))
        return real(path)

    monkeypatch.setattr(verify_module, "sha256_file", spy)
    monkeypatch.setattr(fingerprint, "sha256_file", spy)  # the scenario's own fingerprints
    return seen


def _point_first_input_at(cert: Path, path: str) -> None:
    forge(cert, lambda c: c["inputs"][0].update(path=path))


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.csv", "sub/../../outside.csv", "C:\\data\\x.csv",
                                  "\\\\server\\share\\x.csv"])
def test_paths_that_leave_the_folder_are_not_opened(cert, opened, path):
    (cert.parent.parent / "outside.csv").write_text("secret\n")
    _point_first_input_at(cert, path)
    outcome = verify(cert)
    assert not outcome.ok
    (problem,) = [p for p in outcome.problems + outcome.not_checked if "not opened" in p]
    if "absolute path" in problem:  # a certificate never names an absolute path: a failed check
        assert outcome.status == "failed" and problem in outcome.problems
    else:  # outside the folder: not opened, so not checked (neither verified nor failed)
        assert outcome.status == "not checked" and outcome.problems == []
        assert "not checked: outside the certificate's folder, give --root DIR" in problem
    assert all(p.name != "outside.csv" and p != Path("/etc/passwd") for p in opened)


def test_a_symbolic_link_out_of_the_folder_is_not_followed(cert, opened):
    (cert.parent.parent / "outside.csv").write_text("secret\n")
    (cert.parent / "link.csv").symlink_to(cert.parent.parent / "outside.csv")
    _point_first_input_at(cert, "link.csv")
    out = not_checked(cert)
    assert "? scenario input link.csv: not checked: outside the certificate's folder" in out and "not opened" in out
    assert all(p.name != "outside.csv" for p in opened)
    (cert.parent / "link.csv").unlink()


def test_root_widens_the_folder_and_a_link_inside_it_is_followed(cert):
    (cert.parent / "sub").mkdir(exist_ok=True)
    moved = cert.parent / "sub" / "c.json"
    moved.write_text(cert.read_text())
    forge(moved, lambda c: [i.update(path="../" + i["path"]) for i in c["inputs"]])  # the usual layout: out/
    assert f"attack verify {moved} --root {os.path.relpath(cert.parent)}" in not_checked(moved)
    assert invoke("verify", moved, "--root", cert.parent).exit_code == 0
    (cert.parent / "sub" / "alias.csv").symlink_to(cert.parent / "release.csv")
    forge(moved, lambda c: c["inputs"][1].update(path="alias.csv"))  # a link that stays inside the wider folder
    assert c_inputs(moved)[1] == ("release", "alias.csv")
    assert invoke("verify", moved, "--root", cert.parent).exit_code == 0


def c_inputs(path: Path) -> list[tuple[str, str]]:
    return [(i["role"], i.get("path")) for i in json.loads(path.read_text())["inputs"]]


def test_offline_checks_the_certificate_alone(cert, tmp_path):
    alone = tmp_path / "alone.json"  # a recipient who holds only the certificate
    alone.write_text(cert.read_text())
    assert "file not found" in failed(alone)
    result = invoke("verify", alone, "--offline")
    assert result.exit_code == 0, result.output
    assert "• inputs NOT checked (--offline)" in result.output
    assert result.output.rstrip().endswith("its inputs were NOT checked (--offline)")
    forge(alone, lambda c: c["verdict"].update(statement="certified"))
    assert "✘ verdict does NOT follow" in failed(alone, "--offline")
    both = invoke("verify", alone, "--offline", "--rerun")
    assert both.exit_code == 2 and "cannot be combined with --offline" in both.output
    with pytest.raises(InputError):
        verify(alone, offline=True, rerun=True)


# -- 6. a private key others can read ---------------------------------------------------------


def test_a_private_key_readable_by_others_is_used_with_a_warning(tmp_path, caplog):
    invoke("keygen", "--out", tmp_path / "k")
    private = tmp_path / "k" / "private.pem"
    signing.load_private_key(private)
    assert "can be read by others" not in caplog.text
    private.chmod(0o644)
    signing.load_private_key(private)
    assert "can be read by others than its owner (mode 0o644)" in caplog.text


# -- synthetic-data certificates --------------------------------------------------------------


@pytest.fixture(scope="module")
def synth_issued(tmp_path_factory) -> tuple[Path, str]:
    """A certificate of ``attack synth`` (no scenario file): two keys, one target, a holdout."""
    from attack.datasets.demo import demo_source

    folder = tmp_path_factory.mktemp("synth")
    original, uid = demo_source("original", n_units=400, seed=3)
    original = original.drop(columns=[uid])[["turnover", "employees", "east_west"]]
    original.iloc[:200].to_csv(folder / "train.csv", index=False)
    original.iloc[200:].to_csv(folder / "holdout.csv", index=False)
    original.iloc[:200].sample(frac=1.0, random_state=0).to_csv(folder / "copy.csv", index=False)
    result = invoke("synth", "--original", folder / "train.csv", "--synthetic", folder / "copy.csv",
                    "--holdout", folder / "holdout.csv", "--key", "turnover", "--key", "employees",
                    "--target", "east_west", "--n-attacks", 40, "--tau", 0.5, "--certificate", folder / "s.json")
    assert result.exit_code == 1, result.output  # a copy of the training data is NOT PASSED
    return folder / "s.json", (folder / "s.json").read_text(encoding="utf-8")


@pytest.fixture()
def synth_cert(synth_issued) -> Path:
    return _as_issued(synth_issued)


def test_an_attack_synth_certificate_is_rerun_from_its_settings_and_files(synth_cert):
    result = invoke("verify", synth_cert, "--rerun")
    assert result.exit_code == 0, result.output
    assert "✔ rerun: checks identical" in result.output and "not available" not in result.output
    forge(synth_cert, lambda c: c["results"][0].update(value=0.0))  # a figure the verdict does not use
    assert invoke("verify", synth_cert).exit_code == 0
    out = failed(synth_cert, "--rerun")
    assert "✘ rerun: the checks differ from the certified ones: results[0].value: certified 0.0" in out
    assert "does not record --categorical/--code, --bins or the reading options" in out


def test_an_attack_synth_rerun_that_cannot_be_done_is_not_passed(synth_cert):
    def with_membership(c):
        c["scenario"]["settings"]["membership"] = {"n_isolated": 10}
        c["results"].append({"family": "membership", "measure": "advantage", "target": "isolated 1",
                             "value": 0.0, "upper": 0.1, "tau": 0.5, "passed": True})

    assert invoke("verify", forge(synth_cert, with_membership)).exit_code == 0
    out = failed(synth_cert, "--rerun")
    assert "✘ rerun NOT done: membership inference needs the synthesis log" in out
    forge(synth_cert, lambda c: c["scenario"]["settings"].update(membership=None, metric=None) or c["results"].pop())
    assert "✘ rerun failed" in failed(synth_cert, "--rerun")


@pytest.mark.parametrize(("change", "expected"), [
    (lambda c: c["results"][0].update(tau=0.9), "results[0].tau is 0.9, the settings' τ is 0.5"),
    (lambda c: c.update(results=[]), "results: List should have at least 1 item"),
    (lambda c: c.update(results=[r for r in c["results"] if r["family"] != "linkability"]),
     "the settings ask for a linkability check, the results lack it"),
    (lambda c: c.update(results=[r for r in c["results"] if r["family"] != "singling_out"]),
     "the settings ask for a singling_out check, the results lack it"),
    (lambda c: c.update(results=[r for r in c["results"] if r.get("target") != "east_west"]),
     "no check of the settings' target 'east_west'"),
    (lambda c: c["results"][0].update(upper="0.1"), "results[0].upper: Input should be a valid number"),
    (lambda c: c["scenario"]["settings"].update(tau=False), "scenario.settings.tau: Input should be a valid number"),
])
def test_synthetic_structure(synth_cert, change, expected):
    out = failed(forge(synth_cert, change))
    assert expected in out, out


@pytest.mark.parametrize(("change", "expected"), [
    (lambda c: c["results"][0].update(passed=not c["results"][0]["passed"]), "marked"),
    (lambda c: c["results"][0].update(upper=None, passed=True), "its upper bound None against τ = 0.5 says NOT PASSED"),
    (lambda c: c.update(verdict=certificate.synthetic_verdict([])), "verdict factually_anonymous is True"),
])
def test_synthetic_verdict(synth_cert, change, expected):
    out = failed(forge(synth_cert, change))
    assert "✘ verdict does NOT follow from the figures" in out and expected in out, out


def test_a_certified_scenario_that_reads_outside_the_folder_is_not_followed(tmp_path, opened):
    """The scenario's hash matches, but it names a data file outside the certificate's folder:
    neither the scenario check nor the rerun opens it."""
    folder = tmp_path / "audit"
    folder.mkdir()
    for name, frame in (("external", EXTERNAL), ("release", RELEASE)):
        frame.to_csv(folder / f"{name}.csv", index=False)
    ORIGINAL.to_csv(tmp_path / "original.csv", index=False)  # outside the audit folder
    (folder / "scenario.toml").write_text("""
[data]
external = { path = "external.csv", id = "unit_id", codes = ["wz"] }
release = { path = "release.csv", id = "unit_id", codes = ["wz"] }
original = { path = "../original.csv", id = "unit_id", codes = ["wz"] }
[linkage]
keys = ["turnover:metric"]
[evaluation]
gamma = [0.1]
""", encoding="utf-8")
    assert invoke("run", folder / "scenario.toml", "--certificate", folder / "c.json", "--quiet").exit_code in (0, 1)
    forge(folder / "c.json", lambda c: c.update(inputs=[i for i in c["inputs"] if i["role"] != "original"]))
    opened.clear()  # attack run hashed it; verify must not
    out = not_checked(folder / "c.json", "--rerun")
    assert "names the data file original.csv: not checked: outside the certificate's folder" in out
    assert all(p.name != "original.csv" for p in opened)


def test_attack_run_says_how_a_plain_verify_reaches_its_inputs(tmp_path, monkeypatch):
    """attack run's default certificate lies in reports/, its inputs one folder up: the run says
    which --root reaches them; a plain verify says NOT CHECKED (exit 3, not a failure) and
    names the same command, which then verifies."""
    for name, frame in (("external", EXTERNAL), ("release", RELEASE), ("original", ORIGINAL)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "s.toml").write_text(
        '[data]\nexternal = { path = "external.csv", id = "unit_id", codes = ["wz"] }\n'
        'release = { path = "release.csv", id = "unit_id", codes = ["wz"] }\n'
        'original = { path = "original.csv", id = "unit_id", codes = ["wz"] }\n'
        '[linkage]\nkeys = ["turnover:metric"]\n[evaluation]\ngamma = [0.1]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    ran = invoke("run", "s.toml")
    assert ran.exit_code in (0, 1), ran.output
    written = Path("reports") / "s.certificate.json"
    command = f"attack verify {written} --root ."
    assert f"certificate written to {written}; its inputs lie outside its folder, so check it with: {command}" \
        in ran.stderr
    assert command in not_checked(written)
    outcome = verify(written)
    assert outcome.status == "not checked" and not outcome.ok and outcome.root == Path(".")
    document = outcome.to_dict()
    assert document["status"] == "not checked" and document["root"] == "."
    assert sum(c["outside"] for c in document["checks"]) == len(outcome.not_checked) == 4
    assert "not checked (outside the folder)" in outcome._repr_html_()
    done = invoke(*command.split()[1:])
    assert done.exit_code == 0, done.output
    assert verify(written, root=".").to_dict()["status"] == "verified"
    invoke("keygen", "--out", "k")  # signed with the key given: still not authentic unless checked
    forge(written, lambda c: None, signing.load_private_key(Path("k") / "private.pem"))
    assert not verify(written, public_key=Path("k") / "public.pem").authentic
    assert verify(written, public_key=Path("k") / "public.pem", root=".").authentic
