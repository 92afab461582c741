"""Markdown and HTML reports of the attacks on a synthetic release (``attack.synthetic_attacks``).

They format the document ``attack.synthetic_attacks.attack_synthetic`` returns: the verdict with one
row per τ check, the attacks with main, control and baseline rates, the attribute measures per
target, the distance statistics and the preparation every distance rests on (docs/method/synthetic-attacks.md
pitfall 9: no distance without its preprocessing). Aggregates only: the example queries of
singling out (which quote values of synthetic records) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from attack.report.attack import (
    PLOT_RC,
    ReportTable,
    fmt_ci,
    fmt_num,
    md_table,
    svg_figure,
)
from attack.report.html import render, svg
from attack.report.notebook import verdict_word

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["attack_rates_figure", "attack_rates_plot", "render_synth_html", "render_synth_markdown", "success_count"]

#: Keys of the document that describe the run rather than one attack family (``synthesis``: how
#: a scenario made the file).
_RUN_KEYS = frozenset({"schema_version", "kind", "tool", "settings", "n_original", "n_synthetic", "n_holdout",
                       "preparation", "checks", "tau", "passed", "decide", "synthesis"})


def _families(document: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The sections of the attack families, in the order the run wrote them."""
    return [(name, section) for name, section in document.items() if name not in _RUN_KEYS]


def _checks_table(document: Mapping[str, Any]) -> ReportTable:
    # The status and what decides it (the upper bound against τ) first.
    t = ReportTable(["status", "check", "upper bound", "τ", "value", "measure", "target", "γ"],
              [False, False, True, True, True, False, False, True])
    for c in document["checks"]:
        t.add([verdict_word(c["passed"]), c["family"], fmt_num(c["upper"]), f"{c['tau']:g}",
               fmt_num(c["value"]), c["measure"], str(c.get("target") or "–"),
               "–" if c.get("gamma") is None else f"{c['gamma']:g}"],
              failing=not c["passed"])
    return t


def _rate(rate: Mapping[str, Any] | None) -> str:
    if rate is None:
        return "–"
    return f"{fmt_num(rate['rate'])} {fmt_ci([rate['low'], rate['high']])} ({success_count(rate['k'], rate['n'])})"


def success_count(k: float, n: int) -> str:
    """Successes of ``n`` attacks as a count: ``75/500``. A fractional ``k`` is the
    size-corrected control count of singling out (an expected number of successes, not a
    count), shown rounded and named so: ``≈75/500, size-corrected`` (the JSON keeps it exact)."""
    if float(k).is_integer():
        return f"{int(k)}/{n}"
    return f"≈{round(k)}/{n}, size-corrected"


def _rate_results(label: str, value: Any, out: list[tuple[str, Mapping[str, Any]]]) -> None:
    """Every attack result with main, control and baseline rates below ``value`` (whatever the
    family), labelled by its family, or by its attack and secret when it infers one."""
    if not isinstance(value, Mapping):
        return
    if "risk_basis" in value:
        parameters = value.get("parameters") or {}
        if "secret" in parameters:
            label = f"{value['attack']}: {parameters['secret']}" + (
                f" (γ {parameters['gamma']:g})" if parameters.get("secret_numeric") else "")
        out.append((label, value))
        return
    for inner in value.values():
        _rate_results(label, inner, out)


