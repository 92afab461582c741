"""The compiled loops built into a wheel: the build backend and the precompile steps."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

from attack._precompile import LANES, STEPS, precompile

ROOT = Path(__file__).resolve().parent.parent


def _backend():
    spec = importlib.util.spec_from_file_location("build_backend", ROOT / "tools" / "build_backend.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_wheel_build_gets_the_dependencies_an_editable_one_does_not(monkeypatch) -> None:
    from setuptools import build_meta

    monkeypatch.chdir(ROOT)
    backend = _backend()
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_wheel", lambda settings: ["wheel"])
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert backend.get_requires_for_build_wheel() == ["wheel", *dependencies]
    assert "numba>=0.59" in dependencies
    assert backend.get_requires_for_build_editable is build_meta.get_requires_for_build_editable


def test_every_step_runs_and_is_logged() -> None:
    """A step broken by a change to the API would leave every wheel without compiled loops
    (the build only warns), so each is run here."""
    lines: list[str] = []
    assert precompile(lines.append) == lines
    assert [line.split(":")[0] for line in lines] == [step.__name__.strip("_") for step in STEPS]
    assert len(lines) == 4
    in_lanes = [step for lane in LANES for step in lane]
    assert sorted(in_lanes, key=STEPS.index) == list(STEPS)  # each step in one lane
