"""Produce the ARX golden values of tests/risk/test_population_uniqueness.py and
tests/risk/test_attackers.py (run by hand; no test runs Java).

Usage::

    python tools/arx_golden/make_golden.py ARX_CHECKOUT OUT_DIR [--adult ADULT_CSV]

``ARX_CHECKOUT`` is a checkout of https://github.com/arx-deidentifier/arx (the values in the
tests come from commit aacd487fb, "Improve display of percentages"). The script copies ARX's
own ``ModelPitman``, ``ModelZayatz``, ``ModelSNB``, ``RiskModelPopulation``,
``RiskModelPopulationUniqueness``, ``Gamma``, ``RiskModelHistogram`` (without its constructor
from a data handle, the one change), ``RiskModelSampleSummary``, ``ARXPopulationModel``,
``ARXSolverConfiguration``, ``ParameterTranslation``, ``Groupify``, ``TupleWrapper``,
``WrappedBoolean``, ``WrappedInteger`` and ``ComputationInterruptedException`` next to the
two stubs of this folder (``DataHandle``, ``DataHandleInternal``: rows of strings in memory)
and the harness ``Golden.java``, compiles them with ``javac`` against the jars ARX ships
(``lib/ant/newtonraphson/newtonraphson-0.0.1.jar``, ``lib/ant/commons/commons-math3-3.6.1.jar``,
``lib/ant/hppc/hppc-0.6.0.jar``) and prints the histograms with ARX's results as Python literals.

``--adult`` is UCI Adult's ``adult.data`` as CSV with a header (CC BY 4.0; the UCI machine
learning repository); its class-size histograms on (age, sex, race, marital-status) and
(age, sex, education, occupation) of seeded samples are part of the golden set.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ARX_FILES = ["risk/ModelPitman", "risk/ModelZayatz", "risk/ModelSNB", "risk/RiskModelPopulation",
             "risk/RiskModelPopulationUniqueness", "risk/Gamma", "risk/RiskModelHistogram",
             "risk/RiskModelSampleSummary", "ARXPopulationModel", "ARXSolverConfiguration",
             "reliability/ParameterTranslation", "common/Groupify", "common/TupleWrapper",
             "common/WrappedBoolean", "common/WrappedInteger", "exceptions/ComputationInterruptedException"]
JARS = ["lib/ant/newtonraphson/newtonraphson-0.0.1.jar", "lib/ant/commons/commons-math3-3.6.1.jar",
        "lib/ant/hppc/hppc-0.6.0.jar"]
FRACTIONS = (0.01, 0.05, 0.1, 0.2, 0.5, 0.9)

#: Hand-made histograms (size: count).
HAND_MADE = [
    {1: 50, 2: 30, 3: 10, 5: 4, 10: 2},
    {1: 500, 2: 30, 3: 10, 5: 4, 10: 2},
    {1: 120, 2: 60, 3: 35, 4: 20, 6: 9, 9: 4, 15: 2, 40: 1},
    {1: 8, 2: 12, 3: 20, 4: 25, 5: 18, 8: 6},
    {1: 1000, 2: 200, 3: 50, 4: 10},
]


def pitman_population(units: int, theta: float, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Class label of each unit of a Chinese-restaurant (Pitman) population."""
    labels = np.empty(units, dtype=np.int64)
    sizes: list[int] = []
    for t in range(units):
        if rng.random() * (theta + t) < theta + alpha * len(sizes):
            sizes.append(1)
            labels[t] = len(sizes) - 1
        else:
            weights = np.asarray(sizes, dtype=float) - alpha
            j = int(np.searchsorted(np.cumsum(weights), rng.random() * weights.sum()))
            sizes[j] += 1
            labels[t] = j
    return labels


def sample_histogram(labels: np.ndarray, fraction: float, rng: np.random.Generator) -> dict[int, int]:
    n = int(round(fraction * labels.size))
    drawn = rng.choice(labels, size=n, replace=False)
    sizes = np.unique(np.unique(drawn, return_counts=True)[1], return_counts=True)
    return {int(s): int(c) for s, c in zip(*sizes, strict=True)}


def histograms(adult: Path | None) -> list[tuple[float, dict[int, int]]]:
    rng = np.random.default_rng(46)
    cases = [(f, h) for h in HAND_MADE for f in FRACTIONS]
    for theta, alpha in ((200.0, 0.3), (50.0, 0.7)):
        labels = pitman_population(20000, theta, alpha, rng)
        cases += [(f, sample_histogram(labels, f, rng)) for f in FRACTIONS]
    if adult is not None:
        frame = pd.read_csv(adult, dtype=str)
        for keys in (["age", "sex", "race", "marital-status"], ["age", "sex", "education", "occupation"]):
            labels = frame.groupby(keys).ngroup().to_numpy()
            cases += [(f, sample_histogram(labels, f, rng)) for f in FRACTIONS]
    return cases


