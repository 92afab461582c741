"""The public Python API: one pipeline behind the library, the CLI and scenario files."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

import attack
from attack.cli import main

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.toml"))
FIXTURE_ARGS = dict(
    keys=["turnover:metric", "employees:metric"], blocks=["wz", "region"],
    external_id="unit_id", release_id="unit_id", tau=0.5, cells=["wz"],
)


def invoke(args: list) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def _files(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, frame in (("external", EXTERNAL), ("release", RELEASE), ("original", ORIGINAL)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    return paths


def test_the_public_names_are_pinned():
    assert set(attack.__all__) == {
        "__version__", "InputError", "Key", "Metric", "Nominal", "Ordinal", "Hierarchical",
        "String", "Date", "Block", "AnyBlock", "Engine", "mass_attack", "AttackResult", "Scenario", "ScenarioResult",
        "demo_scenario", "protect", "Protected", "utility_profile", "attack_synthetic",
        "SyntheticResult", "verify", "tune", "link_names", "TruthResult", "synthesize", "Synthesis",
        "SyntheticScenario", "SyntheticScenarioResult", "load_scenario", "SynthSpec", "FamilyOptions",
        "membership_family", "MembershipFamilyResult", "frequency_risk", "FrequencyRisk",
        "ml_utility", "MlUtility", "TuneResult", "UtilityProfile",
        "ReadOptions", "read_options", "read_tables", "gammas_by_variable", "inspect_file", "render_inspection",
        "run_demo", "DemoResult", "write_outputs", "certificate_path", "tune_paths", "render_report",
        "report_path", "RenderedReport", "json_schema", "generate_keypair", "load_private_key",
        "passphrase_from_env", "protection_listing", "protection_methods",
        "population_uniqueness", "PopulationUniqueness", "UniquenessEstimate", "UniquesInterval",
        "population_risk", "PopulationRisk", "AttackerRisk", "ReleaseContext", "release_context", "resolve_context",
        "epsilon_lower_bound", "EpsilonBound", "check_claim", "ClaimCheck", "PrivacyClaim", "BudgetLedger",
        "read_budget_ledger", "confident_inference", "ConfidentInference",
        "DataNotice",
        "Attribution", "CellAttribution", "explain_attack", "record_outcomes", "records_table", "release_records",
        "remedy", "remedy_table", "RemedyResult", "RemedyRound", "AttackInput",
        "PopulationFile",
        "tune_synthesis",
        "AttackSettings", "run_attack",
    }
    for name in attack.__all__:
        assert getattr(attack, name) is not None
    importlib.import_module("attack.protect.catalogue")  # must not replace the function attack.protect
    assert callable(attack.protect)


def test_start_up_imports_only_what_a_command_needs():
    """``import attack`` loads no data library; the CLI loads no SciPy, numba or scikit-learn
    until a command needs them (``attack synth`` on 50,000 rows has a 5 s budget)."""
    code = ("import sys, attack; light = not any(m.split('.')[0] in ('pandas', 'scipy') for m in sys.modules); "
            "import attack.cli; print(light, sorted({m.split('.')[0] for m in sys.modules} & "
            "{'scipy', 'numba', 'sklearn', 'statsmodels', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "[]"]


def test_mass_attack_on_frames_equals_attack_link_on_files(tmp_path):
    paths = _files(tmp_path)
    out = tmp_path / "r.json"
    result = invoke([
        "link", "--external", paths["external"], "--release", paths["release"],
        "--original", paths["original"], "--external-id", "unit_id", "--release-id", "unit_id",
        "--key", "turnover:metric", "--key", "employees:metric", "--block", "wz",
        "--block", "region", "--cell", "wz", "--target", "turnover", "--target", "employees",
        "--target", "costs", "--json", out,
    ])
    assert result.exit_code in (0, 1), result.output
    written = json.loads(out.read_text())
    api = attack.mass_attack(
        EXTERNAL, RELEASE, original=ORIGINAL, targets=["turnover", "employees", "costs"],
        name="external.csv against release.csv", **FIXTURE_ARGS,
    ).to_dict()
    for document in (written, api):
        document.pop("intruder"), document.pop("release")
    assert written.pop("reading")["external"]["sep"] == ","  # how the files were parsed ...
    assert api.pop("reading") == {}  # ... frames were not parsed
    assert api == written
    assert written["schema_version"] == 2
    assert result.exit_code == (0 if written["passed"] else 1)


def test_declared_reading_options_read_only_the_needed_columns(tmp_path):
    """German CSV (semicolon, decimal comma) with an unneeded column that is not readable as
    numbers: the options apply to the paths; the extra column is never read from the external
    file and is given a role (other: text) in the release, every column of which is read."""
    from attack.io.readers import ReadOptions

    paths = {}
    for name, frame in (("external", EXTERNAL), ("release", RELEASE)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.assign(remark="1,2,3;x").to_csv(paths[name], sep=";", decimal=",", index=False)
    german = attack.mass_attack(paths["external"], paths["release"], reading=ReadOptions(sep=";", decimal=","),
                                **FIXTURE_ARGS).to_dict()
    frames = attack.mass_attack(EXTERNAL, RELEASE, **FIXTURE_ARGS).to_dict()
    assert german.pop("reading")["external"]["sep"] == ";"
    frames.pop("reading")
    assert german["roles"]["columns"].pop("remark") == {
        "role": "other", "inferred": True, "reason": "codes or text (declare it as a target to score it)"}
    german["roles"]["inferred"].remove("remark")
    for document in (german, frames):
        document.pop("name"), document.pop("intruder"), document.pop("release")
    assert german == frames
    out = tmp_path / "cli.json"
    result = invoke(["link", "--external", paths["external"], "--release", paths["release"],
                     "--external-id", "unit_id", "--release-id", "unit_id", "--key", "turnover:metric",
                     "--key", "employees:metric", "--block", "wz", "--block", "region", "--cell", "wz",
                     "--tau", "0.5", "--sep", ";", "--decimal", ",", "--json", out])
    assert result.exit_code in (0, 1), result.output
    cli = json.loads(out.read_text())
    assert cli["cells"] == german["cells"] and "remark" not in json.dumps(cli["reading"])


def test_typed_keys_give_the_same_result_as_text_keys():
    text = attack.mass_attack(EXTERNAL, RELEASE, original=ORIGINAL, **FIXTURE_ARGS)
    typed = attack.mass_attack(
        EXTERNAL, RELEASE, original=ORIGINAL,
        **{**FIXTURE_ARGS, "keys": [attack.Metric("turnover"), attack.Metric("employees")],
           "blocks": [attack.Block("wz"), attack.Block("region")], "cells": [attack.Block("wz")]},
    )
    assert typed.to_dict() == text.to_dict()
    pd.testing.assert_frame_equal(typed.links, text.links)


def test_attack_result_figures_and_tables():
    result = attack.mass_attack(EXTERNAL, RELEASE, original=ORIGINAL, **FIXTURE_ARGS)
    cells = result.cells
    assert list(cells["gamma"].unique()) == [0.05, 0.1]
    assert len(cells) == 2 * len(result.figures["cells"])
    assert cells["passed"].tolist() == [c["passed"] for c in result.figures["cells"] for _ in (1, 2)]
    assert result.passed == all(c["passed"] for c in result.figures["cells"])
    assert set(result.links.columns) == {"external_id", "release_id", "distance", "n_best", "correct",
                                         "match_probability"}
    assert result.links["correct"].sum() == result.figures["n_correct"]
    assert "<table" in result._repr_html_()
    assert result.to_markdown().startswith("#")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.name = "other"  # frozen


def test_gamma_keys_have_one_spelling(tmp_path):
    result = attack.mass_attack(EXTERNAL, RELEASE, original=ORIGINAL, **{**FIXTURE_ARGS, "gammas": ["0.10", 0.05]})
    assert result.gammas == ["0.1", "0.05"]


@pytest.mark.parametrize("bad, field", [
    ({"tau": "abc"}, "tau"),
    ({"keys": "turnover:metric"}, "keys"),
    ({"keys": ["turnover:metrik"]}, "keys[0]"),
    ({"cells": [5]}, "cells[0]"),
    ({"method": "hungarain"}, "method"),
    ({"blocks": ["wz", "region:prefix=0"]}, "blocks[1]"),  # the argument's name, not the file's "block"
    ({"gammas": [0.1, -0.2]}, "gammas[1]"),
    ({"gamma_by_variable": {"turnover": [0.1]}}, "gamma_by_variable.turnover"),
    ({"standardise": "zscore"}, "standardise"),
])
def test_bad_arguments_raise_input_error_before_reading(tmp_path, bad, field):
    missing = tmp_path / "absent.csv"  # never opened: settings are checked first
    with pytest.raises(attack.InputError) as info:
        attack.mass_attack(missing, missing, **{**FIXTURE_ARGS, **bad})
    if field is not None:
        assert info.value.field == field
    assert "absent.csv" not in str(info.value)


def _small_copy(path: Path, folder: Path) -> Path:
    """The shipped scenario on a 3,000-unit population (same file otherwise)."""
    text = re.sub(r"n_units = \d+", "n_units = 3000", path.read_text(encoding="utf-8"))
    copy = folder / path.name
    copy.write_text(text, encoding="utf-8")
    return copy


@pytest.mark.parametrize("path", [p for p in SCENARIOS if "tune" not in p.name], ids=lambda p: p.stem)
def test_scenario_run_equals_attack_run(tmp_path, path):
    scenario_path = _small_copy(path, tmp_path)
    out = tmp_path / "cli.json"
    result = invoke(["run", scenario_path, "--json", out, "--html", tmp_path / "r.html",
                     "--certificate", tmp_path / "c.json", "--quiet"])
    assert result.exit_code in (0, 1), result.output
    written = json.loads(out.read_text())
    api = attack.load_scenario(scenario_path).run().to_dict()
    assert api == written
    assert result.exit_code == (0 if written["passed"] else 1)
    assert written["schema_version"] == 2


def test_exit_codes_of_link(tmp_path):
    paths = _files(tmp_path)
    common = ["link", "--external", paths["external"], "--release", paths["release"],
              "--original", paths["original"], "--external-id", "unit_id", "--release-id", "unit_id",
              "--key", "turnover:metric", "--key", "employees:metric", "--quiet"]
    assert invoke(common + ["--tau", "1.0"]).exit_code == 0      # nothing reaches τ = 1
    assert invoke(common + ["--tau", "0.01"]).exit_code == 1     # the fixture re-identifies units
    broken = invoke(common + ["--key", "missing:metric"])
    assert broken.exit_code == 2 and "Traceback" not in broken.output


def test_demo_scenario_is_an_ordinary_scenario(tmp_path):
    scenario = attack.demo_scenario(n_units=500, seed=3)
    result = scenario.run(engine={"jobs": 1})
    assert [r.release["name"] for r in result.runs] == ["FORMAL"] * 2 + ["separate MA (k=3)"] * 2
    assert [r.intruder["role"] for r in result.runs] == ["worst", "realistic"] * 2
    assert result.to_dict() == attack.demo_scenario(n_units=500, seed=3).run().to_dict()


#: Public classes that are settings or inputs, not results: they have no verdict to show.
NOT_RESULTS = {"Scenario", "SyntheticScenario", "ReadOptions", "Table", "AttackInput", "PopulationFile"}


def _public_result_types() -> dict[str, type]:
    """Every dataclass in ``attack.__all__`` and every class a public function returns."""
    import inspect
    import typing

    found: dict[str, type] = {}
    for name in attack.__all__:
        value = getattr(attack, name)
        if inspect.isclass(value) and dataclasses.is_dataclass(value):
            found[value.__name__] = value
        elif inspect.isfunction(value):
            try:
                returned = typing.get_type_hints(value).get("return")
            except NameError:  # an annotation only imported for type checking; its class is listed by name
                continue
            for kind in typing.get_args(returned) or (returned,):
                if inspect.isclass(kind) and dataclasses.is_dataclass(kind) and kind.__module__.startswith("attack"):
                    found[kind.__name__] = kind
    return {name: kind for name, kind in found.items() if name not in NOT_RESULTS}


def test_every_public_result_type_has_to_dict_and_repr_html():
    types = _public_result_types()
    assert {"DemoResult", "Protected", "Verification", "RenderedReport", "AttackResult", "ScenarioResult"} <= set(types)
    missing = {name: [m for m in ("to_dict", "_repr_html_") if not callable(getattr(kind, m, None))]
               for name, kind in types.items()}
    assert {name: gaps for name, gaps in missing.items() if gaps} == {}


def test_protected_to_dict_is_its_log_without_the_records():
    frame = pd.DataFrame({"unit_id": list("abcdef"), "turnover": [1.0, 2.0, 3.0, 10.0, 12.0, 14.0]})
    done = attack.protect(frame, "separate-ma", columns=["turnover"], k=3)
    document = done.to_dict()
    assert document == done.log and document is not done.log
    assert document["method"] == "separate-ma" and "release" not in document
    assert json.loads(json.dumps(document)) == document
    assert "Candidate release" in done._repr_html_()
