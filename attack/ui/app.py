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
import json
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import attack
from attack.errors import InputError
from attack.report.documents import load_result
from attack.report.safe_text import shown
from attack.study.result_check import check_result
from attack.ui import jobs
from attack.ui.forms import get, parse_path
from attack.ui.session import Session

COOKIE = "attack_ui_token"
#: Name of the per-session form token (a form field, or this header for a script).
CSRF_FIELD, CSRF_HEADER = "csrf", "x-csrf-token"
#: Methods that only read (everything else changes state and is checked for its origin).
READING = frozenset({"GET", "HEAD", "OPTIONS"})
#: File endings of data files offered on the data screen.
DATA_SUFFIXES = (".csv", ".txt", ".tsv", ".parquet", ".xlsx", ".xls", ".ods", ".sav", ".dta", ".sas7bdat")
#: The warning of the command line for the record-level links (``attack run --matches``).
LINKS_WARNING = ("links external identities to confidential release records; it was written with "
                 "owner-only permissions (0600). Keep it inside the secure environment.")
#: The warning of the command line for the per-record risks (``attack run --records``).
RECORDS_WARNING = ("holds record-level risks that point at the riskiest records of the confidential file; it was "
                   "written with owner-only permissions (0600). Keep it inside the secure environment.")
#: The record-level outputs of a run and the warning each is offered with.
RECORD_LEVEL = {"matches": LINKS_WARNING, "records": RECORDS_WARNING}
#: The options of ``attack inspect`` for the reading fields of a data entry.
READ_FLAGS = {"sep": "--sep", "decimal": "--decimal", "encoding": "--encoding", "sheet": "--sheet"}


