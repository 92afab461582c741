"""The web application: screens that edit the scenario file, runs, results and certificates.

Starlette serves server-rendered pages (Jinja2 templates shipped in the package) and one small
script; there is no build step and nothing is loaded from the network. Every request must carry
the session token (in the address the first time, then as a same-site cookie), and requests
for another host name are refused. A cookie does not tell ports apart (a page on another port of
127.0.0.1 is "same-site"), so every state-changing request must also come from the UI's own
origin (``Origin``, or ``Referer`` when a browser sends no ``Origin``: scheme, host and port) and
carry the per-session form token (``csrf`` field or ``X-CSRF-Token`` header), which only the UI's
own pages hold: a web page open in the same browser cannot drive the UI.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from attack.ui.pages import PAGES
from attack.ui.session import Session
from attack.ui.view import State, View

COOKIE = "attack_ui_token"
#: Name of the per-session form token (a form field, or this header for a script).
CSRF_FIELD, CSRF_HEADER = "csrf", "x-csrf-token"
#: Methods that only read (everything else changes state and is checked for its origin).
READING = frozenset({"GET", "HEAD", "OPTIONS"})


class TokenGate:
    """Refuses every request without the session token or for a host name other than the
    server's own; the token in an address is exchanged for a same-site cookie."""

    def __init__(self, app: ASGIApp, token: str, hosts: frozenset[str] | None) -> None:
        self.app, self.token, self.hosts = app, token, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        if self.hosts is not None and headers.get("host", "") not in self.hosts:
            await PlainTextResponse("unknown host", status_code=403)(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.pop("token", [""])[0]
        if given and hmac.compare_digest(given, self.token):
            rest = urlencode(query, doseq=True)
            target = scope["path"] + (f"?{rest}" if rest else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        cookie = SimpleCookie(headers.get("cookie", ""))
        held = cookie[COOKIE].value if COOKIE in cookie else ""
        if not (held and hmac.compare_digest(held, self.token)):
            await PlainTextResponse("open the address that `attack ui` printed (it carries the session token)",
                                    status_code=403)(scope, receive, send)
            return
        if scope["method"] not in READING and not same_origin(headers, scope.get("scheme", "http")):
            await PlainTextResponse("refused: the request does not come from this UI's own page (Origin/Referer "
                                    "of another origin, or none); nothing was changed",
                                    status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def same_origin(headers: Mapping[str, str], scheme: str) -> bool:
    """Whether a request comes from the server's own origin: its ``Origin`` header (or, when
    there is none, its ``Referer``) names the scheme, host and port the request was sent to (the
    ``Host`` header, which the gate has checked). A request with neither header is refused."""
    own = f"{scheme}://{headers.get('host', '')}".lower()
    origin = headers.get("origin")
    if origin is None:
        referer = headers.get("referer")
        if not referer:
            return False
        parts = urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    return hmac.compare_digest(origin.strip().lower(), own)


def csrf_guarded(handler: Callable[[Request], Awaitable[Response]], csrf: str
                 ) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind the per-session form token: a state-changing request without it (in
    the ``csrf`` form field or the ``X-CSRF-Token`` header) is refused before anything is done."""
    async def guarded(request: Request) -> Response:
        if request.method not in READING:
            given = request.headers.get(CSRF_HEADER) or str((await request.form()).get(CSRF_FIELD) or "")
            if not (given and hmac.compare_digest(given, csrf)):
                return PlainTextResponse("refused: the form token of this UI session is missing or wrong "
                                         "(reload the page); nothing was changed", status_code=403)
        return await handler(request)
    return guarded


def create_app(session: Session, token: str, hosts: frozenset[str] | None) -> ASGIApp:
    """The UI for ``session``, behind the token gate (``hosts`` None: any host name): the routes
    of every registered page (``attack.ui.pages``), each behind the form token."""
    pages = PAGES.values()
    view = View(State(session), new_token(), nav=[page for page in pages if page.title])
    routes: list[BaseRoute] = [
        Route(endpoint.path, csrf_guarded(partial(endpoint.handler, view), view.csrf), methods=list(endpoint.methods))
        for page in pages for endpoint in page.endpoints]
    routes.append(Mount("/static", StaticFiles(packages=[("attack.ui", "static")]), name="static"))
    return TokenGate(Starlette(routes=routes), token, hosts)


def new_token() -> str:
    """A random session token."""
    return os.urandom(24).hex()
