"""``attack link`` at national-register scale on data shaped like registers.

Usage: ``python benchmarks/bench_register.py [CASE ...]`` (default: every case but the 3.5M ones).

Each case writes the demo population (the generator of ``attack demo``) at N units, a
MARKUS-like intruder's file drawn from it (about 0.56 N records) and the FORMAL release of all N
units as Parquet, then runs ::

    attack link --key turnover:metric --key employees:metric --block nace:prefix=2 --block bbr9
                --code nace --code bbr9 --method greedy --jobs 1

as a separate process (start-up and reading included; peak resident memory from ``wait4``). The
data are the registers' shape: raw, heavily skewed turnover and employees, max–min
standardisation, integer employees with many ties, about 250 blocks whatever N. Variants:
``ties`` links on employees alone, ``dominant`` puts 60 % of the units in one block (NACE
division 29 × BBR9 type 6), ``raw`` links unstandardised keys (``--standardise none``),
``hungarian`` runs the exact method. ``full`` gives the intruder every unit's original key
values (``worst_case_external``: N × N records) and ``full-fs`` links the same files with the
Fellegi–Sunter intruder (``--intruder fellegi-sunter``), whose time must stay within
``FS_RATIO`` × the distance intruder's (``full``) of the same size; ``fs`` does the same on the
demo shape. ``dask`` runs the blocks on a local Dask cluster of two
single-threaded workers (``--engine dask --jobs 2``) and checks that its record-level links are
identical to those of the single-machine run (the ``demo`` case of the same size, run first when
it is not among the cases): both write ``--matches``, and the SHA-256 digests of the two files
are compared. Every budget of the issue is printed as met or OVER.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from measure import run_child

from attack.datasets.population import make_external, make_population, worst_case_external
from attack.protect.formal import formal_release

SIZES = {"100k": 100_000, "300k": 300_000, "1M": 1_000_000, "3.5M": 3_500_000}
SHAPES = {
    # shape: extra arguments of attack link
    "demo": [],
    "ties": ["--key", "employees:metric"],
    "dominant": [],
    "raw": ["--standardise", "none"],
    "hungarian": ["--method", "hungarian"],
    "fs": ["--intruder", "fellegi-sunter"],
    "full": [],
    "full-fs": ["--intruder", "fellegi-sunter"],
    "dask": ["--engine", "dask"],
}
#: case: (seconds, GiB) budgets of the issue
BUDGETS = {"demo-1M": (30, 3), "demo-3.5M": (120, 8), "hungarian-1M": (300, None)}
#: time(1M) / time(300k) at most this (near-linear growth)
GROWTH = 4.0
#: The Fellegi–Sunter intruder's time at most this many times the distance intruder's, same files.
FS_RATIO = 2.0
#: The distance intruder's shape on the same files as a Fellegi–Sunter shape.
DISTANCE_TWIN = {"fs": "demo", "full-fs": "full"}
DEFAULT = [f"{shape}-{size}" for shape in ("demo", "ties", "dominant", "raw") for size in ("100k", "300k", "1M")]
DEFAULT.append("hungarian-1M")


def prepare(shape: str, n_units: int, directory: Path) -> tuple[Path, Path]:
    """Intruder's file and FORMAL release of the population of ``n_units`` as Parquet."""
    population = make_population(n_units=n_units, seed=11)
    if shape == "dominant":  # 60 % of the units in one block
        moved = np.random.default_rng(14).random(n_units) < 0.6
        population.loc[moved, "nace"] = "2924"
        population.loc[moved, "bbr9"] = "6"
    if shape.startswith("full"):
        external = worst_case_external(population)
    else:
        external = make_external(population, profile="markus", seed=12)
    release = formal_release(population, seed=13)
    ext_path, rel_path = directory / "external.parquet", directory / "release.parquet"
    external.to_parquet(ext_path, index=False)
    release.to_parquet(rel_path, index=False)
    return ext_path, rel_path


def _data_shape(shape: str) -> str:
    """The files a shape links: its own for ``dominant`` and ``full``, else the demo's."""
    return "full" if shape.startswith("full") else ("dominant" if shape == "dominant" else "demo")


