"""Forms drawn from a settings model: widgets follow the field types, values read back as typed."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field

from attack.linkage.settings import SettingsTable
from attack.ui.forms import dotted, get, inline, parse_path, prune, put, read, widgets


class Inner(SettingsTable):
    """An inner table."""

    n: int = Field(3, ge=1, description="How many.")


class Entry(SettingsTable):
    name: str


class Outer(SettingsTable):
    label: str = "x"
    tau: float = Field(0.5, gt=0, le=1, description="A limit.")
    mode: Literal["a", "b"] = "a"
    flag: bool = False
    words: list[str] = Field(default_factory=list)
    anything: dict[str, list[str]] | None = None
    inner: Inner | None = None
    entries: list[Entry] = Field(default_factory=list)


def by_name(ws):
    return {leaf.name: leaf for w in ws for leaf in w.leaves()} | {g.name: g for w in ws for g in w.groups()}


def test_widget_kinds_hints_and_values_follow_the_model():
    ws = by_name(widgets(Outer, {"tau": 0.3, "words": ["x", "y"], "inner": {"n": 4},
                                 "entries": [{"name": "p"}, {"name": "q"}]}))
    assert ws["tau"].kind == "number" and ws["tau"].value == "0.3" and ws["tau"].hint == "A limit. (> 0, ≤ 1)"
    assert ws["tau"].default == "0.5"
    assert ws["mode"].kind == "choice" and ws["mode"].choices == ("a", "b")
    assert ws["flag"].kind == "bool"
    assert ws["words"].kind == "lines" and ws["words"].value == "x\ny"
    assert ws["anything"].kind == "toml"
    assert ws["inner"].kind == "group" and ws["inner"].optional and ws["inner"].present
    assert ws["inner.n"].kind == "integer" and ws["inner.n"].value == "4" and ws["inner.n"].hint == "How many. (≥ 1)"
    assert ws["entries"].kind == "list" and [w.name for item in ws["entries"].items for w in item] == [
        "entries[0].name", "entries[1].name"]
    assert ws["entries[1].name"].value == "q"


@pytest.mark.parametrize("kind, text, expected", [
    ("number", "0.25", 0.25),
    ("number", "3", 3),
    ("number", "abc", "abc"),  # kept as typed: validation names it
    ("integer", "7", 7),
    ("integer", "7.5", 7.5),
    ("number", "  ", None),  # empty: the setting is left out
    ("bool", "true", True),
    ("lines", "a\n\n b \n", ["a", "b"]),
    ("lines", "0.05\n0.1", [0.05, 0.1]),
    ("lines", 'turnover:metric\n{ name = "x", type = "metric" }', ["turnover:metric", {"name": "x", "type": "metric"}]),
    ("lines", "", None),
    ("toml", '{ a = ["x"] }', {"a": ["x"]}),
    ("toml", "worst", "worst"),
    ("toml", "0.2", 0.2),
    ("text", " x ", "x"),
    # nested deeper than any document read back (or than Python's recursion): kept as typed
    ("toml", "[" * 5000 + "]" * 5000, "[" * 5000 + "]" * 5000),
    ("toml", "{a = " * 70 + "1" + "}" * 70, "{a = " * 70 + "1" + "}" * 70),
    ("lines", "[" * 5000 + "]" * 5000, ["[" * 5000 + "]" * 5000]),
])
def test_read_values_as_typed(kind, text, expected):
    widget = next(w for w in widgets(Outer, {}) if w.kind == kind) if kind != "integer" else by_name(
        widgets(Outer, {"inner": {}}))["inner.n"]
    assert read(widget, text) == expected


def test_paths_put_get_prune():
    assert parse_path("intruder[1].external.demo") == ("intruder", 1, "external", "demo")
    assert dotted(("intruder", 1, "external", "demo")) == "intruder[1].external.demo"
    document: dict = {"a": {"b": 1}, "l": [{"x": 1}]}
    put(document, ("a", "c", "d"), 2)
    put(document, ("l", 0, "x"), None)
    put(document, ("a", "b"), None)
    put(document, ("gone", "x"), None)
    assert document == {"a": {"c": {"d": 2}}, "l": [{}]}
    assert get(document, ("a", "c", "d")) == 2 and get(document, ("l", 3)) is None
    assert prune({"a": {}, "b": {"c": {}}, "l": [{}], "k": {}}, frozenset({("k",)})) == {"l": [{}], "k": {}}


def test_inline_values_are_toml():
    import tomllib

    value = {"a b": [1, 2.5, "x\"y"], "ok": True, "t": {"n": 1}}
    assert tomllib.loads(f"v = {inline(value)}")["v"] == value


def test_the_synthetic_form_offers_the_privacy_claim_and_the_membership_family():
    from attack.study.synthetic_settings import SyntheticScenarioSettings
    from attack.ui.forms import widgets

    found = {w.name: w for w in widgets(SyntheticScenarioSettings, {"kind": "synthetic",
                                                                   "data": {"original": {"path": "o.csv"}}})}
    claim = {leaf.name: leaf for leaf in found["privacy_claim"].leaves()}
    assert {"privacy_claim.epsilon", "privacy_claim.delta", "privacy_claim.ledger"} <= set(claim)
    assert "Claimed ε" in claim["privacy_claim.epsilon"].hint
    assert "membership_family.verdict_fpr" in {leaf.name for leaf in found["membership_family"].leaves()}
