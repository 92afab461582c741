"""The per-unit maximum over intruders (docs/method/intruders.md).

In the handbook's single-attack view a unit's risk is the largest over the attacks on it: a unit
is re-identified when any intruder re-identifies it, ``R(u) = max_j R_j(u)`` with ``R_j(u) = 1``
when intruder j links a record of u correctly. Per cell (the cells of the evaluation) this module
counts the units verifiable for at least one intruder, the units any intruder re-identifies,
their share with its Wilson interval, and which intruder finds which units: per intruder its
own units and re-identifications, the units only it re-identifies, and the units several
re-identify. Aggregates only. It is a figure beside the combined measure and the runs' own
verdicts, never part of the verdict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from attack.report.labels import cell_label
from attack.risk.evaluation import wilson_interval


def any_intruder(outcomes: Sequence[tuple[str, pd.DataFrame]]) -> dict:
    """The maximum over intruders from ``(intruder name, unit_outcomes frame)`` pairs of one
    release (``attack.risk.evaluation.unit_outcomes``): overall and per cell."""
    names = [name for name, _ in outcomes]
    frames = []
    for name, frame in outcomes:
        per_unit = frame.assign(cell=frame["cell"].astype(str)).groupby(["cell", "unit"], observed=True,
                                                                          sort=False)["correct"].any()
        frames.append(per_unit.rename(name))
    table = pd.concat(frames, axis=1)  # one row per (cell, unit) verifiable for some intruder
    present = set(table.index.get_level_values("cell"))
    # the evaluation's order of cells (the categories of the outcome frames), as in every run's table
    order = dict.fromkeys(c for _, frame in outcomes for c in frame["cell"].cat.categories if c in present)
    cells = []
    for text in order:
        cell = json.loads(text)
        cells.append({"cell": cell, "label": cell_label(cell), **_figures(table.xs(text, level="cell"), names)})
    return {"intruders": names, **_figures(table, names), "cells": cells}


def _figures(table: pd.DataFrame, names: list[str]) -> dict:
    """Counts and rates of one group of units (rows: units; columns: intruders, NaN where the
    unit is not verifiable for that intruder)."""
    found = table.eq(True)  # not verifiable for an intruder (NaN): not found by it
    n_found = found.sum(axis=1)
    n_units, n_any = len(table), int((n_found > 0).sum())
    return {
        "n_units": n_units,
        "n_reidentified": n_any,
        "reidentification_rate": n_any / n_units if n_units else 0.0,
        "reidentification_rate_ci": wilson_interval(n_any, n_units),
        "by_intruder": {
            name: {
                "n_units": int(table[name].notna().sum()),
                "n_reidentified": int(found[name].sum()),
                "reidentification_rate": (float(found[name].sum() / table[name].notna().sum())
                                          if table[name].notna().any() else None),
                "n_only_this": int((found[name] & (n_found == 1)).sum()),
            }
            for name in names
        },
        "n_by_several": int((n_found > 1).sum()),
        "n_by_none": int(n_units - n_any),
    }
