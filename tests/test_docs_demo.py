"""The demo's numbers in the documentation come from the demo's output (``tools/docs_demo.py``,
a hook of the docs build): every quoted name exists, and no page types a demo figure in."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import attack

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
_spec = importlib.util.spec_from_file_location("docs_demo", ROOT / "tools" / "docs_demo.py")
docs_demo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_demo)
#: A rate as the reports print it (four decimals), on a line that speaks of the demo.
_LITERAL = re.compile(r"\b[01]\.\d{4}\b")


@pytest.fixture(scope="module")
def figures() -> dict[str, str]:
    document = attack.demo_scenario(n_units=400, seed=1).run(engine={"jobs": 1}).to_dict()
    return docs_demo.demo_figures(document, 400)


def test_every_quoted_name_is_a_figure_of_the_demo(figures):
    used = {name for page in PAGES for name in docs_demo.PLACEHOLDER.findall(page.read_text(encoding="utf-8"))}
    assert used, "the docs quote the demo through placeholders"
    assert used <= set(figures), sorted(used - set(figures))


def test_figures_are_the_demo_output_as_printed(figures):
    document = attack.demo_scenario(n_units=400, seed=1).run(engine={"jobs": 1}).to_dict()
    realistic = next(r for r in document["runs"] if r["intruder"]["role"] == "realistic"
                     and r["release"]["name"] == "FORMAL")
    assert figures["realistic_formal_rate"] == f"{realistic['reidentification_rate']:.4f}"
    assert figures["realistic_formal_correct"] == f"{realistic['n_correct']:,}"
    assert figures["worst_formal_rate"] == "1.0000"  # the worst case finds every firm in FORMAL
    assert figures["units"] == "400"


def test_an_unknown_name_fails_the_build(figures):
    # MkDocs's PluginError where the docs extra is installed, else the hook's stand-in
    assert docs_demo.substitute("rate {{ demo.worst_formal_rate }}.", figures, "a page") == "rate 1.0000."
    with pytest.raises(docs_demo.PluginError, match="a page: the demo produces no figure 'quarter'"):
        docs_demo.substitute("{{ demo.quarter }}", figures, "a page")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_types_a_demo_rate_in(page):
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if "demo" in line.lower() and "--units" not in line:
            assert not _LITERAL.search(docs_demo.PLACEHOLDER.sub("", line)), f"{page.name}:{number}: {line}"
