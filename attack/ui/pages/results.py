"""Run and results: start a run, tune or remedy in a child process, follow it, read its verdict
and messages, download what it wrote (record-level files only after a confirmation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response

from attack.errors import InputError
from attack.report.documents import load_result
from attack.study.result_check import check_result
from attack.ui import jobs
from attack.ui.pages import PAGES, Endpoint, Page
from attack.ui.view import View, back, shown_under

#: The warning of the command line for the record-level links (``attack run --matches``).
LINKS_WARNING = ("links external identities to confidential release records; it was written with "
                 "owner-only permissions (0600). Keep it inside the secure environment.")
#: The warning of the command line for the per-record risks (``attack run --records``).
RECORDS_WARNING = ("holds record-level risks that point at the riskiest records of the confidential file; it was "
                   "written with owner-only permissions (0600). Keep it inside the secure environment.")
#: The record-level outputs of a run and the warning each is offered with.
RECORD_LEVEL = {"matches": LINKS_WARNING, "records": RECORDS_WARNING}
#: How the command line starts a notice on stderr (attack._cli.app prints them so).
NOTICE_PREFIX = "attack: notice: "


async def run(view: View, request: Request) -> Response:
    """Start the saved scenario's run (or its tune or remedy) in the background."""
    form = await request.form()
    state, s = view.state, view.state.session
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


async def results(view: View, request: Request) -> Response:
    """The last command: its progress, verdict, messages and files."""
    state = view.state
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
    return view.page("results.html.j2", summary=summary, status=job.status() if job else None,
                     files=_offered(job), run_error=error, notices=notices, messages=messages)


async def job_status(view: View, request: Request) -> Response:
    job = view.state.job
    return JSONResponse(job.status() if job else {"running": False})


async def cancel(view: View, request: Request) -> Response:
    if view.state.job is not None:
        view.state.job.cancel()
    return back("/results")


async def files(view: View, request: Request) -> Response:
    """A file the last command wrote; a record-level one only with ``confirm=yes``."""
    job = view.state.job
    name = request.path_params["name"]
    offered = {path.name: (what, path) for what, path in (job.outputs.items() if job else ())}
    if name not in offered or not offered[name][1].exists():
        return PlainTextResponse("no such file", status_code=404)
    what, path = offered[name]
    if what in RECORD_LEVEL and request.query_params.get("confirm") != "yes":
        return PlainTextResponse(f"{name} {RECORD_LEVEL[what]}", status_code=403)
    return FileResponse(path, media_type="text/html; charset=utf-8" if path.suffix == ".html" else None)


def _said(job: jobs.Job | None, base: Path) -> tuple[str | None, list[str], list[str]]:
    """What the last command said, with paths under the scenario's folder relative to it (no
    machine path on screen): its error, its notices (``attack: notice: ...``, shown folded
    under the verdict) and its other lines."""
    if job is None or job.running:
        return None, [], []
    error = job.error()
    lines = [shown_under(line, base) for line in job.messages() if not line.startswith(jobs.ERROR_PREFIX)]
    notices = [line.removeprefix(NOTICE_PREFIX) for line in lines if line.startswith(NOTICE_PREFIX)]
    return (shown_under(error, base) if error else None, notices,
            [line for line in lines if not line.startswith(NOTICE_PREFIX)])


def _offered(job: jobs.Job | None) -> list[dict[str, Any]]:
    """The files of the last run that may be downloaded; the record-level ones marked."""
    if job is None or job.running:
        return []
    return [{"name": p.name, "what": what, "record_level": what in RECORD_LEVEL, "warning": RECORD_LEVEL.get(what, "")}
            for what, p in job.outputs.items() if p.exists()]


PAGES.add("results", Page("results", (
    Endpoint("/run", run, ("POST",)),
    Endpoint("/results", results),
    Endpoint("/job", job_status),
    Endpoint("/job/cancel", cancel, ("POST",)),
    Endpoint("/files/{name}", files),
), title="Run and results", url="/results", order=20))
