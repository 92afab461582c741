"""Report tables and plot of the attribution to the keys (attack/report/attribution.py)."""

from __future__ import annotations

from attack.report.attribution import attribution_context, attribution_table, cell_attribution_table

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


def test_key_table_shows_shares_of_the_rate() -> None:
    table = attribution_table(EXPLANATION)
    assert table.header == ["key", "attribution", "share of the rate", "rate lost without the key"]
    assert [row[0] for row in table.rows] == ["turnover", "employees"]
    assert [row[2] for row in table.rows] == ["80.0 %", "20.0 %"]


def test_small_failing_cells_are_left_out() -> None:
    table = cell_attribution_table(EXPLANATION, min_count=3)
    assert table is not None and len(table.rows) == 1 and table.rows[0][0].startswith("size")
    assert cell_attribution_table(EXPLANATION, min_count=20) is None


def test_context_has_a_plot_and_none_without_explanation() -> None:
    shown = attribution_context({"explanation": EXPLANATION}, "t", 3)
    assert shown is not None and shown["svg"].count("<svg") == 1 and "sum to the rate" in shown["caption"]
    assert attribution_context({}, "t", 3) is None