@dataclass
class State:
    """What the server holds: the session (the scenario file) and the last background run."""

    session: Session
    job: jobs.Job | None = None
    inspections: dict[str, Any] = field(default_factory=dict)
    notice: str | None = None
    keygen: str | None = None


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
    """The UI for ``session``, behind the token gate (``hosts`` None: any host name)."""
    state = State(session)
    csrf = new_token()
    templates = Environment(loader=PackageLoader("attack.ui", "templates"), autoescape=select_autoescape(),
                            trim_blocks=True, lstrip_blocks=True, finalize=shown)

    def page(name: str, **context: Any) -> HTMLResponse:
        s = state.session
        notice, state.notice = state.notice, None
        base = s.path.parent
        return HTMLResponse(templates.get_template(name).render(
            session=s, screens=s.screens(), toml=s.toml(), notice=notice and _shown(notice, base), job=state.job,
            version=attack.__version__, scenario_error=s.error and _shown(str(s.error), base), csrf=csrf,
            **context))

    def back(url: str) -> RedirectResponse:
        return RedirectResponse(url, status_code=303)

    async def home(request: Request) -> Response:
        return back("/screen/data")

    async def screen(request: Request) -> Response:
        s = state.session
        try:
            current = s.screen(request.path_params["slug"])
        except KeyError:
            return back("/screen/data")
        if request.method == "POST":
            form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
            action, _, where = form.pop("action", "save").partition(":")
            # validation and inspection take a moment: off the event loop, so progress polls go on
            await run_in_threadpool(s.apply, current, form, add=where if action == "add" else None,
                                    remove=where if action == "remove" else None)
            if action == "inspect" and s.error is None:
                state.inspections[where] = await run_in_threadpool(_inspect, s, where)
            return back(f"/screen/{current.slug}" + (f"#{where}" if where else ""))
        top = s.widgets(current)
        names = [leaf.name for w in top for leaf in w.leaves()] + [g.name for w in top for g in w.groups()]
        return page("screen.html.j2", screen=current, widgets=top, error_field=s.error_field(names),
                    inspections=state.inspections, data_files=_data_files(s.path.parent))

    async def scenario(request: Request) -> Response:
        form = await request.form()
        action, path = str(form.get("action", "")), str(form.get("path", "")).strip()
        s = state.session
        try:
            if action == "demo":
                units = int(str(form.get("units") or 17000))
                await run_in_threadpool(lambda: s.start_from(attack.demo_scenario(n_units=units).to_toml()))
            elif not path:
                raise InputError("give the path of a scenario file")
            elif action == "load":
                await run_in_threadpool(s.load, path)
            else:
                await run_in_threadpool(lambda: s.save_as(path, replace=form.get("replace") == "on"))
        except (InputError, ValueError) as exc:
            state.notice = str(exc)
        return back(str(form.get("next") or "/screen/data"))

    async def run(request: Request) -> Response:
        form = await request.form()
        s = state.session
        if state.job is not None and state.job.running:
            state.notice = "a run is under way: wait for it or cancel it"
            return back("/results")
        if s.error is not None or not s.saved:
            state.notice = "the scenario has an error: fix it before running"
            return back("/screen/run")
        folder = s.path.parent / "reports" / s.path.stem
        env: dict[str, str] = {}
        if form.get("kind") == "tune":
            arguments, outputs = jobs.tune_arguments(s.path, folder)
        elif form.get("kind") == "remedy":
            arguments, outputs = jobs.remedy_arguments(s.path, folder)
        else:
            key_text = str(form.get("key") or "").strip()
            key = None if not key_text else (s.path.parent / Path(key_text).expanduser())
            passphrase = str(form.get("passphrase") or "")
            arguments, outputs = jobs.run_arguments(s.path, folder, matches=form.get("matches") == "on", key=key,
                                                    passphrase=bool(passphrase), records=form.get("records") == "on")
            if key is not None and passphrase:
                env[jobs.PASSPHRASE_VARIABLE] = passphrase
        folder.mkdir(parents=True, exist_ok=True)
        state.job = jobs.Job(str(form.get("kind") or "run"), tuple(arguments), s.path.parent, outputs, env).start()
        return back("/results")

    async def verify(request: Request) -> Response:
        form = await request.form()
        base = state.session.path.parent
        certificate = str(form.get("certificate") or "").strip()
        if not certificate:
            state.notice = "give the certificate to verify"
            return back("/certificate")
        public = str(form.get("public_key") or "").strip()
        arguments = jobs.verify_arguments(base / certificate, base / public if public else None,
                                          str(form.get("mode") or "inputs"), root=base)
        state.job = jobs.Job("verify", tuple(arguments), base).start()
        return back("/results")

    async def keygen(request: Request) -> Response:
        form = await request.form()
        folder = str(form.get("folder") or "").strip()
        if not folder:
            state.notice = "give the folder for the key pair"
            return back("/certificate")
        done = await run_in_threadpool(jobs.once, ["keygen", "--out", folder], state.session.path.parent)
        state.keygen = (done.stdout + done.stderr).strip().removeprefix(jobs.ERROR_PREFIX)
        return back("/certificate")

    async def certificate(request: Request) -> Response:
        job = state.job
        last = job.outputs.get("certificate") if job is not None and job.kind == "run" else None
        base = state.session.path.parent
        return page("certificate.html.j2", last=_relative(last, base) if last else "",
                    keygen=state.keygen)

    async def results(request: Request) -> Response:
        job = state.job
        summary = None
        written = job.outputs.get("json") if job is not None and job.kind == "run" else None
        if job is not None and not job.running and job.returncode in (0, 1) and written and written.exists():
            try:  # read back as attack report reads it: the verdict must follow from the figures
                document, _ = load_result(written)
                check_result(document, file=written.name)
                summary = {"passed": document["passed"] is True, "title": document.get("title", "")}
            except InputError as exc:
                state.notice = str(exc)
        error, notices, messages = _said(job, state.session.path.parent)
        return page("results.html.j2", summary=summary, status=job.status() if job else None,
                    files=_offered(job), run_error=error, notices=notices, messages=messages)

    async def job_status(request: Request) -> Response:
        return JSONResponse(state.job.status() if state.job else {"running": False})

    async def cancel(request: Request) -> Response:
        if state.job is not None:
            state.job.cancel()
        return back("/results")

    async def files(request: Request) -> Response:
        job = state.job
        name = request.path_params["name"]
        offered = {path.name: (what, path) for what, path in (job.outputs.items() if job else ())}
        if name not in offered or not offered[name][1].exists():
            return PlainTextResponse("no such file", status_code=404)
        what, path = offered[name]
        if what in RECORD_LEVEL and request.query_params.get("confirm") != "yes":
            return PlainTextResponse(f"{name} {RECORD_LEVEL[what]}", status_code=403)
        return FileResponse(path, media_type="text/html; charset=utf-8" if path.suffix == ".html" else None)

    def guard(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        return csrf_guarded(handler, csrf)

    routes = [
        Route("/", guard(home)),
        Route("/screen/{slug}", guard(screen), methods=["GET", "POST"]),
        Route("/scenario", guard(scenario), methods=["POST"]),
        Route("/run", guard(run), methods=["POST"]),
        Route("/results", guard(results)),
        Route("/job", guard(job_status)),
        Route("/job/cancel", guard(cancel), methods=["POST"]),
        Route("/files/{name}", guard(files)),
        Route("/certificate", guard(certificate)),
        Route("/certificate/verify", guard(verify), methods=["POST"]),
        Route("/certificate/keygen", guard(keygen), methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("attack.ui", "static")]), name="static"),
    ]
    return TokenGate(Starlette(routes=routes), token, hosts)


