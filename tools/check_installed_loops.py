"""Check that the installed package carries its compiled loops (``setup.py`` compiles them into
the wheel): every module that uses numba has its compiled loops in its ``__pycache__``.

Usage: ``python tools/check_installed_loops.py`` after ``pip install .``. It imports ``attack``
from a temporary folder, so that it finds the installed copy and not this checkout. Exit 1 when
a module has none (the build warned and left them out), 0 otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

PROBE = """
import pathlib, attack
package = pathlib.Path(attack.__file__).parent
for source in sorted(package.rglob("*.py")):
    text = source.read_text(encoding="utf-8")
    if "from numba import" in text or "import numba" in text:
        loops = list((source.parent / "__pycache__").glob(source.stem + ".*.nbi"))
        print(source.relative_to(package.parent), len(loops))
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        found = subprocess.run([sys.executable, "-c", PROBE], cwd=folder, check=True,
                               capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    missing = []
    for line in found.stdout.splitlines():
        module, count = line.rsplit(" ", 1)
        print(f"{module}: {count} compiled loops")
        if count == "0":
            missing.append(module)
    if not found.stdout:
        print("no module that uses numba was found in the installed package", file=sys.stderr)
        return 1
    if missing:
        print(f"installed without compiled loops: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
