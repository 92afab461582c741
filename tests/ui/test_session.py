"""The session: a screen submitted unchanged leaves the scenario as it was, for every example
scenario of the project; an edit is validated as ``attack run`` validates the file."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

import attack
from attack.ui.forms import Widget
from attack.ui.session import Session

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.toml"))


def submitted(widgets: list[Widget]) -> dict[str, str]:
    """What a browser sends for an untouched form."""
    form = {}
    for top in widgets:
        for group in top.groups():
            if group.kind == "group" and group.optional and group.present:
                form[f"{group.name}.__present"] = "on"
        form.update({leaf.name: leaf.value for leaf in top.leaves()})
    return form


@pytest.mark.parametrize("source", SCENARIOS, ids=lambda p: p.name)
def test_an_untouched_screen_keeps_the_scenario(source, tmp_path):
    path = tmp_path / source.name
    shutil.copy(source, path)
    session = Session.open(path)
    assert session.error is None, session.error
    before = tomllib.loads(source.read_text(encoding="utf-8"))
    for screen in session.screens():
        session.apply(screen, submitted(session.widgets(screen)))
        assert session.error is None, f"{screen.slug}: {session.error}"
        assert session.document == before, screen.slug
    assert tomllib.loads(path.read_text(encoding="utf-8")) == before


def test_the_demo_and_an_edit(tmp_path):
    session = Session.open(tmp_path / "s.toml")
    assert session.document == {} and not session.saved
    session.start_from(attack.demo_scenario(n_units=300).to_toml())
    assert session.saved and (tmp_path / "s.toml").exists()
    evaluation = session.screen("evaluation")
    form = submitted(session.widgets(evaluation)) | {"evaluation.tau": "0.25"}
    session.apply(evaluation, form)
    assert session.document["evaluation"]["tau"] == 0.25 and session.saved
    assert attack.load_scenario(tmp_path / "s.toml").evaluation.tau == 0.25
    session.apply(evaluation, form | {"evaluation.tau": "zero"})
    assert not session.saved and session.error is not None
    assert session.error.field == "evaluation.tau"
    assert str(session.error).endswith("field evaluation.tau: expected a number, got 'zero'")
    assert session.error_field(["evaluation", "evaluation.tau", "evaluation.gamma"]) == "evaluation.tau"
    assert attack.load_scenario(tmp_path / "s.toml").evaluation.tau == 0.25  # the file kept the valid value


def test_lists_of_tables_grow_and_shrink(tmp_path):
    session = Session.open(tmp_path / "s.toml")
    session.start_from(attack.demo_scenario(n_units=300).to_toml())
    intruders = session.screen("intruders")
    session.apply(intruders, submitted(session.widgets(intruders)), add="intruder")
    assert len(session.document["intruder"]) == 3
    assert session.error is not None and session.error.field == "intruder[2].external"
    session.apply(intruders, submitted(session.widgets(intruders)), remove="intruder[2]")
    assert len(session.document["intruder"]) == 2 and session.error is None
    session.apply(intruders, submitted(session.widgets(intruders)), remove="intruder[0]")
    assert [i["name"] for i in session.document["intruder"]] == ["MARKUS-like database"]


def test_an_optional_table_is_added_with_its_defaults_and_taken_out(tmp_path):
    session = Session.open(tmp_path / "s.toml")
    session.start_from(attack.demo_scenario(n_units=300).to_toml())
    intruders = session.screen("intruders")
    form = submitted(session.widgets(intruders))
    session.apply(intruders, form | {"single_attack.__present": "on"})
    assert session.document["single_attack"] == {} and session.error is None
    assert "[single_attack]" in session.toml()
    form = submitted(session.widgets(intruders))
    del form["single_attack.__present"]
    session.apply(intruders, form)
    assert "single_attack" not in session.document


SCENARIO_WITH_FILES = """\
title = "files"
[data]
external = { path = "external.csv", id = "id" }
release = { path = "release.csv", id = "id" }
[linkage]
keys = ["turnover:metric"]
"""


@pytest.fixture
def with_files(tmp_path):
    """A session on a scenario naming two data files (the confidential original among them)."""
    for name in ("external.csv", "release.csv"):
        (tmp_path / name).write_text("id,turnover\n1,5\n", encoding="utf-8")
    (tmp_path / "scenario.toml").write_text(SCENARIO_WITH_FILES, encoding="utf-8")
    (tmp_path / "someone_elses.toml").write_text('title = "not yours"\n', encoding="utf-8")
    (tmp_path / "link.toml").symlink_to(tmp_path / "release.csv")
    (tmp_path / "hard.toml").hardlink_to(tmp_path / "release.csv")
    return Session.open(tmp_path / "scenario.toml")


@pytest.mark.parametrize(("target", "replace", "says"), [
    ("release.csv", False, "scenario files only"),          # a data file of the scenario
    ("release.csv", True, "scenario files only"),           # ... also when the user confirms
    ("notes.txt", True, "scenario files only"),             # anything that is not a scenario file
    ("link.toml", True, "scenario files only"),             # a .toml name linked to the original
    ("hard.toml", True, "is also the input"),               # ... hard-linked to it
    ("someone_elses.toml", False, 'tick "replace"'),        # a file this UI did not write
])
def test_save_as_writes_only_scenario_files_and_never_over_an_input(with_files, tmp_path, target, replace, says):
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    with pytest.raises(attack.InputError, match=says):
        with_files.save_as(tmp_path / target, replace=replace)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert with_files.path == tmp_path / "scenario.toml"


def test_save_as_a_new_file_and_again_and_over_another_when_confirmed(with_files, tmp_path):
    with_files.save_as(tmp_path / "copy.toml")
    with_files.save_as(tmp_path / "copy.toml")  # written by this session: no question
    assert tomllib.loads((tmp_path / "copy.toml").read_text())["title"] == "files"
    with_files.save_as(tmp_path / "someone_elses.toml", replace=True)
    assert tomllib.loads((tmp_path / "someone_elses.toml").read_text())["title"] == "files"


def test_the_ui_opens_only_scenario_files(with_files, tmp_path):
    with pytest.raises(attack.InputError, match="scenario files only"):
        with_files.load(tmp_path / "release.csv")
    assert with_files.path == tmp_path / "scenario.toml"
