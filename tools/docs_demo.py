"""MkDocs hook: the demo's numbers quoted in the documentation come from the demo's own output.

When the build starts, the demo scenario runs as ``attack demo`` runs it (17,000 generated firms,
seed 1; a few seconds) and ``demo_figures`` names its figures. A page quotes one as
``{{ demo.NAME }}``, e.g. ``{{ demo.realistic_formal_rate }}``; a name the demo does not produce
fails the build, naming the page. ``tests/test_docs_demo.py`` checks that no page quotes a demo
figure literally, so a changed demo can never leave a stale number behind.
"""

from __future__ import annotations

import re
from typing import Any

try:
    from mkdocs.exceptions import PluginError
except ImportError:  # the tests import this module where only the test extra is installed
    PluginError = ValueError

#: The demo as ``attack demo`` runs it by default.
DEMO = {"n_units": 17000, "seed": 1}
PLACEHOLDER = re.compile(r"\{\{\s*demo\.([a-z0-9_]+)\s*\}\}")
_figures: dict[str, str] = {}


def _slug(run: dict[str, Any]) -> str:
    release = re.sub(r"[^a-z0-9]+", "_", run["release"]["name"].lower()).strip("_").split("_")[0]
    return f"{run['intruder']['role'] or 'intruder'}_{release}"


def demo_figures(document: dict[str, Any], n_units: int) -> dict[str, str]:
    """The quotable figures of a demo result (``ScenarioResult.to_dict()``), as printed text:
    per run (``worst_formal``, ``realistic_formal``, ``worst_separate``, ``realistic_separate``)
    the rate, the rate in per cent, correct links, verifiable records and failing cells."""
    out = {"units": f"{n_units:,}", "verdict": "PASSED" if document["passed"] else "NOT PASSED"}
    for run in document["runs"]:
        slug = _slug(run)
        rate = run["reidentification_rate"]
        out[f"{slug}_rate"] = f"{rate:.4f}"
        out[f"{slug}_percent"] = f"{100 * rate:.1f} %"
        out[f"{slug}_correct"] = f"{run['n_correct']:,}"
        out[f"{slug}_verifiable"] = f"{run['n_verifiable']:,}"
        out[f"{slug}_failing_cells"] = f"{run['n_failing_cells']} of {len(run['cells'])}"
    return out


def substitute(markdown: str, figures: dict[str, str], page: str) -> str:
    """Replace every ``{{ demo.NAME }}`` of a page; an unknown name is an error."""
    def one(match: re.Match) -> str:
        try:
            return figures[match.group(1)]
        except KeyError:
            raise PluginError(f"{page}: the demo produces no figure {match.group(1)!r}; "
                              f"it has {', '.join(sorted(figures))}") from None
    return PLACEHOLDER.sub(one, markdown)


def on_config(config):
    """Run the demo once per build."""
    import attack

    result = attack.demo_scenario(**DEMO).run(engine={"jobs": 1})
    _figures.clear()
    _figures.update(demo_figures(result.to_dict(), DEMO["n_units"]))
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    return substitute(markdown, _figures, page.file.src_path)
