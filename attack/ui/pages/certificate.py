"""Certificate: the last run's certificate, its verification and a new signing key pair."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from attack.ui import jobs
from attack.ui.pages import PAGES, Endpoint, Page
from attack.ui.view import View, back, relative_to


async def certificate(view: View, request: Request) -> Response:
    job = view.state.job
    last = job.outputs.get("certificate") if job is not None and job.kind == "run" else None
    base = view.state.session.path.parent
    return view.page("certificate.html.j2", last=relative_to(last, base) if last else "", keygen=view.state.keygen)


async def verify(view: View, request: Request) -> Response:
    """Verify a certificate (``attack verify``) in the background."""
    form = await request.form()
    base = view.state.session.path.parent
    certificate = str(form.get("certificate") or "").strip()
    if not certificate:
        view.state.notice = "give the certificate to verify"
        return back("/certificate")
    public = str(form.get("public_key") or "").strip()
    arguments = jobs.verify_arguments(base / certificate, base / public if public else None,
                                      str(form.get("mode") or "inputs"), root=base)
    view.state.job = jobs.Job("verify", tuple(arguments), base).start()
    return back("/results")


async def keygen(view: View, request: Request) -> Response:
    """Write a new key pair (``attack keygen``) and show what it said."""
    form = await request.form()
    folder = str(form.get("folder") or "").strip()
    if not folder:
        view.state.notice = "give the folder for the key pair"
        return back("/certificate")
    done = await run_in_threadpool(jobs.once, ["keygen", "--out", folder], view.state.session.path.parent)
    view.state.keygen = (done.stdout + done.stderr).strip().removeprefix(jobs.ERROR_PREFIX)
    return back("/certificate")


PAGES.add("certificate", Page("certificate", (
    Endpoint("/certificate", certificate),
    Endpoint("/certificate/verify", verify, ("POST",)),
    Endpoint("/certificate/keygen", keygen, ("POST",)),
), title="Certificate", url="/certificate", order=30))
