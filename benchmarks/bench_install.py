"""A newcomer's first hour: the README's two quick-start lines in a fresh clone, then the first
use of each command after installing against a later use.

Usage: ``python benchmarks/bench_install.py [--skip-test-line] [CASE ...]`` (default: every
case).

The script clones this checkout (its last commit) into a new empty folder and runs there, with
an empty per-user cache (``XDG_CACHE_HOME``: no compiled loops from earlier runs; pip keeps its
own download cache), the two lines of the README's quick start exactly as written
(``tools/quick_start.py``: the first code block under "## Quick start"): line 1 creates a
virtual environment, installs the package and runs ``attack demo``; line 2 installs the test
extra and runs the whole test suite. Line 2 runs in a shell that activates the environment
line 1 made, as the shell of line 1 would be. Budgets: line 1 at most 90 s, line 2 at most
5 min.

Then a second clone, with an empty cache of its own, runs line 1 again, and each case runs
twice in its environment right after it, from an empty folder: the first run after the install
("first") and a later one. Their difference is what the first use costs; its budget is 10 s.
The compile that line 1's ``attack demo`` started in the background (``attack._loops``) may
still be running at a first run: the row says whether it had finished. Each case then runs twice more with the background compile switched off and an
empty cache ("no cache"): what the first use would cost without it, for information. Wall time
is printed with the processor time (user + system) of the child, and the child's peak memory.

* ``demo``: ``attack demo`` (17,000 firms, default settings).
* ``mdav-100k``: joint MDAV (k = 3) of 100,000 synthetic firms with 10 metric variables (the
  case of ``bench_protect.py``, data generation included).
* ``link-100k``: ``attack link --method greedy`` of a MARKUS-like external file against the
  FORMAL release of 100,000 firms (the files of ``bench_link.py``, written beforehand).

The machine's cores are shared, so every figure is an upper bound for a quiet machine; the load
average (``uptime``) is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import Measured, run_child

LINE_BUDGETS = (90.0, 300.0)    # seconds for the README's line 1 and line 2
BUDGET = 10.0                   # seconds a first run may take longer than a later one
CASES = ("demo", "link-100k", "mdav-100k")
CHECKOUT = Path(__file__).resolve().parent.parent


def newcomer_env(cache: Path) -> dict[str, str]:
    """This process's environment as a new user's shell has it: no virtual environment or
    PYTHONPATH of ours, the per-user cache in ``cache``, pip's download cache where it was."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}
    ours = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != ours)
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    env["XDG_CACHE_HOME"] = str(cache)
    return env


def run_line(line: str, clone: Path, env: dict[str, str], log: Path) -> tuple[float, int, str]:
    """``line`` in bash in ``clone``: wall seconds, exit code and its last line of output."""
    start = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run(["bash", "-c", line], cwd=clone, env=env, stdout=out,
                              stderr=subprocess.STDOUT, check=False)
    seconds = time.perf_counter() - start
    last = [text for text in log.read_text().splitlines() if text.strip()][-1:] or [""]
    return seconds, done.returncode, last[0]


