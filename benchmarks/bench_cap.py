"""CAP family at register scale, and parity with SDMetrics on smaller data.

Usage::

    python benchmarks/bench_cap.py [--rows N]              # default 1,000,000 × 1,000,000
    python benchmarks/bench_cap.py --compare-sdmetrics 5000 20000

The first form times ``attack.cap.table_measures`` and ``attack.cap.cap_scores`` (the SDMetrics
CAP trio) on N original and N synthetic records with three categorical keys and one categorical
target; each runs in its own process, whose peak resident memory comes from ``wait4``.

``--compare-sdmetrics`` writes the same kind of data (N rows each, plus a continuous key) to CSV
files and scores them with ``attack.cap`` (this interpreter) and with SDMetrics'
CategoricalCAP, CategoricalZeroCAP, CategoricalGeneralizedCAP and DisclosureProtection run by
the interpreter named by ``ATTACK_PEER_PYTHON`` (default: this one, with ``pip install -e
".[bench]"``) in a subprocess, so the package never imports sdmetrics. Scores must agree to 1e-9; time and peak memory are printed side by side.

Data: keys with skewed level frequencies, a target that depends on two keys; the synthetic file
copies each cell of the original with probability 0.7 and otherwise draws it from the column's
marginal, so some original key combinations are missing from the synthetic data.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from measure import run_child

SDMETRICS_PYTHON = Path(os.environ.get("ATTACK_PEER_PYTHON", sys.executable))
KEYS = ["region", "sector", "size"]
TARGET = "status"
CONTINUOUS = "income"
TOLERANCE = 1e-9
# our result field → SDMetrics class (method of DisclosureProtection for the last one)
PAIRS = {
    "sdmetrics_cap_score": "CategoricalCAP",
    "sdmetrics_zero_cap_score": "CategoricalZeroCAP",
    "sdmetrics_generalized_cap_score": "CategoricalGeneralizedCAP",
    "disclosure_protection": "DisclosureProtection",
}
DP_KEYS = ["region", "sector", CONTINUOUS]


def make_data(n: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Original and synthetic files of ``n`` records each (see the module docstring)."""
    rng = np.random.default_rng(seed)

    def skewed(levels: int) -> np.ndarray:
        p = 1.0 / np.arange(1, levels + 1)
        return rng.choice(levels, size=n, p=p / p.sum())

    region, sector, size = skewed(40), skewed(20), skewed(5)
    status = np.where(rng.random(n) < 0.6, (region + 2 * sector) % 4, rng.integers(0, 4, n))
    original = pd.DataFrame({
        "region": np.char.add("r", region.astype(str)),
        "sector": np.char.add("s", sector.astype(str)),
        "size": np.char.add("z", size.astype(str)),
        CONTINUOUS: rng.lognormal(10, 1, n).round(2),
        TARGET: np.char.add("t", status.astype(str)),
    })
    synthetic = original.copy()
    for column in synthetic.columns:
        redraw = rng.random(n) >= 0.7
        synthetic.loc[redraw, column] = rng.choice(original[column].to_numpy(), redraw.sum())
    return original, synthetic


# -- children -----------------------------------------------------------------------------


def run_ours(task: str, rows: int, folder: str | None) -> dict:
    from attack.synthetic_attacks.cap import cap_scores, disclosure_protection, table_measures

    original, synthetic = _load(rows, folder)
    start = time.perf_counter()
    if task == "table_measures":
        result = table_measures(original, synthetic, KEYS, TARGET).to_dict()
    elif task == "cap_scores":
        result = cap_scores(original, synthetic, KEYS, TARGET).to_dict()
    else:
        result = disclosure_protection(
            original, synthetic, DP_KEYS, TARGET, continuous=[CONTINUOUS]
        ).to_dict()
        result = {"disclosure_protection": result["score"]}
    return {"seconds": time.perf_counter() - start, "result": result}


