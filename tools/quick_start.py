"""Print the README's quick start, the lines a newcomer runs: the first code block under the
heading "## Quick start", one command line per output line.

Usage: ``python3 tools/quick_start.py [README]`` (default: ``README.md`` beside ``tools/``).
``.ci/run`` and ``benchmarks/bench_install.py`` run what it prints, so that they run the README
as written. Exit 1 when the README has no such block. Standard library only: it runs before
anything is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path


def quick_start(readme: Path) -> list[str]:
    """The lines of the first code block under "## Quick start" in ``readme``."""
    lines: list[str] = []
    inside = block = False
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            if block:
                break
            inside = line.strip() == "## Quick start"
        elif inside and line.startswith("```"):
            if block:
                return lines
            block = True
        elif block:
            lines.append(line)
    raise ValueError(f"{readme.name} has no code block under '## Quick start'")


def main() -> int:
    readme = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "README.md"
    try:
        print("\n".join(quick_start(readme)))
    except ValueError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
