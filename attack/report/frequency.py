"""Reports of the frequency risk (``attack risk``): a Markdown summary and a self-contained HTML
page, both built from ``attack.risk.frequency.FrequencyRisk.to_dict``, which holds
aggregates only (counts, shares, risk summaries), never a record's values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attack.report.attack import ReportTable, md_table
from attack.report.html import render

__all__ = ["render_frequency_html", "render_frequency_markdown"]

FOOTER = ("Aggregates only. Frequency risk takes the keys as released: after perturbative methods "
          "(noise, microaggregation, PRAM, swapping) it overstates the risk, and the linkage attack "
          "is the measure (docs/method/frequency-risk.md).")


def _number(value: Any, digits: int = 6) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _headline(document: Mapping[str, Any]) -> str:
    s = document["settings"]
    verdict = "PASSED" if document["passed"] else "NOT PASSED"
    context = document.get("context")
    measure = (f", the {context['attacker_model']}'s measure {_number(context['measure'])} "
               f"{'at or below' if context['measure_passed'] else 'above'} the release context's τ"
               if context else "")
    return (f"{verdict}: {document['individual_risk']['above_threshold']} records with individual risk above "
            f"{s['threshold']}, {document['k_anonymity'][str(s['k'])]['violating']} records in key "
            f"combinations of fewer than {s['k']} records{measure} ({document['records']} records).")


def _tables(document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
    risk = document["individual_risk"]
    overview = ReportTable(["figure", "value"], [False, True])
    overview.add(["records", _number(document["records"])])
    overview.add(["sample uniques (f_k = 1)", _number(document["sample_uniques"])])
    for k, entry in document["k_anonymity"].items():
        overview.add([f"records violating {k}-anonymity (f_k < {k})", _number(entry["violating"])])
    overview.add(["expected re-identifications", _number(risk["expected_reidentifications"])])
    overview.add(["global risk (re-identification rate ξ)", _number(risk["global_risk"])])
    overview.add([f"records with risk above {document['settings']['threshold']}", _number(risk["above_threshold"])])
    overview.add(["largest individual risk", _number(risk["max"])])
    overview.add([f"threshold r* for ξ ≤ {document['settings']['max_global_risk']}",
                  _number(risk["threshold_for_max_global_risk"])])
    household = document.get("household_risk")
    if household:
        overview.add(["household: expected re-identifications", _number(household["expected_reidentifications"])])
        overview.add(["household: global risk", _number(household["global_risk"])])
    diversity = document.get("l_diversity")
    if diversity:
        overview.add([f"smallest l-diversity of {diversity['sensitive']}", _number(diversity["min_l"])])
    out = [(overview, f"Frequency risk of the keys {', '.join(document['keys'])}")]
    suda = document.get("suda")
    if suda:
        table = ReportTable(["key", "share of the SUDA score (%)"], [False, True])
        for key, value in suda["attribute_contributions"].items():
            table.add([key, _number(value, 4)])
        out.append((table, f"SUDA: {suda['records_with_msu']} records with a minimal sample unique; "
                           "contribution of each key"))
        dis = ReportTable(["DIS-SUDA score", "records"], [False, True])
        for label, count in suda["records_by_dis_score"].items():
            dis.add([label, str(count)])
        out.append((dis, f"DIS-SUDA scores (sampling fraction {suda['dis_fraction']})"))
    out += _population_tables(document)
    return out


_BASIS = {"sample": "the release taken as the population", "population_file": "the population file",
          "population_model": "the superpopulation model"}


def _population_tables(document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
    """The attacker models and, with a sampling fraction, the population-uniqueness models."""
    out = []
    if "prosecutor_risk" in document:
        table = ReportTable(["attacker", "F from", "highest risk", "records at risk", "average risk"],
                            [False, False, True, True, True])
        for name in ("prosecutor", "journalist", "marketer"):
            entry = document[f"{name}_risk"]
            table.add([name, _BASIS[entry["basis"]] if name != "prosecutor" else "the release",
                       _number(entry["highest"]), _number(entry["records_at_risk"]), _number(entry["average"])])
        household = document.get("household_journalist_risk")
        if household:
            table.add(["journalist, household", _BASIS[household["basis"]], _number(household["highest"]),
                       _number(household["records_at_risk"]), _number(household["average"])])
        out.append((table, f"Attacker models (records at risk: record risk above "
                           f"{document['prosecutor_risk']['threshold']})"))
    context = document.get("context")
    if context:
        table = ReportTable(["question", "answer"], [False, False])
        for question, answer in context["answers"].items():
            table.add([question, str(answer)])
        verdict = "at or below" if context["measure_passed"] else "above"
        out.append((table, f"Release context: {context['rule']}; the {context['attacker_model']}'s measure "
                           f"{_number(context['measure'])} is {verdict} τ"))
    uniqueness = document.get("population_uniqueness")
    if uniqueness:
        table = ReportTable(["model", "status", "population uniques", "share of the population"],
                            [False, False, True, True])
        for name, entry in uniqueness["models"].items():
            table.add([name, entry["status"].replace("_", " "), _number(entry["uniques"]), _number(entry["share"])])
        dankar = uniqueness["dankar"]
        interval = uniqueness["interval"]
        bounds = (f"; {100 * interval['level']:g} % interval (Pitman, {interval['replicates']} replicates) "
                  f"{interval['lower']:.0f} to {interval['upper']:.0f}" if interval else
                  f"; interval {uniqueness['interval_status']}")
        out.append((table, f"Population uniques (n = {uniqueness['records']}, N = {uniqueness['population']}); "
                           f"Dankar's rule: {dankar['model']}, {_number(dankar['uniques'])}{bounds}"))
    return out


def render_frequency_markdown(document: Mapping[str, Any]) -> str:
    """Markdown summary: verdict line and the tables of ``render_frequency_html``."""
    parts = [f"**{_headline(document)}**"]
    for table, caption in _tables(document):
        parts += [f"*{caption}*", md_table(table)]
    return "\n\n".join(parts) + "\n"


def render_frequency_html(document: Mapping[str, Any], title: str) -> str:
    """Self-contained HTML page (template ``templates/frequency.html.j2``)."""
    return render("frequency.html.j2", title=title, passed=document["passed"], headline=_headline(document),
                  tables=_tables(document), footer=FOOTER)
