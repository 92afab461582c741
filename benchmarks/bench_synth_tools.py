"""Synthetic-data attacks of ``attack`` against Anonymeter and SDMetrics: time and peak memory.

Usage::

    python benchmarks/bench_synth_tools.py [--rows N ...] [--timeout SECONDS]

For each N (default 2,000 and 10,000) the script writes N original, N synthetic and N holdout
records to CSV files in a temporary folder and runs, each call in its own process (peak
resident memory from ``wait4`` is that call's alone, interpreter, imports and CSV reading
included):

* singling out, multivariate, 500 attacks, 3 columns per query —
  ``attack.synth_attacks.singling_out`` vs Anonymeter ``SinglingOutEvaluator``;
* linkability, 500 attacks, 1 neighbour — ``attack.synth_attacks.linkability`` vs
  Anonymeter ``LinkabilityEvaluator`` (same two auxiliary column sets);
* inference of a categorical secret, 500 attacks — ``attack.synth_attacks.inference`` vs
  Anonymeter ``InferenceEvaluator``;
* DCR baseline and overfitting protection — one ``attack.synth_distance.distance_attack`` call
  (Gower preparation fitted on the original, holdout as control; it computes both scores and
  much more) vs SDMetrics ``DCRBaselineProtection`` and ``DCROverfittingProtection``.

Anonymeter 1.1.0 and SDMetrics 0.32.0 (``pip install -e ".[bench]"``) run under the interpreter
named by ``ATTACK_PEER_PYTHON`` (default: this one), each in its own process, and are never
imported by the package. The tools draw their targets, queries and random
records differently, so risks and scores agree only roughly; the point is time and memory.
A call that exceeds ``--timeout`` is killed and shown as "timeout".

Data: four skewed numeric columns (rounded age, log-normal income, gamma hours, zero-inflated
savings) and three categorical columns with 5, 12 and 30 levels of unequal frequency. Half the
synthetic rows are original rows whose numeric cells are each perturbed with probability 0.5
(so some exact copies remain), the other half fresh draws from the same population.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

BENCH_PYTHON = Path(os.environ.get("ATTACK_PEER_PYTHON", sys.executable))
NUMERIC = ["age", "income", "hours", "savings"]
CATEGORICAL = {"sex_status": 5, "sector": 12, "region": 30}
N_ATTACKS = 500
N_COLS = 3
LINK_AUX = (["age", "sex_status", "region"], ["income", "hours", "sector"])
SECRET = "sex_status"
INFERENCE_AUX = ["age", "income", "hours", "savings", "sector", "region"]
FILES = ("original", "synthetic", "holdout")
# task → (our child task, other tool, other tool's child task)
TASKS = {
    "singling out": ("singling_out", "anonymeter", "singling_out"),
    "linkability": ("linkability", "anonymeter", "linkability"),
    "inference": ("inference", "anonymeter", "inference"),
    "DCR baseline protection": ("distance", "sdmetrics", "dcr_baseline"),
    "DCR overfitting protection": ("distance", "sdmetrics", "dcr_overfitting"),
}


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` mixed records; level frequencies of the categorical columns are fixed."""
    age = np.clip(np.round(rng.normal(42, 14, n)), 16, 95)
    data: dict[str, np.ndarray] = {
        "age": age,
        "income": np.round(rng.lognormal(10 + 0.01 * age, 0.8), -1),
        "hours": np.round(rng.gamma(6, 6.5, n)),
        "savings": np.where(rng.random(n) < 0.4, 0.0, np.round(rng.lognormal(8, 1.5, n))),
    }
    for name, levels in CATEGORICAL.items():
        weights = np.random.default_rng(levels).dirichlet(np.full(levels, 0.8))
        labels = np.array([f"{name[:3]}{i:02d}" for i in range(levels)], dtype=object)
        data[name] = labels[rng.choice(levels, size=n, p=weights)]
    return pd.DataFrame(data)


