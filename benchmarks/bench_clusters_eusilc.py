"""The cluster-aware intruder on EU-SILC households (docs/method/structure.md).

Usage: ``python benchmarks/bench_clusters_eusilc.py EUSILC_CSV [--seed 1] [--method greedy]``

Data: ``eusilc`` of the CRAN package laeken (public synthetic EU-SILC data: 14,827 persons in
6,000 households), exported to CSV, e.g. in R ``write.csv(laeken::eusilc, "eusilc.csv",
row.names = FALSE)``. The release perturbs ``age`` by a whole number of years drawn uniformly
from −3 … 3 and personal income ``py010n`` by lognormal noise (``× exp(N(0, 0.3))``, 30 %); the
intruder holds the true values. One run of ``attack link`` with ``--cluster db030`` (keys age and
py010n, metric; blocks region ``db040`` and sex ``rb090``) writes one JSON with both intruders;
printed: persons re-identified alone and through their household, their ratio, households
re-identified, the per-unit maximum, time, peak memory and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import run_child  # noqa: E402

COLUMNS = ["pid", "db030", "db040", "rb090", "age", "py010n"]


def files(source: Path, folder: Path, seed: int) -> tuple[Path, Path]:
    """The intruder's file (true values) and the release (perturbed), with a person id."""
    data = pd.read_csv(source)
    data["pid"] = np.arange(len(data))
    rng = np.random.default_rng(seed)
    release = data.copy()
    release["age"] = data["age"] + rng.integers(-3, 4, len(data))
    release["py010n"] = data["py010n"] * np.exp(rng.normal(0.0, 0.3, len(data)))
    paths = folder / "external.csv", folder / "release.csv"
    data[COLUMNS].to_csv(paths[0], index=False)
    release[COLUMNS].to_csv(paths[1], index=False)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="eusilc as CSV (laeken::eusilc)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--method", default="greedy")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        external, release = files(args.data, folder, args.seed)
        out = folder / "result.json"
        measured = run_child([sys.executable, "-m", "attack", "link", "--external", str(external),
                              "--release", str(release), "--external-id", "pid", "--release-id", "pid",
                              "--key", "age:metric", "--key", "py010n:metric", "--block", "db040",
                              "--block", "rb090", "--target", "py010n", "--method", args.method,
                              "--cluster", "db030", "--json", str(out), "--quiet"], ok=(0, 1))
        figures = json.loads(out.read_text()) if out.exists() else None
    if figures is None or measured.failed:
        raise SystemExit("attack link failed")
    structure = figures["structure"]
    alone, through = structure["persons_alone"], structure["persons_through_cluster"]
    households = structure["clusters"]
    print(f"persons alone:               {alone['n_correct']:6d} of {alone['n_verifiable']} "
          f"({100 * alone['reidentification_rate']:.1f} %)")
    print(f"persons through household:   {through['n_correct']:6d} of {through['n_verifiable']} "
          f"({100 * through['reidentification_rate']:.1f} %)")
    print(f"ratio:                       {structure['gain']:.2f} (done when ≥ 1.2)")
    print(f"households re-identified:    {households['n_reidentified']:6d} of {households['n_verifiable']}")
    print(f"any of both intruders:       {structure['any_intruder']['n_reidentified']:6d}")
    print(f"time {measured.seconds:.1f} s, peak {measured.peak_mib:.0f} MiB, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
