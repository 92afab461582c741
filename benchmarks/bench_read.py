"""Reading a German CSV file at register scale: time and peak memory.

Usage: ``python benchmarks/bench_read.py [ROWS]`` (default 1,000,000). Writes a file of ``ROWS``
rows × 20 columns as German Excel or SAS would (semicolon, decimal comma, Windows-1252, a
unit id, NACE and region codes with leading zeros, 15 metric variables, a size class and a firm name
with umlauts) into a temporary folder, then reads it with :func:`attack.io.readers.read` in a
child process: detection of encoding and dialect, typing of every column. Target: 10⁶ rows in
at most 5 s.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from measure import run_child

BUDGET_SECONDS = 5.0


def write_file(path: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    columns = {
        "unit_id": pd.Series(np.arange(n)).map("{:08d}".format),
        "nace": pd.Series(rng.integers(111, 9999, n)).map("{:04d}".format),
    }
    for j in range(15):
        columns[f"v{j}"] = np.round(rng.lognormal(5, 2, n), 2)
    columns["size_class"] = rng.integers(1, 8, n)
    columns["region"] = pd.Series(rng.integers(1, 17, n)).map("{:02d}".format)
    columns["name"] = np.array(["Müller GmbH", "Groß AG", "Weiß & Söhne KG"])[rng.integers(0, 3, n)]
    pd.DataFrame(columns).to_csv(path, sep=";", decimal=",", index=False, encoding="cp1252")


def child(path: str) -> None:
    from attack.io.readers import read

    start = time.perf_counter()
    table = read(path)
    seconds = time.perf_counter() - start
    numbers = sum(pd.api.types.is_numeric_dtype(table.frame[c]) for c in table.frame.columns)
    print(f"{seconds:.2f} s; {table.info.to_dict()}; {numbers} number columns")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "german.csv"
        write_file(path, n)
        size = path.stat().st_size / 2**20
        measured = run_child([sys.executable, __file__, "--child", str(path)])
    print(f"{n:,} rows x 20 columns, {size:.0f} MiB: read in {measured.output}")
    print(f"child process {measured.seconds:.2f} s wall (with imports), peak {measured.peak_mib:.0f} MiB; "
          f"budget {BUDGET_SECONDS:g} s for the read: "
          f"{'ok' if float(measured.output.split()[0]) <= BUDGET_SECONDS else 'OVER'}")
    if measured.failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
