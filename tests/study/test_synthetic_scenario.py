"""Synthetic-release scenario files: the same pipeline as attack synthesize + attack synth,
validated before any data is read, certified and rerun."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import attack
from attack.cli import main
from attack.errors import InputError
from attack.study.certificate import seal
from attack.study.synthetic_scenario import SyntheticScenario

ROOT = Path(__file__).resolve().parents[2]


def invoke(args: list) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def firms() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    size = rng.lognormal(3, 1, 400)
    return pd.DataFrame({"unit_id": [f"F{i}" for i in range(400)], "region": rng.choice(list("NSEW"), 400),
                         "employees": np.round(size), "turnover": np.round(size * rng.lognormal(2, 0.3, 400), 1)})


def _write(folder: Path, text: str) -> Path:
    path = folder / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return path


ATTACKS = """
[attacks]
keys = ["region", "employees"]
targets = ["turnover"]
n_attacks = 60
tau = 0.5
"""


def test_a_given_synthetic_file_gets_the_figures_of_attack_synth(tmp_path, firms):
    training, holdout = firms.iloc[:300], firms.iloc[300:]
    synthetic = attack.synthesize(training, columns=["region", "employees", "turnover"], seed=3).frame
    for name, frame in (("original", training), ("synthetic", synthetic), ("holdout", holdout)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    scenario = _write(tmp_path, f"""
kind = "synthetic"
[data]
original = {{ path = "original.csv" }}
synthetic = {{ path = "synthetic.csv" }}
holdout = {{ path = "holdout.csv" }}
{ATTACKS}
exclude = ["unit_id"]
""")
    run = invoke(["run", scenario, "--json", tmp_path / "run.json", "--certificate", tmp_path / "c.json", "--quiet"])
    synth = invoke(["synth", "--original", tmp_path / "original.csv", "--synthetic", tmp_path / "synthetic.csv",
                    "--holdout", tmp_path / "holdout.csv", "--key", "region", "--key", "employees",
                    "--target", "turnover", "--n-attacks", "60", "--tau", "0.5", "--exclude", "unit_id",
                    "--json", tmp_path / "synth.json"])
    assert run.exit_code == synth.exit_code == 0, run.output + synth.output
    assert json.loads((tmp_path / "run.json").read_text()) == json.loads((tmp_path / "synth.json").read_text())


def test_a_scenario_synthesises_holds_out_and_reruns_identically(tmp_path, firms):
    firms.to_csv(tmp_path / "firms.csv", index=False)
    scenario = _write(tmp_path, f"""
kind = "synthetic"
title = "small"
[data]
original = {{ path = "firms.csv" }}
[synthesis]
drop = ["unit_id"]
minbucket = 20
holdout_share = 0.25
seed = 5
{ATTACKS}
[output]
synthetic = "made.csv"
""")
    result = invoke(["run", scenario, "--json", tmp_path / "r.json", "--certificate", tmp_path / "c.json", "--quiet"])
    assert result.exit_code in (0, 1), result.output
    document = json.loads((tmp_path / "r.json").read_text())
    assert (document["n_original"], document["n_holdout"], document["n_synthetic"]) == (300, 100, 300)
    assert document["synthesis"]["minbucket"] == 20 and document["synthesis"]["made_by_scenario"] is True
    made = pd.read_csv(tmp_path / "made.csv")
    assert list(made.columns) == ["region", "employees", "turnover"]
    assert (tmp_path / "made.csv").stat().st_mode & 0o777 == 0o600
    # the Python API gives the same document and the same file
    outcome = attack.load_scenario(scenario).run()
    assert outcome.to_dict() == document
    assert outcome.synthetic["region"].tolist() == made["region"].tolist()
    checked = invoke(["verify", tmp_path / "c.json", "--rerun"])
    assert checked.exit_code == 0, checked.output
    assert "rerun: checks identical" in checked.output
    assert "made by the scenario" in checked.output


def test_a_changed_synthesis_fails_the_rerun(tmp_path, firms):
    firms.to_csv(tmp_path / "firms.csv", index=False)
    text = f"""
kind = "synthetic"
[data]
original = {{ path = "firms.csv" }}
[synthesis]
drop = ["unit_id"]
seed = 5
{ATTACKS}
"""
    scenario = _write(tmp_path, text)
    assert invoke(["run", scenario, "--certificate", tmp_path / "c.json", "--quiet"]).exit_code in (0, 1)
    certificate = json.loads((tmp_path / "c.json").read_text())
    made = next(i for i in certificate["inputs"] if "made_by" in i)
    assert made["role"] == "synthetic" and made["rows"] == 400
    # a forged fingerprint of the made file, resealed: only the rerun can tell
    made["sha256"] = "0" * 64
    (tmp_path / "forged.json").write_text(json.dumps(seal(certificate)), encoding="utf-8")
    assert invoke(["verify", tmp_path / "forged.json"]).exit_code == 0
    forged = invoke(["verify", tmp_path / "forged.json", "--rerun"])
    assert forged.exit_code == 1 and "made again differs" in forged.output, forged.output
    # the same scenario file, but the synthesis code (here: its seed) now gives another file
    scenario.write_text(text.replace("seed = 5", "seed = 6"), encoding="utf-8")
    checked = invoke(["verify", tmp_path / "c.json", "--rerun"])
    assert checked.exit_code == 1
    assert "scenario input scenario.toml: SHA-256" in checked.output and "does NOT match" in checked.output


def test_membership_inference_from_a_scenario(tmp_path, firms):
    firms.to_csv(tmp_path / "firms.csv", index=False)
    scenario = _write(tmp_path, f"""
