"""Hand-computed inputs from docs/reference/worked-examples.md, as data frames."""

from __future__ import annotations

import pandas as pd

# worked example 1.1 (docs/reference/worked-examples.md): original, release (in release order, provenance in unit_id), external.
ORIGINAL = pd.DataFrame(
    {
        "unit_id": ["u1", "u2", "u3", "u4", "u5", "u6"],
        "wz": ["15", "15", "15", "15", "22", "22"],
        "region": ["W", "W", "W", "E", "W", "W"],
        "turnover": [100, 120, 300, 110, 500, 520],
        "employees": [10, 12, 25, 11, 40, 45],
        "costs": [50, 70, 200, 60, 300, 310],
    }
)
RELEASE = pd.DataFrame(
    {
        "unit_id": ["u3", "u1", "u6", "u2", "u5", "u4"],
        "wz": ["15", "15", "22", "15", "22", "15"],
        "region": ["W", "W", "W", "W", "W", "E"],
        "turnover": [290, 118, 505, 102, 515, 112],
        "employees": [25, 11, 44, 12, 41, 11],
        "costs": [180, 52, 305, 75, 330, 61],
    }
)
EXTERNAL = pd.DataFrame(
    {
        "ext": ["e1", "e2", "e3", "e4", "e5"],
        "unit_id": ["u1", "u2", "u3", "u5", "u6"],
        "wz": ["15", "15", "15", "22", "22"],
        "region": ["W", "W", "W", "W", "W"],
        "turnover": [101, 119, 310, 498, 530],
        "employees": [10, 12, 26, 40, 46],
    }
)

# worked example 2.1 (docs/reference/worked-examples.md): handbook Table 13.1.
TABLE_13_1_A = pd.DataFrame(
    {
        "v1": [14008906, 14309437, 14330083, 14780637],
        "v2": [755187, 673189, 567300, 567553],
        "v3": [907264, 1179713, 920065, 1026861],
        "v4": [6582133, 8111720, 4871720, 5313029],
        "v5": [4794809, 5407676, 1667078, 3654241],
    }
)
TABLE_13_1_B = pd.DataFrame(
    {
        "v1": [14825332, 14045802, 13945802, 14996199],
        "v2": [563928, 724071, 682110, 563928],
        "v3": [913631, 1040229, 973631, 1050673],
        "v4": [4978410, 7064023, 7378984, 5252164],
        "v5": [1711353, 5078378, 508494, 3871084],
    }
)


# a scenario over the three frames above, written beside them by write_study()
STUDY_SCENARIO = """\
title = "study"

[data]
external = { path = "ext.csv", id = "unit_id" }
release = { path = "rel.csv", id = "unit_id" }
original = { path = "orig.csv", id = "unit_id" }

[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["wz"]

[evaluation]
gamma = [0.1]
targets = ["turnover", "employees"]
"""


def write_study(folder, extra: str = ""):
    """The three frames as ext.csv, rel.csv and orig.csv and STUDY_SCENARIO (plus ``extra``
    tables) as scenario.toml in ``folder``; returns the scenario's path."""
    EXTERNAL.to_csv(folder / "ext.csv", index=False)
    RELEASE.to_csv(folder / "rel.csv", index=False)
    ORIGINAL.to_csv(folder / "orig.csv", index=False)
    path = folder / "scenario.toml"
    path.write_text(STUDY_SCENARIO + extra, encoding="utf-8")
    return path
