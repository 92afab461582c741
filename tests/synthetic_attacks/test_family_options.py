"""attack.synthetic_attacks.family_options: the options of further attack families are typed
settings (schema, form, validation), and a name that is no family is refused."""

from __future__ import annotations

import pandas as pd
import pytest

from attack.errors import InputError
from attack.study.synthetic_run import attack_synthetic
from attack.synthetic_attacks.family_options import (
    ConfidenceOptions,
    FamilyOptions,
    unknown_families,
)
from attack.synthetic_attacks.settings import Attacks, SynthSpec


def test_a_built_in_family_s_options_are_a_typed_field():
    spec = SynthSpec(options={"inference_confidence": {"recall": 0.5}})
    assert isinstance(spec.options.inference_confidence, ConfidenceOptions)
    assert spec.options.of("inference_confidence").recall == 0.5
    assert spec.to_dict()["options"] == {"inference_confidence": {"recall": 0.5}}
    assert "options" not in SynthSpec().to_dict()


def test_the_json_schema_shows_them():
    schema = Attacks.model_json_schema()
    options = schema["$defs"]["FamilyOptions"]["properties"]["inference_confidence"]
    assert any(ref.get("$ref", "").endswith("ConfidenceOptions") for ref in options["anyOf"])
    assert set(schema["$defs"]["ConfidenceOptions"]["properties"]) >= {"recall", "neighbours", "n_targets"}


def test_an_unknown_family_is_refused_with_its_name():
    spec = SynthSpec(options={"inference_confidance": {"recall": 0.5}})
    with pytest.raises(InputError, match="unknown attack family 'inference_confidance'; did you mean "
                                         "'inference_confidence'") as caught:
        unknown_families(spec.options, ["distance", "inference_confidence"])
    assert caught.value.field == "options.inference_confidance"
    unknown_families(SynthSpec(options={"inference_confidence": {}}).options, ["inference_confidence"])


def test_the_run_refuses_it_before_any_attack():
    frame = pd.DataFrame({"a": [1, 2, 3, 4], "b": list("xyxy")})
    with pytest.raises(InputError, match="unknown attack family 'copied_row'"):
        attack_synthetic(frame, frame, n_attacks=5, options={"copied_row": {"columns": ["a"]}})
    with pytest.raises(InputError, match="expected a table of options"):
        SynthSpec(options={"copied_rows": 3})


def test_a_bad_value_names_its_field():
    with pytest.raises(InputError) as caught:
        SynthSpec(options={"inference_confidence": {"neighbours": 0}})
    assert caught.value.field == "options.inference_confidence.neighbours"


def test_a_scenario_s_attacks_table_takes_them():
    attacks = Attacks.model_validate({"keys": ["a"], "targets": ["b"],
                                      "options": {"inference_confidence": {"recall": 0.2}}})
    assert attacks.options.given() == {"inference_confidence": {"recall": 0.2}}
    assert FamilyOptions().given() == {}


def test_the_result_echoes_the_tables_as_written():
    spec = SynthSpec(options={"inference_confidence": {"recall": 1, "recalls": [0.5, 0.1]}})
    assert spec.options.inference_confidence.recalls == [0.1, 0.5]  # the model's own order
    assert spec.to_dict()["options"] == {"inference_confidence": {"recall": 1, "recalls": [0.5, 0.1]}}
    again = spec.model_copy(update={"n_attacks": 7})
    assert again.to_dict()["options"] == spec.to_dict()["options"]
    typed = SynthSpec(options=FamilyOptions(inference_confidence=ConfidenceOptions(recall=0.3)))
    assert typed.to_dict()["options"] == {"inference_confidence": {"recall": 0.3}}