kind = "synthetic"
[data]
original = {{ path = "firms.csv" }}
[synthesis]
drop = ["unit_id"]
seed = 1
{ATTACKS}
[membership]
isolated = 1
random = 1
shadow_sets = 6
test_sets = 6
shadow_size = 50
""")
    outcome = SyntheticScenario.from_toml(scenario).run()
    member = outcome.to_dict()["membership"]
    assert len(member["targets"]) == 2
    assert [c["family"] for c in outcome.to_dict()["checks"]].count("membership") == 1
    assert outcome.to_dict()["settings"]["membership"]["shadow_sets"] == 6


def test_attack_tune_runs_the_synthesis_grid(tmp_path, firms):
    firms.to_csv(tmp_path / "firms.csv", index=False)
    scenario = _write(tmp_path, f"""
kind = "synthetic"
[data]
original = {{ path = "firms.csv" }}
[synthesis]
drop = ["unit_id"]
smoothing = "density"
{ATTACKS}
[tune]
grid = {{ minbucket = [5, 40] }}
release = "chosen.csv"
""")
    result = invoke(["tune", scenario, "--json", tmp_path / "t.json"])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "t.json").read_text())
    assert [c["settings"] for c in document["candidates"]] == [
        {"smoothing": "density", "minbucket": 5}, {"smoothing": "density", "minbucket": 40}]
    assert document["settings"]["fixed"] == {"smoothing": "density"}
    assert (tmp_path / "chosen.csv").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("body, field, needle", [
    ("[data]\noriginal = { path = 'o.csv' }\n", "data.synthetic", "[synthesis] table"),
    ("[data]\noriginal = { path = 'o.csv' }\nsynthetic = { path = 's.csv' }\n[attacks]\ntua = 0.1\n",
     "attacks.tua", "did you mean 'tau'"),
    ("[data]\noriginal = { path = 'o.csv' }\n[synthesis]\nmethod = { turnover = 'cartt' }\n",
     "synthesis.method.turnover", "expected one of"),
    ("[data]\noriginal = { path = 'o.csv' }\nsynthetic = { path = 's.csv' }\n[membership]\nisolated = 2\n",
     "membership", "[synthesis] table"),
    ("[data]\noriginal = { path = 'o.csv' }\nsynthetic = { path = 's.csv' }\n[synthesis]\n[tune]\ngrid = { minbucket = [5] }\n",
     "tune", "leave [data] synthetic out"),
    ("[data]\noriginal = { path = 'o.csv' }\n[synthesis]\n[tune]\ngrid = { leaf = [5] }\n", "tune.grid", "cannot vary 'leaf'"),
    ("[data]\noriginal = { path = 'o.csv' }\n[synthesis]\n[tune]\ngrid = { minbucket = ['x'] }\n", "tune.grid", "not a valid int"),
    ("[data]\noriginal = { path = 'o.csv' }\n[synthesis]\nholdout_share = 1.0\n", "synthesis.holdout_share", "less than 1"),
    ("[data]\noriginal = { path = 'o.csv' }\n[synthesis]\n[attacks]\ntargets = ['turnover']\n", "attacks.keys", "need keys"),
    ("[data]\noriginal = { path = 'o.csv' }\n[synthesis]\n[attacks]\nkeys = ['a']\nbins = { a = 'fifths' }\n",
     "attacks.bins.a", "quantile:K"),
])
def test_bad_synthetic_scenarios_name_the_field_before_reading_data(tmp_path, body, field, needle):
    scenario = _write(tmp_path, 'kind = "synthetic"\n' + body)  # o.csv and s.csv do not exist
    result = invoke(["run", scenario])
    assert result.exit_code == 2, result.output
    assert field in result.output and needle in result.output, result.output
    assert "Traceback" not in result.output
    with pytest.raises(InputError):
        attack.load_scenario(scenario)


def test_each_loader_names_the_other_kind(tmp_path):
    scenario = _write(tmp_path, 'kind = "synthetic"\n[data]\noriginal = { path = "o.csv" }\n[synthesis]\n')
    with pytest.raises(InputError, match="SyntheticScenario"):
        attack.Scenario.from_toml(scenario)
    with pytest.raises(InputError, match="not a synthetic-release scenario"):
        SyntheticScenario.from_toml(ROOT / "scenarios" / "demo_kse_set.toml")


def test_to_toml_round_trips(tmp_path):
    scenario = SyntheticScenario.from_toml(ROOT / "scenarios" / "demo_tune_synthesis.toml")
    copy = _write(tmp_path, scenario.to_toml())
    again = SyntheticScenario.from_toml(copy)
    assert again.settings == scenario.settings


def test_attack_schema_synthetic_prints_its_schema():
    result = invoke(["schema", "--synthetic"])
    assert result.exit_code == 0
    assert json.loads(result.output)["title"] == "attack synthetic-release scenario file"


@pytest.mark.parametrize("tables, field, needle", [
    ('[synthesis]\ndrop = ["idd"]\n', "synthesis.drop", "column 'idd' is not in the original"),
    ('[synthesis]\ndrop = ["unit_id"]\n[attacks]\nkeys = ["region", "nope"]\n', "attacks.keys", "'nope'"),
    ('[synthesis]\ndrop = ["unit_id"]\nmethod = { turnovr = "norm" }\n', "synthesis.method", "'turnovr'"),
])
def test_columns_the_settings_name_are_checked_before_synthesis(tmp_path, firms, tables, field, needle):
    firms.to_csv(tmp_path / "firms.csv", index=False)
    scenario = _write(tmp_path, 'kind = "synthetic"\n[data]\noriginal = { path = "firms.csv" }\n' + tables)
    result = invoke(["run", scenario, "--quiet"])
    assert result.exit_code == 2 and field in result.output and needle in result.output, result.output
    assert "firms.csv" in result.output and not (tmp_path / "reports").exists()


def test_an_output_that_is_an_input_is_refused_before_the_run(tmp_path, firms):
    firms.to_csv(tmp_path / "firms.csv", index=False)
    scenario = _write(tmp_path, 'kind = "synthetic"\n[data]\noriginal = { path = "firms.csv" }\n'
                                '[synthesis]\ndrop = ["unit_id"]\n[output]\nsynthetic = "firms.csv"\n')
    before = (tmp_path / "firms.csv").read_bytes()
    result = invoke(["run", scenario, "--quiet"])
    assert result.exit_code == 2 and "is also the input" in result.output
    assert (tmp_path / "firms.csv").read_bytes() == before


def test_a_synthetic_file_of_two_columns_is_attacked(tmp_path, firms):
    """Multivariate singling out asks about three columns, or all of them when there are fewer."""
    two = firms[["region", "turnover"]]
    result = attack.attack_synthetic(two, attack.synthesize(two, seed=2).frame, n_attacks=50)
    assert result.figures["singling_out"]["parameters"]["n_cols"] == 2


def test_a_scenario_checks_the_privacy_claim_of_its_ledger(tmp_path, firms):
    members, holdout = firms.iloc[:200], firms.iloc[200:]
    members.to_csv(tmp_path / "o.csv", index=False)
    holdout.to_csv(tmp_path / "h.csv", index=False)
    members.to_csv(tmp_path / "s.csv", index=False)  # a release that copies every member
    (tmp_path / "ledger.toml").write_text('[[release]]\nname = "this one"\nepsilon = 2.0\n', encoding="utf-8")
    scenario = _write(tmp_path, """
