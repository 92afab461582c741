"""SUDA and DIS-SUDA: minimal sample uniques per record and the keys they involve
(docs/method/frequency-risk.md); on unless ``--no-suda``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attack.report.attack import ReportTable
from attack.report.frequency import number
from attack.risk.measures import Cells, FrequencyMeasure, measure
from attack.risk.suda import Suda, suda_scores


@dataclass(frozen=True)
class SudaOptions:
    suda: bool = True
    dis_fraction: float = 0.01


@measure("suda")
class SudaMeasure(FrequencyMeasure):
    """SUDA scores, DIS-SUDA scores and each key's share of the score."""

    order = 30
    options = SudaOptions

    @classmethod
    def settings(cls, options: SudaOptions, cells: Cells) -> dict[str, Any]:
        return {"dis_fraction": options.dis_fraction if options.suda else None}

    @classmethod
    def compute(cls, options: SudaOptions, cells: Cells) -> Suda | None:
        return suda_scores(cells.codes, cells.keys, options.dis_fraction) if options.suda else None

    @classmethod
    def entries(cls, section: Suda) -> dict[str, Any]:
        return {"suda": section.to_dict()}

    @classmethod
    def columns(cls, section: Suda) -> dict[str, np.ndarray]:
        out = {"suda_score": section.score, "dis_suda_score": section.dis_score}
        for j, key in enumerate(section.keys):
            out[f"{key}_contribution"] = section.contributions[:, j]
        return out

    @classmethod
    def tables(cls, document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
        suda = document.get("suda")
        if not suda:
            return []
        table = ReportTable(["key", "share of the SUDA score (%)"], [False, True])
        for key, value in suda["attribute_contributions"].items():
            table.add([key, number(value, 4)])
        dis = ReportTable(["DIS-SUDA score", "records"], [False, True])
        for label, count in suda["records_by_dis_score"].items():
            dis.add([label, str(count)])
        return [(table, f"SUDA: {suda['records_with_msu']} records with a minimal sample unique; "
                        "contribution of each key"),
                (dis, f"DIS-SUDA scores (sampling fraction {suda['dis_fraction']})")]
