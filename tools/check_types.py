"""Run mypy and fail on any error: the whole package is clean under the default rules, and the
modules pyproject.toml declares strict (the ``[[tool.mypy.overrides]]`` entry with
``disallow_untyped_defs = true``) are clean under the stricter ones as well; their errors are
listed apart.

Usage: ``python tools/check_types.py`` from the checkout root; exit status 1 when mypy reports
any error (or does not run), 0 when it reports none.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_ERROR = re.compile(r"^(?P<path>[\w/]+)\.py:\d+: error: ")


def strict_modules(pyproject: dict) -> tuple[list[str], list[str]]:
    """Module patterns held to the stricter rules, and those exempted from them."""
    strict, exempt = [], []
    for override in pyproject.get("tool", {}).get("mypy", {}).get("overrides", []):
        modules = override["module"]
        modules = [modules] if isinstance(modules, str) else modules
        if override.get("disallow_untyped_defs") is True:
            strict += modules
        elif override.get("disallow_untyped_defs") is False:
            exempt += modules
    return strict, exempt


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        return module == pattern[:-2] or module.startswith(pattern[:-1])
    return module == pattern


def errors_in_clean_modules(lines: Iterable[str], strict: list[str], exempt: list[str]) -> list[str]:
    """The mypy error lines whose module matches a strict pattern and no exemption."""
    out = []
    for line in lines:
        found = _ERROR.match(line)
        if not found:
            continue
        module = found["path"].replace("/", ".").removesuffix(".__init__")
        if any(_matches(module, p) for p in strict) and not any(_matches(module, p) for p in exempt):
            out.append(line)
    return out


def main() -> int:
    strict, exempt = strict_modules(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8")))
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    lines = run.stdout.splitlines()
    bad = errors_in_clean_modules(lines, strict, exempt)
    every = [x for x in lines if _ERROR.match(x)]
    print("\n".join([x for x in every if x not in bad] + bad + [
        f"mypy: {len(every)} errors in all, {len(bad)} in the modules declared strict"]))
    if run.returncode not in (0, 1) or (run.returncode == 1 and not every):  # mypy itself failed
        print(run.stdout + run.stderr)
        return 1
    return 1 if every else 0


if __name__ == "__main__":
    sys.exit(main())
