"""``attack synth`` from the command line on 50,000 rows: time and peak memory (issue 17 target 5 s).

Usage: ``python benchmarks/bench_synth_cli.py [ROWS]`` (default 50000). Writes an original, a
holdout (both generated firms: region, legal form, NACE division, five log-normal amounts) and a
CART-synthetic file of the original (``attack synthesize``) to a temporary folder, then runs
``attack synth`` with keys region, nace, v0 and targets v1, legal_form as its own process (peak
resident memory from ``wait4`` is that process's, Python start-up and imports included).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from measure import run_child


def firms(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.lognormal(3, 1.2, n)
    frame = pd.DataFrame({"region": rng.choice(list("ABCDEFGH"), n),
                          "legal_form": rng.choice(["GmbH", "KG", "AG", "eK"], n, p=[0.6, 0.2, 0.1, 0.1]),
                          "nace": rng.choice([f"{i:02d}" for i in range(10, 99)], n)})
    for j in range(5):
        frame[f"v{j}"] = np.round(size * rng.lognormal(0, 0.4, n), 1)
    return frame


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    attack = str(Path(sys.executable).with_name("attack"))
    folder = Path(tempfile.mkdtemp())
    try:
        firms(n, 1).to_csv(folder / "original.csv", index=False)
        firms(n, 2).to_csv(folder / "holdout.csv", index=False)
        subprocess.run([attack, "synthesize", "--original", str(folder / "original.csv"), "--out",
                        str(folder / "synthetic.csv"), "--code", "nace", "--seed", "3"], check=True,
                       capture_output=True)
        command = [attack, "synth", "--original", str(folder / "original.csv"), "--synthetic",
                   str(folder / "synthetic.csv"), "--holdout", str(folder / "holdout.csv"), "--code", "nace",
                   "--key", "region", "--key", "nace", "--key", "v0", "--target", "v1", "--target", "legal_form",
                   "--json", str(folder / "synth.json")]
        measured = run_child(command, capture=False)
        print(f"attack synth, {n:,} original, synthetic and holdout rows: {measured.seconds:.1f} s, "
              f"peak {measured.peak_mib:.0f} MiB")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
