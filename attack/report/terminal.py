"""The terminal summary of ``attack link``, ``attack run`` and ``attack demo``: the verdict, one
row per run and the cells that decide it, in at most about 30 lines. The full per-cell tables
are in the JSON and the HTML report (docs/reference/terminal-summary.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attack.report.attack import (
    MIN_CELL_COUNT,
    ReportTable,
    _failing,
    _short,
    _unit_risk_line,
    _verdict,
    basis_lines,
    fmt_num,
    md_table,
    suppressed,
)
from attack.report.labels import cell_label
from attack.report.notebook import verdict_word

__all__ = ["MAX_RUN_ROWS", "MAX_CELL_LINES", "cell_peak", "render_summary"]

#: Runs listed at most (failing runs first); the rest are counted.
MAX_RUN_ROWS = 10
#: Failing cells listed at most (highest risk first).
MAX_CELL_LINES = 5


def cell_peak(cell: Mapping[str, Any]) -> tuple[float, str] | None:
    """A cell's highest disclosure risk and the γ it is reached at: among equal risks the
    smallest γ (the risk grows with γ, so that is where the cell first reaches it). One rule for
    the runs table and the list of failing cells, so both name the same γ for a cell."""
    found = [(float(v), g) for g, v in cell.get("disclosure_risk", {}).items() if v is not None]
    if not found:
        return None
    return min(found, key=lambda item: (-item[0], _gamma_order(item[1])))


def _gamma_order(gamma: str) -> tuple[float, str]:
    try:
        return float(gamma), gamma
    except ValueError:  # a γ label that is not a number (per-variable γ sets): by its text
        return float("inf"), gamma


def _highest(result: Mapping[str, Any], min_count: int) -> tuple[float | None, str]:
    """The highest disclosure risk of a shown cell and its γ (``cell_peak``; the first cell
    among equal peaks)."""
    best: tuple[float | None, str] = (None, "")
    for cell in result.get("cells", []):
        peak = None if suppressed(cell, min_count) else cell_peak(cell)
        if peak is not None and (best[0] is None or peak[0] > best[0]
                                 or (peak[0] == best[0] and _gamma_order(peak[1]) < _gamma_order(best[1]))):
            best = peak
    return best


def _runs_table(runs: Sequence[Mapping[str, Any]], min_count: int) -> tuple[ReportTable, int]:
    t = ReportTable(["verdict", "run", "release", "failing cells", "highest cell risk (γ)", "re-identification rate"],
              [False, False, False, True, True, True])
    order = sorted(range(len(runs)), key=lambda i: runs[i]["result"]["passed"])[:MAX_RUN_ROWS]
    for i in sorted(order, key=lambda i: (runs[i]["result"]["passed"], i)):
        r = runs[i]["result"]
        risk, gamma = _highest(r, min_count)
        t.add([verdict_word(r["passed"]), str(runs[i].get("name", "")), str(runs[i].get("release", "")),
               f"{_failing(r)} of {len(r.get('cells', []))}",
               "–" if risk is None else f"{fmt_num(risk)} ({gamma})", fmt_num(r.get("reidentification_rate"))],
              failing=not r["passed"])
    return t, len(runs) - len(order)


def _cell_lines(runs: Sequence[Mapping[str, Any]], combined: Mapping[str, Any] | None, min_count: int) -> list[str]:
    """The failing cells with the highest risk, one line each (suppressed cells by count only)."""
    sources = [("combined measure", combined)] if combined is not None else [
        (str(run.get("name", "")), run["result"]) for run in runs]
    found, hidden = [], 0
    for name, result in sources:
        for cell in result.get("cells", []):
            if cell["passed"]:
                continue
            if suppressed(cell, min_count):
                hidden += 1
                continue
            risk, gamma = cell_peak(cell) or (float("nan"), "")
            label = cell.get("label") or cell_label(cell["cell"])
            identity = ""
            if cell.get("identity_passed") is False:
                identity = f"; re-identification rate {fmt_num(cell['reidentification_rate'])} at or above its limit"
            found.append((risk, f"{name}: {label}: risk {fmt_num(risk)} at γ = {gamma} "
                                f"(τ = {_short(result['tau'])}){identity}"))
    found.sort(key=lambda item: -item[0])
    lines = [f"- {text}" for _, text in found[:MAX_CELL_LINES]]
    if len(found) > MAX_CELL_LINES:
        lines.append(f"- … {len(found) - MAX_CELL_LINES} more failing cells")
    if hidden:
        lines.append(f"- {hidden} failing cells with fewer than {min_count} verifiable units (figures suppressed)")
    return lines


def render_summary(
    runs: list[dict],
    title: str,
    *,
    files: Sequence[str] = (),
    combined: Mapping[str, Any] | None = None,
    any_intruder: Sequence[Mapping[str, Any]] = (),
    natural_protection: Sequence[Mapping[str, Any]] = (),
    single_attack: Mapping[str, Any] | None = None,
    min_cell_count: int = MIN_CELL_COUNT,
) -> str:
    """The terminal summary (Markdown): verdict, runs, deciding cells and where the full tables
    are (``files``: the JSON and HTML written, if any)."""
    if not runs:
        raise ValueError("no runs to report")
    _, headline, _ = _verdict(runs, combined)
    table, left = _runs_table(runs, min_cell_count)
    out = [f"# {title}", "", f"**{headline}**", "", *basis_lines(runs), "", md_table(table)]
    if left:
        out.append(f"… and {left} more runs, all PASSED")
    cells = _cell_lines(runs, combined, min_cell_count)
    if cells:
        out += ["", "Failing cells, highest risk first:", *cells]
    for entry in any_intruder:
        out += ["", f"## Any intruder, {entry['release']}: {entry['n_reidentified']:,} of {entry['n_units']:,} "
                    f"units re-identified by at least one intruder ({fmt_num(entry['reidentification_rate'])})"]
    for entry in natural_protection:
        rate = (entry.get("formal") or {}).get("reidentification_rate")
        out += ["", f"## Natural protection: {entry['intruder']}: re-identification rate on the FORMAL "
                    f"file {fmt_num(rate)}"]
    if single_attack is not None:
        out += ["", "## Single attacks: " + (_unit_risk_line(single_attack["unit_risk"])
                                              if "unit_risk" in single_attack else
                                              f"{single_attack['summary']['correct']} of "
                                              f"{single_attack['summary']['sought']} targets re-identified")]
    where = " and ".join(str(f) for f in files)
    out += ["", f"Every cell, γ and interval: {where}." if where else
            "Every cell, γ and interval: write them with --json and --html."]
    return "\n".join(out) + "\n"
