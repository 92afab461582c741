"""attack.io.settings_document: one settings document (model, dict or JSON/TOML path) plus
keyword shortcuts, validated once, errors naming the field."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ConfigDict, Field

from attack import InputError
from attack.io.settings_document import settings_document


class _Toy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    tau: float = Field(0.5, gt=0, le=1)
    keys: list[str] = Field(default_factory=list)


def test_every_form_gives_the_same_model(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({"tau": 0.3, "keys": ["a"]}))
    (tmp_path / "s.toml").write_text('tau = 0.3\nkeys = ["a"]\n')
    expected = _Toy(tau=0.3, keys=["a"])
    assert settings_document(_Toy, {"tau": 0.3, "keys": ["a"]}) == expected
    assert settings_document(_Toy, expected) == expected
    assert settings_document(_Toy, tmp_path / "s.json") == expected
    assert settings_document(_Toy, str(tmp_path / "s.toml")) == expected
    assert settings_document(_Toy, None, tau=0.3, keys=("a",)) == expected
    assert settings_document(_Toy, {"tau": 0.9, "keys": ["a"]}, tau=0.3) == expected  # a shortcut wins
    assert settings_document(_Toy, expected, tau=None) == expected  # None: not given


def test_bad_values_name_their_field():
    with pytest.raises(InputError) as caught:
        settings_document(_Toy, {"tau": 2})
    assert caught.value.field == "settings.tau"
    with pytest.raises(InputError) as caught:
        settings_document(_Toy, None, tau=0)
    assert caught.value.field == "tau"
    with pytest.raises(InputError, match="did you mean 'tau'") as caught:
        settings_document(_Toy, None, tua=0.3)
    assert caught.value.field == "tua"
    with pytest.raises(InputError, match="expected _Toy settings"):
        settings_document(_Toy, 3)  # type: ignore[arg-type]