kind = "synthetic"
[data]
original = { path = "o.csv" }
synthetic = { path = "s.csv" }
holdout = { path = "h.csv" }
[attacks]
exclude = ["unit_id"]
n_attacks = 20
[membership_family]
attacks = ["dcr"]
[privacy_claim]
ledger = "ledger.toml"
""")
    loaded = SyntheticScenario.from_toml(scenario)
    assert tmp_path / "ledger.toml" in loaded.input_paths()
    claim = loaded.run().to_dict()["membership_family"]["privacy_claim"]
    assert claim["claimed_epsilon"] == 2.0 and claim["falsified"]
    (tmp_path / "bad.toml").write_text(scenario.read_text().replace("[membership_family]\nattacks = [\"dcr\"]\n", ""))
    with pytest.raises(InputError, match="membership_family"):
        SyntheticScenario.from_toml(tmp_path / "bad.toml")


def test_the_run_says_which_root_reaches_the_certificates_inputs(tmp_path, firms, monkeypatch):
    """The default certificate goes into reports/, the original lies one folder up: the run says
    how a plain verify reaches it."""
    firms.to_csv(tmp_path / "firms.csv", index=False)
    scenario = _write(tmp_path, f'kind = "synthetic"\n[data]\noriginal = {{ path = "firms.csv" }}\n'
                                f'[synthesis]\ndrop = ["unit_id"]\nseed = 5\n{ATTACKS}\n')
    monkeypatch.chdir(tmp_path)
    ran = invoke(["run", scenario.name])
    assert ran.exit_code in (0, 1), ran.output
    (line,) = [x for x in ran.stderr.splitlines() if x.startswith("certificate written to ")]
    assert line.endswith("its inputs lie outside its folder, so check it with: attack verify "
                         f"{line.split()[3].rstrip(';')} --root .")
