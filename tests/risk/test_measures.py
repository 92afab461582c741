"""attack.risk.measures: the recipe for a new frequency-risk measure
(docs/contributing/add-a-frequency-risk-measure.md) followed on a toy measure, which is found,
run, reported and forgotten; and the built-in measures in their order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import attack
from attack.report.frequency import REPORT_LINES, render_frequency_markdown
from attack.risk.measures import MEASURES, Cells, FrequencyMeasure, measure, unregister

#: key cells (1,x) x3, (2,y) x2, (3,y) x1: one sample unique
FRAME = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3], "b": list("xxxyyy")})


@dataclass(frozen=True)
class SmallCellOptions:
    below: int = 2
    k: int = 3  # a keyword of frequency_risk: its value is taken from there


@pytest.fixture
def toy() -> Iterator[str]:
    @measure("small_cells")
    class SmallCells(FrequencyMeasure):
        order = 50
        options = SmallCellOptions

        @classmethod
        def settings(cls, options: SmallCellOptions, cells: Cells) -> dict:
            return {"small_cells_below": options.below}

        @classmethod
        def compute(cls, options: SmallCellOptions, cells: Cells) -> np.ndarray | None:
            return None if options.below > options.k else cells.fk < options.below

        @classmethod
        def entries(cls, section: np.ndarray) -> dict:
            return {"small_cells": {"records": int(section.sum())}}

        @classmethod
        def columns(cls, section: np.ndarray) -> dict:
            return {"in_small_cell": section}

        @classmethod
        def overview(cls, document: dict) -> list[list[str]]:
            entry = document.get("small_cells")
            return [["records in small cells", str(entry["records"])]] if entry else []

    yield "small_cells"
    unregister("small_cells")


def test_a_registered_measure_reaches_the_json_records_and_report(toy: str) -> None:
    assert toy in MEASURES and toy in REPORT_LINES
    result = attack.frequency_risk(FRAME, ["a", "b"], suda=False, options={toy: {"below": 3}})
    document = result.to_dict()
    assert document["small_cells"] == {"records": 3}  # the cells of 2 and of 1 record
    # its setting follows the keywords' settings, then the options as given
    assert list(document["settings"])[-2:] == ["small_cells_below", "options"]
    assert document["settings"]["options"] == {toy: {"below": 3}}
    assert result.records()["in_small_cell"].tolist() == [False, False, False, True, True, True]
    assert "| records in small cells | 3 |" in render_frequency_markdown(document).replace("  ", " ")
    # the keyword k reaches the option named like it: below 3 > k 2 switches the measure off
    assert "small_cells" not in attack.frequency_risk(FRAME, ["a", "b"], suda=False, k=2,
                                                      options={toy: {"below": 3}}).to_dict()


def test_a_forgotten_measure_is_gone(toy: str) -> None:
    unregister(toy)
    document = attack.frequency_risk(FRAME, ["a", "b"], suda=False).to_dict()
    assert "small_cells" not in document and "small_cells_below" not in document["settings"]


def test_options_of_an_unknown_or_misspelt_measure_are_refused(toy: str) -> None:
    with pytest.raises(attack.InputError, match="did you mean 'small_cells'") as caught:
        attack.frequency_risk(FRAME, ["a", "b"], options={"small_cell": {}})
    assert caught.value.field == "options"
    with pytest.raises(attack.InputError, match="frequency-risk measure small_cells.*size"):
        attack.frequency_risk(FRAME, ["a", "b"], options={toy: {"size": 3}})


def test_the_built_in_measures_run_in_report_order() -> None:
    assert MEASURES.names()[:4] == ["household", "l_diversity", "suda", "population"]
    assert REPORT_LINES.names()[:4] == MEASURES.names()[:4]


def test_a_measure_without_compute_is_refused_when_registered() -> None:
    class Empty(FrequencyMeasure):
        order = 99

    with pytest.raises(TypeError, match="'empty' .* does not define compute"):
        measure("empty")(Empty)
    assert "empty" not in MEASURES
