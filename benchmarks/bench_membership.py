"""Shadow-model membership inference: time and peak memory (docs/method/synthetic-attacks.md).

Usage: ``python benchmarks/bench_membership.py [--targets N] [--shadow-sets S] [--shadow-size R]
[--jobs J]`` (default 20 targets — 10 isolated, 10 random —, 100 training and 100 test games per
target on 2,000 rows, 2 processes; the target of issue 16 is 3 minutes for 100 shadow sets). The original is the generated firm file of ``bench_synthesize.py``
(10,000 rows, 10 columns); the synthesiser is the default CART synthesis. Runs in its own
process (peak resident memory from ``wait4`` is that process's alone).
"""

from __future__ import annotations

import argparse
import sys
import time

from measure import run_child


def run_case(targets: int, sets: int, size: int, jobs: int) -> None:
    from bench_synthesize import firms

    from attack.synthetic_attacks.membership import membership_inference

    data = firms(10_000)
    start = time.perf_counter()
    result = membership_inference(data, synthesis={"special_codes": [-8]}, n_isolated=targets // 2, jobs=jobs,
                                  n_random=targets - targets // 2, shadow_sets=sets, test_sets=sets,
                                  shadow_size=size, seed=1)
    seconds = time.perf_counter() - start
    table = result.table
    print(f"{targets} targets x ({sets} training + {sets} test games) on {size:,} rows, {jobs} jobs: {seconds:.1f} s; "
          f"mean accuracy isolated {table[table.kind == 'isolated'].accuracy.mean():.3f}, "
          f"random {table[table.kind == 'random'].accuracy.mean():.3f}; "
          f"share exceeding tau=0.1 {result.share_exceeding:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=20)
    parser.add_argument("--shadow-sets", type=int, default=100)
    parser.add_argument("--shadow-size", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_case(args.targets, args.shadow_sets, args.shadow_size, args.jobs)
        return
    measured = run_child([sys.executable, __file__, "--child", "--targets", str(args.targets),
                          "--shadow-sets", str(args.shadow_sets), "--shadow-size", str(args.shadow_size),
                          "--jobs", str(args.jobs)])
    print(measured.output)
    print(f"  child process {measured.seconds:.1f} s, peak {measured.peak_mib:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
