"""attack.io.serial: a typed result's ``to_dict`` derived from its fields (one mechanism)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from attack.io.serial import ABSENT, Serialised, figure, to_plain


@dataclass(frozen=True)
class _Rate(Serialised):
    value: float | None
    interval: tuple[float, float] | None = figure(default=None, omit_none=True)
    label: str = figure(default="x", name="name")
    links: pd.DataFrame | None = figure(default=None, serialise=False, repr=False)


@dataclass(frozen=True)
class _Outer(Serialised):
    rate: _Rate
    by_gamma: dict[str, _Rate]
    counts: tuple[int, ...]


def test_to_dict_follows_the_fields_rules():
    outer = _Outer(_Rate(np.float64(0.25), (0.1, 0.4), links=pd.DataFrame({"a": [1]})),
                   {"0.1": _Rate(None)}, (np.int64(3), 4))
    assert outer.to_dict() == {
        "rate": {"value": 0.25, "interval": [0.1, 0.4], "name": "x"},
        "by_gamma": {"0.1": {"value": None, "name": "x"}},
        "counts": [3, 4],
    }
    assert type(outer.to_dict()["rate"]["value"]) is float
    assert type(outer.to_dict()["counts"][0]) is int
    assert list(outer.to_dict()) == ["rate", "by_gamma", "counts"]  # declaration order


def test_a_hand_written_to_dict_is_used_when_nested():
    @dataclass(frozen=True)
    class Own(Serialised):
        a: int

        def to_dict(self):
            return {"own": self.a}

    assert to_plain({"k": [Own(2)]}) == {"k": [{"own": 2}]}


@dataclass(frozen=True)
class _Estimate(Serialised):
    value: float | None
    interval: tuple[float, float] | None


@dataclass(frozen=True, kw_only=True)
class _Base(Serialised):
    rate: _Estimate | None = figure(default=None, omit_none=True, split=True)
    by_gamma: dict[str, _Estimate] = figure(default_factory=dict, split=True)
    note: str | None = figure(default=ABSENT)


@dataclass(frozen=True, kw_only=True)
class _Derived(_Base):
    json_lead = ("name",)
    name: str
    parts: tuple[_Outer2, ...] = ()


@dataclass(frozen=True)
class _Outer2(Serialised):
    counts: tuple[int, ...]


def test_split_lead_and_absent_fields_and_their_reading_back():
    value = _Derived(name="x", rate=_Estimate(0.5, (0.2, 0.8)), by_gamma={"0.1": _Estimate(None, None)},
                     parts=(_Outer2((1, 2)),))
    document = value.to_dict()
    assert list(document) == ["name", "rate", "rate_ci", "by_gamma", "by_gamma_ci", "parts"]
    assert document["rate_ci"] == [0.2, 0.8] and document["by_gamma_ci"] == {"0.1": None}
    assert _Derived.from_dict(document) == value
    assert _Derived.from_dict({**document, "note": None}).to_dict()["note"] is None  # a null stays
    assert "rate" not in _Derived(name="y").to_dict()


def test_reading_back_a_wrong_shape_is_a_type_error():
    with pytest.raises(TypeError, match="expected a list"):
        _Derived.from_dict({"name": "x", "parts": "no"})
    with pytest.raises(TypeError, match="expected an object"):
        _Derived.from_dict({"name": "x", "by_gamma": [1], "by_gamma_ci": {}})


@dataclass(frozen=True)
class _Verdict(Serialised):
    document_order: ClassVar[tuple[str, ...]] = ("measure", "where", "value", "passed")
    measure: str
    value: float
    where: Mapping[str, Any] = figure(default_factory=dict, flatten=True)

    @property
    def passed(self) -> bool:
        return self.value < 0.1


def test_a_flattened_field_joins_the_document_in_the_declared_order():
    got = _Verdict("share", np.float64(0.05), {"target": "t", "gamma": None}).to_dict()
    assert got == {"measure": "share", "target": "t", "gamma": None, "value": 0.05, "passed": True}
    assert list(got) == ["measure", "target", "gamma", "value", "passed"]


def test_an_object_with_its_own_to_dict_is_that_document():
    class Settings:
        def to_dict(self):
            return {"tau": 0.1}

    assert to_plain({"settings": Settings()}) == {"settings": {"tau": 0.1}}
