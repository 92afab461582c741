"""Reports of the frequency risk (``attack risk``): a Markdown summary and a self-contained HTML
page, both built from ``attack.risk.frequency.FrequencyRisk.to_dict``, which holds aggregates
only (counts, shares, risk summaries), never a record's values.

The verdict line and the first table's core rows are written here; every frequency-risk
measure (``attack.risk.measures``) writes its own rows of that table and its own tables.
``REPORT_LINES`` holds them: the measure's registration puts it there, and reading it imports
the measures' package (``attack.io.plugins.Registry``), so a report needs no list of measures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from attack.io.plugins import Registry
from attack.report.attack import ReportTable, md_table
from attack.report.html import render

__all__ = ["FOOTER", "REPORT_LINES", "ReportLines", "number", "render_frequency_html", "render_frequency_markdown"]

FOOTER = ("Aggregates only. Frequency risk takes the keys as released: after perturbative methods "
          "(noise, microaggregation, PRAM, swapping) it overstates the risk, and the linkage attack "
          "is the measure (docs/method/frequency-risk.md).")


def number(value: Any, digits: int = 6) -> str:
    """A figure of the frequency reports: ``–`` for none, floats to ``digits`` significant digits."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _headline(document: Mapping[str, Any]) -> str:
    s = document["settings"]
    verdict = "PASSED" if document["passed"] else "NOT PASSED"
    context = document.get("context")
    measure = (f", the {context['attacker_model']}'s measure {number(context['measure'])} "
               f"{'at or below' if context['measure_passed'] else 'above'} the release context's τ"
               if context else "")
    return (f"{verdict}: {document['individual_risk']['above_threshold']} records with individual risk above "
            f"{s['threshold']}, {document['k_anonymity'][str(s['k'])]['violating']} records in key "
            f"combinations of fewer than {s['k']} records{measure} ({document['records']} records).")


Tables = list[tuple[ReportTable, str]]


class ReportLines(Protocol):
    """What a frequency-risk measure writes into the reports, read from the result's document."""

    order: int

    def overview(self, document: Mapping[str, Any]) -> list[list[str]]:
        """Its rows of the first table (``figure``, ``value``)."""

    def tables(self, document: Mapping[str, Any]) -> Tables:
        """Its own tables with their captions."""


REPORT_LINES: Registry[ReportLines] = Registry(
    "frequency-risk report", "attack.risk.measures", order=lambda name, lines: (lines.order, name))
"""The measures' report lines by measure name, in the measures' order."""


def _overview(document: Mapping[str, Any]) -> tuple[ReportTable, str]:
    """The first table: records, sample uniques, k-anonymity and the individual risk, then every
    measure's rows."""
    risk = document["individual_risk"]
    table = ReportTable(["figure", "value"], [False, True])
    table.add(["records", number(document["records"])])
    table.add(["sample uniques (f_k = 1)", number(document["sample_uniques"])])
    for k, entry in document["k_anonymity"].items():
        table.add([f"records violating {k}-anonymity (f_k < {k})", number(entry["violating"])])
    table.add(["expected re-identifications", number(risk["expected_reidentifications"])])
    table.add(["global risk (re-identification rate ξ)", number(risk["global_risk"])])
    table.add([f"records with risk above {document['settings']['threshold']}", number(risk["above_threshold"])])
    table.add(["largest individual risk", number(risk["max"])])
    table.add([f"threshold r* for ξ ≤ {document['settings']['max_global_risk']}",
               number(risk["threshold_for_max_global_risk"])])
    for lines in REPORT_LINES.values():
        for row in lines.overview(document):
            table.add(row)
    return table, f"Frequency risk of the keys {', '.join(document['keys'])}"


def _tables(document: Mapping[str, Any]) -> Tables:
    return [_overview(document), *(table for lines in REPORT_LINES.values() for table in lines.tables(document))]


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
