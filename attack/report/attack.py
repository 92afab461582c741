"""Render attack results as Markdown (terminal) and as one self-contained HTML file.

The functions here only format result dictionaries that other modules computed
(docs/method/risk.md): counts, rates, Wilson intervals, usefulness and disclosure risk per γ, per
cell and overall, and the settings the scenario ran with. Nothing else is added, so a report
carries aggregates only, and cells with fewer than ``min_cell_count`` verifiable units are
shown as suppressed (their pass/FAIL status stays visible, their counts and rates do not).

A *run* is ``{"name": str, "intruder": str, "release": str, "result": dict}``; ``result`` holds
the keys documented in ``render_markdown``. γ keys are strings as the user wrote them ("0.05").
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from attack.io.jsonio import cell_key
from attack.report.html import render, svg
from attack.report.labels import cell_label, class_label, variable_name
from attack.report.natural_protection import agreement_tables
from attack.report.notebook import keep_figure, verdict_word
from attack.verdict import upper_reaches_tau

if TYPE_CHECKING:
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = ["PLOT_RC", "ReportTable", "distance_histogram_figure", "distance_histogram_plot", "fmt_ci", "fmt_figure", "fmt_num", "md_table",
           "render_html", "render_markdown", "risk_by_gamma_figure", "risk_by_gamma_plot", "risk_heatmap",
           "risk_heatmap_figure", "suppressed", "svg_figure"]

DASH = "–"
#: What the maximum over intruders is, under its table.
ANY_INTRUDER_NOTE = ("A unit counts as re-identified when any intruder links one of its records correctly "
                     "(R(u) = max over intruders); shown beside the verdict, never part of it.")
MIN_CELL_COUNT = 3  # default: cells with fewer verifiable units are shown as suppressed

# Fixed rc settings: a constant hash salt and text kept as <text> make the SVG byte-identical for
# the same input; the sans-serif stack ends in the generic "sans-serif" so browsers fall back.
PLOT_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "attack-report",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
}
# Writing no metadata drops the date and the Dublin Core links from the SVG.
_SVG_METADATA = {"Format": None, "Type": None, "Creator": None, "Date": None}
_CMAP = "RdYlGn_r"
_RUN_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


# --------------------------------------------------------------------------------------------
# Formatting helpers


def fmt_num(x: Any) -> str:
    """A rate to 4 decimals, or a dash when undefined."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return DASH
    return f"{float(x):.4f}"


def fmt_figure(x: Any) -> str:
    """A figure of any size (an RMSE, a slope, a mean) for reading on screen: six significant
    digits at most and thousands grouped (``28958458.8609`` → ``28,958,459``, ``12.3456789`` →
    ``12.3457``, ``3.0`` → ``3``, ``0.000123456`` → ``0.0001235``), or a dash when undefined. The JSON keeps every
    digit; rates in [0, 1] keep ``fmt_num``'s four decimals."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return DASH
    value = float(x)
    if value == 0:
        return "0"
    if abs(value) < 1:
        return f"{value:.4g}"
    digits = int(math.floor(math.log10(abs(value)))) + 1
    text = f"{value:,.{max(0, 6 - digits)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def fmt_ci(pair: Any) -> str:
    """A 95% interval as "[lo, hi]", or a dash when undefined."""
    if not pair or any(v is None for v in pair):
        return DASH
    return f"[{fmt_num(pair[0])}, {fmt_num(pair[1])}]"


def _short(x: float) -> str:
    """A threshold such as τ without trailing zeros."""
    return f"{float(x):g}"


def _setting(value: Any) -> str:
    """A configuration value as one line of text."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_setting(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_setting(v) for v in value)
    return str(value)


def _label(key: str) -> str:
    return key.replace("_", " ")


def _gammas(result: Mapping[str, Any]) -> list[str]:
    """The γ keys of a result, in increasing numeric order."""
    keys = dict.fromkeys([*result.get("disclosure_risk", {}), *result.get("usefulness", {})])
    return sorted(keys, key=float)