def _attacks(document: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    out: list[tuple[str, Mapping[str, Any]]] = []
    for name, section in _families(document):
        _rate_results(name, section, out)
    return out


def _decides(decision: Mapping[str, Any] | None) -> str:
    """Whether the interval decides at τ, and if not how many attacks would (about)."""
    if decision is None:
        return "–"
    if decision["decided"]:
        return "yes"
    needed, available = decision["attacks_needed"], decision["attacks_available"]
    if needed is None:
        return "no"
    if available is not None and needed > available:
        return f"no: ~{needed:,} attacks, more than the {available:,} records"
    return f"no: ~{needed:,} attacks would (--n-attacks or --decide)"


def _attack_table(document: Mapping[str, Any]) -> ReportTable:
    t = ReportTable(["attack", "risk", "risk interval", "decides at τ", "main", "control (holdout)", "baseline"],
              [False, True, True, False, True, True, True])
    for label, r in _attacks(document):
        risk = r["risk"]
        t.add([label, fmt_num(None if risk is None else risk["value"]),
               fmt_ci(None if risk is None else [risk["low"], risk["high"]]), _decides(r.get("decision")),
               _rate(r["main"]), _rate(r["control"]), _rate(r["baseline"])],
              failing=r["passed"] is False)
    return t


_TABLE_FIELDS = (("repU %", "repu_pct"), ("DiSCO %", "disco_pct"), ("TCAP %", "tcap_pct"),
                 ("baseCAPd", "base_capd"), ("CAPd", "capd"), ("DCAP_d", "dcap_d"))


def _attribute_table(document: Mapping[str, Any]) -> ReportTable:
    header = ["target", *[label for label, _ in _TABLE_FIELDS], "CAP", "0CAP", "GCAP", "kNN (baseline)"]
    t = ReportTable(header, [False, *[True] * (len(header) - 1)])
    for target, entry in document.get("attribute", {}).items():
        tm, cap, knn = entry["table_measures"], entry["cap"], entry["knn_attribution"]
        if entry["type"] == "numeric":
            attribution = (f"useful {fmt_num(knn['useful_share'])}, MSE {knn['mse']:.4g} "
                           f"(baseline {knn['baseline_mse']:.4g})")
        else:
            attribution = (f"accuracy {fmt_num(knn['accuracy'])} "
                           f"(majority {fmt_num(knn['baseline_majority_accuracy'])})")
        t.add([target, *[fmt_num(tm[key]) for _, key in _TABLE_FIELDS],
               fmt_num(cap["cap"]), fmt_num(cap["zero_cap"]), fmt_num(cap["generalized_cap"]),
               attribution])
    return t


def _flat(prefix: str, value: Any, rows: list[tuple[str, str]]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _flat(f"{prefix}.{key}" if prefix else str(key), inner, rows)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        rows.append((prefix, f"{value:.6g}"))
    elif value is None or isinstance(value, (str, bool)):
        rows.append((prefix, "–" if value is None else str(value)))


def _membership_table(document: Mapping[str, Any]) -> ReportTable:
    """Per membership target: games, accuracy and advantage with their 95% intervals."""
    t = ReportTable(["target", "distance to nearest record", "games", "accuracy", "advantage", "advantage interval",
               "exceeds τ"], [False, True, True, True, True, True, False])
    for target in document["membership"]["targets"]:
        t.add([target["label"], fmt_num(target["nn_distance"]), str(target["games"]), fmt_num(target["accuracy"]),
               fmt_num(target["advantage"]), fmt_ci(target["advantage_interval"]),
               "yes" if target["exceeds_tau"] else "no"], failing=target["exceeds_tau"])
    return t


def _family_table(document: Mapping[str, Any]) -> ReportTable:
    """Per data-only membership attack and for the maximum over attacks: AUC, advantage and the
    TPR at each reported false-positive rate, with 95 % bootstrap intervals."""
    family = document["membership_family"]
    fprs = family["settings"]["fprs"]
    t = ReportTable(["attack", "AUC", "advantage", *[f"TPR at FPR {a:g}" for a in fprs]],
              [False, *[True] * (2 + len(fprs))])
    names = ["auc", "advantage", *[f"tpr_at_fpr_{a:g}" for a in fprs]]

    def cells(metrics):
        return [f"{fmt_num(metrics[m]['value'])} {fmt_ci([metrics[m]['low'], metrics[m]['high']])}" for m in names]

    for attack in family["attacks"]:
        t.add([attack["name"], *cells(attack["metrics"])])
    t.add(["maximum over attacks", *cells(family["maximum"]["metrics"])], failing=not family["verdict"]["passed"])
    return t


def _family_caption(document: Mapping[str, Any]) -> str:
    family = document["membership_family"]
    roles, verdict = family["roles"], family["verdict"]
    return (f"{roles['members']} members, {roles['nonmembers']} non-members scored, reference of "
            f"{roles['reference']} ({roles['reference_source']}); verdict: upper bound of the maximum TPR at "
            f"FPR {verdict['fpr']:g} against τ = {verdict['tau']:g} (docs/method/membership-family.md)")


def _statistics_table(section: Mapping[str, Any]) -> ReportTable:
    t = ReportTable(["statistic", "value"], [False, True])
    rows: list[tuple[str, str]] = []
    _flat("", section, rows)
    for name, value in rows:
        t.add([name, value])
    return t


@dataclass(frozen=True)
class _Section:
    """One family's detail table: a heading and caption for HTML, the lines around the table
    in Markdown (``markdown`` False: HTML only)."""

    heading: str
    caption: str
    table: ReportTable
    md_heading: str
    md_before: tuple[str, ...] = ()
    md_after: tuple[str, ...] = ()
    markdown: bool = True


def _attribute_section(document: Mapping[str, Any]) -> _Section:
    return _Section("Attribute disclosure", "synthpop and SDMetrics measures, Papavasiliou (2020) kNN attribution",
                    _attribute_table(document), "Attribute disclosure (docs/method/synthetic-attacks.md)")


def _membership_section(document: Mapping[str, Any]) -> _Section:
    share = document["membership"]["share_exceeding"]
    return _Section("Membership inference",
                    "Shadow-model membership inference per target (Stadler, Oprisanu & Troncoso 2022)",
                    _membership_table(document), f"Membership inference ({share:.0%} of targets exceed τ)")


def _epsilon_lines(family: Mapping[str, Any]) -> tuple[str, ...]:
    """The lower bound on ε the strongest attack proves and, when a claim was made, its check."""
    bound = family.get("empirical_epsilon")
    if bound is None:
        return ()
    lines = [f"Empirical lower bound on ε: {bound['epsilon']:.3g} at {bound['confidence']:.0%} confidence, "
             f"δ = {bound['delta']:g} (strongest test: {bound['attack']} at FPR {bound['fpr_target']:g}, "
             f"TPR {bound['tpr']:.3g}, FPR {bound['fpr']:.3g}; Clopper-Pearson, Bonferroni over "
             f"{bound['comparisons']} tests; docs/method/privacy-claims.md)."]
    claim = family.get("privacy_claim")
    if claim is not None:
        lines.append(f"Privacy claim: {claim['reading']}.")
        if claim["ledger"] is not None:
            ledger = claim["ledger"]
            lines.append(f"Budget ledger: {len(ledger['releases'])} releases, total ε = {ledger['epsilon']:g}, "
                         f"δ = {ledger['delta']:g} by basic composition (the spends add up).")
    return tuple(lines)


def _family_section(document: Mapping[str, Any]) -> _Section:
    caption = _family_caption(document)
    family = document["membership_family"]
    notes = tuple(f"- {w}" for w in family["warnings"])
    epsilon = _epsilon_lines(family)
    return _Section("Membership inference from data only", " ".join([caption, *epsilon]), _family_table(document),
                    "Membership inference from data only (value [95% interval])", (caption + ".", ""),
                    (*(("", *notes) if notes else ()), *(("", *epsilon) if epsilon else ())))


def _confidence_table(document: Mapping[str, Any]) -> ReportTable:
    """Per target and γ, per recall of the curve: precision of the attack and of the
    non-member baseline with Wilson intervals, and the advantage with its interval."""
    t = ReportTable(["target", "γ", "recall", "guesses", "precision", "baseline precision", "advantage"],
                    [False, True, True, True, True, True, True])
    for target, per_gamma in document["inference_confidence"]["targets"].items():
        for gamma, found in per_gamma.items():
            for point in found["curve"]:
                adv = point["advantage"]
                declared = point["recall"] == found["declared_recall"]
                t.add([target, "–" if found["gamma"] is None else gamma,
                       f"{point['recall']:g}" + (" (declared)" if declared else ""), str(point["guesses"]),
                       f"{fmt_num(point['precision'])} {fmt_ci([point['main']['low'], point['main']['high']])}",
                       f"{fmt_num(point['baseline_precision'])} "
                       f"{fmt_ci([point['baseline']['low'], point['baseline']['high']])}",
                       "–" if adv is None else f"{fmt_num(adv['value'])} {fmt_ci([adv['low'], adv['high']])}"],
                      failing=declared and not found["passed"])
    return t


def _confidence_section(document: Mapping[str, Any]) -> _Section:
    section = document["inference_confidence"]
    if "skipped" in section:
        table = ReportTable(["note"], [False])
        table.add([section["skipped"]])
        return _Section("Inference with confidence", "Not run", table, "Inference with confidence (not run)")
    errors = [f"{t} {g}: {f['calibration_error']['attack']:.3f} (baseline {f['calibration_error']['baseline']:.3f})"
              for t, per in section["targets"].items() for g, f in per.items()]
    caption = (f"Precision on the most confident guesses at each recall (share of the targets guessed on), against "
               f"the same intruder trained on the holdout; τ applies to the upper bound of the advantage at the "
               f"declared recall {section['declared_recall']:g} (Francis & Wagner 2025). Expected calibration "
               f"error of the confidences: {'; '.join(errors)}.")
    return _Section("Inference with confidence", caption, _confidence_table(document),
                    "Inference with confidence (value [95% interval])", (caption, ""))


def _distance_section(document: Mapping[str, Any]) -> _Section:
    return _Section("Distance to closest record", "Diagnostics without a τ decision",
                    _statistics_table(document["distance"]), "Distance to closest record", markdown=False)


#: How a family's own figures are laid out; any other family is shown as a table of its statistics.
_LAYOUTS: dict[str, Callable[[Mapping[str, Any]], _Section]] = {
    "attribute": _attribute_section, "membership": _membership_section,
    "membership_family": _family_section, "distance": _distance_section,
    "inference_confidence": _confidence_section,
}


def _sections(document: Mapping[str, Any]) -> list[_Section]:
    """The detail of every family that wrote more than one attack's rates (those are in the
    attack table): the families with a τ check first, then the diagnostics (no check)."""
    checked = {c["family"] for c in document["checks"]}
    written = sorted(((name, section) for name, section in _families(document)
                      if section and "risk_basis" not in section),
                     key=lambda item: item[0] not in checked)
    return [_LAYOUTS[name](document) if name in _LAYOUTS
            else _Section(name, "Statistics of the attack", _statistics_table(section), name)
            for name, section in written]


def _headline(document: Mapping[str, Any]) -> str:
    failing = sum(not c["passed"] for c in document["checks"])
    if document["passed"]:
        return f"{verdict_word(True)}: every check's upper bound is below τ = {document['tau']:g}."
    claim = any(c["family"] == "privacy_claim" for c in document["checks"])
    limit = f"τ = {document['tau']:g}" + (" (the privacy claim: its claimed ε)" if claim else "")
    return f"{verdict_word(False)}: {failing} of {len(document['checks'])} checks reach {limit}."


#: Said when a synthetic release is attacked without real records the generator never saw.
NO_HOLDOUT = ("Warning: no holdout was given. Every rate is measured on the generator's own training records "
              "with no control group: the risks are success rates, not risks beyond what the population "
              "teaches, and the inference with confidence and the membership family cannot run. ")


def _holdout_warning(document: Mapping[str, Any]) -> str:
    return NO_HOLDOUT if document.get("n_holdout") is None else ""


def _preparation_line(document: Mapping[str, Any]) -> str:
    p = document["preparation"]
    return (f"Distances: metric {p.get('metric')}, scaling {p.get('scaling')} fitted on the "
            f"original, categorical coding {p.get('categorical_mode')}; numeric "
            f"{', '.join(c['name'] for c in p['numeric']) or 'none'}; categorical "
            f"{', '.join(c['name'] for c in p['categorical']) or 'none'}. The original's minima, "
            "maxima and ranges are confidential and never written to a report "
            "(docs/method/synthetic-attacks.md).")


def render_synth_markdown(document: Mapping[str, Any], title: str) -> str:
    """Terminal report: verdict, checks, attacks, the detail of every family."""
    out = [f"# {title}", "", _headline(document), "",
           f"Original {document['n_original']}, synthetic {document['n_synthetic']}, holdout "
           f"{document['n_holdout'] if document['n_holdout'] is not None else 'none'} records. "
           + _holdout_warning(document) + _preparation_line(document), "", md_table(_checks_table(document)), "",
           "## Attacks (success rate, 95% interval, successes/attempts)", "",
           md_table(_attack_table(document))]
    for section in _sections(document):
        if section.markdown:
            out += ["", f"## {section.md_heading}", "", *section.md_before, md_table(section.table),
                    *section.md_after]
    warnings = [w for _, r in _attacks(document) for w in r["warnings"]]
    if warnings:
        out += ["", "Warnings:", *[f"- {w}" for w in dict.fromkeys(warnings)]]
    return "\n".join(out) + "\n"


def attack_rates_figure(document: Mapping[str, Any]) -> Figure:
    """Success rate with 95% interval of each attack: on the training original (main), on the
    holdout (control) and of a naive intruder (baseline); legend beside the plot."""
    from matplotlib.figure import Figure

    attacks = _attacks(document)
    fig = Figure(figsize=(6.4, 0.5 + 0.45 * len(attacks) * 3))
    ax = fig.add_subplot()
    y = 0.0
    labels, positions = [], []
    for label, r in attacks:
        for role, colour in (("main", "#d62728"), ("control", "#1f77b4"), ("baseline", "#7f7f7f")):
            rate = r[role]
            if rate is not None:
                ax.errorbar(rate["rate"], y, xerr=[[rate["rate"] - rate["low"]], [rate["high"] - rate["rate"]]],
                            fmt="o", color=colour, capsize=3,
                            label=role if label == attacks[0][0] else None)
            labels.append(f"{label}: {role}")
            positions.append(y)
            y -= 1
        y -= 0.5
    ax.set_yticks(positions, labels, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("success rate with 95% interval")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def attack_rates_plot(document: Mapping[str, Any]) -> str:
    """``attack_rates_figure`` as inline SVG."""
    import matplotlib

    with matplotlib.rc_context(cast(Any, PLOT_RC)):
        return svg_figure(attack_rates_figure(document), "synth")


def render_synth_html(document: Mapping[str, Any], title: str) -> str:
    """Self-contained HTML report with the same content and a plot of the attack rates
    (template ``templates/synthetic.html.j2``)."""
    return render(
        "synthetic.html.j2", title=title, passed=document["passed"], headline=_headline(document),
        preparation=_holdout_warning(document) + _preparation_line(document), checks=_checks_table(document), attacks=_attack_table(document),
        rates_svg=svg(attack_rates_plot(document)), sections=_sections(document),
        footer="Aggregates only. Confidential until cleared for release.",
    )