def compile_harness(arx: Path, build: Path) -> str:
    source = build / "src" / "org" / "deidentifier" / "arx"
    for name in ARX_FILES:
        target = source / f"{name}.java"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(arx / "src" / "main" / "org" / "deidentifier" / "arx" / f"{name}.java", target)
    _strip_handle_constructor(source / "risk" / "RiskModelHistogram.java")
    shutil.copy(HERE / "DataHandle.java", source / "DataHandle.java")
    shutil.copy(HERE / "DataHandleInternal.java", source / "DataHandleInternal.java")
    shutil.copy(HERE / "Golden.java", source / "risk" / "Golden.java")
    classpath = ":".join(str(arx / j) for j in JARS)
    subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(build / "out"), "-cp", classpath,
                    *map(str, sorted(source.rglob("*.java")))], check=True)
    return f"{build / 'out'}:{classpath}"


def _strip_handle_constructor(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index("    RiskModelHistogram(final DataHandleInternal handle")
    doc = text.rindex("/**", 0, start)
    depth, opening = 0, text.index("{", start)
    end = opening
    for end in range(opening, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    text = text[:doc] + text[end + 1:]
    for line in ("import java.util.Set;\n", "import org.deidentifier.arx.DataHandleInternal;\n",
                 "import org.deidentifier.arx.common.Groupify;\n",
                 "import org.deidentifier.arx.common.Groupify.Group;\n",
                 "import org.deidentifier.arx.common.TupleWrapper;\n"):
        text = text.replace(line, "")
    path.write_text(text, encoding="utf-8")


#: Attacker cases: (sample size f, population size F) per key class, the classes of one key
#: pair (k1, k2) = (i % 7, i // 7).
ATTACKER_CASES = [
    [(1, 1), (1, 3), (2, 2), (2, 9), (3, 3), (4, 12), (5, 40), (1, 20)],
    [(1, 5), (1, 8), (1, 11), (2, 6), (3, 30), (6, 6), (10, 100)],
    [(3, 3), (4, 4), (5, 5), (7, 7)],
]
THRESHOLDS = (0.1, 0.2, 0.5)


def write_attacker_files(case: list[tuple[int, int]], folder: Path) -> tuple[Path, Path]:
    sample, population = ["k1,k2"], ["k1,k2"]
    for i, (f, big_f) in enumerate(case):
        sample += [f"{i % 7},{i // 7}"] * f
        population += [f"{i % 7},{i // 7}"] * big_f
    population += ["x,y"] * 5   # a class absent from the sample
    (folder / "sample.csv").write_text("\n".join(sample) + "\n")
    (folder / "population.csv").write_text("\n".join(population) + "\n")
    return folder / "sample.csv", folder / "population.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("arx", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--adult", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    classpath = compile_harness(args.arx, args.out)
    cases = histograms(args.adult)
    lines = "".join(f"{f} " + " ".join(f"{s}:{c}" for s, c in sorted(h.items())) + "\n" for f, h in cases)
    run = subprocess.run(["java", "-cp", classpath, "org.deidentifier.arx.risk.Golden", "pu"], input=lines,
                         capture_output=True, text=True, check=True)
    print("GOLDEN_HISTOGRAMS = [")
    for (f, h), out in zip(cases, run.stdout.splitlines(), strict=True):
        big_n, pit, zay, snb, dankar, model = out.split()
        print(f"    ({f!r}, {dict(sorted(h.items()))!r}, {int(big_n)}, {float(pit)!r}, {float(zay)!r}, "
              f"{float(snb)!r}, {float(dankar)!r}, {model.lower()!r}),")
    print("]")
    print("GOLDEN_ATTACKERS = [")
    for case in ATTACKER_CASES:
        sample, population = write_attacker_files(case, args.out)
        for t in THRESHOLDS:
            for files in ((sample,), (sample, population)):
                out = subprocess.run(["java", "-cp", classpath, "org.deidentifier.arx.risk.Golden", "summary", str(t),
                                      *map(str, files)], capture_output=True, text=True, check=True).stdout
                values = [float(v) for v in out.split()]
                print(f"    ({case!r}, {t!r}, {len(files) == 2!r}, {values!r}),")
    print("]")


if __name__ == "__main__":
    sys.exit(main())
