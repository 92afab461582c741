"""The JSON Schema of scenario files (attack.study.schema): its kinds."""

from __future__ import annotations

import pytest

from attack.errors import InputError
from attack.study.schema import json_schema


def test_each_kind_has_its_schema_and_none_is_both():
    assert json_schema("linkage")["title"] != json_schema("synthetic")["title"]
    assert "anyOf" in json_schema() or "oneOf" in json_schema()


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(InputError, match="'linkage' or 'synthetic'") as caught:
        json_schema("census")  # type: ignore[arg-type]
    assert caught.value.field == "kind"
