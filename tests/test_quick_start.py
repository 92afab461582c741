"""The README's quick start as CI and the install benchmark read it (tools/quick_start.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "quick_start.py"


def _tool():
    spec = importlib.util.spec_from_file_location("quick_start", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_quick_start_is_install_and_demo_then_the_tests() -> None:
    printed = subprocess.run([sys.executable, str(TOOL)], check=True, capture_output=True,
                             text=True).stdout.splitlines()
    assert printed == [
        "python3.11 -m venv .venv && . .venv/bin/activate && pip install . && attack demo",
        'pip install ".[test]" && python -m pytest -n auto',
    ]


def test_only_the_first_block_under_the_heading_counts(tmp_path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n```\nnot this\n```\n## Quick start\n\ntext\n```\none\ntwo\n```\n```\nthree\n```\n")
    assert _tool().quick_start(readme) == ["one", "two"]
    readme.write_text("# x\n## Quick start\ntext only\n## Next\n```\nelsewhere\n```\n")
    with pytest.raises(ValueError, match="no code block under '## Quick start'"):
        _tool().quick_start(readme)
    assert subprocess.run([sys.executable, str(TOOL), str(readme)], capture_output=True).returncode == 1
