"""Sequential CART synthesis at scale: time and peak memory (docs/method/synthesis.md).

Usage: ``python benchmarks/bench_synthesize.py [ROWS ...]`` (default 100000). A generated file
of firms: three categorical variables (region, 8 categories; legal form, 4; NACE division, 89)
and seven correlated, heavy-tailed metric variables, one with 5 % missing values and one with
3 % special code −8; synthesised with the defaults (first variable sampled, the rest CART,
minbucket 5, cp 1e-4). Target of issue 17/16: 100,000 rows × 10 columns in ≤ 30 s.

Each size runs in its own process (peak resident memory from ``wait4`` is that process's alone,
Python start-up and imports included).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd
from measure import run_child


def firms(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.lognormal(3, 1.2, n)
    frame = pd.DataFrame({
        "region": rng.choice(list("ABCDEFGH"), n),
        "legal_form": rng.choice(["GmbH", "KG", "AG", "eK"], n, p=[0.6, 0.2, 0.1, 0.1]),
        "nace": rng.choice([f"{i:02d}" for i in range(10, 99)], n),
    })
    for j in range(7):
        frame[f"v{j}"] = np.round(size * rng.lognormal(0, 0.4, n), 1)
    frame.loc[rng.random(n) < 0.05, "v3"] = np.nan
    frame.loc[rng.random(n) < 0.03, "v4"] = -8
    return frame


def run_case(n: int) -> None:
    from attack.generation.sequential import synthesize

    data = firms(n)
    start = time.perf_counter()
    result = synthesize(data, special_codes=[-8], seed=1)
    seconds = time.perf_counter() - start
    print(f"{n:,} rows x {data.shape[1]} columns: synthesis {seconds:.1f} s "
          f"({', '.join(sorted(set(result.methods.values())))})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_case(args.child)
        return
    for n in args.sizes:
        measured = run_child([sys.executable, __file__, "--child", str(n)])
        print(measured.output)
        print(f"  child process {measured.seconds:.1f} s, peak {measured.peak_mib:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
