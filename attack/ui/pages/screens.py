"""The scenario screens: one form per section of the scenario file (data, keys, run, ...),
listed in the side bar by the session, and the scenario bar's open, save as and demo."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

import attack
from attack.errors import InputError
from attack.ui import jobs
from attack.ui.forms import get, parse_path
from attack.ui.pages import PAGES, Endpoint, Page
from attack.ui.session import Session
from attack.ui.view import View, back

#: File endings of data files offered on the data screen.
DATA_SUFFIXES = (".csv", ".txt", ".tsv", ".parquet", ".xlsx", ".xls", ".ods", ".sav", ".dta", ".sas7bdat")
#: The options of ``attack inspect`` for the reading fields of a data entry.
READ_FLAGS = {"sep": "--sep", "decimal": "--decimal", "encoding": "--encoding", "sheet": "--sheet"}


async def home(view: View, request: Request) -> Response:
    return back("/screen/data")


async def screen(view: View, request: Request) -> Response:
    """A screen's form (GET) or its submission (POST: save, add or remove an entry, inspect a file)."""
    s = view.state.session
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
            view.state.inspections[where] = await run_in_threadpool(_inspect, s, where)
        return back(f"/screen/{current.slug}" + (f"#{where}" if where else ""))
    top = s.widgets(current)
    names = [leaf.name for w in top for leaf in w.leaves()] + [g.name for w in top for g in w.groups()]
    return view.page("screen.html.j2", screen=current, widgets=top, error_field=s.error_field(names),
                     inspections=view.state.inspections, data_files=_data_files(s.path.parent))


async def scenario(view: View, request: Request) -> Response:
    """The scenario bar: open a file, save as, or start from the demo."""
    form = await request.form()
    action, path = str(form.get("action", "")), str(form.get("path", "")).strip()
    s = view.state.session
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
        view.state.notice = str(exc)
    return back(str(form.get("next") or "/screen/data"))


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


PAGES.add("screens", Page("screens", (
    Endpoint("/", home),
    Endpoint("/screen/{slug}", screen, ("GET", "POST")),
    Endpoint("/scenario", scenario, ("POST",)),
), order=10))
