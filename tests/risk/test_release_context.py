"""The release-context questionnaire sets τ and the attacker model by the documented rule
(docs/method/release-context.md): golden values, one answer changed at a time, the presets of
the board report, the scenario's [context] table and the certificate that records it."""

import json

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

import attack
from attack.cli import main
from attack.study.settings import validate

BASE = {"recipient": "scientific-use", "controls": "contract", "sensitivity": "medium", "motive": "medium",
        "capacity": "low"}

# τ = min(0.5, overall risk(sensitivity) / P(attempt)); hand-computed from the tables of the rule.
GOLDEN = [
    ({}, 0.1 / 0.3, "journalist"),
    ({"sensitivity": "high"}, 0.05 / 0.3, "journalist"),
    ({"sensitivity": "low"}, 0.2 / 0.3, "journalist"),            # 0.667, capped
    ({"motive": "high"}, 0.1 / 0.4, "journalist"),
    ({"motive": "low"}, 0.1 / 0.2, "journalist"),
    ({"capacity": "high"}, 0.1 / 0.4, "journalist"),             # the threat is the larger of the two
    ({"controls": "none"}, 0.1 / 0.6, "journalist"),
    ({"controls": "contract-and-audit"}, 0.1 / 0.1, "journalist"),
    ({"recipient": "public-use"}, 0.1 / 1.0, "prosecutor"),       # a public file is always attacked
    ({"recipient": "enclave"}, 0.1 / 0.15, "marketer"),
    ({"recipient": "enclave", "controls": "contract-and-audit", "sensitivity": "high"}, 0.05 / 0.05, "marketer"),
]


@pytest.mark.parametrize("change, tau, attacker", GOLDEN)
def test_each_answer_sets_tau_by_the_rule(change, tau, attacker):
    context = attack.release_context(BASE | change)
    assert context.tau == pytest.approx(min(0.5, tau), abs=1e-6)
    assert context.attacker_model == attacker
    assert context.record()["answers"] == BASE | change


def test_changing_one_answer_changes_tau_deterministically():
    taus = {}
    for question, answers in {"sensitivity": ("low", "medium", "high"), "motive": ("medium", "high"),
                              "controls": ("none", "contract", "contract-and-audit")}.items():
        taus[question] = [attack.release_context(BASE | {question: a}).tau for a in answers]
    assert taus["sensitivity"] == sorted(taus["sensitivity"], reverse=True)   # more harm, lower τ
    assert taus["motive"][0] > taus["motive"][1]
    assert taus["controls"] == sorted(taus["controls"])                       # more controls, higher τ
    assert attack.release_context(BASE).tau == attack.release_context(dict(BASE)).tau


def test_presets_and_files(tmp_path):
    assert attack.resolve_context("public-use").tau == 0.1
    assert attack.resolve_context("scientific-use").tau == pytest.approx(1 / 3, abs=1e-6)
    assert attack.resolve_context("enclave").tau == 0.5
    path = tmp_path / "context.toml"
    path.write_text('[context]\nrecipient = "public-use"\ncontrols = "none"\nsensitivity = "high"\n'
                    'motive = "low"\ncapacity = "low"\n', encoding="utf-8")
    assert attack.resolve_context(path).tau == 0.05
    path.write_text('[context]\nrecipient = "everyone"\n', encoding="utf-8")
    with pytest.raises(attack.InputError, match="recipient"):
        attack.resolve_context(path)
    with pytest.raises(attack.InputError, match="neither"):
        attack.resolve_context(tmp_path / "missing.toml")


SCENARIO = """
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
targets = ["turnover", "employees"]
[context]
recipient = "public-use"
controls = "none"
sensitivity = "high"
motive = "high"
capacity = "high"
[output]
json = "out/result.json"
"""


def test_the_scenario_context_sets_tau_and_the_certificate_records_it(tmp_path):
    import tomllib

    raw = tomllib.loads(SCENARIO)
    assert validate(raw).evaluation.tau == 0.05
    with pytest.raises(attack.InputError, match="sets tau"):
        validate(raw | {"evaluation": {**raw["evaluation"], "tau": 0.3}})
    assert validate(raw | {"evaluation": {**raw["evaluation"], "tau": 0.05}}).context == validate(raw).context
    EXTERNAL.to_csv(tmp_path / "external.csv", index=False)
    RELEASE.to_csv(tmp_path / "release.csv", index=False)
    ORIGINAL.to_csv(tmp_path / "original.csv", index=False)
    (tmp_path / "scenario.toml").write_text(SCENARIO, encoding="utf-8")
    done = CliRunner().invoke(main, ["run", str(tmp_path / "scenario.toml"), "--jobs", "1"])
    assert done.exit_code in (0, 1), done.output
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    certificate = json.loads((tmp_path / "out" / "result.certificate.json").read_text())
    for recorded in (result["context"], certificate["scenario"]["context"]):
        assert recorded["tau"] == 0.05 and recorded["attacker_model"] == "prosecutor"
        assert recorded["answers"]["sensitivity"] == "high"
    assert certificate["scenario"]["evaluation"]["tau"] == 0.05
    assert "[context]" in attack.Scenario.from_toml(tmp_path / "scenario.toml").to_toml()   # round trip
    assert CliRunner().invoke(main, ["verify", str(tmp_path / "out" / "result.certificate.json"),
                                     "--root", str(tmp_path)]).exit_code == 0
    board = attack.render_report(tmp_path / "out" / "result.json", board=True, context="scientific-use").html
    assert "release-context questionnaire" in board and "contract" in board and "journalist" in board
    assert "judged with τ = 0.05 from its own context" in board     # the result's τ differs from 1/3


def test_attack_risk_takes_the_context(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,b\n" + "".join(f"{i % 4},{i % 3}\n" for i in range(60)), encoding="utf-8")
    out = tmp_path / "risk.json"
    done = CliRunner().invoke(main, ["risk", "--data", str(path), "--key", "a", "--key", "b", "--no-suda",
                                     "--context", "enclave", "--json", str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    document = json.loads(out.read_text())
    assert document["settings"]["threshold"] == 0.5 and document["context"]["attacker_model"] == "marketer"
    assert document["context"]["measure"] == pytest.approx(12 / 60)   # 12 classes of 5: marketer Σf/F / n
    done = CliRunner().invoke(main, ["risk", "--data", str(path), "--key", "a", "--context", "enclave",
                                     "--threshold", "0.2"])
    assert done.exit_code == 2 and "leave out --threshold" in done.output
