"""Time and peak memory of the Shapley attribution over six keys on the 17,000-unit demo.

Usage: ``python benchmarks/bench_attribution.py [--units 17000] [--jobs 1]``

The intruder holds the original's own values (the worst case) of six metric variables
(employees, turnover, personnel, material and energy costs, investment) and attacks the demo's
separately microaggregated release (triples), blocked by NACE division × BBR9 as in the demo.
Exact Shapley values need every non-empty subset of the six keys: 63 linkages, the blocks built
once (``attack.risk.attribution``). Prints wall seconds, processor seconds, peak resident memory,
the load average and the attribution, which sums to the re-identification rate.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import time

from attack.datasets.demo import demo_source
from attack.linkage.settings import Linkage
from attack.risk.attribution import explain_attack
from attack.risk.mass import AttackInput
from attack.risk.settings import Evaluation

KEYS = ("employees", "turnover", "personnel_costs", "material_costs", "energy_costs", "investment")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=17000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    original, _ = demo_source("original", args.units, 1)
    release, _ = demo_source("microaggregated", args.units, 1)
    linkage = Linkage.model_validate({"keys": [f"{k}:metric" for k in KEYS], "block": ["nace:prefix=2", "bbr9"]})
    evaluation = Evaluation.of(cells=["employees:bins=20,50,100,250,500,1000", "east_west"])
    data = AttackInput(original.rename(columns={"unit_id": "ext_id"}).assign(unit_id=original["unit_id"]),
                       "unit_id", release, "unit_id", original, "unit_id")
    wall, cpu = time.perf_counter(), time.process_time()
    explained = explain_attack(data, linkage, evaluation, engine={"jobs": args.jobs})
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.units} units, {len(KEYS)} keys, {explained.n_linkages} linkages: {wall:.1f} s wall, "
          f"{cpu:.1f} s cpu, peak {peak:.0f} MiB, load {os.getloadavg()[0]:.2f}")
    print(f"re-identification rate {explained.reidentification_rate:.6f}, sum of attributions "
          f"{math.fsum(explained.shares.values()):.6f}, {len(explained.cells)} failing cells attributed")
    for key in KEYS:
        print(f"  {key:16s} shapley {explained.shares[key]:+.4f}  leave-one-out {explained.leave_one_out[key]:+.4f}")


if __name__ == "__main__":
    main()