def command(ext: Path, rel: Path, shape: str, out: Path, matches: Path) -> list[str]:
    keys = ["--key", "turnover:metric", "--key", "employees:metric"]
    extra = SHAPES[shape]
    if "--key" in extra:
        keys = []
    if "--method" not in extra:
        extra = extra + ["--method", "greedy"]
    jobs = "2" if shape == "dask" else "1"
    return [
        sys.executable, "-m", "attack", "link",
        "--external", str(ext), "--release", str(rel),
        "--external-id", "unit_id", "--release-id", "unit_id",
        *keys, "--block", "nace:prefix=2", "--block", "bbr9", "--code", "nace", "--code", "bbr9",
        *extra, "--jobs", jobs, "--json", str(out), "--matches", str(matches), "--quiet",
    ]


def figures(path: Path) -> dict:
    """Candidate pairs, solvers, links and the largest block from the JSON of ``attack link``."""
    found: dict = {}

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("n_candidate_pairs", "solvers", "n_links", "largest_block", "optimal_blocks", "n_blocks"):
                    found.setdefault(key, value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(path.read_text()))
    return found


def verdict(value: float, limit: float | None) -> str:
    return "" if limit is None else ("met" if value <= limit else "OVER")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cases = [f"{shape}-{size}" for shape in SHAPES for size in SIZES]
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(cases)} (default: {' '.join(DEFAULT)})")
    args = parser.parse_args()
    unknown = sorted(set(args.cases) - set(cases))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    seconds: dict[str, tuple[float, float]] = {}
    digests: dict[str, str] = {}
    names = args.cases or DEFAULT
    for name in names:  # the dask case compares its links with the single-machine run
        shape, size = name.rsplit("-", 1)
        if shape == "dask" and f"demo-{size}" not in names[: names.index(name)]:
            names = [*names[: names.index(name)], f"demo-{size}", *names[names.index(name):]]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            shape, size = name.rsplit("-", 1)
            folder = Path(tmp) / _data_shape(shape) / size
            if not folder.exists():
                folder.mkdir(parents=True)
                prepare(shape, SIZES[size], folder)
            ext, rel = folder / "external.parquet", folder / "release.parquet"
            out, matches = Path(tmp) / f"{name}.json", Path(tmp) / f"{name}.matches.csv"
            run = run_child(command(ext, rel, shape, out, matches), capture=False, ok=(0, 1))  # 1: NOT PASSED
            if run.failed:
                print(f"{name}: FAILED after {run.seconds:.1f} s", flush=True)
                continue
            seconds[name] = run.seconds, run.cpu_seconds
            digests[name] = hashlib.sha256(matches.read_bytes()).hexdigest()
            matches.unlink()  # record-level: gone as soon as it is digested
            seen = figures(out)
            max_s, max_gib = BUDGETS.get(name, (None, None))
            checks = [f"time {verdict(run.seconds, max_s)} ({max_s} s)"] if max_s else []
            if max_gib:
                checks.append(f"memory {verdict(run.peak_gib, max_gib)} ({max_gib} GiB)")
            small = f"{shape}-300k"
            if size == "1M" and small in seconds:
                ratio = run.seconds / seconds[small][0]
                cpu = run.cpu_seconds / seconds[small][1]
                checks.append(f"time(1M)/time(300k) {ratio:.2f} {verdict(ratio, GROWTH)} (≤ {GROWTH:g}; CPU {cpu:.2f})")
            twin = f"{DISTANCE_TWIN.get(shape)}-{size}"
            if twin in seconds:
                ratio = run.seconds / seconds[twin][0]
                checks.append(f"time / {twin} {ratio:.2f} {verdict(ratio, FS_RATIO)} (≤ {FS_RATIO:g})")
            if shape == "dask" and f"demo-{size}" in digests:
                same = digests[name] == digests[f"demo-{size}"]
                checks.append(f"links {'identical' if same else 'DIFFERENT'} to demo-{size} (SHA-256 {digests[name][:16]}…)")
            optimal = ""
            if "optimal_blocks" in seen:
                optimal = f", proven optimal blocks {seen['optimal_blocks']}/{seen.get('n_blocks')}"
            print(
                f"{name}: {run.seconds:.1f} s wall ({run.cpu_seconds:.1f} s CPU), peak {run.peak_gib:.2f} GiB; "
                f"candidate pairs {seen.get('n_candidate_pairs', 0):,}, largest block {seen.get('largest_block')}, "
                f"links {seen.get('n_links', 0):,}, solvers {seen.get('solvers')}{optimal}"
                + (f"; {'; '.join(checks)}" if checks else ""),
                flush=True,
            )


if __name__ == "__main__":
    main()
