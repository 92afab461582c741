"""How a result shows itself in a notebook: one short ``repr`` line, a compact HTML block
(verdict first, one table with its failing rows highlighted) and the report's figures.

Every public result type builds its ``__repr__``, ``_repr_html_`` and ``plot`` from the three
functions here, so the words, the row limit and the small-cell suppression are the same
everywhere (docs/reference/notebooks.md).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from attack.report.safe_text import visible_controls

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["MAX_ROWS", "VERDICT_WORDS", "fields_html", "figures_of", "keep_figure", "one_line", "result_html",
           "suppress_small_cells", "verdict_word"]

#: The one set of verdict words of the terminal, the reports and the notebook display
#: (the JSON carries the boolean ``passed``).
VERDICT_WORDS = {True: "PASSED", False: "NOT PASSED", None: "no verdict"}
#: Rows a notebook table shows at most; failing rows are shown first when there are more.
MAX_ROWS = 25
_FAIL_STYLE = "background:#fde2e1"
_COLOURS = {True: "#1a7f37", False: "#b42318", None: "#555555"}

_captured: ContextVar[list | None] = ContextVar("attack_report_figures", default=None)


def verdict_word(passed: bool | None) -> str:
    """``PASSED``, ``NOT PASSED`` or ``no verdict`` (a result that decides nothing)."""
    return VERDICT_WORDS[None if passed is None else bool(passed)]


def one_line(kind: str, passed: bool | None, *facts: str) -> str:
    """The short ``repr`` of a result: ``Kind(VERDICT; fact, fact)``, one line (bidirectional
    controls shown by name)."""
    words = [] if passed is None else [verdict_word(passed)]
    body = "; ".join(words + ([", ".join(facts)] if facts else []))
    return visible_controls(f"{kind}({body})".replace("\n", " "))


def _escaped(text: str) -> str:
    """Text for the notebook's HTML: escaped, bidirectional controls shown by name."""
    return html.escape(visible_controls(text))


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return _escaped(str(value))


def fields_html(title: str, fields: dict[str, Any]) -> str:
    """The notebook display of a small result without a verdict: its scalar fields as facts."""
    facts = [f"{name} = {value:.6g}" if isinstance(value, float) else f"{name} = {value}"
             for name, value in fields.items() if value is None or isinstance(value, (str, int, float))]
    return result_html(title, None, facts)


def result_html(
    title: str,
    passed: bool | None,
    facts: Sequence[str] = (),
    table: pd.DataFrame | None = None,
    *,
    failing: Sequence[bool] | None = None,
    full: str = "",
    max_rows: int = MAX_ROWS,
) -> str:
    """The notebook display: the verdict, the title, a line of facts and at most ``max_rows``
    rows of ``table`` (``failing`` rows highlighted and shown first when rows are left out;
    ``full`` names where the whole table is, e.g. ``result.cells``)."""
    colour = _COLOURS[None if passed is None else bool(passed)]
    parts = [f'<div class="attack-result"><p><strong style="color:{colour}">'
             f"{verdict_word(passed)}</strong> — {_escaped(title)}</p>"]
    if facts:
        parts.append("<p>" + " · ".join(_escaped(f) for f in facts) + "</p>")
    if table is not None and len(table.columns):
        flags = [bool(f) for f in failing] if failing is not None else [False] * len(table)
        order = list(range(len(table)))
        if len(order) > max_rows:
            order = sorted(order, key=lambda i: not flags[i])[:max_rows]
            order.sort(key=lambda i: (not flags[i], i))
        head = "".join(f"<th>{_escaped(str(c))}</th>" for c in table.columns)
        rows = []
        for i in order:
            style = f' style="{_FAIL_STYLE}"' if flags[i] else ""
            cells = "".join(f"<td>{_cell(v)}</td>"
                            for v in table.iloc[i].tolist())
            rows.append(f"<tr{style}>{cells}</tr>")
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
        if len(order) < len(table):
            where = f"; the full table: {_escaped(full)}" if full else ""
            parts.append(f"<p><small>{len(order)} of {len(table)} rows shown, failing rows "
                         f"first{where}.</small></p>")
    parts.append("</div>")
    return "".join(parts)


def suppress_small_cells(frame: pd.DataFrame, keep: Sequence[str], min_count: int) -> pd.DataFrame:
    """Blank every figure of a row whose cell has fewer than ``min_count`` verifiable units, as
    the reports do; the columns in ``keep`` (the cell, γ, the verdict) stay."""
    if "n_verifiable" not in frame.columns or frame.empty:
        return frame
    counts = frame["n_verifiable"]
    small = counts.isna() | (counts.astype(float) < min_count)
    out = frame.astype(object).copy()
    out.loc[small, [c for c in out.columns if c not in keep]] = None
    return out


def keep_figure(figure: Figure) -> None:
    """Called by the report's plot functions for every figure they draw; kept while
    ``figures_of`` listens, else nothing happens."""
    kept = _captured.get()
    if kept is not None:
        kept.append(figure)


@contextmanager
def _listening() -> Iterator[list]:
    kept: list = []
    token = _captured.set(kept)
    try:
        yield kept
    finally:
        _captured.reset(token)


def figures_of(render: Callable[[], object]) -> list[Figure]:
    """The matplotlib figures drawn while ``render`` (a report renderer) runs, in page order."""
    with _listening() as kept:
        render()
    return list(kept)
