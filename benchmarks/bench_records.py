"""Per-record risk at register scale: the rates alone against the rates with the risk of every
release record, on the 1,000,000 × 1,000,000 case of ``bench_scale.py``.

Usage: ``python benchmarks/bench_records.py [--units 1000000] [--blocks 100] [--jobs 1]``

Data: ``bench_scale.synthetic`` (generated firms, NACE-like blocks, a multiplicative error of
σ = 0.05 on the intruder's turnover and employees); keys log turnover and log employees, greedy.
After a warm-up on 20,000 units (compiled loops loaded), one process runs ``run_attack`` three
times: rates alone, with ``records=True`` (the outcome per release record, margins included),
and again rates alone; then it builds the records table and serialises it as Parquet and as CSV.
Printed: processor seconds of each step (one process, ``--jobs 1``: steadier than wall time on
shared cores), the ratio (records with Parquet output) / (mean of the two
rates-alone runs), the peak resident memory and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from bench_scale import synthetic

from attack.io.writers import table_content
from attack.linkage.blocking import Block
from attack.linkage.keys import Metric
from attack.linkage.settings import Linkage
from attack.risk.mass import AttackInput, run_attack
from attack.risk.records import records_table
from attack.risk.settings import Evaluation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1_000_000)
    parser.add_argument("--blocks", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    spec = Linkage(keys=(Metric("turnover", log=True), Metric("employees", log=True)), block=(Block("nace"),))
    engine = {"jobs": args.jobs}

    def attack(units: int, records: bool) -> tuple[float, object]:
        external, release = synthetic(units, units, args.blocks)
        start = time.process_time()
        result = run_attack(AttackInput(external, "unit_id", release, "unit_id"), spec, Evaluation.of(),
                            engine=engine, records=records)
        return time.process_time() - start, result

    attack(20_000, True)  # warm-up
    rates_1, _ = attack(args.units, False)
    with_records, result = attack(args.units, True)
    rates_2, _ = attack(args.units, False)
    start = time.process_time()
    table = records_table([("intruder", result.records)])
    table_content(table, "records.parquet")
    parquet = time.process_time() - start
    start = time.process_time()
    table_content(table, "records.csv")
    csv = time.process_time() - start
    rates = (rates_1 + rates_2) / 2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"{args.units:,} units in {args.blocks} blocks: rates alone {rates_1:.2f} s and {rates_2:.2f} s; "
          f"with records {with_records:.2f} s; table + Parquet {parquet:.2f} s; CSV text {csv:.2f} s")
    print(f"ratio with Parquet output {(with_records + parquet) / rates:.3f} (budget 1.2), "
          f"with CSV output {(with_records + parquet - parquet + csv) / rates:.3f}; "
          f"peak {peak:.2f} GiB; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
