"""Household risk: the probability that someone of a record's household is re-identified
(docs/method/frequency-risk.md), with ``--household``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attack.report.frequency import number
from attack.risk.individual import HouseholdMethod, household_risk
from attack.risk.measures import Cells, FrequencyMeasure, measure, quantiles


@dataclass(frozen=True)
class HouseholdOptions:
    household_method: HouseholdMethod = "product"


@measure("household")
class HouseholdMeasure(FrequencyMeasure):
    """``1 − Π(1 − r)`` over the household's individual risks (or the same by inclusion-exclusion)."""

    order = 10
    options = HouseholdOptions

    @classmethod
    def settings(cls, options: HouseholdOptions, cells: Cells) -> dict[str, Any]:
        return {"household_method": options.household_method if cells.household is not None else None}

    @classmethod
    def compute(cls, options: HouseholdOptions, cells: Cells) -> np.ndarray | None:
        if cells.households is None:
            return None
        return household_risk(cells.risk, cells.households, options.household_method)

    @classmethod
    def entries(cls, section: np.ndarray) -> dict[str, Any]:
        er = float(np.sum(section))
        return {"household_risk": {"expected_reidentifications": er, "global_risk": er / section.size,
                                   "global_risk_pct": 100 * er / section.size, "quantiles": quantiles(section)}}

    @classmethod
    def columns(cls, section: np.ndarray) -> dict[str, np.ndarray]:
        return {"household_risk": section}

    @classmethod
    def overview(cls, document: Mapping[str, Any]) -> list[list[str]]:
        household = document.get("household_risk")
        if not household:
            return []
        return [["household: expected re-identifications", number(household["expected_reidentifications"])],
                ["household: global risk", number(household["global_risk"])]]