def make_data(n: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Original, synthetic and holdout files of ``n`` records each (module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    original, holdout, fresh = (population(n, rng) for _ in range(3))
    copied = original.sample(n=n // 2, random_state=seed).reset_index(drop=True)
    for column in NUMERIC:
        values = copied[column].to_numpy(dtype=float, copy=True)
        noisy = rng.random(values.size) < 0.5
        values[noisy] = np.round(values[noisy] * rng.lognormal(0, 0.05, noisy.sum()))
        copied[column] = values
    synthetic = pd.concat([copied, fresh.iloc[: n - n // 2]], ignore_index=True)
    synthetic = synthetic.sample(frac=1, random_state=seed).reset_index(drop=True)
    return {"original": original, "synthetic": synthetic, "holdout": holdout}


def _load(folder: str) -> dict[str, pd.DataFrame]:
    return {name: pd.read_csv(Path(folder, f"{name}.csv")) for name in FILES}


# -- children -----------------------------------------------------------------------------


def _risk(value: float | None, low: float | None, high: float | None) -> dict:
    return {"value": value, "low": low, "high": high}


def run_ours(task: str, folder: str) -> dict:
    from attack.synthetic_attacks.anonymeter import inference, linkability, singling_out
    from attack.synthetic_attacks.distance import distance_attack
    from attack.synthetic_attacks.space import prepare

    data = _load(folder)
    ori, syn, ctrl = data["original"], data["synthetic"], data["holdout"]
    start = time.perf_counter()
    if task == "distance":
        result = distance_attack(ori, syn, prepare(ori, metric="gower_mean"), control=ctrl)
        seconds = time.perf_counter() - start
        baseline, overfitting = result.baseline_protection, result.overfitting_protection or {}
        return {"seconds": seconds, "scores": {
            "dcr_baseline": baseline["score"],
            "dcr_overfitting": overfitting.get("score"),
        }, "n_random": baseline["n_random"]}
    if task == "singling_out":
        result = singling_out(ori, syn, ctrl, n_attacks=N_ATTACKS, n_cols=N_COLS)
    elif task == "linkability":
        result = linkability(ori, syn, ctrl, aux_columns=LINK_AUX, n_attacks=N_ATTACKS)
    else:
        result = inference(ori, syn, ctrl, aux_columns=INFERENCE_AUX, secret=SECRET,
                           n_attacks=N_ATTACKS)
    seconds = time.perf_counter() - start
    risk = result.risk
    return {"seconds": seconds,
            "risk": None if risk is None else _risk(risk.value, risk.low, risk.high)}


def run_anonymeter(task: str, folder: str) -> dict:
    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
    )

    data = _load(folder)
    ori, syn, ctrl = data["original"], data["synthetic"], data["holdout"]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task == "singling_out":
            evaluator = SinglingOutEvaluator(ori, syn, n_attacks=N_ATTACKS, n_cols=N_COLS,
                                             control=ctrl, seed=0)
            evaluator.evaluate(mode="multivariate")
        elif task == "linkability":
            evaluator = LinkabilityEvaluator(ori, syn, aux_cols=LINK_AUX, n_attacks=N_ATTACKS,
                                             n_neighbors=1, control=ctrl)
            evaluator.evaluate(n_jobs=1)
        else:
            evaluator = InferenceEvaluator(ori, syn, aux_cols=INFERENCE_AUX, secret=SECRET,
                                           n_attacks=N_ATTACKS, control=ctrl)
            evaluator.evaluate(n_jobs=1)
        risk = evaluator.risk()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "risk": _risk(float(risk.value), *map(float, risk.ci))}


def run_sdmetrics(task: str, folder: str) -> dict:
    from sdmetrics.single_table import DCRBaselineProtection, DCROverfittingProtection

    data = _load(folder)
    columns = {c: {"sdtype": "numerical"} for c in NUMERIC}
    columns.update({c: {"sdtype": "categorical"} for c in CATEGORICAL})
    metadata = {"columns": columns}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task == "dcr_baseline":
            out = DCRBaselineProtection.compute_breakdown(
                data["original"], data["synthetic"], metadata, None)
        else:
            out = DCROverfittingProtection.compute_breakdown(
                data["original"], data["synthetic"], data["holdout"], metadata, None)
    score = float(out["score"])
    return {"seconds": time.perf_counter() - start,
            "scores": {task: score if np.isfinite(score) else None}}


def run_load(folder: str) -> dict:
    """Interpreter start and CSV reading only: the floor under every peak memory figure."""
    start = time.perf_counter()
    _load(folder)
    return {"seconds": time.perf_counter() - start}


# -- parent -------------------------------------------------------------------------------


def _child(python: Path | str, timeout: float, *args: str) -> tuple[dict | None, float | None]:
    """Run this script as a child: its JSON answer and peak memory in MiB; (None, None) on a
    timeout, ({"error": …}, peak) when the child fails."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([str(python), __file__, "--child", *args], stdout=out,
                                stderr=err, text=True)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.kill(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                return None, None
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        peak = usage.ru_maxrss / 1024
        if proc.returncode:
            err.seek(0)
            lines = err.read().strip().splitlines()
            return {"error": lines[-1] if lines else f"exit {proc.returncode}"}, peak
        out.seek(0)
        return json.loads(out.read()), peak


def _fmt_risk(answer: dict | None, key: str | None) -> str:
    if answer is None:
        return "timeout"
    if "error" in answer:
        return "error"
    if key is not None:
        value = answer["scores"][key]
        return "undefined" if value is None else f"{value:.4f}"
    risk = answer["risk"]
    if risk is None or risk["value"] is None:
        return "undefined"
    return f"{risk['value']:.4f} [{risk['low']:.3f},{risk['high']:.3f}]"


def _fmt(answer: dict | None, peak: float | None) -> tuple[str, str]:
    if answer is None:
        return "timeout", "-"
    if "error" in answer:
        return "error", f"{peak:.0f}"
    return f"{answer['seconds']:.2f}", f"{peak:.0f}"


def _versions() -> dict[str, str]:
    probe = ("import importlib.metadata as m; "
             "print(m.version('anonymeter'), m.version('sdmetrics'))")
    out = subprocess.run([str(BENCH_PYTHON), "-c", probe], capture_output=True, text=True,
                         timeout=120)
    if out.returncode:
        return {}
    anonymeter, sdmetrics = out.stdout.split()
    return {"anonymeter": anonymeter, "sdmetrics": sdmetrics}


def compare(sizes: list[int], timeout: float) -> None:
    versions = _versions() if BENCH_PYTHON.exists() else {}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; timeout {timeout:g} s "
          "per call")
    if versions:
        print(f"anonymeter {versions['anonymeter']}, sdmetrics {versions['sdmetrics']} via "
              f"{BENCH_PYTHON}")
    else:
        print(f"{BENCH_PYTHON} missing or without anonymeter/sdmetrics: other tools skipped")
    print("Risks/scores come from differently randomised attacks and agree only roughly; "
          "risk = residual risk [CI], score = SDMetrics protection score (1 = best).")
    for n in sizes:
        with tempfile.TemporaryDirectory() as folder:
            for name, frame in make_data(n).items():
                frame.to_csv(Path(folder, f"{name}.csv"), index=False)
            floor = [_child(sys.executable, timeout, "load", folder)[1]]
            if versions:
                floor.append(_child(BENCH_PYTHON, timeout, "load", folder)[1])
            print(f"\nN = {n:,} original + {n:,} synthetic + {n:,} holdout; interpreter + CSV "
                  f"reading alone: {' / '.join(f'{p:.0f}' for p in floor)} MiB "
                  "(attack / bench venv)")
            print(f"{'attack':27} {'tool':10} {'risk/score attack':27} {'risk/score other':27} "
                  f"{'s att':>7} {'s other':>8} {'MiB att':>8} {'MiB oth':>8}")
            ours_cache: dict[str, tuple[dict | None, float | None]] = {}
            for label, (our_task, tool, their_task) in TASKS.items():
                if our_task not in ours_cache:
                    ours_cache[our_task] = _child(sys.executable, timeout, "ours", our_task,
                                                  folder)
                ours, our_peak = ours_cache[our_task]
                if versions:
                    theirs, their_peak = _child(BENCH_PYTHON, timeout, tool, their_task, folder)
                else:
                    theirs, their_peak = {"error": "skipped"}, 0.0
                key = their_task if our_task == "distance" else None
                s_ours, m_ours = _fmt(ours, our_peak)
                s_theirs, m_theirs = _fmt(theirs, their_peak) if versions else ("-", "-")
                other = _fmt_risk(theirs, key) if versions else "skipped"
                print(f"{label:27} {tool:10} {_fmt_risk(ours, key):27} {other:27} "
                      f"{s_ours:>7} {s_theirs:>8} {m_ours:>8} {m_theirs:>8}", flush=True)
                for side, answer in (("attack", ours), (tool, theirs)):
                    if versions and answer is not None and "error" in answer:
                        print(f"    {side} failed: {answer['error']}")
            distance = ours_cache["distance"][0]
            if distance and "n_random" in distance:
                print(f"    attack: one distance_attack call gives both DCR scores (time and "
                      f"memory repeat); {distance['n_random']:,} uniform random records vs "
                      f"SDMetrics' {n:,}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        side, *rest = sys.argv[2:]
        runners = {"ours": run_ours, "anonymeter": run_anonymeter, "sdmetrics": run_sdmetrics}
        answer = run_load(*rest) if side == "load" else runners[side](*rest)
        print(json.dumps(answer))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[2_000, 10_000], metavar="N",
                        help="records in each of the original, synthetic and holdout files")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before a single measured call is killed")
    args = parser.parse_args()
    compare(args.rows, args.timeout)


if __name__ == "__main__":
    main()
