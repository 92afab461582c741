"""``--jobs 2`` against ``--jobs 1``: the local engine must never be slower in parallel.

Usage: ``python benchmarks/bench_jobs.py`` (issue 17: at most 5 % slower at any size). Each case
links a synthetic intruder file to a release (``bench_scale.synthetic``: log turnover and log
employees, NACE-like blocks) with Procedure II, once with one job and once with two, each in its
own process; printed: both times and their ratio. The engine fans out only when its estimate
of the serial work exceeds ``attack.linkage.engines.PARALLEL_MIN_SECONDS``; the constants of that
estimate were measured with these cases.
"""

from __future__ import annotations

import sys
import time

from measure import run_child

CASES = [(50_000, 90_000, 200), (50_000, 90_000, 20), (200_000, 400_000, 50), (600_000, 700_000, 60)]


def run_case(n_ext: int, n_rel: int, blocks: int, jobs: int) -> None:
    from bench_scale import synthetic

    from attack.linkage.blocking import Block
    from attack.linkage.keys import Metric
    from attack.linkage.settings import Linkage
    from attack.risk.mass import AttackInput, run_attack
    from attack.risk.settings import Evaluation

    external, release = synthetic(n_ext, n_rel, blocks)
    spec = Linkage(keys=(Metric("turnover", log=True), Metric("employees", log=True)),
                       block=(Block("nace"),), method="greedy")
    start = time.perf_counter()
    run_attack(AttackInput(external, "unit_id", release, "unit_id"), spec, Evaluation.of(), engine={"jobs": jobs})
    print(f"{time.perf_counter() - start:.2f}")


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        run_case(*map(int, sys.argv[2:]))
        return
    for n_ext, n_rel, blocks in CASES:
        seconds = []
        for jobs in (1, 2):
            measured = run_child([sys.executable, __file__, "--child", str(n_ext), str(n_rel), str(blocks), str(jobs)])
            seconds.append(float(measured.output))
        print(f"{n_ext:,} x {n_rel:,} in {blocks} blocks: jobs 1 {seconds[0]:.2f} s, jobs 2 {seconds[1]:.2f} s, "
              f"ratio {seconds[1] / seconds[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
