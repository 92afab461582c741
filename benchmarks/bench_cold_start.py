"""First use on a fresh installation: each case run twice right after ``pip install``, and twice
with an empty cache of compiled loops.

Usage: ``python benchmarks/bench_cold_start.py [CASE ...]`` (default: every case).

The script builds a wheel of this checkout (building it compiles the package's numba loops
into it, ``attack/_precompile.py``; the time is printed), installs it with its dependencies
into a new virtual environment and runs each case there twice, from an empty folder: the first
run ("first") is what a user gets after installing, the second ("later") what every later run
gets. The difference is what the first use costs; its budget is 10 s. Each case then runs twice
more with ``NUMBA_CACHE_DIR`` pointing to a new empty folder, as after an editable install or
with a wheel built for another processor or numba (then ``python -m attack._precompile`` fills
the cache once); that difference is printed for information. Wall time is printed with the
processor time (user + system) of the child, the steadier figure on shared cores, and the
budget is judged on both.

* ``demo``: ``attack demo`` (17,000 firms, default settings).
* ``mdav-100k``: joint MDAV (k = 3) of 100,000 synthetic firms with 10 metric variables (the
  case of ``bench_protect.py``, data generation included).
* ``link-100k``: ``attack link --method greedy`` of a MARKUS-like external file against the
  FORMAL release of 100,000 firms (the files of ``bench_link.py``, written beforehand).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

from measure import Measured, run_child

BUDGET = 10.0   # seconds a first run may take longer than a later one
CASES = ("demo", "mdav-100k", "link-100k")
CHECKOUT = Path(__file__).resolve().parent.parent


def command(case: str, python: Path, folder: Path) -> list[str]:
    """The command of ``case`` run by ``python``; its input files are written to ``folder``."""
    if case == "demo":
        return [str(python), "-m", "attack", "demo", "--out", str(folder / "demo")]
    if case == "mdav-100k":
        return [str(python), str(Path(__file__).with_name("bench_protect.py")), "--child", case]
    from bench_link import prepare

    ext, rel, _ = prepare(100_000, folder)
    return [str(python), "-m", "attack", "link", "--external", str(ext), "--release", str(rel),
            "--external-id", "unit_id", "--release-id", "unit_id",
            "--key", "turnover:metric", "--key", "employees:metric",
            "--block", "nace:prefix=2", "--block", "bbr9", "--method", "greedy",
            "--json", str(folder / "link.json"), "--jobs", "1"]


def install(folder: Path) -> Path:
    """A new virtual environment in ``folder`` with a wheel of this checkout; its python."""
    wheels = folder / "wheel"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels),
                    str(CHECKOUT)], check=True)
    print(f"wheel built in {time.perf_counter() - start:.1f} s (compiling its loops included)",
          flush=True)
    venv.create(folder / "venv", with_pip=True)
    python = folder / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *map(str, wheels.glob("*.whl"))],
                   check=True)
    return python


def timed(cmd: list[str], folder: Path, cache: Path | None) -> Measured:
    """``cmd`` run in ``folder`` (so that ``python -m attack`` finds the installed package, not
    this checkout), with ``NUMBA_CACHE_DIR`` set to ``cache`` when given."""
    os.environ.pop("NUMBA_CACHE_DIR", None)
    if cache is not None:
        os.environ["NUMBA_CACHE_DIR"] = str(cache)
    here = Path.cwd()
    os.chdir(folder)
    try:
        run = run_child(cmd)
    finally:
        os.chdir(here)
    if run.failed:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return run


def row(case: str, kind: str, first: Measured, later: Measured, judged: bool) -> str:
    diff, diff_cpu = first.seconds - later.seconds, first.cpu_seconds - later.cpu_seconds
    verdict = ", ".join("met" if value <= BUDGET else "OVER" for value in (diff, diff_cpu))
    return (f"{case:>10} {kind:>12} {first.seconds:>7.1f} {later.seconds:>7.1f} {diff:>7.1f} "
            f"{first.cpu_seconds:>9.1f} {later.cpu_seconds:>9.1f} {diff_cpu:>9.1f}  "
            f"{verdict if judged else '(information)'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        python = install(Path(tmp))
        print(f"{'case':>10} {'cache':>12} {'first s':>7} {'later s':>7} {'diff s':>7} "
              f"{'first cpu':>9} {'later cpu':>9} {'diff cpu':>9}  budget {BUDGET:.0f} s "
              "(wall, cpu)")
        for case in args.cases or CASES:
            folder = Path(tmp) / case
            folder.mkdir()
            cmd = command(case, python, folder)
            installed = timed(cmd, folder, None), timed(cmd, folder, None)
            print(row(case, "installed", *installed, judged=True), flush=True)
            empty = folder / "numba-cache"
            empty.mkdir()
            print(row(case, "empty", timed(cmd, folder, empty), timed(cmd, folder, empty),
                      judged=False), flush=True)


if __name__ == "__main__":
    main()
