"""attack side by side with the Python Record Linkage Toolkit (``recordlinkage``).

Usage: ``python benchmarks/bench_recordlinkage.py [--sizes 10000 50000]``

recordlinkage is a benchmark-only dependency, never a project one: ``pip install -e ".[bench]"``.

Data: ``bench_scale.synthetic(n, n, 20)`` for every size n (both files n firms, 20 blocks on
``nace``; the intruder's turnover and employees carry a log-normal error, σ = 0.05); the shared
``unit_id`` is the ground truth and is hidden from both matchers. Each tool runs in its own
process: time of the linkage inside the process (from the two frames in memory to the one-to-one
links, and for attack the scoring too), wall time of the process and its peak resident memory
(``wait4``; attack's worker processes via ``RUSAGE_CHILDREN``). Correct links: linked pairs with
equal ``unit_id``.

- attack: greedy (Procedure II), keys log turnover and log employees (``log(1 + x)``, squared
  differences, max–min standardised), blocking on ``nace``; ``jobs=1`` (one core, the fair
  comparison) and ``jobs=None`` (all cores).
- recordlinkage: ``Index().block("nace")`` for the candidate pairs; ``Compare().numeric`` with
  ``method="squared"`` on ``log1p(turnover)`` and ``log1p(employees)``, ``scale`` = the pooled
  range of that column (so no clipping: similarity ``1 - d² / (2 range²)``); the score is the
  sum of the two similarities, which ranks pairs as attack's squared max–min distance does (up
  to attack taking the max over A × B rather than the pooled range). One-to-one step:
  ``OneToOneLinking(method="greedy")`` (its only method; it keeps pairs in the order given, so
  the pairs are first sorted by descending score), i.e. the same greedy rule as attack's.

A recordlinkage run is stopped after ``--timeout`` seconds (default 300) and its address space
is capped at ``--rl-memory-gib`` (default 16) so that a blow-up is recorded, not suffered.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_scale import synthetic  # noqa: E402

BLOCKS = 20


def run_attack(n: int, jobs: int | None) -> dict:
    from attack.linkage.blocking import Block
    from attack.linkage.keys import Metric
    from attack.linkage.settings import Linkage
    from attack.risk.mass import AttackInput, run_attack
    from attack.risk.settings import Evaluation

    external, release = synthetic(n, n, BLOCKS)
    spec = Linkage(
        keys=(Metric("turnover", log=True), Metric("employees", log=True)),
        block=(Block("nace"),),
        method="greedy",
    )
    start = time.perf_counter()
    out = run_attack(
        AttackInput(external, "unit_id", release, "unit_id"), spec, Evaluation.of(), engine={'jobs': jobs}
    )
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "links": len(out.links), "correct": int(out.links["correct"].sum())}


def run_recordlinkage(n: int) -> dict:
    import numpy as np
    import recordlinkage

    external, release = synthetic(n, n, BLOCKS)
    start = time.perf_counter()
    ext = external[["nace"]].assign(lt=np.log1p(external.turnover), le=np.log1p(external.employees))
    rel = release[["nace"]].assign(lt=np.log1p(release.turnover), le=np.log1p(release.employees))
    pairs = recordlinkage.Index().block("nace").index(ext, rel)
    compare = recordlinkage.Compare()
    for column in ("lt", "le"):
        pooled = np.concatenate([ext[column], rel[column]])
        scale = float(pooled.max() - pooled.min())
        compare.numeric(column, column, method="squared", scale=scale, label=column)
    with np.errstate(divide="ignore"):  # its "squared" takes log(0) at d = 0 (harmless: 1)
        score = compare.compute(pairs, ext, rel).sum(axis=1)
    ranked = score.sort_values(ascending=False, kind="stable").index
    links = recordlinkage.OneToOneLinking(method="greedy").compute(ranked)
    seconds = time.perf_counter() - start
    a = links.get_level_values(0).to_numpy()
    b = links.get_level_values(1).to_numpy()
    correct = int((external.unit_id.to_numpy()[a] == release.unit_id.to_numpy()[b]).sum())
    return {"seconds": seconds, "links": len(links), "correct": correct, "pairs": len(pairs)}


def child(tool: str, n: int, jobs: int | None) -> None:
    result = run_attack(n, jobs) if tool == "attack" else run_recordlinkage(n)
    try:  # attack's workers are children of the forkserver: reap it so RUSAGE_CHILDREN sees them
        from multiprocessing import forkserver

        forkserver._forkserver._stop()
    except Exception:
        pass
    result["workers_gib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024**2
    print(json.dumps(result), flush=True)


def measure(command: list[str], timeout: float, memory_gib: float | None) -> dict:
    """Run one child; its JSON result plus wall seconds, peak GiB and a failure note."""
    def cap() -> None:
        if memory_gib:
            limit = int(memory_gib * 1024**3)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=cap)
    failure = ""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > timeout:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            failure = f"stopped after {timeout:.0f} s timeout"
            break
        time.sleep(0.05)
    wall = time.perf_counter() - start
    out, err = proc.stdout.read(), proc.stderr.read()
    if not failure and os.waitstatus_to_exitcode(status):
        last = (err.strip().splitlines() or ["?"])[-1]
        failure = "out of memory (MemoryError)" if "MemoryError" in err else f"failed: {last}"
    result = {} if failure else json.loads(out.strip().splitlines()[-1])
    return {**result, "wall": wall, "peak_gib": usage.ru_maxrss / 1024**2, "failure": failure}


def describe(name: str, r: dict, n: int) -> str:
    head = f"  {name:<22} {r['wall']:7.1f} s wall, peak {r['peak_gib']:.2f} GiB"
    if r["failure"]:
        return f"{head}: {r['failure']}"
    extra = f", {r['pairs']:,} candidate pairs" if "pairs" in r else ""
    workers = f", workers {r['workers_gib']:.2f} GiB" if r.get("workers_gib") else ""
    return (f"{head}{workers}; linkage {r['seconds']:.2f} s; {r['links']:,} links, "
            f"{r['correct']:,} correct ({r['correct'] / n:.1%}){extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per recordlinkage run")
    parser.add_argument("--rl-memory-gib", type=float, default=16.0,
                        help="address-space cap of a recordlinkage run (0: none)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tool, n, jobs = args.child
        child(tool, int(n), None if jobs == "all" else int(jobs))
        return
    import recordlinkage

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"recordlinkage {recordlinkage.__version__}, {BLOCKS} blocks on nace")
    for n in args.sizes:
        print(f"{n:,} x {n:,} records:", flush=True)
        runs = {}
        for name, tool, jobs, limit, cap in (
            ("attack jobs=1", "attack", "1", 3600, None),
            ("attack jobs=None", "attack", "all", 3600, None),
            ("recordlinkage", "recordlinkage", "1", args.timeout, args.rl_memory_gib),
        ):
            command = [sys.executable, __file__, "--child", tool, str(n), jobs]
            runs[name] = measure(command, limit, cap)
            print(describe(name, runs[name], n), flush=True)
        a, r = runs["attack jobs=1"], runs["recordlinkage"]
        if not a["failure"] and not r["failure"]:
            print(f"  recordlinkage / attack jobs=1: linkage time x{r['seconds'] / a['seconds']:.1f}, "
                  f"wall x{r['wall'] / a['wall']:.1f}, peak memory x{r['peak_gib'] / a['peak_gib']:.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
