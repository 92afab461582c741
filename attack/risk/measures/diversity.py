"""l-diversity of a sensitive variable per key combination (docs/method/frequency-risk.md), with
``--sensitive``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from attack.io.readers import require_columns
from attack.report.frequency import number
from attack.risk.key_cells import LDiversity, l_diversity
from attack.risk.measures import Cells, FrequencyMeasure, measure


@measure("l_diversity")
class LDiversityMeasure(FrequencyMeasure):
    """Distinct values of the sensitive variable in each record's key cell."""

    order = 20

    @classmethod
    def compute(cls, options: Any, cells: Cells) -> LDiversity | None:
        if cells.sensitive is None:
            return None
        require_columns(cells.table, [cells.sensitive])
        return l_diversity(cells.table.frame, list(cells.keys), cells.sensitive, warn=False)

    @classmethod
    def entries(cls, section: LDiversity) -> dict[str, Any]:
        return {"l_diversity": section.to_dict()}

    @classmethod
    def columns(cls, section: LDiversity) -> dict[str, np.ndarray]:
        return {"l_diversity": section.diversity}

    @classmethod
    def overview(cls, document: Mapping[str, Any]) -> list[list[str]]:
        diversity = document.get("l_diversity")
        if not diversity:
            return []
        return [[f"smallest l-diversity of {diversity['sensitive']}", number(diversity["min_l"])]]
