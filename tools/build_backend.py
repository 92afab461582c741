"""The build backend: setuptools, with the project's own dependencies installed while a wheel is
built, which ``setup.py`` needs to compile the numba loops into it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other hook as setuptools defines it)


def _dependencies() -> list[str]:
    project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"])


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return _setuptools.get_requires_for_build_wheel(config_settings) + _dependencies()
