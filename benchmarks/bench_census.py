"""``attack risk`` of a census sample against the whole census-shaped population: time, peak
memory and load (docs/method/performance.md, "A population file at census scale").

Usage: ``python benchmarks/bench_census.py [--persons N] [--fraction PI] [--dir DIR]``
(default 83,000,000 persons, the German census 2022's count, and a 1 % sample of households).

A first child process writes the population with ``attack.datasets.census.write_census``
(persons in households, eight categorical keys, Parquet written chunk by chunk) and the sample
of whole households beside it. A second one runs, as a user would ::

    attack risk --data sample.parquet --population-file population.parquet --household household
                --key region --key sex --key age --key marital_status --key citizenship
                --key household_size --key position --key employment --no-suda --json risk.json

which reads the sample whole and the population in chunks, only its eight key columns: the
sample frequencies f_k, the population frequencies F_k of the sample's classes, the prosecutor
and the exact journalist and marketer risks, and the household risk. Its wall time, processor
time and peak resident memory (``wait4``) are compared with the budget (5 min, 16 GiB); the load
average is printed with them (the cores are shared, so a time is an upper bound). SUDA is off:
its scores of a census sample are a separate job. The files are removed afterwards unless
``--dir`` names where to keep them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from measure import run_child

BUDGET_SECONDS = 300.0
BUDGET_GIB = 16.0
KEYS = ("region", "sex", "age", "marital_status", "citizenship", "household_size", "position", "employment")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _write(population: Path, sample: Path, args: argparse.Namespace) -> dict | None:
    """Write the population and the sample in a child process; what it wrote."""
    load = _load()
    made = run_child([sys.executable, "-c",
                      "import sys, dataclasses, json; from attack.datasets.census import write_census; "
                      "print(json.dumps(dataclasses.asdict(write_census(sys.argv[1], int(sys.argv[3]), "
                      "sample_path=sys.argv[2], sampling_fraction=float(sys.argv[4]), seed=int(sys.argv[5])))))",
                      str(population), str(sample), str(args.persons), str(args.fraction), str(args.seed)])
    if made.failed:
        return None
    files: dict = json.loads(made.output.splitlines()[-1])
    print(f"population written: {files['persons']:,} persons in {files['households']:,} households, "
          f"{population.stat().st_size / 2**20:.0f} MiB; sample {files['sample_persons']:,} persons in "
          f"{files['sample_households']:,} households; {made.seconds:.1f} s ({made.cpu_seconds:.1f} s processor), "
          f"peak {made.peak_gib:.2f} GiB; load average before {load}, after {_load()}")
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persons", type=int, default=83_000_000)
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=None, help="keep the files here")
    parser.add_argument("--reuse", action="store_true",
                        help="use the files --dir holds from an earlier run of the same --persons, --fraction, --seed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = args.dir or Path(temp)
        folder.mkdir(parents=True, exist_ok=True)
        population, sample, out = folder / "population.parquet", folder / "sample.parquet", folder / "risk.json"
        written = folder / "written.json"
        if args.reuse and written.is_file():
            files = json.loads(written.read_text())
            print(f"population reused: {files['persons']:,} persons, sample {files['sample_persons']:,} persons")
        else:
            made = _write(population, sample, args)
            if made is None:
                print("writing the population failed", file=sys.stderr)
                return 1
            files = made
            written.write_text(json.dumps(files))
        load = _load()
        risk = run_child([sys.executable, "-m", "attack", "risk", "--data", str(sample), "--population-file",
                          str(population), "--household", "household", *[a for k in KEYS for a in ("--key", k)],
                          "--no-suda", "--json", str(out), "--quiet"], ok=(0, 1))   # 1: NOT PASSED
        if risk.failed:
            print("attack risk failed", file=sys.stderr)
            return 1
        document = json.loads(out.read_text())
    figures = {"records": document["records"], "sample_uniques": document["sample_uniques"],
               **{name: document[name] for name in ("prosecutor_risk", "journalist_risk", "marketer_risk",
                                                     "household_risk", "household_journalist_risk")
                  if name in document}}
    print(json.dumps(figures, indent=1))
    ok = risk.seconds <= BUDGET_SECONDS and risk.peak_gib <= BUDGET_GIB
    print(f"attack risk, sample of {files['sample_persons']:,} against {files['persons']:,} persons x {len(KEYS)} "
          f"keys: {risk.seconds:.1f} s ({risk.cpu_seconds:.1f} s processor), peak {risk.peak_gib:.2f} GiB; "
          f"load average before {load}, after {_load()}; budget {BUDGET_SECONDS:g} s, {BUDGET_GIB:g} GiB: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
