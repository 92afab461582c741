"""tools/check_types.py: which mypy errors fail the check."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_types", ROOT / "tools" / "check_types.py")
assert _spec is not None and _spec.loader is not None
check_types = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_types)


def test_only_errors_of_clean_modules_fail() -> None:
    strict, exempt = ["attack.protect.*", "attack.errors"], ["attack.protect.mdav_index"]
    lines = [
        "attack/protect/catalogue.py:3: error: Missing return  [return]",
        "attack/protect/__init__.py:1: error: x  [misc]",
        "attack/protect/mdav_index.py:9: error: Function is missing a type annotation  [no-untyped-def]",
        "attack/protection.py:9: error: not the package  [misc]",
        "attack/errors.py:5: error: y  [misc]",
        "attack/cli.py:5: error: z  [misc]",
        "attack/errors.py:5: note: a note, not an error",
        "Found 5 errors in 5 files (checked 9 source files)",
    ]
    assert check_types.errors_in_clean_modules(lines, strict, exempt) == [lines[0], lines[1], lines[4]]


def test_the_strict_list_is_read_from_pyproject() -> None:
    strict, exempt = check_types.strict_modules(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8")))
    assert "attack.protect.*" in strict and "attack.utility.*" in strict
    assert "attack.protect.mdav_index" in exempt
