"""The UI's pages as plug-ins: each module of this package is one page
(docs/contributing/add-a-ui-page.md).

A page is a ``Page`` registered with ``PAGES.add`` (``attack.io.plugins.Registry``, the one
mechanism of every plug-in): its name, its routes (a path, a handler ``async (view, request)
-> response`` and the methods it answers) and, when it is listed in the side bar, its title and
address. ``attack.ui.app.create_app`` builds the route table and the side bar from every
registered page, in ``order``; a handler renders its template with ``view.page``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from attack.io.plugins import Registry
from attack.ui.view import View

__all__ = ["PAGES", "Endpoint", "Handler", "Page"]

Handler = Callable[[View, Request], Awaitable[Response]]


@dataclass(frozen=True)
class Endpoint:
    """One route of a page: ``handler`` answers ``methods`` at ``path`` (Starlette's syntax)."""

    path: str
    handler: Handler
    methods: tuple[str, ...] = ("GET",)


@dataclass(frozen=True)
class Page:
    """A page of the UI: ``name`` marks it as the current one in the side bar (its template sets
    ``active``), ``title`` and ``url`` its link there (no title: not listed)."""

    name: str
    endpoints: tuple[Endpoint, ...]
    title: str | None = None
    url: str = ""
    order: int = 100


PAGES: Registry[Page] = Registry("UI page", "attack.ui.pages", order=lambda name, page: (page.order, name))
"""Every page by name, in ``order``; reading it imports every module of this package."""
