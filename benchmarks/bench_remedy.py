"""The least change that passes against the best uniform setting: the demo's worst case and the
SBS5242 business file.

Usage::

    python benchmarks/bench_remedy.py demo [--units 17000] [--family noise|microaggregation]
    python benchmarks/bench_remedy.py sbs5242 PATH [--family noise|microaggregation]

``demo``: the worst-case intruder (the original's own turnover and employees) against the FORMAL
file of the demo population, blocked by NACE division × BBR9, cells employee size class × east/
west as in the demo scenario. ``sbs5242``: PATH is a CSV export of ``VIM::SBS5242`` (the R
package VIM, CRAN: 262 synthetic Austrian retail enterprises, NACE 52.42, all numeric, with
missing values scattered for imputation examples); only the 221 complete records are used (MDAV
needs complete records, and a unit of unknown size has no size class), each gets a unit id, the release is the file itself (FORMAL without identifiers), the worst-case
intruder knows turnover (``Umsatz``) and employees (``BESCH``), cells are employee classes
(< 10, 10–49, ≥ 50). Both run ``attack.remedy`` with the scenario's ``[tune]`` ladder of the
family (noise: ``mult-noise`` f = 0.02 … 0.5 with s = 0.02; microaggregation: ``mdav`` k = 3 … 100)
and report the remedy beside ``attack tune``'s best uniform setting: rounds, values changed,
IL1s, utility checks, time, peak memory and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import pandas as pd

from attack.study.remedy import remedy
from attack.study.scenario import scenario_from_dict

LADDERS = {
    "noise": {"method": "mult-noise", "parameter": "f", "values": [0.02, 0.05, 0.1, 0.2, 0.3, 0.5],
              "params": {"s": 0.02}},
    "microaggregation": {"method": "mdav", "parameter": "k", "values": [3, 5, 10, 20, 50, 100]},
}


def demo_scenario(units: int, family: str) -> dict:
    return {
        "title": "demo worst case",
        "data": {"original": {"demo": "original"}, "release": {"demo": "formal"},
                 "external": {"demo": "worst_case"}, "demo": {"n_units": units, "seed": 1}},
        "linkage": {"keys": ["turnover:metric", "employees:metric"], "block": ["nace:prefix=2", "bbr9"]},
        "evaluation": {"cells": ["employees:bins=20,50,100,250,500,1000", "east_west"]},
        "tune": {**LADDERS[family], "columns": ["turnover", "employees"]},
    }


def sbs_scenario(path: Path, folder: Path, family: str) -> dict:
    frame = pd.read_csv(path).dropna().reset_index(drop=True)  # complete records only (221 of 262)
    frame.insert(0, "unit", [f"e{i}" for i in range(len(frame))])
    frame.to_csv(folder / "release.csv", index=False)
    frame[["unit", "Umsatz", "BESCH"]].to_csv(folder / "external.csv", index=False)
    return {
        "title": "SBS5242 worst case",
        "data": {"release": {"path": "release.csv", "id": "unit"}, "original": {"path": "release.csv", "id": "unit"},
                 "external": {"path": "external.csv", "id": "unit"}},
        "linkage": {"keys": ["Umsatz:metric", "BESCH:metric"]},
        "evaluation": {"cells": ["BESCH:bins=10,50"]},
        "tune": {**LADDERS[family], "columns": ["Umsatz", "BESCH"]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=("demo", "sbs5242"))
    parser.add_argument("path", nargs="?", type=Path, help="sbs5242: the CSV export of VIM::SBS5242")
    parser.add_argument("--units", type=int, default=17000)
    parser.add_argument("--family", choices=tuple(LADDERS), default="noise")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.case == "demo":
            raw = demo_scenario(args.units, args.family)
        else:
            if args.path is None:
                parser.error("sbs5242 needs the path of the CSV export of VIM::SBS5242")
            raw = sbs_scenario(args.path, Path(folder), args.family)
        scenario = scenario_from_dict(raw, base=Path(folder))
        start = time.perf_counter()
        outcome = remedy(scenario, engine={"jobs": args.jobs})
        seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"{raw['title']}, {args.family} ({LADDERS[args.family]['method']}): {seconds:.1f} s wall incl. the uniform "
          f"grid, peak {peak:.2f} GiB, load {os.getloadavg()[0]:.2f}")
    print(f"remedy: {'PASSED' if outcome.passed else 'NOT PASSED'} after {len(outcome.rounds)} rounds; "
          f"records per value {dict(outcome.records_by_value)}; variables {', '.join(outcome.variables)}")
    print(outcome.table().to_string(index=False))
    print(f"lower information loss than the best uniform setting: {outcome.lower_loss_than_uniform}")


if __name__ == "__main__":
    main()
