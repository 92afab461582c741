"""``attack.run_demo`` from Python: its default folder (the README's) and its result's displays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import attack
from attack.study.demo import DEMO_OUT


def test_run_demo_needs_no_folder_and_shows_itself(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    demo = attack.run_demo(n_units=100)  # the smallest population the demo takes
    assert DEMO_OUT == Path("reports/demo") and demo.json_path == DEMO_OUT / "demo.json"
    assert sorted(p.name for p in (tmp_path / DEMO_OUT).iterdir()) == [
        "certificate.html", "certificate.json", "demo.json", "report.html"]
    document = demo.to_dict()
    written = json.loads((tmp_path / demo.json_path).read_text(encoding="utf-8"))
    assert json.loads(json.dumps(document["result"])) == written  # what demo.json holds
    assert document["files"] == {"json": "reports/demo/demo.json", "html": "reports/demo/report.html",
                                 "certificate": "reports/demo/certificate.json"}
    shown = demo._repr_html_()
    assert "NOT PASSED" in shown and "reports/demo/report.html" in shown and str(tmp_path) not in shown
    assert repr(demo) == "DemoResult(NOT PASSED; 4 runs, files in reports/demo)"
    report = attack.render_report(demo.json_path)
    assert report.to_dict() == {"passed": False, "html": report.html, "pdf_bytes": None}
    assert "NOT PASSED" in report._repr_html_() and "no PDF" in report._repr_html_()


@pytest.mark.parametrize(("setting", "value", "text"), [
    ("n_units", 99, "greater than or equal to 100"), ("seed", -1, "greater than or equal to 0"),
    ("method", "fastest", "'greedy'"), ("n_units", 1000.0, "whole number")])
def test_a_demo_setting_outside_its_rule_is_refused_by_name(setting, value, text, tmp_path) -> None:
    """The demo's population takes the rules of a scenario file's [data.demo] table, checked
    before anything is generated or written."""
    for make in (attack.demo_scenario, lambda **given: attack.run_demo(tmp_path, **given)):
        with pytest.raises(attack.InputError, match=text) as caught:
            make(**{setting: value})
        assert caught.value.field == setting
    assert not any(tmp_path.iterdir())
