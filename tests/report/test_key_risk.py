"""Report rows and plot of the attribution to the keys (attack/report/key_risk.py)."""

from __future__ import annotations

from attack.report.attack import attribution_context
from attack.report.key_risk import attribution_caption, cell_rows, key_rows

EXPLANATION = {
    "method": "exact Shapley values", "keys": ["turnover", "employees"], "reidentification_rate": 0.5,
    "attribution": {"turnover": 0.4, "employees": 0.1}, "leave_one_out": {"turnover": 0.3, "employees": 0.05},
    "failing_cells": [
        {"cell": {"size": "large"}, "gamma": "0.1", "n_verifiable": 12, "disclosure_risk": 0.6,
         "attribution": {"turnover": 0.45, "employees": 0.15}, "leave_one_out": {"turnover": 0.4, "employees": 0.1}},
        {"cell": {"size": "tiny"}, "gamma": "0.1", "n_verifiable": 2, "disclosure_risk": 1.0,
         "attribution": {"turnover": 0.5, "employees": 0.5}, "leave_one_out": {"turnover": 0.0, "employees": 0.0}},
    ],
}


def test_key_rows_show_shares_of_the_rate() -> None:
    header, numeric, rows = key_rows(EXPLANATION)
    assert header == ["key", "attribution", "share of the rate", "rate lost without the key"]
    assert numeric == [False, True, True, True]
    assert rows == [["turnover", "0.4000", "80.0 %", "0.3000"], ["employees", "0.1000", "20.0 %", "0.0500"]]
    sampled = {**EXPLANATION, "error_95": {"turnover": 0.01, "employees": 0.02}}
    assert key_rows(sampled)[0][2] == "± (95 %)" and key_rows(sampled)[2][0][2] == "0.0100"


def test_small_failing_cells_are_left_out() -> None:
    rows = cell_rows(EXPLANATION, min_count=3)
    assert rows is not None and len(rows[2]) == 1 and rows[2][0][2] == "0.6000"
    assert cell_rows(EXPLANATION, min_count=20) is None


def test_report_context_has_a_plot_and_none_without_explanation() -> None:
    shown = attribution_context({"explanation": EXPLANATION}, "t", 3)
    assert shown is not None and shown["svg"].count("<svg") == 1
    assert shown["caption"] == attribution_caption(EXPLANATION, 3) and "sum to the rate" in shown["caption"]
    assert shown["caption"].startswith("Exact Shapley values of the re-identification rate (0.5000)")
    assert len(shown["table"].rows) == 2 and all(shown["cells"].failing)
    assert attribution_context({}, "t", 3) is None
