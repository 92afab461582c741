"""Population uniqueness and the attacker models at census-sample scale: time and peak memory
(docs/method/population-uniqueness.md).

Usage: ``python benchmarks/bench_population.py [--rows N] [--fraction PI] [--replicates B]``
(default 10,000,000 records, π = 0.01, 1,000 bootstrap replicates).

The child process makes a synthetic sample of N records with 8 categorical keys of 2, 5, 7, 10,
12, 16, 20 and 50 categories drawn with unequal (Dirichlet) probabilities, then times
``attack.population_risk`` with the sampling fraction: the key classes, Pitman's, Zayatz's and
the SNB model with Dankar's choice, Pitman's bootstrap interval, and the prosecutor, journalist
(population model) and marketer risks. The budget (30 s, 8 GiB) is compared with the time of
the library call the child prints and with the child's peak resident memory (``wait4``), which
includes the data. The load average is printed with the figures: the cores are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import pandas as pd
from measure import run_child

CATEGORIES = (2, 5, 7, 10, 12, 16, 20, 50)
KEYS = [f"key{j}" for j in range(len(CATEGORIES))]
BUDGET_SECONDS = 30.0
BUDGET_GIB = 8.0


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` records: 8 keys with unequal category shares (small integer codes)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({key: rng.choice(c, size=n, p=rng.dirichlet(np.ones(c))).astype(np.int8)
                         for key, c in zip(KEYS, CATEGORIES, strict=True)})


def child(rows: int, fraction: float, replicates: int) -> None:
    import attack

    frame = synthetic(rows)
    start, cpu = time.perf_counter(), time.process_time()
    result = attack.population_risk(frame, KEYS, sampling_fraction=fraction, replicates=replicates, seed=0)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    u = result.uniqueness
    assert u is not None
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "records": u.records, "classes": u.classes,
                      "sample_uniques": u.sample_uniques, "population": u.population, "chosen": u.chosen,
                      "uniques": u.uniques, "statuses": {e.model: e.status for e in u.estimates},
                      "interval": None if u.interval is None else [u.interval.lower, u.interval.upper],
                      "prosecutor_highest": result.prosecutor.highest,
                      "journalist_average": result.journalist.average,
                      "marketer": result.marketer.average}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.rows, args.fraction, args.replicates)
        return 0
    load = os.getloadavg()
    measured = run_child([sys.executable, __file__, "--child", "--rows", str(args.rows),
                          "--fraction", str(args.fraction), "--replicates", str(args.replicates)])
    if measured.failed:
        print("the child failed", file=sys.stderr)
        return 1
    figures = json.loads(measured.output.splitlines()[-1])
    ok = figures["seconds"] <= BUDGET_SECONDS and measured.peak_gib <= BUDGET_GIB
    print(json.dumps(figures, indent=1))
    print(f"{args.rows:,} records x {len(KEYS)} keys, pi = {args.fraction:g}: library call {figures['seconds']:.1f} s "
          f"({figures['cpu_seconds']:.1f} s processor time; child wall {measured.seconds:.1f} s with the data), peak {measured.peak_gib:.2f} GiB; "
          f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; budget {BUDGET_SECONDS:g} s, {BUDGET_GIB:g} GiB: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
