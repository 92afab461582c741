"""Mass linkage at register scale: time and peak memory against the issue's budgets.

Usage: ``python benchmarks/bench_scale.py [CASE ...] [--jobs N]`` (default: every case).

Each case runs in its own process (peak resident memory from ``wait4`` is that process's
alone) and links a synthetic intruder file to a synthetic release with the library
(``attack.risk.mass.run_attack``: distance model, blocking, assignment and scoring; no
file reading). Data: firms with log-normal turnover and correlated employees, NACE-like blocks
of the sizes each case names; the intruder's file is a random subset whose turnover and
employees carry a multiplicative error (log-normal, σ = 0.05), so links are realistic but not
trivial. Keys: log turnover and log employees, squared, max–min standardised. The time budget
is checked against the linkage and scoring (without data generation), the memory budget against
the whole process.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd
from measure import run_child

CASES = {
    # name: (external, release, blocks, method, budget in seconds, budget in GiB)
    "greedy-120k-150k-4-blocks": (120_000, 150_000, 4, "greedy", 15, 3),
    "greedy-12.5k-300k-7-blocks": (12_500, 300_000, 7, "greedy", 20, None),
    "greedy-1M-1M-100-blocks": (1_000_000, 1_000_000, 100, "greedy", 10, 6),
    "greedy-10M-10M-1000-blocks": (10_000_000, 10_000_000, 1000, "greedy", 120, 8),
    "hungarian-12k-15k-1-block": (12_000, 15_000, 1, "hungarian", 4, 1.5),
    "hungarian-24k-30k-1-block": (24_000, 30_000, 1, "hungarian", 20, 4),
}


def synthetic(n_ext: int, n_rel: int, n_blocks: int, seed: int = 0):
    """Release of ``n_rel`` firms and an intruder file of ``n_ext`` of them, with errors."""
    rng = np.random.default_rng(seed)
    employees = np.maximum(1, np.round(rng.lognormal(3.5, 1.2, n_rel)))
    turnover = employees * rng.lognormal(5.0, 0.6, n_rel)
    weights = rng.dirichlet(np.full(n_blocks, 5.0))
    block = rng.choice(n_blocks, size=n_rel, p=weights).astype(str)
    ids = np.char.add("U", np.arange(n_rel).astype(str))
    release = pd.DataFrame({"unit_id": ids, "nace": block, "turnover": turnover, "employees": employees})
    pick = rng.choice(n_rel, size=n_ext, replace=False)
    error = rng.lognormal(0.0, 0.05, size=(n_ext, 2))
    external = pd.DataFrame(
        {
            "unit_id": ids[pick],
            "nace": block[pick],
            "turnover": turnover[pick] * error[:, 0],
            "employees": np.round(employees[pick] * error[:, 1]),
        }
    )
    return external, release


def run_case(name: str, jobs: int | None) -> None:
    from attack.linkage.blocking import Block
    from attack.linkage.keys import Metric
    from attack.linkage.settings import Linkage
    from attack.risk.mass import AttackInput, run_attack
    from attack.risk.settings import Evaluation

    n_ext, n_rel, n_blocks, method, _, _ = CASES[name]
    external, release = synthetic(n_ext, n_rel, n_blocks)
    spec = Linkage(
        keys=(Metric("turnover", log=True), Metric("employees", log=True)),
        block=(Block("nace"),),
        method=method,
    )
    start = time.perf_counter()
    outcome = run_attack(
        AttackInput(external, "unit_id", release, "unit_id"), spec, Evaluation.of(), engine={'jobs': jobs}
    )
    seconds = time.perf_counter() - start
    linkage = outcome.figures["linkage"]
    extra = ""
    if method == "hungarian":
        extra = f", proven optimal blocks {linkage['optimal_blocks']}/{linkage['n_blocks']}"
    stages = ", ".join(f"{stage} {sec:.1f} s" for stage, sec in outcome.timings.items())
    print(
        f"{seconds:.1f} s linkage+scoring ({stages}), rate {outcome.figures['reidentification_rate']:.4f}, "
        f"solvers {linkage['solvers']}{extra}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument(
        "--jobs", type=int, default=1,
        help="worker processes (default 1: one process, so the peak memory covers the whole run)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_case(args.child, args.jobs)
        return
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for name in args.cases or CASES:
        n_ext, n_rel, n_blocks, method, max_s, max_gib = CASES[name]
        command = [sys.executable, __file__, "--child", name]
        if args.jobs:
            command += ["--jobs", str(args.jobs)]
        run = run_child(command)
        if run.failed:
            print(f"{name}: FAILED after {run.seconds:.1f} s", flush=True)
            continue
        seconds = float(run.output.split()[0])  # linkage and scoring, as the child measured them
        budget = f"time {'met' if seconds <= max_s else 'OVER'} ({max_s} s)"
        if max_gib:
            budget += f", memory {'met' if run.peak_gib <= max_gib else 'OVER'} ({max_gib} GiB)"
        print(f"{name}: {run.seconds:.1f} s wall incl. data generation ({run.cpu_seconds:.1f} s CPU), "
              f"peak {run.peak_gib:.2f} GiB; {run.output}; {budget}", flush=True)


if __name__ == "__main__":
    main()
