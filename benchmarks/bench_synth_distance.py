"""Distance attacks on synthetic data at scale: time and peak memory against the issue's budget.

Usage: ``python benchmarks/bench_synth_distance.py [CASE ...]`` (default: every case).

Each case runs in its own process (peak resident memory from ``wait4`` is that process's alone)
and calls :func:`attack.synth_space.prepare` and :func:`attack.synth_distance.distance_attack`
(DCR in both directions, NNDR, the own-nearest-neighbour comparison, exact and near copies,
the random baseline and, with a control set, the overfitting check; no file reading). Data:
training, synthetic and control files drawn independently from one population of mixed records —
six numeric columns with realistic skew (log-normal income, gamma hours, rounded ages, counts
with many zeros, …) and three categorical columns with 5, 12 and 30 levels of unequal frequency;
2 % of the synthetic rows are exact copies of training rows so that copies are found.
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
    # name: (training, synthetic, control, metric, scaling, coding, budget in s, budget in GiB)
    "gower-100k-100k": (100_000, 100_000, 0, "gower_mean", "minmax_range", "mismatch", 30, 3),
    "gower-100k-100k-control": (
        100_000, 100_000, 100_000, "gower_mean", "minmax_range", "mismatch", 30, 3
    ),
    "euclidean-dummy-20k-20k": (20_000, 20_000, 0, "euclidean", "zscore", "dummy", None, None),
    "euclidean-dummy-100k-100k": (
        100_000, 100_000, 0, "euclidean", "zscore", "dummy", None, None
    ),
}


def population(n: int, seed: int) -> pd.DataFrame:
    """``n`` mixed records; the seed picks the sample, the level frequencies are fixed."""
    rng = np.random.default_rng(seed)
    age = np.clip(np.round(rng.normal(42, 14, n)), 16, 95)
    income = np.round(rng.lognormal(10 + 0.01 * age, 0.8), -1)
    data = {
        "age": age,
        "income": income,
        "hours": np.round(rng.gamma(6, 6.5, n)),
        "children": rng.poisson(0.8, n).astype(float),
        "savings": np.where(rng.random(n) < 0.4, 0.0, np.round(rng.lognormal(8, 1.5, n))),
        "commute": np.round(rng.weibull(1.3, n) * 25, 1),
    }
    for name, levels in (("sex_status", 5), ("sector", 12), ("region", 30)):
        weights = np.random.default_rng(levels).dirichlet(np.full(levels, 0.8))
        labels = np.array([f"{name[:3]}{i:02d}" for i in range(levels)], dtype=object)
        data[name] = labels[rng.choice(levels, size=n, p=weights)]
    return pd.DataFrame(data)


def run_case(name: str) -> None:
    from attack.synthetic_attacks.distance import distance_attack
    from attack.synthetic_attacks.space import prepare

    n_train, n_syn, n_ctrl, metric, scaling, coding, _, _ = CASES[name]
    training = population(n_train, 1)
    synthetic = population(n_syn, 2)
    copies = np.random.default_rng(3).choice(n_train, n_syn // 50, replace=False)
    synthetic.iloc[: copies.size] = training.iloc[copies].to_numpy()
    control = population(n_ctrl, 4) if n_ctrl else None
    start = time.perf_counter()
    prep = prepare(training, metric=metric, scaling=scaling, categorical_mode=coding)
    result = distance_attack(training, synthetic, prep, control=control, t_dcr=0.01)
    seconds = time.perf_counter() - start
    dcr = result.dcr["synthetic→original"]
    extra = ""
    if result.overfitting_protection:
        extra = f", overfitting p {result.overfitting_protection['p']:.4f}"
    print(
        f"{seconds:.1f} s prepare+attack; DCR s→o median {dcr.median:.4g}, share 0 "
        f"{dcr.share_zero:.4f}; NNDR mean {result.nndr_training.mean:.4f}; near copies "
        f"{result.copies_training.near_copy_share:.4f}{extra}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_case(args.child)
        return
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for name in args.cases or CASES:
        *_, max_s, max_gib = CASES[name]
        run = run_child([sys.executable, __file__, "--child", name])
        budget = f" [budget {max_s} s, {max_gib} GiB]" if max_s else ""
        failed = " FAILED" if run.failed else ""
        print(f"{name}: {run.seconds:.1f} s wall incl. data generation, peak {run.peak_gib:.2f} GiB; "
              f"{run.output}{budget}{failed}", flush=True)


if __name__ == "__main__":
    main()
