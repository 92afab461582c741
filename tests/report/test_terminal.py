"""The terminal summary (attack.report.terminal): one γ for one cell in the table and the list."""

from __future__ import annotations

import re

from attack.report.terminal import cell_peak, render_summary


def _cell(label: str, risks: dict[str, float | None], passed: bool) -> dict:
    return {"cell": {"size": label}, "label": f"size {label}", "passed": passed, "n_verifiable": 10,
            "disclosure_risk": risks}


def test_table_and_list_name_the_same_gamma_for_the_top_cell() -> None:
    """P_γ ties at 1.0 for γ = 0.05 and 0.1: both the runs table and the failing-cell list name
    γ = 0.05, the smallest γ at which the cell reaches its highest risk."""
    cells = [_cell("small", {"0.05": 1.0, "0.1": 1.0}, False), _cell("large", {"0.05": 0.2, "0.1": 0.6}, False),
             _cell("mid", {"0.05": 0.1, "0.1": 0.2}, True)]
    run = {"name": "worst case", "release": "r.csv",
           "result": {"passed": False, "cells": cells, "tau": 0.5, "reidentification_rate": 1.0}}
    text = render_summary([run], "t")
    (row,) = [line for line in text.splitlines() if line.startswith("| NOT PASSED")]
    assert "| 1.0000 (0.05) |" in row and "2 of 3" in row
    listed = re.findall(r"- worst case: (size \w+): risk (\S+) at γ = (\S+) ", text)
    assert listed == [("size small", "1.0000", "0.05"), ("size large", "0.6000", "0.1")]


def test_cell_peak_prefers_the_smallest_gamma_among_equal_risks() -> None:
    assert cell_peak({"disclosure_risk": {"0.1": 0.5, "0.05": 0.5, "0.2": 0.4}}) == (0.5, "0.05")
    assert cell_peak({"disclosure_risk": {"0.05": 0.3, "0.1": 0.7}}) == (0.7, "0.1")
    assert cell_peak({"disclosure_risk": {"0.05": None}}) is None
