"""attack side by side with its peers on the same generated data, in one run.

Usage (the peers come with the ``bench`` extra)::

    pip install -e ".[bench]"
    python benchmarks/peers/run.py [--quick] [--timeout SECONDS] [--only KIND ...]

Each call runs in its own process with this interpreter; time is measured inside the process
(from the data in memory to the result), peak resident memory from ``wait4`` (interpreter,
imports and data included). A call that exceeds ``--timeout`` (default 300 s) is stopped and
shown as such. The data generators and the calls are those of the single comparisons beside
this folder, which document them: ``bench_recordlinkage.py`` (greedy one-to-one linkage,
blocked on NACE), ``bench_synth_tools.py`` (Anonymeter's three attacks, SDMetrics' DCR
baseline) and ``bench_cap.py`` (SDMetrics' CAP trio). The exact assignment compares
``attack``'s sparse solver with its proof of optimality against SciPy's
``linear_sum_assignment`` on the dense matrix of the same distances.

The last column is attack's speed-up (peer time / attack time) and what was compared for
agreement: correct links, total distance, or the risks and scores with their intervals.
``--quick`` uses smaller data (a minute in all); ``--only linkage exact`` runs only the rows of
those kinds (``linkage``, ``exact``, ``synthetic``, ``cap``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the single comparisons and their generators


# -- children: one call each, answering JSON ------------------------------------------------


def linkage(tool: str, n: int) -> dict:
    import bench_recordlinkage as rl

    return rl.run_attack(n, 1) if tool == "attack" else rl.run_recordlinkage(n)


def exact(tool: str, n: int) -> dict:
    import numpy as np
    from bench_scale import synthetic

    from attack.linkage.distances import build_distance_model
    from attack.linkage.keys import Metric

    external, release = synthetic(n, int(1.25 * n), 1)
    keys = [Metric("turnover", log=True), Metric("employees", log=True)]
    start = time.perf_counter()
    model = build_distance_model(external, release, keys)
    if tool == "attack":
        from attack.linkage import sparse_hungarian

        rows, cols, dist, _, proven = sparse_hungarian.solve(model, 4 * 2**30)
        total = float(dist.sum())
    else:
        from scipy.optimize import linear_sum_assignment

        cost = model.cost(np.arange(len(external)), np.arange(len(release)))
        rows, cols = linear_sum_assignment(cost)
        total, proven = float(cost[rows, cols].sum()), True
    return {"seconds": time.perf_counter() - start, "total": total, "proven": bool(proven)}


def synthetic_attack(tool: str, task: str, folder: str) -> dict:
    import bench_synth_tools as st

    if tool == "attack":
        return st.run_ours(task, folder)
    return st.run_anonymeter(task, folder) if task != "distance" else st.run_sdmetrics("dcr_baseline", folder)


def cap(tool: str, task: str, folder: str) -> dict:
    import bench_cap as bc

    return bc.run_ours(task, 0, folder) if tool == "attack" else bc.run_sdmetrics(task, folder)


CHILDREN = {"linkage": linkage, "exact": exact, "synthetic": synthetic_attack, "cap": cap}


def child(name: str, args: list[str]) -> None:
    typed = [int(a) if a.isdigit() else a for a in args]
    print(json.dumps(CHILDREN[name](*typed)), flush=True)


# -- parent ---------------------------------------------------------------------------------


def measure(args: list[str], timeout: float) -> tuple[dict | None, float, str]:
    """Run one child: its answer (None when it failed or was stopped), peak MiB, a note."""
    import subprocess

    command = [sys.executable, str(Path(__file__)), "--child", *map(str, args)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    start = time.monotonic()
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return None, usage.ru_maxrss / 1024, f"stopped after {timeout:.0f} s"
        time.sleep(0.05)
    out = proc.stdout.read().strip().splitlines()
    if os.waitstatus_to_exitcode(status) != 0 or not out:
        return None, usage.ru_maxrss / 1024, "failed"
    return json.loads(out[-1]), usage.ru_maxrss / 1024, ""


def _risk(answer: dict | None) -> str:
    risk = (answer or {}).get("risk")
    if not risk or risk.get("value") is None:
        return "–"
    return f"{risk['value']:.3f} [{risk['low']:.3f}, {risk['high']:.3f}]"


def _agreement(kind: str, ours: dict | None, theirs: dict | None) -> str:
    if ours is None or theirs is None:
        return "–"
    if kind == "linkage":
        return f"correct links {ours['correct']:,} vs {theirs['correct']:,}"
    if kind == "exact":
        same = abs(ours["total"] - theirs["total"]) <= 1e-9 * (1 + abs(theirs["total"]))
        return f"total distance {'equal' if same else 'DIFFERS'}; attack proven optimal: {ours['proven']}"
    if kind == "cap":
        result = ours["result"]
        mine = result.get("sdmetrics_cap_score", result.get("disclosure_protection"))
        return f"score {mine:.6f} vs {theirs['score']:.6f}"
    if "scores" in ours:
        theirs_score = (theirs.get("scores") or {}).get("dcr_baseline")
        return f"score {ours['scores']['dcr_baseline']:.3f} vs {'–' if theirs_score is None else f'{theirs_score:.3f}'}"
    return f"risk {_risk(ours)} vs {_risk(theirs)}"


def cases(quick: bool, folder: Path) -> list[tuple[str, str, str, list, list]]:
    """(task, data, kind, attack's child args, the peer's child args)."""
    import bench_cap as bc
    import bench_synth_tools as st

    n_link, n_exact, n_synth, n_dcr, n_cap = (2_000, 2_000, 2_000, 1_000, 2_000) if quick else (
        10_000, 5_000, 10_000, 2_000, 5_000)
    synth, dcr, caps = folder / "synth", folder / "dcr", folder / "cap"
    for path, n in ((synth, n_synth), (dcr, n_dcr)):
        path.mkdir()
        for name, frame in st.make_data(n).items():
            frame.to_csv(path / f"{name}.csv", index=False)
    caps.mkdir()
    original, synthetic = bc.make_data(n_cap)
    original.to_csv(caps / "original.csv", index=False)
    synthetic.to_csv(caps / "synthetic.csv", index=False)
    out = [
        ("greedy linkage vs Python Record Linkage Toolkit", f"{n_link:,} × {n_link:,}, 20 blocks", "linkage",
         ["linkage", "attack", n_link], ["linkage", "recordlinkage", n_link]),
        ("exact assignment vs SciPy (dense)", f"{n_exact:,} × {int(1.25 * n_exact):,}, one block", "exact",
         ["exact", "attack", n_exact], ["exact", "scipy", n_exact]),
    ]
    for task, label in (("singling_out", "singling out"), ("linkability", "linkability"), ("inference", "inference")):
        out.append((f"{label} vs Anonymeter", f"{n_synth:,} rows, 500 attacks", "synthetic",
                    ["synthetic", "attack", task, synth], ["synthetic", "anonymeter", task, synth]))
    out.append(("DCR baseline vs SDMetrics", f"{n_dcr:,} rows", "synthetic",
                ["synthetic", "attack", "distance", dcr], ["synthetic", "sdmetrics", "distance", dcr]))
    for ours, theirs in (("cap_scores", "CategoricalCAP"), ("disclosure_protection", "DisclosureProtection")):
        out.append((f"{theirs} vs SDMetrics", f"{n_cap:,} rows", "cap",
                    ["cap", "attack", ours, caps], ["cap", "sdmetrics", theirs, caps]))
    return out


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    names = ("attack", "recordlinkage", "anonymeter", "sdmetrics", "scipy", "numpy", "pandas")
    found = []
    for name in names:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller data (about a minute)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per call (default 300)")
    parser.add_argument("--only", nargs="+", choices=sorted(CHILDREN), help="run only the rows of these kinds")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1:])
        return
    today = datetime.date.today().isoformat()
    print(f"{today}; {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; {_versions()}")
    print("| task | data | attack | peer | speed-up | agreement |")
    print("|---|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for task, data, kind, ours_args, theirs_args in cases(args.quick, Path(tmp)):
            if args.only and kind not in args.only:
                continue
            ours, our_peak, our_note = measure(ours_args, args.timeout)
            theirs, their_peak, their_note = measure(theirs_args, args.timeout)
            mine = f"{ours['seconds']:.2f} s, {our_peak:.0f} MiB" if ours else our_note
            peer = f"{theirs['seconds']:.2f} s, {their_peak:.0f} MiB" if theirs else their_note
            ratio = f"{theirs['seconds'] / ours['seconds']:.0f}×" if ours and theirs else "–"
            print(f"| {task} | {data} | {mine} | {peer} | {ratio} | {_agreement(kind, ours, theirs)} |", flush=True)


if __name__ == "__main__":
    main()
