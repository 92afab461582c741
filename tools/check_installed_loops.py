"""Check that the installed package's compiled loops are on disk where a new process finds them:
the background compile started by the first import finished, and then every step of
``attack._precompile`` (the paths that call a compiled loop, with a real run's argument types)
loads every loop it calls from the cache instead of compiling it.

Usage: ``python tools/check_installed_loops.py [--wait SECONDS]`` after ``pip install .`` and a
first command (``attack demo``). It imports ``attack`` from a temporary folder, so that it finds
the installed copy and not this checkout; it waits up to ``--wait`` seconds (default 900) for a
background compile still running. Exit 1 when the compile did not finish in time or a step
compiled a loop (the cache was missed), 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

WAIT = """
import sys, time, attack
from attack import _loops
marker, deadline = _loops.done_marker(_loops.compiled_key()), time.monotonic() + float(sys.argv[1])
while not marker.exists() and time.monotonic() < deadline:
    time.sleep(1)
print(marker.exists())
"""

PROBE = """
import gc
from numba.core.registry import CPUDispatcher
from attack._precompile import STEPS
reported = set()
for step in STEPS:
    step()
    dispatchers = [d for d in gc.get_objects() if isinstance(d, CPUDispatcher)
                   and d.py_func.__module__.startswith("attack.")]
    hits = sum(sum(d.stats.cache_hits.values()) for d in dispatchers)
    misses = {f"{d.py_func.__module__}.{d.py_func.__qualname__}" for d in dispatchers
              if d.stats.cache_misses} - reported
    reported |= misses
    print(step.__name__.strip("_"), hits, " ".join(sorted(misses)) or "-")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wait", type=float, default=900.0,
                        help="seconds to wait for a background compile (default 900)")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": ""}
    with tempfile.TemporaryDirectory() as folder:
        waited = subprocess.run([sys.executable, "-c", WAIT, str(args.wait)], cwd=folder, env=env,
                                check=True, capture_output=True, text=True).stdout.split()
        if waited[-1] != "True":
            print(f"the background compile did not finish within {args.wait:.0f} s",
                  file=sys.stderr)
            return 1
        found = subprocess.run([sys.executable, "-c", PROBE], cwd=folder, check=True, env=env,
                               capture_output=True, text=True).stdout
    compiled = []
    for line in found.splitlines():
        step, hits, misses = line.split(" ", 2)
        print(f"{step}: {hits} loops loaded from the cache so far; compiled: {misses}")
        if misses != "-":
            compiled.append(step)
    if not found:
        print("no step of attack._precompile ran", file=sys.stderr)
        return 1
    if compiled:
        print(f"compiled instead of loaded from the cache in: {', '.join(compiled)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