def newcomer(folder: Path) -> tuple[Path, dict[str, str], list[str], float]:
    """A clone in ``folder``/newcomer (a folder holding nothing else) with an empty per-user
    cache, and the README's line 1 run there (its time printed): the clone, the environment,
    the README's two lines, when line 1 ended (``time.time()``)."""
    clone = folder / "newcomer" / "attack"
    subprocess.run(["git", "clone", "--quiet", str(CHECKOUT), str(clone)], check=True)
    env = newcomer_env(folder / "cache")
    lines = subprocess.run([sys.executable, str(clone / "tools" / "quick_start.py")], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    seconds, code, _ = run_line(lines[0], clone, env, folder / "line1.log")
    print(f"line 1: {seconds:.1f} s (budget {LINE_BUDGETS[0]:.0f} s: "
          f"{'met' if seconds <= LINE_BUDGETS[0] else 'OVER'}), exit {code}: {lines[0]}",
          flush=True)
    if code:
        raise SystemExit((folder / "line1.log").read_text()[-3000:])
    return clone, env, lines, time.time()


def command(case: str, venv: Path, clone: Path, folder: Path) -> list[str]:
    """The command of ``case`` in ``venv``; its input files are written to ``folder``."""
    if case == "demo":
        return [str(venv / "bin" / "attack"), "demo", "--out", str(folder / "demo")]
    if case == "mdav-100k":
        return [str(venv / "bin" / "python"), str(clone / "benchmarks" / "bench_protect.py"),
                "--child", case]
    from bench_link import prepare

    ext, rel, _ = prepare(100_000, folder)
    return [str(venv / "bin" / "attack"), "link", "--external", str(ext), "--release", str(rel),
            "--external-id", "unit_id", "--release-id", "unit_id",
            "--key", "turnover:metric", "--key", "employees:metric",
            "--block", "nace:prefix=2", "--block", "bbr9", "--method", "greedy",
            "--json", str(folder / "link.json"), "--jobs", "1"]


def timed(cmd: list[str], folder: Path, env: dict[str, str]) -> Measured:
    """``cmd`` run in ``folder`` with ``env``."""
    here, saved = Path.cwd(), dict(os.environ)
    os.chdir(folder)
    os.environ.clear()
    os.environ.update(env)
    try:
        run = run_child(cmd)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        os.chdir(here)
    if run.failed:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return run


def compiled(cache: Path) -> bool:
    """Whether a background compile into ``cache`` has finished."""
    return any((cache / "attack" / "numba").glob("compiled-*"))


def background_seconds(cache: Path, since: float, timeout: float = 900.0) -> float | None:
    """Seconds from ``since`` (a ``time.time()``) until the background compile into ``cache``
    finished (waited for up to ``timeout`` s: its folder is removed afterwards)."""
    deadline = time.monotonic() + timeout
    while not compiled(cache) and time.monotonic() < deadline:
        time.sleep(1)
    markers = list((cache / "attack" / "numba").glob("compiled-*"))
    return markers[0].stat().st_mtime - since if markers else None


def row(case: str, kind: str, first: Measured, later: Measured, note: str) -> str:
    diff, diff_cpu = first.seconds - later.seconds, first.cpu_seconds - later.cpu_seconds
    return (f"{case:>10} {kind:>9} {first.seconds:>7.1f} {later.seconds:>7.1f} {diff:>6.1f} "
            f"{first.cpu_seconds:>9.1f} {later.cpu_seconds:>9.1f} {diff_cpu:>8.1f} "
            f"{max(first.peak_gib, later.peak_gib):>6.2f}  {note}")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--skip-test-line", action="store_true",
                        help="do not run the README's line 2 (the test suite)")
    args = parser.parse_args()
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"{os.cpu_count()} cores; uptime: {uptime()}", flush=True)
    print("the cores are shared: every time is an upper bound for a quiet machine", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_test_line:     # the README's order: line 2 right after line 1
            clone, env, lines, _ = newcomer(Path(tmp) / "first")
            seconds, code, last = run_line(f". .venv/bin/activate && {lines[1]}", clone, env,
                                           Path(tmp) / "first" / "line2.log")
            print(f"line 2: {seconds:.1f} s (budget {LINE_BUDGETS[1]:.0f} s: "
                  f"{'met' if seconds <= LINE_BUDGETS[1] else 'OVER'}), exit {code}: {lines[1]}\n"
                  f"        {last}", flush=True)
        clone, env, _, ended = newcomer(Path(tmp) / "second")  # line 1 again, then the first uses
        cache, venv = Path(env["XDG_CACHE_HOME"]), clone / ".venv"
        print(f"{'case':>10} {'cache':>9} {'first s':>7} {'later s':>7} {'diff':>6} "
              f"{'first cpu':>9} {'later cpu':>9} {'diff cpu':>8} {'GiB':>6}  budget "
              f"{BUDGET:.0f} s (wall, cpu)", flush=True)
        for case in args.cases or CASES:
            folder = Path(tmp) / case
            folder.mkdir()
            cmd = command(case, venv, clone, folder)
            ready = compiled(cache)
            first, later = timed(cmd, folder, env), timed(cmd, folder, env)
            verdict = ", ".join("met" if value <= BUDGET else "OVER" for value in
                                (first.seconds - later.seconds, first.cpu_seconds - later.cpu_seconds))
            print(row(case, "installed", first, later,
                      f"{verdict} (background compile {'finished' if ready else 'still running'}"
                      " at the first run)"), flush=True)
            empty = {**env, "XDG_CACHE_HOME": str(folder / "empty-cache"),
                     "ATTACK_BACKGROUND_COMPILE": "0"}
            print(row(case, "no cache", timed(cmd, folder, empty), timed(cmd, folder, empty),
                      "(information: compiled on first use)"), flush=True)
        after = background_seconds(cache, ended)
        print("background compile started by line 1: "
              + (f"finished {after:.0f} s after line 1 ended" if after is not None
                 else "not finished within 15 min"), flush=True)
        background_seconds(Path(tmp) / "first" / "cache", ended)   # before its folder goes
    print(f"uptime: {uptime()}")


if __name__ == "__main__":
    main()
