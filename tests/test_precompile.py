"""The compile of every loop (attack._precompile): its steps, and the background run that the
first import starts (under the compile lock, then the marker)."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

import pytest

from attack import _loops, _precompile
from attack._precompile import LANES, STEPS, precompile

ROOT = Path(__file__).resolve().parent.parent


def test_building_needs_setuptools_only() -> None:
    """Nothing is compiled while a wheel is built, so the build environment holds no dependency
    of the project (installing them a second time took most of the old 118 s install)."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert build == {"requires": ["setuptools>=68", "wheel"], "build-backend": "setuptools.build_meta"}
    assert not (ROOT / "setup.py").exists()


def test_every_step_runs_and_is_logged() -> None:
    """A step broken by a change to the API would leave loops to compile on first use (the
    background compile fails unseen), so each is run here."""
    lines: list[str] = []
    assert precompile(lines.append) == lines
    assert [line.split(":")[0] for line in lines] == [step.__name__.strip("_") for step in STEPS]
    assert len(lines) == 4
    in_lanes = [step for lane in LANES for step in lane]
    assert sorted(in_lanes, key=STEPS.index) == list(STEPS)  # each step in one lane


class _InProcess:
    """ProcessPoolExecutor's stand-in: the lanes run in this process."""

    def __init__(self, workers: int, mp_context: object) -> None:
        self.workers = workers

    def __enter__(self) -> _InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, function, *iterables):
        return map(function, *iterables)


@pytest.fixture
def background(tmp_path, monkeypatch):
    """A cache folder of its own, lanes that only log, no renice of the test process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv(_loops.BACKGROUND, "1")      # restored after the test (main sets it)
    niced: list[int] = []
    monkeypatch.setattr(_precompile.os, "nice", niced.append)
    monkeypatch.setattr(_precompile, "ProcessPoolExecutor", _InProcess)
    monkeypatch.setattr(_precompile, "LANES", ((time.perf_counter,), (time.process_time,)))
    return niced


def test_the_background_run_compiles_at_the_lowest_priority_then_marks_done(background, capsys) -> None:
    marker = _loops.done_marker(_loops.compiled_key())
    _precompile.main(background=True)
    assert background == [19]
    assert marker.exists()
    assert capsys.readouterr().err == ""            # the background prints nothing


def test_the_background_run_does_nothing_when_done_or_locked(background, monkeypatch) -> None:
    def fail(*args, **kwargs):
        raise AssertionError("compiled although it should not")

    marker = _loops.done_marker(_loops.compiled_key())
    with _loops.compile_lock(wait=False) as held:
        assert held
        monkeypatch.setattr(_precompile, "precompile", fail)
        _precompile.main(background=True)           # another process compiles: nothing to do
    assert not marker.exists()
    marker.touch()
    _precompile.main(background=True)               # done already


def test_the_foreground_run_prints_each_step_and_marks_done(background, capsys) -> None:
    _precompile.main()
    assert background == []
    assert [line.split(":")[0] for line in capsys.readouterr().err.splitlines()] == [
        "perf_counter", "process_time"]
    assert _loops.done_marker(_loops.compiled_key()).exists()
