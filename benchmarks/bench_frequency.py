"""Frequency risk and SUDA at register scale: time and peak memory (docs/method/frequency-risk.md).

Usage: ``python benchmarks/bench_frequency.py [CASE ...]`` (default: every case).

Each case runs in its own process on a synthetic survey file of 1,000,000 records with 6
categorical keys of 2, 5, 10, 16, 20 and 50 categories drawn with unequal (Dirichlet)
probabilities, a sampling weight and households of 1-6 members. ``frequency-1M`` is
``frequency_risk`` with weights and households (f_k, F_k, individual, household and global risk,
k-anonymity; no SUDA), ``suda-1M`` the SUDA and DIS-SUDA scores of the same keys. The budget
(10 s each) is compared with the time of the library call the child prints; the wall time
includes making the data.
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
    # name: (rows, what, budget in seconds)
    "frequency-1M": (1_000_000, "frequency", 10.0),
    "suda-1M": (1_000_000, "suda", 10.0),
}
CATEGORIES = (2, 5, 10, 16, 20, 50)
KEYS = [f"key{j}" for j in range(len(CATEGORIES))]


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` survey records: 6 keys with unequal category shares, weight, household id."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({key: rng.choice(c, size=n, p=rng.dirichlet(np.ones(c)))
                          for key, c in zip(KEYS, CATEGORIES, strict=True)})
    frame["weight"] = rng.uniform(50, 150, n)
    frame["household"] = np.repeat(np.arange(n), rng.integers(1, 7, n))[:n]
    return frame


def run_case(name: str) -> None:
    from attack.risk.frequencies import key_codes
    from attack.risk.frequency import frequency_risk
    from attack.risk.suda import suda_scores

    n, what, _ = CASES[name]
    data = synthetic(n)
    start = time.perf_counter()
    if what == "frequency":
        result = frequency_risk(data, KEYS, weight="weight", household="household", suda=False)
        detail = (f"{int((result.fk == 1).sum())} sample uniques, expected re-identifications "
                  f"{result.expected_reidentifications:.1f}")
    else:
        suda = suda_scores(key_codes(data, KEYS), tuple(KEYS))
        detail = f"{int((suda.score > 0).sum())} records with an MSU"
    print(f"{time.perf_counter() - start:.2f} s; {detail}", flush=True)


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
    for name in args.cases or list(CASES):
        n, _, limit = CASES[name]
        run = run_child([sys.executable, __file__, "--child", name])
        seconds = float(run.output.split(" s;")[0]) if not run.failed else float("inf")
        verdict = "OVER" if seconds > limit else "met"
        ok = " FAILED" if run.failed else ""
        print(f"{name}: {n:,} x {len(KEYS)} keys, {run.seconds:.1f} s wall incl. data generation, "
              f"peak {run.peak_gib:.2f} GiB ; {run.output} [budget {limit:g} s: {verdict}]{ok}", flush=True)


if __name__ == "__main__":
    main()
