"""Notices (attack.io.notices): one line per kind and run, through ``warnings`` as
``attack.DataNotice``, silenced by a filter or ``--quiet``, advice that works as written."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from reference_data import SDCMICRO

import attack
from attack.cli import main
from attack.io.columns import code_column, warn_unshared
from attack.io.notices import NUMBER_AS_CODE, gathering, notice
from attack.io.table import Table

CODES = ["relat", "sex", "roof", "urbrur", "water", "walls", "hhcivil", "electcon"]


@pytest.fixture(scope="module")
def testdata(tmp_path_factory) -> Path:
    """sdcMicro's testdata with a row number as the unit id, in a folder of its own."""
    frame = pd.read_csv(SDCMICRO / "testdata.csv")
    frame.insert(0, "uid", range(len(frame)))
    path = tmp_path_factory.mktemp("notices") / "testdata.csv"
    frame.to_csv(path, index=False)
    return path


def _link(path: Path, *extra: str) -> list[str]:
    args = ["link", "--external", path, "--release", path, "--original", path, "--external-id", "uid",
            "--release-id", "uid", "--key", "age:metric", "--key", "income:metric", "--key", "relat:nominal",
            "--key", "sex:nominal", "--key", "roof:nominal", "--block", "urbrur", "--block", "water",
            "--cell", "walls", "--cell", "hhcivil", "--cell", "electcon", *extra]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 1, result.output  # every firm of a file linked to itself: NOT PASSED
    return result.stderr.splitlines()


def test_one_run_on_sdcmicro_testdata_prints_one_notice_line(testdata: Path) -> None:
    lines = _link(testdata)
    notices = [line for line in lines if line.startswith("attack: notice: ")]
    assert len(notices) == 1, lines
    line = notices[0]
    assert "8 numeric columns used as codes: " + ", ".join(CODES) + " (file testdata.csv)" in line
    assert str(testdata.parent) not in "\n".join(lines)  # no machine path on screen
    # the advice works as written: the flags it names end the notice
    flags = re.search(r"on the command line ((?:--code \S+ ?)+);", line).group(1).split()
    assert flags == [part for c in CODES for part in ("--code", c)]
    assert not [x for x in _link(testdata, *flags) if x.startswith("attack: notice")]
    assert not [x for x in _link(testdata, "--quiet") if x.startswith("attack: notice")]


def test_the_scenario_advice_is_a_field_that_exists(testdata: Path, tmp_path: Path) -> None:
    entry = '{ path = "%s", id = "uid"%s }'
    text = ('title = "t"\n[data]\nexternal = {e}\nrelease = {e}\noriginal = {e}\n[linkage]\n'
            'keys = ["age:metric", "relat:nominal"]\nblock = ["urbrur"]\n[evaluation]\ncells = ["walls"]\n')
    plain = entry % (testdata.as_posix(), "")
    scenario = tmp_path / "s.toml"
    scenario.write_text(text.format(e=plain), encoding="utf-8")
    with pytest.warns(attack.DataNotice) as caught:
        attack.Scenario.from_toml(scenario).run()
    notices = [w for w in caught if issubclass(w.category, attack.DataNotice)]
    assert len(notices) == 1
    advice = re.search(r"codes = \[[^\]]*\]", str(notices[0].message)).group(0)
    assert advice == 'codes = ["relat", "urbrur", "walls"]'
    scenario.write_text(text.format(e=entry % (testdata.as_posix(), ", " + advice)), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error", attack.DataNotice)
        result = attack.Scenario.from_toml(scenario).run()
    assert result.passed is False


def test_python_gets_one_warning_per_kind_and_a_filter_silences_it() -> None:
    frame = pd.DataFrame({"uid": range(6), "x": [1.0, 2, 3, 4, 5, 6], "a": [1, 1, 2, 2, 3, 3], "b": [1, 2] * 3})
    with pytest.warns(attack.DataNotice) as caught:
        attack.mass_attack(frame, frame, original=frame, keys=["x:metric"], blocks=["a"], cells=["b"],
                           external_id="uid", release_id="uid", tau=0.5)
    lines = [str(w.message) for w in caught if issubclass(w.category, attack.DataNotice)]
    assert len(lines) == 1 and lines[0].startswith("2 numeric columns used as codes: a, b (file <data>)")
    advice = 'for a data frame, give them as text: frame.astype({"a": "string", "b": "string"})'
    assert advice in lines[0]
    text = frame.astype({"a": "string", "b": "string"})  # the advice as written
    with warnings.catch_warnings():
        warnings.simplefilter("error", attack.DataNotice)
        attack.mass_attack(text, text, original=text, keys=["x:metric"], blocks=["a"], cells=["b"],
                           external_id="uid", release_id="uid", tau=0.5)
    assert issubclass(attack.DataNotice, UserWarning) and "DataNotice" in attack.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", attack.DataNotice)
        attack.mass_attack(frame, frame, original=frame, keys=["x:metric"], blocks=["a"], cells=["b"],
                           external_id="uid", release_id="uid", tau=0.5)


def test_kinds_are_gathered_separately_and_nested_runs_add_to_the_outer() -> None:
    with pytest.warns(attack.DataNotice) as caught:
        with gathering():
            notice(NUMBER_AS_CODE, "/secret/folder/a.csv", "x")
            with gathering():
                notice(NUMBER_AS_CODE, "b.csv", "y")
                notice(NUMBER_AS_CODE, "b.csv", "y")
            original = Table(pd.DataFrame({"a": [1], "b": [2]}), "orig.csv")
            warn_unshared(original, Table(pd.DataFrame({"a": [1]}), "syn.csv"), "synthetic")
    lines = [str(w.message) for w in caught]
    assert len(lines) == 2
    assert lines[0].startswith("2 numeric columns used as codes: x (file a.csv); y (file b.csv).")
    assert "/secret" not in lines[0] and "--code x --code y;" in lines[0]
    assert lines[1] == "the synthetic file syn.csv lacks 1 column(s) of the original orig.csv: b; they are left out"


def test_outside_a_run_a_notice_is_emitted_at_once() -> None:
    frame = Table(pd.DataFrame({"nace": [2511.0, 1511.0]}), "once.csv")
    with pytest.warns(attack.DataNotice, match=r"^1 numeric column used as codes: nace \(file once.csv\)"):
        assert list(code_column(frame, "nace")) == ["2511", "1511"]
