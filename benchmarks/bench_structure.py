"""Intruders who see structure at register scale: households and a panel (docs/method/structure.md).

Usage: ``python benchmarks/bench_structure.py [households|panel ...] [--persons N] [--units N]
[--waves W] [--jobs N]`` (default: both cases, 1,000,000 persons; a panel of 1,000,000 firms
over 5 waves).

Each case runs in its own process (peak resident memory from ``wait4`` is that process's alone)
on generated data (``attack.datasets.structured``; no file reading):

* ``households``: ``persons / 2.47`` households of EU-SILC's sizes (about ``persons`` persons)
  and their release with age ± up to 3 years and income × exp(N(0, 0.3)) (the demo's
  ``households:perturbed``); the income of persons under 16 is 0 rather than missing, so that the
  person-level attack of the same run can use its KD-tree solver (with missing values it falls
  back to dense matrices, which at a million persons takes far longer than the cluster attack).
  ``attack.mass_attack`` with ``cluster="household_id"``: the person-level and the cluster-aware
  intruder, scored. Budget: 60 s.
* ``panel``: the demo population of ``units`` firms over ``waves`` waves (growth, entries and
  exits) and its release with independent 10 % noise in every wave (the demo's ``panel:noise``);
  the panel intruder after 1 … ``waves`` waves (``wave="wave"``), blocked by NACE division (or the
  ``--block`` keys given, e.g. ``--block nace:prefix=2 --block bbr9``). Budget: 5 min and 12 GiB for
  the 3.5 M demo register; on the shared machine this measures 1 M firms unless ``--units`` says
  otherwise.

Printed per case: the figures, the time of the attack (data generation apart), the peak memory
of the whole process and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from measure import run_child

BUDGETS = {"households": (60.0, None), "panel": (300.0, 12.0)}


def households(persons: int, jobs: int | None) -> None:
    import attack
    from attack.datasets.demo_structured import structured_source

    n_units = int(round(2 * persons / 2.47))  # structured_source makes n_units // 2 households
    external, _ = structured_source("households", None, n_units, 1)  # type: ignore[arg-type]
    release, _ = structured_source("households:perturbed", None, n_units, 1)  # type: ignore[arg-type]
    for frame in (external, release):
        frame["income"] = frame["income"].fillna(0.0)
    start = time.perf_counter()
    result = attack.mass_attack(external, release, keys=["age:metric", "income:metric"], blocks=["region", "sex"],
                                external_id="person_id", release_id="person_id", tau=0.5, targets=["income"],
                                cluster="household_id", engine={"jobs": jobs})
    seconds = time.perf_counter() - start
    s = result.figures["structure"]
    print(f"{len(external):,} persons in {external['household_id'].nunique():,} households")
    print(f"persons alone {s['persons_alone']['reidentification_rate']:.3f}, through their household "
          f"{s['persons_through_cluster']['reidentification_rate']:.3f}, households "
          f"{s['clusters']['reidentification_rate']:.3f}; signature blocks {s['linkage']['signature_blocks']}, "
          f"with candidates {s['linkage']['candidate_blocks']}")
    print(f"attack {seconds:.1f} s")


def panel(units: int, waves: int, jobs: int | None, blocks: list[str]) -> None:
    import attack
    from attack.datasets.demo_structured import PANEL_WAVES
    from attack.datasets.structured import make_panel
    from attack.protect.consistent import panel_noise

    assert PANEL_WAVES == 5
    external = make_panel(units, waves, 1)
    release = panel_noise(external, ["turnover", "employees"], unit="unit_id", s=0.1, per_wave=True, seed=601)
    start = time.perf_counter()
    columns = ["unit_id", "wave", "nace", "bbr9", "turnover", "employees"]
    result = attack.mass_attack(external[columns], release[columns],
                                keys=["turnover:metric", "employees:metric"], blocks=blocks,
                                external_id="unit_id", release_id="unit_id", tau=0.5, targets=["turnover"],
                                wave="wave", engine={"jobs": jobs})
    seconds = time.perf_counter() - start
    print(f"{units:,} firms, {len(external):,} rows over {waves} waves; blocks {', '.join(blocks)}")
    print("rate after 1 ... waves: " + ", ".join(f"{w['reidentification_rate']:.3f}"
                                                 for w in result.figures["panel"]["by_wave"]))
    print(f"attack {seconds:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=list(BUDGETS), choices=list(BUDGETS))
    parser.add_argument("--persons", type=int, default=1_000_000)
    parser.add_argument("--units", type=int, default=1_000_000)
    parser.add_argument("--waves", type=int, default=5)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--block", dest="blocks", action="append", help="panel blocking key (repeatable; default "
                        "nace:prefix=2)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        case = args.cases[0]
        if case == "households":
            households(args.persons, args.jobs)
        else:
            panel(args.units, args.waves, args.jobs, args.blocks or ["nace:prefix=2"])
        return
    for case in args.cases:
        command = [sys.executable, __file__, case, "--child", "--persons", str(args.persons), "--units",
                   str(args.units), "--waves", str(args.waves), *(["--jobs", str(args.jobs)] if args.jobs else []),
                   *[a for b in (args.blocks or []) for a in ("--block", b)]]
        measured = run_child(command)
        seconds, gib = BUDGETS[case]
        print(f"== {case}")
        print(measured.output)
        print(f"process {measured.seconds:.1f} s (cpu {measured.cpu_seconds:.1f} s), peak {measured.peak_gib:.2f} GiB, "
              f"load {os.getloadavg()[0]:.2f}; budget {seconds:.0f} s" + (f", {gib:.0f} GiB" if gib else "")
              + (" FAILED" if measured.failed else ""))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
