"""Microaggregation at register scale: time and peak memory (docs/method/protection.md).

Usage: ``python benchmarks/bench_protect.py [CASE ...]`` (default: every case but
``mdav-1M``; name it to run it). Exact MDAV (compiled index, ``attack/protect/mdav_index.py``)
measured 2026-11-25 on 2 cores with the searches shared by two threads: 100k rows 1.9 s,
300k 8.6 s, 1M 43.6-55.5 s (eight runs; 47.0-59.5 s wall with data generation) at 0.89 GiB;
with the searches in one thread 1M took 144.4 s (2026-11-26), so they stay on two threads.
The budget printed for 1M is the 60 s target, compared with the wall time. ``mdav-100k`` also
checks that its groups are those of the index as of 2026-12-04 (``GROUPS_100K``: SHA-256 of each
record's group number, groups numbered in order of their first record), so that a faster index
is only kept if its groups are identical.

Each case runs in its own process (peak resident memory from ``wait4`` is that process's
alone) and microaggregates a synthetic file of firms: a log-normal size factor times a
variable-specific log-normal factor (σ = 0.4) for each of 10 metric variables, so the variables
are correlated and heavy-tailed like business data. ``separate`` is the handbook production
rule (groups of 3, remainder in the last group), ``separate-gap`` the 15% minimum-gap variant,
``mdav`` joint MDAV with k = 3 on z-scores (``attack.microaggregation.mdav``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

import numpy as np
import pandas as pd
from measure import run_child

CASES = {
    # name: (rows, method, budget in seconds and GiB, or None)
    "separate-1M": (1_000_000, "separate", (30, None)),
    "separate-gap-1M": (1_000_000, "separate-gap", (120, None)),
    "mdav-100k": (100_000, "mdav", None),
    "mdav-300k": (300_000, "mdav", None),
    "mdav-1M": (1_000_000, "mdav", (60, 2.0)),
}
DEFAULT = [name for name in CASES if name != "mdav-1M"]
GROUPS_100K = "250b52d8c4f44fe95a47e0124049a364a12ae1c0948570ae7c06719ab52d0f93"
VARIABLES = [f"v{j}" for j in range(10)]


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` firms with 10 correlated, heavy-tailed metric variables and a unit id."""
    rng = np.random.default_rng(seed)
    size = rng.lognormal(3.5, 1.2, n)
    frame = pd.DataFrame({name: size * rng.lognormal(0.0, 0.4, n) for name in VARIABLES})
    frame.insert(0, "unit_id", np.arange(n))
    return frame


def group_digest(labels: np.ndarray) -> str:
    """SHA-256 of each record's group, the groups numbered in the order of their first record."""
    numbered = pd.factorize(np.asarray(labels).ravel())[0].astype(np.int64)
    return hashlib.sha256(numbered.tobytes()).hexdigest()


def run_case(name: str) -> None:
    from attack.protect.microaggregation import (
        mdav,
        separate_group_sizes,
        separate_microaggregation,
    )

    n, method, _ = CASES[name]
    data = synthetic(n)
    start = time.perf_counter()
    if method == "mdav":
        result = mdav(data, VARIABLES, k=3, seed=1)
    else:
        gap = 0.15 if method == "separate-gap" else None
        result = separate_microaggregation(data, VARIABLES, k=3, seed=1, min_gap=gap)
    seconds = time.perf_counter() - start
    if method == "mdav":
        _, labels = np.unique(result[VARIABLES].to_numpy(), axis=0, return_inverse=True)
        sizes = np.bincount(labels.ravel())
        detail = f"{sizes.size} groups of {sizes.min()}-{sizes.max()}"
        if name == "mdav-100k":
            same = "identical" if group_digest(labels) == GROUPS_100K else "DIFFERENT"
            detail += f"; groups {same} to the reference"
    else:
        gap = 0.15 if method == "separate-gap" else None
        counts = separate_group_sizes(data, VARIABLES[:1], k=3, seed=1, min_gap=gap)[0].counts
        detail = f"group sizes of {VARIABLES[0]}: {dict(sorted(counts.items())[:6])}"
    print(f"{seconds:.1f} s microaggregation; {detail}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} "
                        f"(default: {', '.join(DEFAULT)})")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_case(args.child)
        return
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}")
    for name in args.cases or DEFAULT:
        n, method, limits = CASES[name]
        run = run_child([sys.executable, __file__, "--child", name])
        budget = ""
        if limits:
            max_s, max_gib = limits
            over = run.seconds > max_s or (max_gib is not None and run.peak_gib > max_gib)
            memory = f", {max_gib} GiB" if max_gib is not None else ""
            budget = f" [budget {max_s} s{memory}: {'OVER' if over else 'met'}]"
        ok = " FAILED" if run.failed else ""
        print(f"{name}: {n:,} x {len(VARIABLES)}, {run.seconds:.1f} s wall incl. data generation "
              f"({run.cpu_seconds:.1f} s processor), peak {run.peak_gib:.2f} GiB ; "
              f"{run.output}{budget}{ok}", flush=True)


if __name__ == "__main__":
    main()
