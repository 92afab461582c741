"""The attribution of the re-identification rate to the keys as report rows and a plot
(docs/method/attribution.md): aggregates only, failing cells with fewer than the minimum count
of verifiable units left out. ``attack.report.attack.attribution_context`` makes the report
tables of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attack.report.labels import cell_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Rows", "attribution_caption", "attribution_figure", "cell_rows", "key_rows"]

#: A table as header, which columns are numbers, and the rows as text.
Rows = tuple[list[str], list[bool], list[list[str]]]


def _number(x: float) -> str:
    return f"{float(x):.4f}"


def key_rows(explanation: Mapping[str, Any]) -> Rows:
    """One row per key: its Shapley value (± its stated error when sampled), its share of the
    rate and the leave-one-key-out change."""
    rate = float(explanation["reidentification_rate"])
    shares, loo = explanation["attribution"], explanation["leave_one_out"]
    error = explanation.get("error_95") or {}
    header = ["key", "attribution", "share of the rate", "rate lost without the key"]
    if error:
        header.insert(2, "± (95 %)")
    rows = []
    for key in explanation["keys"]:
        row = [key, _number(shares[key])]
        if error:
            row.append(_number(error[key]))
        row += [f"{100 * shares[key] / rate:.1f} %" if rate else "–", _number(loo[key])]
        rows.append(row)
    return header, [False] + [True] * (len(header) - 1), rows


def cell_rows(explanation: Mapping[str, Any], min_count: int) -> Rows | None:
    """Per failing cell with at least ``min_count`` verifiable units: its P_γ and each key's share."""
    keys = list(explanation["keys"])
    cells = [c for c in explanation.get("failing_cells", []) if c["n_verifiable"] >= min_count]
    if not cells:
        return None
    rows = [[cell_label(c["cell"]), c["gamma"], _number(c["disclosure_risk"]),
             *(_number(c["attribution"][k]) for k in keys)] for c in cells]
    return ["cell", "γ", "P_γ", *keys], [False, True, True] + [True] * len(keys), rows


def attribution_figure(explanation: Mapping[str, Any]) -> Figure:
    """Bars: each key's attribution; dots: the rate lost without the key."""
    from matplotlib.figure import Figure

    keys = list(explanation["keys"])
    positions = list(range(len(keys)))[::-1]
    fig = Figure(figsize=(6.0, 0.45 * len(keys) + 1.2))
    ax = fig.add_subplot()
    ax.barh(positions, [explanation["attribution"][k] for k in keys], color="#1f77b4",
            label="attribution (Shapley value)")
    ax.scatter([explanation["leave_one_out"][k] for k in keys], positions, color="#d62728", zorder=3,
               label="rate lost without the key")
    ax.set_yticks(positions, keys)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("re-identification rate")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def attribution_caption(explanation: Mapping[str, Any], min_count: int) -> str:
    rate = float(explanation["reidentification_rate"])
    method = str(explanation["method"])
    return (f"{method[:1].upper() + method[1:]} of the re-identification rate ({rate:.4f}) over the keys: "
            f"the attributions sum to the rate (a coalition's value is the rate of the intruder linking with "
            f"those keys only; no key, no link). Dots: the rate lost when one key is left out. Failing cells "
            f"with fewer than {min_count} verifiable units are not shown.")
