"""HTML pages of the reports and the certificate: one jinja2 environment with autoescaping.

Every page is a template in ``attack/report/templates`` (``base.html.j2`` holds the page frame,
``macros.html.j2`` tables and figures); every value handed to a template is escaped unless it is
marked safe, and only SVG plots made by matplotlib are (``svg``). Nothing a user writes —
file, column, cell or category names, titles, notes — can add markup to a report, and every
value shown has its bidirectional controls made visible (``attack.report.safe_text``); a link
goes through the ``link`` filter, which refuses any scheme but https:, http: or none.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from attack.report.safe_text import checked_url, shown


@cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader("attack.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True, finalize=shown)
    env.filters["link"] = checked_url
    return env


def render(template: str, **context: Any) -> str:
    """The page of ``template`` with ``context``."""
    return environment().get_template(template).render(**context)


def svg(text: str) -> Markup:
    """A plot's SVG as safe markup: matplotlib writes it and escapes the text it contains."""
    return Markup(text)


__all__ = ["environment", "render", "svg"]
