"""A key type defined outside the package (docs/contributing/add-a-distance.md): one class, and the
text form, scenario files, their JSON Schema, ``attack.<Class>`` and the attack all know it."""

from __future__ import annotations

import json
from typing import Literal

import numpy as np
import pandas as pd
import pytest

import attack
from attack.io.readers import code_column
from attack.linkage.distances import CodeComponent, ComponentOptions, factorize_pair
from attack.linkage.keys import Key, key_types, parse_key
from attack.study.settings import json_schema


class Initial(Key):
    """Toy key: 0 when the first letters of the names agree, 1 otherwise."""

    type: Literal["initial"] = "initial"

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> CodeComponent:
        first = [np.array([v[0] if isinstance(v, str) and v else None for v in values], dtype=object)
                 for values in (code_column(external, self.external_column, required=True),
                                code_column(release, self.name, required=True))]
        a, b, _ = factorize_pair(*first)
        return CodeComponent(a, b, kind="nominal")


# external units 1-4; the release holds the same units (ids hidden from the matcher) with names
# respelt but their initials kept, except unit 4 ("Dora" -> "Tora")
EXTERNAL = pd.DataFrame({"id": [1, 2, 3, 4], "name": ["Anna", "Bert", "Carl", "Dora"],
                         "size": [10.0, 20.0, 30.0, 40.0]})
RELEASE = pd.DataFrame({"id": [4, 3, 2, 1], "name": ["Tora", "Cal", "Bart", "Ana"],
                        "size": [40.0, 30.0, 20.0, 10.0]})


def test_defining_the_class_registers_it_everywhere():
    assert key_types()["initial"] is Initial
    assert attack.Initial is Initial
    assert parse_key("name:initial:2:skip") == Initial("name", weight=2.0, missing="skip")
    assert Initial("name").to_text() == "name:initial:1"
    assert Initial("name").to_dict() == {"name": "name", "type": "initial", "weight": 1.0, "missing": "max"}
    keys_schema = json.dumps(json_schema())
    assert '"const": "initial"' in keys_schema and '"const": "metric"' in keys_schema
    with pytest.raises(attack.InputError, match="did you mean 'initial'"):
        attack.mass_attack(EXTERNAL, RELEASE, keys=[{"type": "inital", "name": "name"}], external_id="id",
                           release_id="id", tau=0.5)


def test_the_new_key_links_as_a_nominal_key_on_the_initials():
    """Hand check: on the initials alone units 1-3 have one release record at distance 0 each;
    unit 4's initial D is nowhere in the release: distance 1 to all four records (a tie), and
    greedy gives it the one left, its own."""
    args = {"external_id": "id", "release_id": "id", "tau": 0.5}
    linkage = attack.mass_attack(EXTERNAL, RELEASE, keys=["name:initial"], **args).figures["linkage"]
    assert (linkage["total_distance"], linkage["n_links"], linkage["n_tied_links"]) == (1.0, 4, 1)
    with_initials = [frame.assign(first=frame["name"].str[0]) for frame in (EXTERNAL, RELEASE)]
    nominal = attack.mass_attack(*with_initials, keys=["first:nominal", "size:metric:0.5"], **args)
    new = attack.mass_attack(EXTERNAL, RELEASE, keys=[Initial("name"), "size:metric:0.5"], **args)
    keys_of = {"first": "name", "nominal": "initial"}

    def comparable(figures: dict) -> str:
        # the roles differ by the release column "first" that only the nominal run has
        return json.dumps({k: v for k, v in figures.items() if k not in ("linkage", "frequency_risk", "roles")})

    assert comparable(new.figures) == comparable(nominal.figures)
    assert new.figures["linkage"]["total_distance"] == nominal.figures["linkage"]["total_distance"]
    described = new.figures["linkage"]["keys"][0]
    assert {k: keys_of.get(v, v) for k, v in nominal.figures["linkage"]["keys"][0].items()
            if k != "tf"} == described


def test_a_scenario_file_takes_the_new_key(tmp_path):
    for name, frame in (("external", EXTERNAL), ("release", RELEASE)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "scenario.toml").write_text(
        'title = "initials"\n'
        '[data]\nrelease = { path = "release.csv", id = "id" }\n'
        '[[intruder]]\nname = "initials"\nexternal = { path = "external.csv", id = "id" }\n'
        '[linkage]\nkeys = [{ type = "initial", column = "name", weight = 2 }, "size:metric"]\n'
        'method = "hungarian"\n'
        '[evaluation]\ntau = 0.5\n', encoding="utf-8")
    scenario = attack.load_scenario(tmp_path / "scenario.toml")
    assert scenario.intruders[0].linkage.keys[0] == Initial("name", weight=2.0)
    run = scenario.run().runs[0]
    # unit 4: initial distance 1 at weight 2, sizes equal: 2; the others 0
    assert run.figures["n_correct"] == 4 and run.figures["linkage"]["total_distance"] == 2.0
    assert [k["type"] for k in run.figures["linkage"]["keys"]] == ["initial", "metric"]
    assert 'keys = [\n    "name:initial:2",\n    "size:metric:1",\n]' in scenario.to_toml()


def test_a_key_type_defined_in_a_test_is_found_used_and_removed():
    """The recipe's registration on a toy defined and forgotten here (KEY_TYPES.remove)."""
    from attack.linkage.keys import KEY_TYPES

    class Lengths(Key):
        type: Literal["lengths"] = "lengths"

        def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> CodeComponent:
            a, b, _ = factorize_pair(*[np.array([len(v) for v in code_column(frame, column, required=True)])
                                       for frame, column in ((external, self.external_column), (release, self.name))])
            return CodeComponent(a, b, kind="nominal")

    try:
        assert KEY_TYPES["lengths"] is Lengths and parse_key("name:lengths") == Lengths("name")
        linked = attack.mass_attack(EXTERNAL, RELEASE, keys=["name:lengths"], external_id="id", release_id="id",
                                     tau=0.5)
        assert linked.figures["linkage"]["keys"][0]["type"] == "lengths"
    finally:
        KEY_TYPES.remove("lengths")
    assert "lengths" not in key_types()
    with pytest.raises(attack.InputError, match="unknown key type 'lengths'"):
        parse_key("name:lengths")
