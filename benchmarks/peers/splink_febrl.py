"""Splink beside attack's Fellegi–Sunter intruder on FEBRL4, both ways (docs/comparison.md).

Usage (Splink comes with the ``bench`` extra, never with the package)::

    pip install -e ".[bench]"
    python benchmarks/peers/splink_febrl.py [--seed 0] [--skip-attack]

The two cases are those of ``benchmarks/bench_febrl.py`` (same files, same seeded split): every
external unit present (5,000 × 5,000), and half of the external units absent (4,000 external
records against 3,000 release records, 2,000 units in both).

Splink's model is set up to match attack's: the same ten fields, strings compared on
exact / Jaro–Winkler ≥ 0.92 / ≥ 0.80 / different (attack's ``STRING_SIMILAR``) after attack's
text normalisation (lower case, punctuation and repeated spaces removed), postcode and state
exact / different; no term-frequency adjustments; λ from deterministic rules, u from 10⁶
random pairs (seed), m by EM on two blocking rules (names; date of birth), as Splink's own
FEBRL4 example does. Predictions are made on the union of five blocking rules (given name,
surname, date of birth, social security number, postcode): Splink compares blocked pairs only,
attack every pair. Both tools then keep one link per external record: attack its one-to-one
Hungarian links, Splink the pair of highest match probability per external record. Printed per
case, tool and threshold: links, correct links, precision, recall of the units present, F1.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench_febrl beside this folder

from bench_febrl import CODES, HEADER, STRINGS, cases, print_row  # noqa: E402

THRESHOLDS = (0.5, 0.9, 0.99)


def splink_links(external: pd.DataFrame, release: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Best Splink link per external record: ``external_unit``, ``release_unit``, ``probability``."""
    import splink.comparison_library as cl
    from splink import Linker, SettingsCreator, block_on
    from splink.backends.duckdb import DuckDBAPI

    from attack.linkage.fellegi_sunter import STRING_SIMILAR, normalise_text

    def prepared(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
        out = frame[[*STRINGS, *CODES]].apply(lambda c: c.map(normalise_text)).astype(object)
        out = out.where(out.notna(), None)
        out["unique_id"] = [f"{prefix}{i}" for i in range(len(frame))]
        out["unit"] = frame["unit"].to_numpy()
        return out

    left, right = prepared(external, "e"), prepared(release, "r")
    settings = SettingsCreator(
        link_type="link_only",
        comparisons=[cl.JaroWinklerAtThresholds(c, list(STRING_SIMILAR)) for c in STRINGS]
        + [cl.ExactMatch(c) for c in CODES],
        blocking_rules_to_generate_predictions=[block_on(c) for c in
                                                ("given_name", "surname", "date_of_birth", "soc_sec_id", "postcode")],
        additional_columns_to_retain=["unit"],
    )
    db = DuckDBAPI()
    if _takes_db_api():  # Splink 4
        linker = Linker([left, right], settings, db_api=db)
    else:  # Splink 5: the frames are registered with the backend first
        linker = Linker([db.register(left), db.register(right)], settings)
    linker.training.estimate_probability_two_random_records_match(
        [block_on("given_name", "surname", "date_of_birth")], recall=0.7)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6, seed=seed)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("given_name", "surname"))
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("date_of_birth"))
    pairs = linker.inference.predict(threshold_match_probability=0.01).as_pandas_dataframe()
    if pairs.empty:
        return pd.DataFrame(columns=["external_unit", "release_unit", "probability"])
    external_left = pairs["unique_id_l"].str.startswith("e")
    ext_unit = np.where(external_left, pairs["unit_l"], pairs["unit_r"])
    ext_id = np.where(external_left, pairs["unique_id_l"], pairs["unique_id_r"])
    rel_unit = np.where(external_left, pairs["unit_r"], pairs["unit_l"])
    table = pd.DataFrame({"external_id": ext_id, "external_unit": ext_unit, "release_unit": rel_unit,
                          "probability": pairs["match_probability"].to_numpy()})
    best = table.sort_values(["external_id", "probability"], ascending=[True, False], kind="stable")
    return best.drop_duplicates("external_id").reset_index(drop=True)


def _takes_db_api() -> bool:
    import inspect

    from splink import Linker

    return "db_api" in inspect.signature(Linker.__init__).parameters


def attack_links(external: pd.DataFrame, release: pd.DataFrame, seed: int) -> pd.DataFrame:
    """attack's Fellegi–Sunter intruder (Hungarian, no blocking) as the same table."""
    from attack.linkage.keys import Nominal, String
    from attack.linkage.link import link
    from attack.linkage.settings import Linkage

    keys = tuple(String(c) for c in STRINGS) + tuple(Nominal(c) for c in CODES)
    links = link(external, release, Linkage(keys=keys, method="hungarian", intruder="fellegi-sunter",
                                                seed=seed))
    rows = np.flatnonzero(links.linked)
    return pd.DataFrame({"external_unit": external["unit"].to_numpy()[rows],
                         "release_unit": release["unit"].to_numpy()[links.release_row[rows]],
                         "probability": links.match_probability[rows]})


def scores(links: pd.DataFrame, kept: int) -> list[tuple[str, int, int, float, float, float]]:
    """(threshold, links, correct, precision, recall of the units present, F1) per threshold."""
    out = []
    for p in THRESHOLDS:
        sure = links[links["probability"] >= p]
        correct = int((sure["external_unit"] == sure["release_unit"]).sum())
        precision = correct / len(sure) if len(sure) else float("nan")
        recall = correct / kept
        f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
        out.append((f"P >= {p}", len(sure), correct, precision, recall, f1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-attack", action="store_true", help="Run Splink only.")
    args = parser.parse_args()
    logging.getLogger("splink").setLevel(logging.WARNING)  # its training log, not our figures
    tools = {"splink": splink_links} if args.skip_attack else {"attack": attack_links, "splink": splink_links}
    print(HEADER.replace("intruder", "tool    "))
    for case, ext, rel, kept in cases(args.seed):
        for tool, run in tools.items():
            start = time.perf_counter()
            links = run(ext, rel, args.seed)
            seconds = time.perf_counter() - start
            for row in scores(links, kept):
                print_row(case, tool, row, seconds)


if __name__ == "__main__":
    main()
