"""Time and peak memory of ``attack link`` for every method at 10k and 100k records.

Usage: ``python benchmarks/bench_link.py [--sizes 10000 100000] [--methods greedy ...]``

For each size N a synthetic population of N firms is generated (``attack.demo_data``); the
intruder's file is a MARKUS-like database drawn from it (about 0.55 N records, realistic
incompatibilities) and the release is the FORMAL file of all N firms. Blocking on NACE division
× BBR9, distance on turnover and employees. Each run is a separate ``attack link --jobs 1``
process (one process, so that its peak resident memory from ``wait4`` is the whole run's); its
wall time, start-up and file reading included, and peak memory are printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from measure import run_child

from attack.datasets.population import make_external, make_population
from attack.protect.formal import formal_release

METHODS = ("greedy", "hungarian", "sequential", "nearest")


def prepare(n_units: int, directory: Path) -> tuple[Path, Path, int]:
    population = make_population(n_units=n_units, seed=11)
    external = make_external(population, profile="markus", seed=12)
    release = formal_release(population, seed=13)
    ext_path, rel_path = directory / "external.parquet", directory / "release.parquet"
    external.to_parquet(ext_path, index=False)
    release.to_parquet(rel_path, index=False)
    return ext_path, rel_path, len(external)


def run(ext: Path, rel: Path, method: str, out: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS in MiB of one ``attack link`` process."""
    command = [
        sys.executable, "-m", "attack", "link",
        "--external", str(ext), "--release", str(rel),
        "--external-id", "unit_id", "--release-id", "unit_id",
        "--key", "turnover:metric", "--key", "employees:metric",
        "--block", "nace:prefix=2", "--block", "bbr9",
        "--method", method, "--cell", "employees:bins=20,50,100,250,500,1000",
        "--json", str(out), "--jobs", "1",
    ]
    run = run_child(command, capture=False)
    if run.failed:
        raise SystemExit(f"attack link failed for {method}")
    return run.seconds, run.peak_mib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"{'release N':>10} {'external':>9} {'method':>10} {'seconds':>8} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            ext, rel, n_ext = prepare(n, Path(tmp))
            for method in args.methods:
                seconds, peak = run(ext, rel, method, Path(tmp) / f"{method}.json")
                print(f"{n:>10,} {n_ext:>9,} {method:>10} {seconds:>8.1f} {peak:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
