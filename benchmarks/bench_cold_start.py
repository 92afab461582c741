"""First use on a fresh installation: each case with an empty numba cache, then with the cache
it filled.

Usage: ``python benchmarks/bench_cold_start.py [CASE ...]`` (default: every case).

Each case runs twice in its own process with ``NUMBA_CACHE_DIR`` pointing to a new empty
folder: the first run ("cold") compiles every compiled loop it uses and writes it there, the
second ("warm") loads them from there, as every later run on the same installation does. The
difference is what compiling costs the first user; its budget is 10 s. Wall time is printed
with processor time (user + system) of the child, the steadier figure on shared cores, and the
budget is judged on both (on busy cores the wall difference grows with the load).

* ``demo``: ``attack demo`` (17,000 firms, default settings).
* ``mdav-100k``: joint MDAV (k = 3) of 100,000 synthetic firms with 10 metric variables (the
  case of ``bench_protect.py``, data generation included).
* ``link-100k``: ``attack link --method greedy`` of a MARKUS-like external file against the
  FORMAL release of 100,000 firms (the files of ``bench_link.py``, written beforehand).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from measure import Measured, run_child

BUDGET = 10.0   # seconds a cold run may take longer than a warm one
CASES = ("demo", "mdav-100k", "link-100k")


def command(case: str, folder: Path) -> list[str]:
    """The command of ``case``; its input files are written to ``folder`` first."""
    if case == "demo":
        return [sys.executable, "-m", "attack", "demo", "--out", str(folder / "demo")]
    if case == "mdav-100k":
        return [sys.executable, str(Path(__file__).with_name("bench_protect.py")), "--child", case]
    from bench_link import prepare

    ext, rel, _ = prepare(100_000, folder)
    return [sys.executable, "-m", "attack", "link", "--external", str(ext), "--release", str(rel),
            "--external-id", "unit_id", "--release-id", "unit_id",
            "--key", "turnover:metric", "--key", "employees:metric",
            "--block", "nace:prefix=2", "--block", "bbr9", "--method", "greedy",
            "--json", str(folder / "link.json"), "--jobs", "1"]


def timed(cmd: list[str], cache: Path) -> Measured:
    os.environ["NUMBA_CACHE_DIR"] = str(cache)
    run = run_child(cmd)
    if run.failed:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"{'case':>10} {'cold s':>7} {'warm s':>7} {'diff s':>7} {'cold cpu':>9} "
          f"{'warm cpu':>9} {'diff cpu':>9}  budget {BUDGET:.0f} s (wall, cpu)")
    for case in args.cases or CASES:
        with tempfile.TemporaryDirectory() as tmp:
            folder, cache = Path(tmp), Path(tmp) / "numba-cache"
            cache.mkdir()
            cmd = command(case, folder)
            cold, warm = timed(cmd, cache), timed(cmd, cache)
        diff, diff_cpu = cold.seconds - warm.seconds, cold.cpu_seconds - warm.cpu_seconds
        verdicts = ", ".join("met" if value <= BUDGET else "OVER" for value in (diff, diff_cpu))
        print(f"{case:>10} {cold.seconds:>7.1f} {warm.seconds:>7.1f} {diff:>7.1f} "
              f"{cold.cpu_seconds:>9.1f} {warm.cpu_seconds:>9.1f} {diff_cpu:>9.1f}  {verdicts}",
              flush=True)


if __name__ == "__main__":
    main()