def _all_gammas(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    keys: dict[str, None] = {}
    for run in runs:
        keys.update(dict.fromkeys(_gammas(run["result"])))
    return sorted(keys, key=float)


def _cell_vars(result: Mapping[str, Any]) -> list[str]:
    """Cell variables from the evaluation settings, else from the cells in first-seen order."""
    listed = (result.get("evaluation") or {}).get("cell_variables")
    if listed:
        return list(listed)
    seen: dict[str, None] = {}
    for cell in result.get("cells", []):
        seen.update(dict.fromkeys(cell["cell"]))
    return list(seen)


def _cell_name(cell: Mapping[str, Any], names: Sequence[str]) -> str:
    return cell_label({v: cell["cell"].get(v, DASH) for v in names})


def _failing(result: Mapping[str, Any]) -> int:
    return sum(1 for c in result.get("cells", []) if not c["passed"])


def _upper_at_or_above_tau(cell: Mapping[str, Any], tau: float) -> bool:
    """Point estimate passes but some upper 95% bound reaches τ (docs/method/risk.md)."""
    return bool(cell["passed"]) and upper_reaches_tau((cell.get("disclosure_risk_ci") or {}).values(), tau)


def suppressed(cell: Mapping[str, Any], min_count: int) -> bool:
    """A cell too small to show: fewer than ``min_count`` verifiable units (or none recorded)."""
    if min_count <= 0:
        return False
    n = cell.get("n_verifiable")
    return n is None or int(n) < min_count


def _suppressed_text(min_count: int) -> str:
    return f"suppressed (n < {min_count})"


def _suppression_rule(min_count: int) -> str:
    return (f"Cells with fewer than {min_count} verifiable units are suppressed: "
            "their status is shown, their counts and rates are not.")


def _check_min_count(min_count: int) -> int:
    if isinstance(min_count, bool) or not isinstance(min_count, (int, np.integer)) or min_count < 0:
        raise ValueError(f"min_cell_count must be a non-negative integer, got {min_count!r}")
    return int(min_count)


def _taus(runs: Sequence[Mapping[str, Any]]) -> list[float]:
    return sorted({float(r["result"]["tau"]) for r in runs})


# --------------------------------------------------------------------------------------------
# Tables as data, rendered to Markdown or HTML


@dataclass
class ReportTable:
    header: list[str]
    numeric: list[bool]
    rows: list[list[str]] = field(default_factory=list)
    failing: list[bool] = field(default_factory=list)
    # Per row, None or (first column, number of columns): one cell spanning those columns and
    # holding the first one's text (HTML colspan; Markdown leaves the others empty).
    spans: list[tuple[int, int] | None] = field(default_factory=list)
    # HTML only: the columns from this index on fold into one "details" cell per row (shown on
    # demand), so a long table keeps one short row per cell; None shows every column.
    fold: int | None = None

    def add(self, row: list[str], failing: bool = False,
            span: tuple[int, int] | None = None) -> None:
        self.rows.append(row)
        self.failing.append(failing)
        self.spans.append(span)


def _md_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_table(t: ReportTable) -> str:
    lines = ["| " + " | ".join(_md_text(h) for h in t.header) + " |"]
    lines.append("|" + "|".join("---:" if n else "---" for n in t.numeric) + "|")
    lines += ["| " + " | ".join(_md_text(c) for c in row) + " |" for row in t.rows]
    return "\n".join(lines)


def _summary_table(result: Mapping[str, Any]) -> ReportTable:
    t = ReportTable(["measure", "value", "95% interval"], [False, True, True])
    for key, label in (
        ("n_external", "external records"),
        ("n_verifiable", "verifiable"),
        ("n_matched", "matched"),
        ("n_correct", "correct links"),
        ("n_false", "false links"),
        ("n_none", "no link"),
    ):
        t.add([label, str(result.get(key, DASH)), ""])
    t.add([
        "re-identification rate",
        fmt_num(result.get("reidentification_rate")),
        fmt_ci(result.get("reidentification_rate_ci")),
    ])
    t.add([
        "false-match rate",
        fmt_num(result.get("false_match_rate")),
        fmt_ci(result.get("false_match_rate_ci")),
    ])
    if "n_no_counterpart" in result:  # the truth covers the whole external file
        t.add(["external records without counterpart", str(result["n_no_counterpart"]), ""])
        t.add(["  of them linked (false links)", str(result["n_linked_no_counterpart"]), ""])
        t.add(["precision (correct / all links)", fmt_num(result.get("precision")), fmt_ci(result.get("precision_ci"))])
    for p, c in result.get("confident", {}).items():
        t.add([f"confident links p ≥ {p}", str(c["n_confident"]), ""])
        t.add([f"  confident hit rate p ≥ {p}", fmt_num(c["confident_rate"]), fmt_ci(c["confident_rate_ci"])])
        t.add([f"  precision p ≥ {p}", fmt_num(c["precision"]), fmt_ci(c["precision_ci"])])
    learned = result.get("learned_weights")
    if learned:  # the worst case: weights learned from the known units, the rest attacked
        fixed = learned["fixed_weights"]
        weights = ", ".join(f"{k} {fmt_num(w)}" for k, w in learned["weights"].items())
        t.add([f"learned weights ({learned['units_known']} units known)", weights, ""])
        t.add(["  re-identification rate, given weights (same records)",
               fmt_num(fixed.get("reidentification_rate")), fmt_ci(fixed.get("reidentification_rate_ci"))])
    structure = result.get("structure")
    if structure:  # the cluster-aware intruder's persons above; the person-level attack and the clusters beside
        for label, part in (("persons re-identified alone (person-level attack)", structure["persons_alone"]),
                            ("clusters re-identified", structure["clusters"]),
                            ("persons re-identified by either (per-unit maximum)", structure["any_intruder"])):
            t.add([label, fmt_num(part["reidentification_rate"]), fmt_ci(part["reidentification_rate_ci"])])
    for wave in (result.get("panel") or {}).get("by_wave", []):  # the panel intruder after each number of waves
        t.add([f"re-identification rate after {wave['waves']} wave(s), to {wave['last_wave']}",
               fmt_num(wave["reidentification_rate"]), fmt_ci(wave["reidentification_rate_ci"])])
    use, use_ci = result.get("usefulness", {}), result.get("usefulness_ci", {})
    risk, risk_ci = result.get("disclosure_risk", {}), result.get("disclosure_risk_ci", {})
    for g in _gammas(result):
        t.add([f"usefulness γ = {g}", fmt_num(use.get(g)), fmt_ci(use_ci.get(g))])
        t.add([f"disclosure risk γ = {g}", fmt_num(risk.get(g)), fmt_ci(risk_ci.get(g))])
    return t


def _status(cell: Mapping[str, Any], tau: float) -> str:
    if not cell["passed"]:
        return verdict_word(False)
    return verdict_word(True) + ("*" if _upper_at_or_above_tau(cell, tau) else "")


def _cell_table(result: Mapping[str, Any], detailed: bool, min_count: int) -> ReportTable:
    """One row per cell; ``detailed`` adds outcome counts and intervals (HTML).

    A cell with fewer than ``min_count`` verifiable units shows "suppressed (n < min_count)"
    across its count and rate columns and keeps only its name and status.
    """
    variables = _cell_vars(result)
    gammas = _gammas(result)
    tau = float(result["tau"])
    # The status and the risks that decide it first, then the cell and its size; the detailed
    # (HTML) table folds its counts and intervals into one "details" cell per row.
    header = ["status", "cell", *(f"disclosure γ = {g}" for g in gammas), "n"]
    shown = len(header)
    if detailed:
        header += ["correct", "false", "none", "rate", "95% interval", "false-match",
                   *(f"95% interval γ = {g}" for g in gammas)]
    else:
        header += ["correct", "rate"]
    t = ReportTable(header, [False, False] + [True] * (len(header) - 2), fold=shown if detailed else None)
    for cell in result.get("cells", []):
        row = [_status(cell, tau), _cell_name(cell, variables)]
        if suppressed(cell, min_count):
            width = len(header) - 2
            t.add(row + [_suppressed_text(min_count)] + [""] * (width - 1),
                  failing=not cell["passed"], span=(2, width))
            continue
        risk, risk_ci = cell.get("disclosure_risk", {}), cell.get("disclosure_risk_ci", {})
        row += [*(fmt_num(risk.get(g)) for g in gammas), str(cell.get("n_verifiable", DASH)),
                str(cell.get("n_correct", DASH))]
        if detailed:
            row += [
                str(cell.get("n_false", DASH)),
                str(cell.get("n_none", DASH)),
                fmt_num(cell.get("reidentification_rate")),
                fmt_ci(cell.get("reidentification_rate_ci")),
                fmt_num(cell.get("false_match_rate")),
                *(fmt_ci(risk_ci.get(g)) for g in gammas),
            ]
        else:
            row.append(fmt_num(cell.get("reidentification_rate")))
        t.add(row, failing=not cell["passed"])
    return t


def _comparison_table(runs: Sequence[Mapping[str, Any]]) -> ReportTable:
    gammas = _all_gammas(runs)
    header = ["verdict", "run", "failing cells", *(f"disclosure γ = {g}" for g in gammas),
              "intruder", "release", "re-identification rate"]
    t = ReportTable(header, [False, False, True] + [True] * len(gammas) + [False, False, True])
    for run in runs:
        r = run["result"]
        risk = r.get("disclosure_risk", {})
        t.add(
            [
                verdict_word(r["passed"]),
                str(run.get("name", "")),
                f"{_failing(r)} of {len(r.get('cells', []))}",
                *(fmt_num(risk.get(g)) for g in gammas),
                str(run.get("intruder", "")),
                str(run.get("release", "")),
                fmt_num(r.get("reidentification_rate")),
            ],
            failing=not r["passed"],
        )
    return t


def basis_lines(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The first lines under the verdict: what it rests on (the scored targets with their types
    and the identity rule), the roles that were inferred, and why a run cannot be PASSED beyond
    its cells (``judged_on`` of docs/method/risk.md). A line every run shares is shown once,
    the others with the run's name."""
    per_run = [(str(run.get("name", "")), _run_basis(run["result"])) for run in runs
               if run["result"].get("judged_on") is not None]
    shared = [line for line in per_run[0][1] if all(line in lines for _, lines in per_run)] if per_run else []
    out = list(shared)
    for name, lines in per_run:
        out += [f"{name}: {line}" for line in lines if line not in shared]
    return out


def _run_basis(result: Mapping[str, Any]) -> list[str]:
    block = result["judged_on"]
    groups: dict[str, list[str]] = {}
    for name, t in (block.get("targets") or {}).items():
        kind = t["type"] + (f", compared on {t['compared_on']}" if "compared_on" in t else "")
        groups.setdefault(kind, []).append(name)
    named = "; ".join(f"{', '.join(names)} ({kind})" for kind, names in groups.items()) or "none"
    identity = block["identity"]
    rule = (f"re-identification rate below {_short(identity['limit'])} in every cell ({identity['on']})"
            if identity["limit"] is not None else "re-identification alone declared to disclose nothing")
    lines = [f"Judged on: targets {named}. Identity: {rule}. At least {block['min_scored']} scored units "
             f"and {block['links_are']}."]
    roles: dict[str, list[str]] = {}
    for column, entry in ((result.get("roles") or {}).get("columns") or {}).items():
        if entry.get("inferred"):
            roles.setdefault(entry["role"].replace("_", " "), []).append(column)
    if roles:
        lines.append("Roles inferred (declare them to change): "
                     + "; ".join(f"{role}: {', '.join(columns)}" for role, columns in roles.items()) + ".")
    if block.get("harmless"):
        lines.append("Direct identifiers declared harmless: " + ", ".join(block["harmless"]) + ".")
    return lines + [f"Not PASSED whatever the cells: {reason}." for reason in block.get("reasons") or ()]


def _reasons(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    return [reason for run in runs for reason in (run["result"].get("judged_on") or {}).get("reasons") or ()]


def _verdict(
    runs: Sequence[Mapping[str, Any]], combined: Mapping[str, Any] | None = None
) -> tuple[bool, str, list[str]]:
    """(passed, headline, one line per run). With ``combined`` the decision is the combined
    measure's (docs/method/intruders.md) and the per-run lines are for information."""
    taus = _taus(runs)
    tau_text = f"τ = {_short(taus[0])}" if len(taus) == 1 else (
        "each run's τ (" + ", ".join(_short(t) for t in taus) + ")"
    )
    if combined is not None:
        ok = bool(combined["passed"])
        basis = f"combined measure, λ = {_short(combined['lam'])}"
        headline = f"PASSED ({basis}): every cell below τ = {_short(combined['tau'])}" if ok else (
            f"NOT PASSED ({basis}): {combined['n_failing_cells']} of {len(combined['cells'])} "
            f"cells at or above τ = {_short(combined['tau'])}"
        )
    else:
        ok = all(r["result"]["passed"] for r in runs)
        headline = f"PASSED: every cell below {tau_text}" if ok else (
            f"NOT PASSED: cells at or above {tau_text} for some γ"
        )
    reasons = _reasons(runs)
    if reasons and (ok or not any(_failing(r["result"]) for r in runs)):
        ok, headline = False, f"NOT PASSED: {reasons[0]}"
    lines = basis_lines(runs)
    for run in runs:
        r = run["result"]
        word = verdict_word(r["passed"])
        lines.append(
            f"{run.get('name', '')}: {word}, {_failing(r)} of {len(r.get('cells', []))} cells "
            f"failing (τ = {_short(r['tau'])})"
        )
    return ok, headline, lines


def _combined_table(combined: Mapping[str, Any], min_count: int) -> ReportTable:
    """Per cell: worst case, realistic mean and combined risk per γ, the rule used, status."""
    gammas = list(combined["cells"][0]["disclosure_risk"]) if combined["cells"] else []
    names = list(dict.fromkeys(k for c in combined["cells"] for k in c["cell"]))
    header = ["status", "cell", *(f"combined γ = {g}" for g in gammas), "rule"]
    for g in gammas:
        header += [f"worst γ = {g}", f"realistic γ = {g}"]
    table = ReportTable(header, [False, False] + [True] * len(gammas) + [False] + [True] * (2 * len(gammas)))
    for cell in combined["cells"]:
        front = [verdict_word(cell["passed"]), _cell_name(cell, names)]
        if cell.get("n_verifiable", min_count) < min_count:
            width = len(header) - 2
            table.add([*front, f"suppressed (n < {min_count}); rule: {cell['rule']}", *[""] * (width - 1)],
                      failing=not cell["passed"], span=(2, width))
            continue
        parts = []
        for g in gammas:
            parts += [fmt_num((cell.get("worst") or {}).get(g)), fmt_num((cell.get("realistic_mean") or {}).get(g))]
        table.add([*front, *(fmt_num(cell["disclosure_risk"][g]) for g in gammas), cell["rule"], *parts],
                  failing=not cell["passed"])
    return table


def _any_intruder_table(entry: Mapping[str, Any], min_count: int) -> ReportTable:
    """Per cell: units verifiable for some intruder, the share any intruder re-identifies, each
    intruder's own share and the units only it finds, and the units several find. A cell with
    fewer than ``min_count`` units is suppressed, a count of found units below it is shown as such."""
    names = list(entry["intruders"])
    header = ["cell", "units", "any intruder", "95% interval"]
    header += [f"{n}: rate" for n in names] + [f"{n}: only it" for n in names] + ["several"]
    table = ReportTable(header, [False] + [True] * (len(header) - 1))

    def small(count: int) -> str:
        return f"< {min_count}" if 0 < count < min_count else str(count)

    rows = [("all units", entry)]
    rows += [(c.get("label") or cell_label(c["cell"]), c) for c in entry["cells"] if c["cell"]]
    for name, figures in rows:
        label = [name]
        if figures["n_units"] < min_count:
            span = (len(label), len(header) - len(label))
            table.add([*label, _suppressed_text(min_count), *[""] * (span[1] - 1)], span=span)
            continue
        by = figures["by_intruder"]
        table.add([*label, str(figures["n_units"]), fmt_num(figures["reidentification_rate"]),
                   fmt_ci(figures["reidentification_rate_ci"]),
                   *(fmt_num(by[n]["reidentification_rate"]) for n in names),
                   *(small(by[n]["n_only_this"]) for n in names), small(figures["n_by_several"])])
    return table


def _protection_tables(entry: Mapping[str, Any], min_count: int) -> list[tuple[str, ReportTable]]:
    """Natural protection of one intruder (docs/method/intruders.md): hit rate and disclosure risk
    against FORMAL beside the release, per cell, then its agreement tables."""
    formal, release = entry["formal"], entry["release"]
    gammas = list(formal["disclosure_risk"])
    header = ["cell", "n", "rate FORMAL", "rate release"]
    header += [f"{kind} γ = {g}" for g in gammas for kind in ("P FORMAL", "P release")]
    side = ReportTable(header, [False] + [True] * (len(header) - 1))
    released = {cell_key(c["cell"]): c for c in release["cells"]}
    rows = [({}, formal, release)] + [
        (c["cell"], c, released.get(cell_key(c["cell"]))) for c in formal["cells"]
    ]
    for cell, f, r in rows:
        label = cell_label(cell)
        if f["n_verifiable"] < min_count:
            side.add([label, f"suppressed (n < {min_count})", *[""] * (len(header) - 2)],
                     span=(1, len(header) - 1))
            continue
        values = [str(f["n_verifiable"]), fmt_num(f["reidentification_rate"]),
                  fmt_num(r["reidentification_rate"]) if r else DASH]
        for g in gammas:
            values += [fmt_num(f["disclosure_risk"][g]), fmt_num(r["disclosure_risk"][g]) if r else DASH]
        side.add([label, *values])
    out = [("FORMAL beside the release", side)]
    for caption, head, body in agreement_tables(entry["agreement"]):
        table = ReportTable(head, [False] * len(head))
        for row in body:
            table.add(row)
        out.append((caption, table))
    return out


def _single_table(single: Mapping[str, Any]) -> ReportTable:
    """Single (targeted) attack counts overall and per target group (docs/method/single-attacks.md)."""
    header = ["targets", "sought", "unique", "correct", "false", "none", "identification",
              "false-match rate"]
    table = ReportTable(header, [False] + [True] * 7)
    groups = [("all", single["summary"]), *single.get("by_group", {}).items()]
    for label, c in groups:
        table.add([str(label), str(c["sought"]), str(c["unique"]), str(c["correct"]),
                   str(c["false"]), str(c["none"]), fmt_num(c["identification_probability"]),
                   fmt_num(c["false_match_rate"])])
    return table


def _unit_risk_line(risk: Mapping[str, Any]) -> str:
    """One sentence on R(u) = max(R_E, R_M) over the targets (docs/method/single-attacks.md)."""
    reasons = ", ".join(f"{n} by {reason}" for reason, n in risk["by_reason"].items())
    return (
        f"R(u) = max(R_E, R_M) at γ = {risk['gamma']}: {risk['n_endangered']} of "
        f"{risk['n_targets']} targets endangered (R ≥ τ = {_short(risk['tau'])})"
        + (f": {reasons}" if reasons else "")
        + f"; {risk['n_single_only']} re-identified by the single attack but by no realistic "
        "mass attack."
    )


def _frequency_line(result: Mapping[str, Any]) -> str | None:
    """The frequency risk beside a run with categorical keys, in one sentence (None without)."""
    f = result.get("frequency_risk")
    if not f:
        return None
    k3 = f["k_anonymity"].get("3", {}).get("violating")
    return (f"Frequency risk of the release on {', '.join(f['keys'])}: {f['sample_uniques']} of "
            f"{f['records']} records unique, {k3} in combinations of fewer than 3, expected "
            f"re-identifications {f['expected_reidentifications']:.1f} (global risk "
            f"{f['global_risk']:.4f}). Not part of the verdict: {f['note']}.")


def _population_line(result: Mapping[str, Any]) -> str | None:
    """The re-identifications carried to the population, in one sentence (None when not asked)."""
    p = result.get("population_reidentifications")
    if not p or p["hit_rate"] is None:
        return None
    full = p["if_complete"]
    return (f"In the population ({p['population']} units; release fraction {p['release_fraction']:g}, external "
            f"coverage {p['external_coverage']:g}): an intruder with a complete file re-identifies an expected "
            f"{full['expected']:.1f} units (95% interval {full['interval'][0]:.1f} to {full['interval'][1]:.1f}); "
            f"this intruder re-identified {p['observed']}.")


def _run_facts(run: Mapping[str, Any]) -> list[str]:
    """Short "key: value" facts shown under a run heading."""
    r = run["result"]
    facts = [f"intruder: {run.get('intruder', DASH)}", f"release: {run.get('release', DASH)}"]
    facts.append(f"τ = {_short(r['tau'])}")
    linkage, evaluation = r.get("linkage") or {}, r.get("evaluation") or {}
    if "method" in linkage:
        facts.append(f"matcher: {_setting(linkage['method'])}")
    if "zero_rule" in evaluation:
        facts.append(f"zero rule: {_setting(evaluation['zero_rule'])}")
    if evaluation.get("targets"):
        facts.append("evaluated variables: " + ", ".join(map(str, evaluation["targets"])))
    return facts


# --------------------------------------------------------------------------------------------
# Markdown


def render_markdown(
    runs: list[dict],
    title: str = "attack report",
    *,
    min_cell_count: int = MIN_CELL_COUNT,
    combined: Mapping[str, Any] | None = None,
    natural_protection: Sequence[Mapping[str, Any]] = (),
    single_attack: Mapping[str, Any] | None = None,
    any_intruder: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Render runs as GitHub-flavoured Markdown: verdict first, then per run a summary and cells.

    Each run's ``result`` holds counts (``n_external``, ``n_verifiable``, ``n_matched``,
    ``n_correct``, ``n_false``, ``n_none``), rates with ``*fmt_ci`` intervals, ``usefulness`` and
    ``disclosure_risk`` keyed by γ string, ``tau``, ``passed`` and ``cells``.

    Cells with fewer than ``min_cell_count`` verifiable units are shown as suppressed: status
    only, no counts or rates (0 shows every cell). Overall figures are always shown.
    """
    if not runs:
        raise ValueError("no runs to report")
    min_count = _check_min_count(min_cell_count)
    _, headline, lines = _verdict(runs, combined)
    out = [f"# {_md_text(title)}", "", f"**{headline}**", ""]
    out += [f"- {_md_text(line)}" for line in lines]
    if combined is not None:
        out += ["", f"## Combined measure (λ = {_short(combined['lam'])})", "",
                _md_text(combined["formula"]), "", md_table(_combined_table(combined, min_count))]
    if len(runs) > 1:
        out += ["", "## Comparison", "", md_table(_comparison_table(runs))]
    for entry in any_intruder:
        out += ["", f"## Re-identified by any intruder: {_md_text(entry['release'])}", "",
                _md_text(ANY_INTRUDER_NOTE), "", md_table(_any_intruder_table(entry, min_count))]
    for entry in natural_protection:
        out += ["", f"## Natural protection: {_md_text(entry['intruder'])}"]
        for caption, table in _protection_tables(entry, min_count):
            out += ["", f"{_md_text(caption)}:", "", md_table(table)]
    if single_attack is not None:
        out += ["", "## Single attacks", "", md_table(_single_table(single_attack))]
        if "unit_risk" in single_attack:
            out += ["", _md_text(_unit_risk_line(single_attack["unit_risk"]))]
    for i, run in enumerate(runs, 1):
        r = run["result"]
        out += ["", f"## {i}. {_md_text(str(run.get('name', '')))}", ""]
        out += [_md_text(" · ".join(_run_facts(run))), "", md_table(_summary_table(r))]
        out += ["", "### Cells", "", md_table(_cell_table(r, detailed=False,
                                                            min_count=min_count))]
        if min_count > 0:
            out += ["", _suppression_rule(min_count)]
        if any(_upper_at_or_above_tau(c, float(r["tau"])) for c in r.get("cells", [])):
            out += ["", "PASSED* = point estimate below τ, upper 95% bound at or above τ."]
        if frequency := _frequency_line(r):
            out += ["", _md_text(frequency)]
        if population := _population_line(r):
            out += ["", _md_text(population)]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# Plots (inline SVG)


def svg_figure(fig: Figure, prefix: str) -> str:
    """Serialise a figure to an inline <svg> element whose ids are unique within the page
    (and hand the figure to ``.plot()`` when it listens, see ``notebook.figures_of``)."""
    keep_figure(fig)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata=_SVG_METADATA, bbox_inches="tight")
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and DOCTYPE
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    return re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', svg)


def _levels(cells: Sequence[Mapping[str, Any]], var: str) -> list[str]:
    return list(dict.fromkeys(str(c["cell"].get(var, DASH)) for c in cells))


def _risk_norm(tau: float, values: np.ndarray) -> TwoSlopeNorm:
    """Green from 0 up to τ, red above; the highest risk above τ gets the full red."""
    from matplotlib.colors import TwoSlopeNorm

    finite = values[np.isfinite(values)]
    top = float(finite.max()) if finite.size else 0.0
    vmax = top if top > tau else max(1.0, tau + 1e-6)
    return TwoSlopeNorm(vcenter=tau, vmin=min(0.0, tau - 1e-6), vmax=vmax)


def risk_heatmap_figure(result: Mapping[str, Any], gamma: str, min_count: int) -> Figure:
    """Per-cell disclosure risk at ``gamma``, coloured on a diverging scale centred on τ.

    Two cell variables make a grid (the one with more classes down the side), any other number
    one row per cell; classes and cells carry their human labels (``attack.report.labels``).
    Suppressed cells (fewer than ``min_count`` verifiable units) are grey, labelled "supp.",
    and do not enter the colour scale.
    """
    import matplotlib
    from matplotlib.colors import to_rgb
    from matplotlib.figure import Figure

    cells = result["cells"]
    tau = float(result["tau"])
    names = _cell_vars(result)

    def risk(cell: Mapping[str, Any]) -> float:
        v = cell.get("disclosure_risk", {}).get(gamma)
        return np.nan if v is None or suppressed(cell, min_count) else float(v)

    if len(names) == 2:
        a, b = names
        if len(_levels(cells, b)) > len(_levels(cells, a)):
            a, b = b, a  # more levels on the vertical axis: taller, narrower, phone-friendly
        rows, cols = _levels(cells, a), _levels(cells, b)
        grid = np.full((len(rows), len(cols)), np.nan)
        fail = np.zeros(grid.shape, dtype=bool)
        supp = np.zeros(grid.shape, dtype=bool)
        for c in cells:
            i = rows.index(str(c["cell"].get(a, DASH)))
            j = cols.index(str(c["cell"].get(b, DASH)))
            grid[i, j], fail[i, j] = risk(c), not c["passed"]
            supp[i, j] = suppressed(c, min_count)
        rows, cols = [class_label(a, v) for v in rows], [class_label(b, v) for v in cols]
        xlabel, ylabel = variable_name(b), variable_name(a)
    else:
        rows, cols = [_cell_name(c, names) for c in cells], [f"γ = {gamma}"]
        grid = np.array([[risk(c)] for c in cells])
        fail = np.array([[not c["passed"]] for c in cells])
        supp = np.array([[suppressed(c, min_count)] for c in cells])
        xlabel, ylabel = "", ""

    norm = _risk_norm(tau, grid)
    cmap = matplotlib.colormaps[_CMAP]
    width = 1.6 + 1.1 * len(cols) + 0.06 * max(map(len, rows))
    fig = Figure(figsize=(width, 1.2 + 0.38 * len(rows)))
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto")
    ax.set_facecolor("#e0e0e0")
    for (i, j), v in np.ndenumerate(grid):
        if supp[i, j]:
            text, colour = "supp.", "#555555"
        elif np.isnan(v):
            text, colour = DASH, "black"
        else:
            r, g, b_ = to_rgb(cmap(norm(v)))
            text = fmt_num(v)
            colour = "black" if 0.299 * r + 0.587 * g + 0.114 * b_ > 0.5 else "white"
        ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=8,
                fontweight="bold" if fail[i, j] else "normal")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.tick_params(length=0)
    bar = fig.colorbar(image, ax=ax, shrink=min(1.0, 0.4 + 0.1 * len(rows)))
    bar.ax.axhline(tau, color="black", linewidth=1.5)
    bar.set_label(f"disclosure risk (τ = {_short(tau)})")
    return fig


def risk_heatmap(result: Mapping[str, Any], gamma: str, prefix: str, min_count: int) -> str:
    """``risk_heatmap_figure`` as inline SVG (ids prefixed with ``prefix``)."""
    return svg_figure(risk_heatmap_figure(result, gamma, min_count), prefix)


def _run_risk_lines(run: Mapping[str, Any], min_count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                      np.ndarray, np.ndarray | None, list[str]]:
    """γ values, overall risk with its interval and the highest shown cell's risk of one run."""
    r = run["result"]
    gammas = [g for g in _gammas(r) if r["disclosure_risk"].get(g) is not None]
    y = np.array([float(r["disclosure_risk"][g]) for g in gammas])
    cis = r.get("disclosure_risk_ci", {})
    lo = np.array([cis[g][0] if cis.get(g) and cis[g][0] is not None else v for g, v in zip(gammas, y, strict=True)], dtype=float)
    hi = np.array([cis[g][1] if cis.get(g) and cis[g][1] is not None else v for g, v in zip(gammas, y, strict=True)], dtype=float)
    cells = r.get("cells", [])
    shown = [c for c in cells if not suppressed(c, min_count)]
    top = None
    if len(cells) > 1 and shown:
        top = np.array([max((float(c["disclosure_risk"][g]) for c in shown
                             if c.get("disclosure_risk", {}).get(g) is not None), default=np.nan)
                        for g in gammas])
    return np.array([float(g) for g in gammas]), y, lo, hi, top, gammas


def risk_by_gamma_figure(runs: Sequence[Mapping[str, Any]], min_count: int) -> Figure:
    """Overall (solid, with 95% interval) and highest-cell (dashed, wide and pale, beneath the
    overall line) disclosure risk against γ, one panel per run (runs overlap when drawn
    together), lines labelled where they end ("highest cell = overall" where they coincide).

    The highest cell is taken over the cells that are not suppressed (``min_count``).
    """
    import textwrap

    from matplotlib.figure import Figure

    # One column: on a phone the figure is scaled to the screen's width, and a second column
    # would halve its text.
    ncols, nrows = 1, len(runs)
    fig = Figure(figsize=(5.4, 2.5 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, sharey=True, squeeze=False)).ravel()
    for ax in axes[len(runs):]:
        ax.set_visible(False)
    for k, (run, ax) in enumerate(zip(runs, axes, strict=True)):
        colour = _RUN_COLOURS[k % len(_RUN_COLOURS)]
        x, y, lo, hi, top, gammas = _run_risk_lines(run, min_count)
        # The highest-cell line is drawn first, wide, pale and with hollow triangles, the overall
        # line over it, narrow with filled dots: where both are equal (every firm re-identified,
        # both 1.0) each stays visible.
        if top is not None and x.size:
            ax.plot(x, top, color=colour, linestyle="--", marker="^", markersize=9, markerfacecolor="white",
                    linewidth=3.2, alpha=0.55, zorder=2)
            same = bool(np.allclose(top, y, equal_nan=True))
            ax.annotate("highest cell = overall" if same else "highest cell", (x[-1], top[-1]), xytext=(6, 3),
                        textcoords="offset points", va="bottom", fontsize=8, color=colour)
        ax.errorbar(x, y, yerr=[y - lo, hi - y], color=colour, marker="o", markersize=4, capsize=3,
                    linewidth=1.6, zorder=3)
        if x.size and not (top is not None and np.allclose(top, y, equal_nan=True)):
            ax.annotate("overall", (x[-1], y[-1]), xytext=(6, -3), textcoords="offset points",
                        va="top", fontsize=8, color=colour)
        tau = float(run["result"]["tau"])
        ax.axhline(tau, color="black", linestyle=":", linewidth=1.2)
        ax.annotate(f"τ = {_short(tau)}", (1.0, tau), xycoords=("axes fraction", "data"),
                    xytext=(4, 0), textcoords="offset points", ha="left", va="center", fontsize=8)
        ax.set_xticks(x, gammas)
        if x.size:
            span = float(x.max() - x.min()) or 1.0
            ax.set_xlim(x.min() - 0.1 * span, x.max() + 0.45 * span)  # room for the line labels
        ax.set_title(textwrap.fill(str(run.get("name", "")), 48), fontsize=9)
        ax.set_ylim(0, 1.12)
        ax.grid(alpha=0.3)
        ax.set_xlabel("γ")
    for ax in axes[::ncols]:
        ax.set_ylabel("disclosure risk")
    return fig


def risk_by_gamma_plot(runs: Sequence[Mapping[str, Any]], prefix: str, min_count: int) -> str:
    """``risk_by_gamma_figure`` as inline SVG (ids prefixed with ``prefix``)."""
    return svg_figure(risk_by_gamma_figure(runs, min_count), prefix)


def _log_ticks(low: float, high: float, with_zero: bool) -> tuple[list[float], list[str]]:
    """At most six powers of ten from ``low`` to ``high`` (every k-th decade), plus 0 for a
    symmetric-log axis: labels that cannot collide however many decades the axis spans."""
    first, last = int(np.floor(np.log10(low))), int(np.ceil(np.log10(high)))
    step = max(1, -(-(last - first + 1) // 6))
    decades = list(range(last, first - 1, -step))[::-1]
    ticks = [0.0] * with_zero + [10.0 ** d for d in decades]
    labels = ["0"] * with_zero + [f"$10^{{{d}}}$" for d in decades]
    return ticks, labels


def distance_histogram_figure(hist: Mapping[str, Any]) -> tuple[Figure, str]:
    """Step histogram of assigned-pair distances, correct vs false links, and its scale note."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullLocator

    edges = np.asarray(hist["edges"], dtype=float)
    correct = np.asarray(hist["correct"], dtype=float)
    false = np.asarray(hist["false"], dtype=float)
    fig = Figure(figsize=(6.0, 3.2))
    ax = fig.add_subplot()
    ax.stairs(false, edges, label=f"false links ({int(false.sum())})", color="#d62728",
              fill=True, alpha=0.35)
    ax.stairs(correct, edges, label=f"correct links ({int(correct.sum())})", color="#1f77b4",
              linewidth=1.8)
    positive = edges[edges > 0]
    scale = "linear distance axis"
    if positive.size and positive.max() / positive.min() > 100:
        symmetric = bool(edges.min() <= 0)
        if symmetric:
            ax.set_xscale("symlog", linthresh=float(positive.min()))
            scale = f"symmetric-log distance axis, linear below {positive.min():.3g}"
        else:
            ax.set_xscale("log")
            scale = "logarithmic distance axis"
        ticks, labels = _log_ticks(float(positive.min()), float(positive.max()), symmetric)
        ax.set_xticks(ticks, labels)
        ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("distance of assigned pair")
    ax.set_ylabel("assigned pairs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig, scale


def distance_histogram_plot(hist: Mapping[str, Any], prefix: str) -> tuple[str, str]:
    """``distance_histogram_figure`` as inline SVG (ids prefixed with ``prefix``) and its scale note."""
    fig, scale = distance_histogram_figure(hist)
    return svg_figure(fig, prefix), scale


# --------------------------------------------------------------------------------------------
# HTML




def _settings_tables(result: Mapping[str, Any]) -> list[tuple[str, ReportTable]]:
    """The linkage and evaluation settings as run, as key/value tables."""
    out = []
    for section in ("linkage", "evaluation"):
        settings = dict(result.get(section) or {})
        keys = settings.pop("keys", None) if section == "linkage" else None
        t = ReportTable(["setting", "value"], [False, False])
        for k, v in settings.items():
            t.add([_label(k), _setting(v)])
        if section == "evaluation":
            t.add(["τ", _short(result["tau"])])
        out.append((section, t))
        if keys:
            columns = list(dict.fromkeys(k for key in keys for k in key))
            kt = ReportTable(columns, [False] * len(columns))
            for key in keys:
                kt.add([_setting(key.get(c)) for c in columns])
            out.append(("overlap (key) variables", kt))
    return out


def _run_context(run: Mapping[str, Any], index: int, with_gamma_plot: bool, min_count: int) -> dict:
    """What the template shows of one run: tables, plots with captions, notes."""
    r = run["result"]
    tau = float(r["tau"])
    gammas = _gammas(r)
    cells = r.get("cells", [])
    figures = []
    if cells and gammas:
        gamma = gammas[-1]
        n_supp = sum(suppressed(c, min_count) for c in cells)
        supp_note = (f" Grey \"supp.\": suppressed, fewer than {min_count} verifiable units."
                     if n_supp else "")
        figures.append({
            "heading": "Disclosure risk per cell", "svg": svg(risk_heatmap(r, gamma, f"r{index}h", min_count)),
            "caption": f"Disclosure risk per cell at γ = {gamma}, the largest γ evaluated: usefulness, and "
                       f"with it the risk, can only grow with γ, so this γ decides whether a cell passes. "
                       f"Colours diverge at τ = {_short(tau)} (green below, red above, deepest red at the "
                       f"highest risk); failing cells in bold.{supp_note}",
        })
    if with_gamma_plot and gammas:
        figures.append({
            "heading": "Disclosure risk by γ", "svg": svg(risk_by_gamma_plot([run], f"r{index}g", min_count)),
            "caption": f"Overall disclosure risk with 95% interval and the highest cell risk against γ; "
                       f"dotted line τ = {_short(tau)}.",
        })
    if r.get("distance_histogram"):
        plot, scale = distance_histogram_plot(r["distance_histogram"], f"r{index}d")
        figures.append({"heading": "Distances of assigned pairs", "svg": svg(plot),
                        "caption": f"Assigned pairs by distance, correct vs false links; {scale}."})
    notes = [_suppression_rule(min_count)] if min_count > 0 else []
    if any(_upper_at_or_above_tau(c, tau) for c in cells):
        notes.append("PASSED* = point estimate below τ, upper 95% bound at or above τ (docs/method/risk.md).")
    if frequency := _frequency_line(r):
        notes.append(frequency)
    if population := _population_line(r):
        notes.append(population)
    return {
        "index": index, "name": str(run.get("name", "")), "facts": " · ".join(_run_facts(run)),
        "passed": r["passed"], "n_fail": _failing(r), "n_cells": len(cells),
        "summary": _summary_table(r), "figures": figures,
        "cells": _cell_table(r, detailed=True, min_count=min_count), "cell_notes": notes,
        "settings": _settings_tables(r),
        "attribution": attribution_context(r, f"r{index}a", min_count),
    }


def attribution_context(result: Mapping[str, Any], prefix: str, min_count: int) -> dict | None:
    """What a report shows of one attack's attribution to the keys (None without ``--explain``;
    ``attack.report.key_risk``)."""
    from attack.report import key_risk as attribution

    explanation = result.get("explanation")
    if not explanation:
        return None

    def table(rows: attribution.Rows | None) -> ReportTable | None:
        if rows is None:
            return None
        out = ReportTable(rows[0], rows[1])
        for row in rows[2]:
            out.add(row, failing=rows[0][0] == "cell")
        return out

    return {"table": table(attribution.key_rows(explanation)),
            "cells": table(attribution.cell_rows(explanation, min_count)),
            "svg": svg(svg_figure(attribution.attribution_figure(explanation), prefix)),
            "caption": attribution.attribution_caption(explanation, min_count)}


def render_html(
    runs: list[dict],
    title: str = "attack report",
    notes: Sequence[str] = (),
    *,
    min_cell_count: int = MIN_CELL_COUNT,
    combined: Mapping[str, Any] | None = None,
    natural_protection: Sequence[Mapping[str, Any]] = (),
    single_attack: Mapping[str, Any] | None = None,
    any_intruder: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Render runs as one self-contained HTML page (inline CSS and SVG, no external resources;
    template ``templates/attack.html.j2``).

    Order: verdict banner, notes, a comparison of runs (when more than one), then per run the
    summary, a per-cell risk heat map, risk by γ, the distance histogram, the cell table and the
    settings as run. The output is byte-identical for the same input.

    Cells with fewer than ``min_cell_count`` verifiable units are suppressed in the cell table
    (status only), masked in the heat map and left out of the highest-cell line of the risk-by-γ
    plot; 0 shows every cell. Overall figures are always shown.
    """
    import matplotlib  # imported here: only HTML reports need it, and it is slow to import

    if not runs:
        raise ValueError("no runs to report")
    min_count = _check_min_count(min_cell_count)
    ok, headline, lines = _verdict(runs, combined)
    context: dict[str, Any] = {
        "title": title, "passed": ok, "headline": headline, "verdict_lines": lines, "notes": list(notes),
        "footer": "Aggregates only: counts, rates and settings per run and cell. Confidential until cleared for release.",
        "combined": None if combined is None else {
            "lam": _short(combined["lam"]), "formula": combined["formula"],
            "table": _combined_table(combined, min_count)},
        "natural_protection": [{"intruder": entry["intruder"], "tables": _protection_tables(entry, min_count)}
                               for entry in natural_protection],
        "any_intruder": [{"release": entry["release"], "note": ANY_INTRUDER_NOTE,
                          "table": _any_intruder_table(entry, min_count)} for entry in any_intruder],
        "single": None if single_attack is None else {
            "table": _single_table(single_attack),
            "risk_line": _unit_risk_line(single_attack["unit_risk"]) if "unit_risk" in single_attack else ""},
    }
    with matplotlib.rc_context(PLOT_RC):
        context["comparison"] = None if len(runs) < 2 else {
            "table": _comparison_table(runs), "svg": svg(risk_by_gamma_plot(runs, "cmp", min_count)),
            "caption": "Disclosure risk against γ, one panel per run: overall with 95% interval "
                       "(solid) and highest cell (dashed); dotted line τ."}
        context["runs"] = [_run_context(run, i, with_gamma_plot=len(runs) == 1, min_count=min_count)
                           for i, run in enumerate(runs, 1)]
    return render("attack.html.j2", **context)
