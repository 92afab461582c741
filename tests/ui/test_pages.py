"""attack.ui.pages: the recipe for a new UI page (docs/contributing/add-a-ui-page.md) followed on
a toy page, which gets its route and its link in the side bar, and is gone once removed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient
from test_docs import PAGES as DOC_PAGES
from test_docs import needs_ui, run_blocks

from attack.ui.app import create_app
from attack.ui.pages import PAGES, Endpoint, Page
from attack.ui.session import Session
from attack.ui.view import View, back

TEMPLATE = ('{% extends "base.html.j2" %}{% set active = "notes" %}'
            '{% block main %}<p id="note">{{ note }}</p>{% endblock %}')


@pytest.fixture
def toy() -> Iterator[str]:
    async def show(view: View, request: Request) -> Response:
        return view.page(view.templates.from_string(TEMPLATE), note=view.state.notice or "none")

    async def write(view: View, request: Request) -> Response:
        view.state.notice = str((await request.form()).get("note"))
        return back("/notes")

    PAGES.add("notes", Page("notes", (Endpoint("/notes", show), Endpoint("/notes", write, ("POST",))),
                            title="Notes", url="/notes", order=40))
    yield "notes"
    PAGES.remove("notes")


def _client(tmp_path: Path) -> TestClient:
    client = TestClient(create_app(Session(tmp_path / "scenario.toml"), "token", None))
    client.get("/?token=token")
    return client


def test_a_registered_page_is_routed_and_listed(toy: str, tmp_path: Path) -> None:
    client = _client(tmp_path)
    page = client.get("/notes").text
    assert '<p id="note">none</p>' in page
    assert '<a href="/notes" class="here">Notes</a>' in page
    assert page.index(">Certificate</a>") < page.index(">Notes</a>")  # listed in its order
    results = client.get("/results").text
    assert '<a href="/notes">Notes</a>' in results and '<a href="/results" class="here">' in results
    # its form is behind the same guards as every other one: no form token, no change
    refused = client.post("/notes", data={"note": "x"}, headers={"origin": "http://testserver"})
    assert refused.status_code == 403


def test_a_removed_page_is_gone(toy: str, tmp_path: Path) -> None:
    PAGES.remove(toy)
    client = _client(tmp_path)
    assert client.get("/notes").status_code == 404
    assert "Notes" not in client.get("/results").text


def test_the_built_in_pages_in_side_bar_order() -> None:
    assert [page.title for page in PAGES.values() if page.title][:2] == ["Run and results", "Certificate"]


def test_the_pages_registry_is_over_its_package_like_every_kind() -> None:
    """As tests/test_plugin_recipes.py checks the other four kinds (this one needs the ui extra)."""
    from attack.io.plugins import Registry

    root = Path(__file__).resolve().parents[2]
    assert isinstance(PAGES, Registry) and PAGES.package == "attack.ui.pages" and len(PAGES) > 0
    assert "`attack.ui.pages`" in (root / "docs/contributing/add-a-ui-page.md").read_text(encoding="utf-8")
    assert (root / "tests/ui/test_pages.py").is_file()


@pytest.mark.parametrize("page", [p for p in DOC_PAGES if needs_ui(p)], ids=lambda p: p.name)
def test_the_documentation_blocks_that_use_the_ui_run(page: Path, tmp_path: Path, monkeypatch) -> None:
    """The pages tests/test_docs.py leaves to this folder (the recipe among them) run too."""
    assert "docs/contributing/add-a-ui-page.md" in [p.relative_to(p.parents[2]).as_posix() for p in DOC_PAGES if needs_ui(p)]
    run_blocks(page, tmp_path, monkeypatch)
