"""attack.ui.pages: the recipe for a new UI page (docs/contributing/add-a-ui-page.md) followed on
a toy page, which gets its route and its link in the side bar, and is gone once removed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

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