def _inspect(session: Session, where: str) -> dict[str, Any]:
    """``attack inspect`` on the data entry at ``where``: its column report, or its error."""
    entry = get(session.document, parse_path(where))
    if not isinstance(entry, Mapping) or not entry.get("path"):
        return {"error": "give the file's path first"}
    arguments = ["inspect", str(entry["path"]), "--json"]
    for name, flag in READ_FLAGS.items():
        if entry.get(name) is not None:
            arguments += [flag, str(entry[name])]
    arguments += [a for code in entry.get("codes", []) for a in ("--code", str(code))]
    na = entry.get("na", [])
    pairs = [(c, v) for c, vs in na.items() for v in vs] if isinstance(na, Mapping) else [(None, v) for v in na]
    arguments += [a for c, v in pairs for a in ("--na", f"{c}={v}" if c else str(v))]
    done = jobs.once(arguments, session.path.parent)
    if done.returncode != 0:
        return {"error": done.stderr.strip().removeprefix(jobs.ERROR_PREFIX)}
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _data_files(folder: Path) -> list[str]:
    """Data files in the scenario's folder and one level below, relative to it."""
    found = [p for pattern in ("*", "*/*") for p in folder.glob(pattern) if p.suffix.lower() in DATA_SUFFIXES]
    return sorted(str(p.relative_to(folder)) for p in found)[:200]


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def _said(job: jobs.Job | None, base: Path) -> tuple[str | None, list[str], list[str]]:
    """What the last command said, with paths under the scenario's folder relative to it (no
    machine path on screen): its error, its notices (``attack: notice: ...``, shown folded
    under the verdict) and its other lines."""
    if job is None or job.running:
        return None, [], []
    error = job.error()
    lines = [_shown(line, base) for line in job.messages() if not line.startswith(jobs.ERROR_PREFIX)]
    notices = [line.removeprefix(NOTICE_PREFIX) for line in lines if line.startswith(NOTICE_PREFIX)]
    return (_shown(error, base) if error else None, notices,
            [line for line in lines if not line.startswith(NOTICE_PREFIX)])


def _shown(text: str, base: Path) -> str:
    """A line for the page: paths under the scenario's folder relative to it."""
    return text.replace(str(base) + os.sep, "")


#: How the command line starts a notice on stderr (attack._cli.app prints them so).
NOTICE_PREFIX = "attack: notice: "


def _offered(job: jobs.Job | None) -> list[dict[str, Any]]:
    """The files of the last run that may be downloaded; the record-level ones marked."""
    if job is None or job.running:
        return []
    return [{"name": p.name, "what": what, "record_level": what in RECORD_LEVEL, "warning": RECORD_LEVEL.get(what, "")}
            for what, p in job.outputs.items() if p.exists()]


def new_token() -> str:
    """A random session token."""
    return os.urandom(24).hex()
