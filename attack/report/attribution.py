"""The attribution of the re-identification rate to the keys, as report tables and a plot
(docs/method/attribution.md): aggregates only, failing cells with fewer than the minimum count
of verifiable units left out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attack.report.attack import ReportTable, fmt_num, svg_figure
from attack.report.labels import cell_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["attribution_context", "attribution_figure", "attribution_table", "cell_attribution_table"]


def attribution_table(explanation: Mapping[str, Any]) -> ReportTable:
    """One row per key: its Shapley value, its share of the rate and the leave-one-key-out change."""
    rate = float(explanation["reidentification_rate"])
    shares, loo = explanation["attribution"], explanation["leave_one_out"]
    error = explanation.get("error_95") or {}
    header = ["key", "attribution", "share of the rate", "rate lost without the key"]
    if error:
        header.insert(2, "± (95 %)")
    t = ReportTable(header, [False] + [True] * (len(header) - 1))
    for key in explanation["keys"]:
        row = [key, fmt_num(shares[key])]
        if error:
            row.append(fmt_num(error[key]))
        row += [f"{100 * shares[key] / rate:.1f} %" if rate else "–", fmt_num(loo[key])]
        t.add(row)
    return t


def cell_attribution_table(explanation: Mapping[str, Any], min_count: int) -> ReportTable | None:
    """Per failing cell with at least ``min_count`` verifiable units: its P_γ and each key's share."""
    keys = list(explanation["keys"])
    cells = [c for c in explanation.get("failing_cells", []) if c["n_verifiable"] >= min_count]
    if not cells:
        return None
    t = ReportTable(["cell", "γ", "P_γ", *keys], [False, True, True] + [True] * len(keys))
    for cell in cells:
        t.add([cell_label(cell["cell"]), cell["gamma"], fmt_num(cell["disclosure_risk"]),
               *(fmt_num(cell["attribution"][k]) for k in keys)], failing=True)
    return t


def attribution_figure(explanation: Mapping[str, Any]) -> Figure:
    """Bars: each key's attribution; dots: the rate lost without the key."""
    from matplotlib.figure import Figure

    keys = list(explanation["keys"])
    shares = [explanation["attribution"][k] for k in keys]
    loo = [explanation["leave_one_out"][k] for k in keys]
    fig = Figure(figsize=(6.0, 0.45 * len(keys) + 1.2))
    ax = fig.add_subplot()
    positions = list(range(len(keys)))[::-1]
    ax.barh(positions, shares, color="#1f77b4", label="attribution (Shapley value)")
    ax.scatter(loo, positions, color="#d62728", zorder=3, label="rate lost without the key")
    ax.set_yticks(positions, keys)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("re-identification rate")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def attribution_context(result: Mapping[str, Any], prefix: str, min_count: int) -> dict | None:
    """What a report shows of one attack's attribution (None when it has none)."""
    from attack.report.html import svg

    explanation = result.get("explanation")
    if not explanation:
        return None
    rate = float(explanation["reidentification_rate"])
    return {
        "table": attribution_table(explanation),
        "cells": cell_attribution_table(explanation, min_count),
        "svg": svg(svg_figure(attribution_figure(explanation), prefix)),
        "caption": f"{explanation['method'].capitalize()} of the re-identification rate ({rate:.4f}) over the "
                   f"keys: the attributions sum to the rate (a coalition's value is the rate of the intruder "
                   f"linking with those keys only; no key, no link). Dots: the rate lost when one key is "
                   f"left out. Failing cells with fewer than {min_count} verifiable units are not shown.",
    }