def run_sdmetrics(metric: str, folder: str) -> dict:
    import sdmetrics.single_table as tables

    original, synthetic = _load(0, folder)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if metric == "DisclosureProtection":
            score = tables.DisclosureProtection.compute(
                original, synthetic, known_column_names=DP_KEYS, sensitive_column_names=[TARGET],
                continuous_column_names=[CONTINUOUS],
            )
        else:
            score = getattr(tables, metric).compute(
                original, synthetic, key_fields=KEYS, sensitive_fields=[TARGET]
            )
    return {"seconds": time.perf_counter() - start, "score": float(score)}


def _load(rows: int, folder: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    if folder is None:
        return make_data(rows)
    return (pd.read_csv(Path(folder, "original.csv")), pd.read_csv(Path(folder, "synthetic.csv")))


def _child(python: Path | str, *args: str) -> tuple[dict, float]:
    """Run this script as a child; its JSON answer and peak memory in MiB."""
    run = run_child([str(python), __file__, "--child", *args])
    if run.failed:
        raise SystemExit(f"child {args} failed")
    return json.loads(run.output), run.peak_mib


# -- parent -------------------------------------------------------------------------------


def scale(rows: int) -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; {rows:,} original × "
          f"{rows:,} synthetic rows, keys {KEYS}, target {TARGET!r}")
    for task in ("table_measures", "cap_scores"):
        answer, peak = _child(sys.executable, "ours", task, str(rows))
        shown = {k: v for k, v in answer["result"].items()
                 if k in ("n_b", "disco_pct", "dcap_d", "tcap_pct", "cap", "zero_cap",
                          "generalized_cap", "n_scored")}
        print(f"{task}: {answer['seconds']:.2f} s (data generation excluded), "
              f"peak {peak:.0f} MiB incl. data; {shown}", flush=True)


def compare(sizes: list[int]) -> int:
    if not SDMETRICS_PYTHON.exists():
        print(f"{SDMETRICS_PYTHON} not found; nothing to compare")
        return 1
    version = subprocess.run([str(SDMETRICS_PYTHON), "-c",
                              "import sdmetrics; print(sdmetrics.__version__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    print(f"sdmetrics {version} via {SDMETRICS_PYTHON}; tolerance {TOLERANCE:g}")
    failures = 0
    for n in sizes:
        with tempfile.TemporaryDirectory() as folder:
            original, synthetic = make_data(n, seed=1)
            original.to_csv(Path(folder, "original.csv"), index=False)
            synthetic.to_csv(Path(folder, "synthetic.csv"), index=False)
            ours: dict[str, tuple[float, float, float]] = {}
            for task in ("cap_scores", "disclosure_protection"):
                answer, peak = _child(sys.executable, "ours", task, "0", folder)
                for name, value in answer["result"].items():
                    if name in PAIRS:
                        ours[name] = (value, answer["seconds"], peak)
            print(f"\nN = {n:,} (ours: the trio is one call, so its time and memory repeat)")
            print(f"{'metric':28} {'attack':>20} {'sdmetrics':>20} {'|diff|':>9} "
                  f"{'s attack':>9} {'s sdm':>8} {'MiB att':>8} {'MiB sdm':>8}")
            for name, metric in PAIRS.items():
                answer, peak = _child(SDMETRICS_PYTHON, "sdmetrics", metric, folder)
                value, seconds, our_peak = ours[name]
                theirs = answer["score"]
                diff = abs(value - theirs) if value is not None else float("nan")
                flag = "" if diff <= TOLERANCE else "  DIFFERENT"
                failures += bool(flag)
                print(f"{metric:28} {value:20.15f} {theirs:20.15f} {diff:9.1e} "
                      f"{seconds:9.3f} {answer['seconds']:8.2f} {our_peak:8.0f} {peak:8.0f}"
                      f"{flag}", flush=True)
    return 1 if failures else 0


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        side, *rest = sys.argv[2:]
        if side == "ours":
            task, rows, *folder = rest
            print(json.dumps(run_ours(task, int(rows), folder[0] if folder else None)))
        else:
            print(json.dumps(run_sdmetrics(*rest)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--compare-sdmetrics", type=int, nargs="+", metavar="N",
                        help="compare with SDMetrics on N-row data (runs in the bench venv)")
    args = parser.parse_args()
    if args.compare_sdmetrics:
        raise SystemExit(compare(args.compare_sdmetrics))
    scale(args.rows)


if __name__ == "__main__":
    main()
