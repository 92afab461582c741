"""Frequency risk and SUDA at register scale: time and peak memory (docs/method/frequency-risk.md).

Usage: ``python benchmarks/bench_frequency.py [CASE ...]`` (default: every case).

Each case runs in its own process on a synthetic survey file of 1,000,000 records with 6
categorical keys of 2, 5, 10, 16, 20 and 50 categories drawn with unequal (Dirichlet)
probabilities, a sampling weight and households of 1-6 members. ``frequency-1M`` is
``frequency_risk`` with weights and households (f_k, F_k, individual, household and global risk,
k-anonymity; no SUDA), ``suda-1M`` the SUDA and DIS-SUDA scores of the same keys. The budget
(10 s each) is compared with the time of the library call the child prints; the wall time
includes making the data. Measured 2026-11-26 on 2 cores shared with other jobs (two runs):
frequency risk 1.6-1.9 s at 0.32 GiB, SUDA 3.1-3.4 s at 0.42 GiB.
"""

from __future__ import annotations

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


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        run_case(argv[1])
        return
    wrong = [name for name in argv if name not in CASES]
    if wrong:
        raise SystemExit(f"unknown case {wrong[0]!r}; cases: {', '.join(CASES)}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for name in argv or list(CASES):
        n, _, limit = CASES[name]
        run = run_child([sys.executable, __file__, "--child", name])
        seconds = float(run.output.split(" s;")[0]) if not run.failed else float("inf")
        print(f"{name}: {n:,} x {len(KEYS)} keys, {run.seconds:.1f} s wall incl. data generation, "
              f"peak {run.peak_gib:.2f} GiB ; {run.output} [budget {limit:g} s: "
              f"{'OVER' if seconds > limit else 'met'}]{' FAILED' if run.failed else ''}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
