"""sdcMicro's ``recordLinkage()`` comparison: exact linkage of the EIA data, 4,092 × 4,092.

Usage: ``python benchmarks/bench_eia.py EIA.csv`` (or the path in ``ATTACK_EIA_CSV``)

Reference figure (from our issue, not rerun here: R is not installed on this machine):
sdcMicro's ``recordLinkage()`` -- dense Hungarian assignment on Gower distance -- needs 152 s
and 3 GiB for these 4,092 × 4,092 records. Our budget for the same linkage is 2 s.

Data: the EIA data set of the CRAN package sdcMicro (GPL-2), written to CSV in R with
``data(EIA, package = "sdcMicro"); write.csv(EIA, "EIA.csv", row.names = FALSE)``.
Keys: the ten numeric columns RESREVENUE ... TOTSALES. The release is
``attack.microaggregation.separate_microaggregation(original, keys, k=3, seed=1)`` with its rows
shuffled (``formal_release``, seed 2); a row-number id column is the hidden ground truth. The
intruder's file is the original. Linkage as sdcMicro: exact assignment (``hungarian``), absolute
differences divided by each key's range on the pooled values (``range``: Gower-like), no
blocking, one core (``run_attack(..., engine={'jobs': 1})``).

Printed: seconds for linkage + scoring (inside the child process), wall seconds of the child
process (interpreter start, imports, reading the CSV, microaggregation included), its peak
resident memory (``wait4``), the re-identification rate and the block's solver/optimality.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from measure import run_child

#: where the data file's path comes from when it is not given as the first argument
DATA_VARIABLE = "ATTACK_EIA_CSV"
KEYS = ["RESREVENUE", "RESSALES", "COMREVENUE", "COMSALES", "INDREVENUE", "INDSALES",
        "OTHREVENUE", "OTHRSALES", "TOTREVENUE", "TOTSALES"]
SDCMICRO_SECONDS, SDCMICRO_GIB, BUDGET_SECONDS = 152, 3, 2


def child(data: Path) -> None:
    import pandas as pd

    from attack.linkage.keys import Metric
    from attack.linkage.settings import Linkage
    from attack.protect.formal import formal_release
    from attack.protect.microaggregation import separate_microaggregation
    from attack.risk.mass import AttackInput, run_attack
    from attack.risk.settings import Evaluation

    original = pd.read_csv(data)
    original.insert(0, "row_id", range(len(original)))
    release = formal_release(separate_microaggregation(original, KEYS, k=3, seed=1), seed=2)
    spec = Linkage(
        keys=tuple(Metric(name) for name in KEYS),
        method="hungarian",
        standardise="range",
        metric_distance="absolute",
    )
    start = time.perf_counter()
    outcome = run_attack(
        AttackInput(original, "row_id", release, "row_id"), spec, Evaluation.of(), engine={'jobs': 1}
    )
    seconds = time.perf_counter() - start
    linkage = outcome.figures["linkage"]
    print(f"{len(original)} x {len(release)} records; {seconds:.2f} s linkage+scoring; "
          f"re-identification rate {outcome.figures['reidentification_rate']:.4f}; "
          f"solvers {linkage['solvers']}, proven optimal blocks "
          f"{linkage['optimal_blocks']}/{linkage['n_blocks']} "
          f"[{'within' if seconds < BUDGET_SECONDS else 'OVER'} the {BUDGET_SECONDS} s budget]",
          flush=True)


def main() -> None:
    if "--child" in sys.argv:
        child(Path(sys.argv[-1]))
        return
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(DATA_VARIABLE)
    if not given:
        sys.exit(f"bench_eia: give the path of sdcMicro's EIA data as CSV (argument or {DATA_VARIABLE}); "
                 'in R: data(EIA, package = "sdcMicro"); write.csv(EIA, "EIA.csv", row.names = FALSE)')
    data = Path(given)
    if not data.is_file():
        sys.exit(f"bench_eia: data file not found: {data}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; data {data.name}")
    run = run_child([sys.executable, __file__, "--child", str(data.resolve())])
    failed = " FAILED" if run.failed else ""
    print(f"attack: {run.output}")
    print(f"attack: {run.seconds:.2f} s wall incl. interpreter start, imports, reading and "
          f"microaggregation; peak {run.peak_gib:.3f} GiB{failed}")
    print(f"sdcMicro recordLinkage(): {SDCMICRO_SECONDS} s, {SDCMICRO_GIB} GiB "
          "(figure from the issue; not rerun: R is not available here)")


if __name__ == "__main__":
    main()
