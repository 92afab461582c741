"""The scenario schema: every shipped scenario is valid against the JSON Schema that
``attack schema`` prints, and the schema rejects what the loader rejects."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.study.scenario import Scenario
from attack.study.schema import json_schema
from attack.study.settings import validate
from attack.study.synthetic_settings import synthetic_json_schema, validate_synthetic

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml")) + [ROOT / "attack" / "study" / "scenarios" / "demo.toml"]
MINIMAL = {
    "data": {"external": {"path": "e.csv", "id": "u"}, "release": {"path": "r.csv", "id": "u"}},
    "linkage": {"keys": ["turnover:metric"]},
}


def test_attack_schema_prints_the_schema():
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == json.loads(json.dumps(json_schema()))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_shipped_scenarios_satisfy_the_schema(path):
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    if raw.get("kind") == "synthetic":
        jsonschema.validate(raw, synthetic_json_schema())
        validate_synthetic(raw)
    else:
        jsonschema.validate(raw, json_schema())
        validate(raw)


@pytest.mark.parametrize("change", [
    {"evaluation": {"tau": "abc"}},
    {"evaluation": {"tau": 1.5}},
    {"evaluation": {"gamma": 0.05}},
    {"evaluation": {"tua": 0.5}},
    {"linkage": {"keys": ["turnover:metric"], "method": "hungarain"}},
    {"linkage": {"keys": [{"name": "x", "type": "metric", "weight": -1}]}},
    {"linkage": {"keys": ["turnover:metric"], "block": "region"}},
    {"engine": {"jobs": 0}},
])
def test_the_json_schema_and_the_loader_agree_on_bad_settings(change):
    raw = {**MINIMAL, **change}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(raw, json_schema())
    with pytest.raises(InputError):
        validate(raw)


def test_to_toml_round_trips(tmp_path):
    path = ROOT / "scenarios" / "demo_kse_set.toml"
    scenario = Scenario.from_toml(path)
    copy = tmp_path / "copy.toml"
    copy.write_text(scenario.to_toml(), encoding="utf-8")
    again = Scenario.from_toml(copy)
    assert again.settings == scenario.settings
    assert again.to_toml() == scenario.to_toml()


@pytest.mark.parametrize("change, field, needle", [
    ({"single_attack": {"size": {"column": "employees", "treshold": 5}}}, "single_attack.size.treshold", "did you mean 'threshold'?"),
    ({"single_attack": {"size": {}, "leaders": {}}}, "single_attack.leaders", "not both"),
    ({"natural_protection": {}}, "natural_protection.formal", "required"),
    ({"data": {"external": {"path": "e.csv", "id": "u"}, "release": [{"path": "r.csv", "id": "u"}]}}, "data.release", "needs a name"),
    ({"engine": {"memory_budget": "lots"}}, "engine.memory_budget", "memory size 'lots'"),
    # dict keys stay in the path, also when they look like a key type or hold a hyphen
    ({"evaluation": {"gamma": [0.1], "gamma_by_variable": {"personnel-costs": ["x"]}}},
     "evaluation.gamma_by_variable.personnel-costs[0]", "expected a number"),
    ({"natural_protection": {"formal": {"path": "f.csv", "id": "u"}, "agreement": {"metric": "turnover"}}},
     "natural_protection.agreement.metric", "expected a list"),
    ({"combine": {"lam": [1]}}, "combine.lam", "expected a number"),
    # the [tune] grid is part of the schema: checked when the scenario is loaded
    ({"tune": {"method": "separate-ma", "parameter": "k", "values": [3], "stop_at_frist": True}},
     "tune.stop_at_frist", "did you mean 'stop_at_first'?"),
    ({"tune": {"method": "mdva", "parameter": "k", "values": [3]}}, "tune.method", "did you mean 'mdav'?"),
    ({"tune": {"method": "mdav", "parameter": "k", "values": [3, "x"]}}, "tune.values[1]", "expected a whole number"),
    ({"tune": {"method": "mdav", "parameter": "k", "values": [3], "utility": {"model": ["a ~ b"]}}},
     "tune.utility.model", "did you mean 'models'?"),
])
def test_nested_tables_are_checked_up_front(change, field, needle):
    with pytest.raises(InputError, match=needle) as info:
        validate({**MINIMAL, **change})
    assert info.value.field == field


def test_a_memory_size_satisfies_the_json_schema():
    jsonschema.validate({**MINIMAL, "engine": {"memory_budget": "2GiB"}}, json_schema())


def test_roles_identity_and_typed_targets_are_scenario_fields():
    raw = {**MINIMAL, "evaluation": {"roles": {"hid": "cluster_id"}, "identity": "discloses-nothing",
                                     "targets": ["nace:categorical:prefix=2", "dob:date:days=30"],
                                     "harmless": ["rec_id"], "min_scored": 10}}
    jsonschema.validate(raw, json_schema())
    evaluation = validate(raw).evaluation
    assert evaluation.reidentification_limit is None and evaluation.target_names == ["nace", "dob"]
    assert validate(MINIMAL).evaluation.reidentification_limit == 0.5  # judged, at τ
    for bad, field in [({"roles": {"hid": "household"}}, "evaluation.roles.hid"),
                       ({"targets": ["x:colour"]}, "evaluation.targets[0]"),
                       ({"identity": "discloses-nothing", "identity_limit": 0.3}, "evaluation.identity_limit"),
                       ({"targets": ["w"], "roles": {"w": "weight"}}, "evaluation.targets[0]")]:
        with pytest.raises(InputError) as caught:
            validate({**MINIMAL, "evaluation": bad})
        assert caught.value.field == field, caught.value
