"""Machine-learning utility at 100,000 rows: time and peak memory (docs/method/ml-utility.md).

Usage: ``python benchmarks/bench_ml_utility.py``. The case runs in its own process (peak
resident memory from ``wait4`` is that process's alone): an original of 100,000 rows with 10
features (8 metric, 2 categorical) and a metric target, and a release made from it by
additive noise on two features; all four models (linear, random forest, histogram gradient
boosting, MLP), 5 repetitions with 25 % of the original held out. The models train on the
full training parts (75,000 rows; the forest draws a bootstrap sample of at most 10,000 rows
per tree, its fixed hyper-parameter); permutation importance is measured on a fixed random
sample of 1,000 rows of each test part, 3 permutations per feature (the defaults). Budget: 60 s.
Every fit runs single-threaded (``attack.utility.ml.THREADS``), so the CPU time printed is the
time on an idle core. Measured 2026-11-26 on 2 cores shared with four other jobs: 54.6 s wall
(48.3 s CPU, 0.31 GiB, met) and 76.5 s wall (49.0 s CPU, OVER) at load 6-8; 390 s wall (58.4 s
CPU) at load 9.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
from measure import run_child

ROWS, BUDGET = 100_000, 60.0


def synthetic(n: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An original with a nonlinear metric target and a release with noise on x0 and x1."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(8)})
    frame["region"] = rng.choice(list("ABCDE"), n)
    frame["sector"] = rng.choice([f"s{k}" for k in range(12)], n)
    frame["y"] = (2 * frame.x0 + frame.x1 ** 2 + np.sin(3 * frame.x2) + (frame.region == "A")
                  + rng.normal(scale=0.5, size=n))
    release = frame.copy()
    for column in ("x0", "x1"):
        release[column] += rng.normal(scale=0.5, size=n)
    return frame, release


def run_case() -> None:
    from attack.utility.ml import ml_utility

    original, release = synthetic(ROWS)
    start, cpu = time.perf_counter(), time.process_time()
    result = ml_utility(original, release, "y", repetitions=5, seed=0)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    ratios = ", ".join(f"{m.model} {m.ratio.mean:.3f}" for m in result.models)
    print(f"{seconds:.1f} s, CPU {cpu:.1f} s (RMSE ratios {ratios})")


def main() -> None:
    if sys.argv[1:] == ["--child"]:
        run_case()
        return
    measured = run_child([sys.executable, __file__, "--child"])
    if measured.failed:
        print("ml-utility-100k: FAILED")
        return
    print(f"ml-utility-100k: {measured.output}; wall {measured.seconds:.1f} s, "
          f"peak {measured.peak_gib:.2f} GiB")
    print(f"budget {BUDGET:.0f} s: {'met' if measured.seconds <= BUDGET else 'OVER'}")


if __name__ == "__main__":
    main()
