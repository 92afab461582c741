"""What every page of the UI works with: the server's state (the scenario session, the last
background run) and the rendering of a page with the frame every page shares."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, Template, select_autoescape
from starlette.responses import HTMLResponse, RedirectResponse

import attack
from attack.report.safe_text import shown
from attack.ui import jobs
from attack.ui.session import Session

__all__ = ["State", "View", "back", "relative_to", "shown_under"]


@dataclass
class State:
    """What the server holds: the session (the scenario file) and the last background run."""

    session: Session
    job: jobs.Job | None = None
    inspections: dict[str, Any] = field(default_factory=dict)
    notice: str | None = None
    keygen: str | None = None


@dataclass
class View:
    """The state, the session's form token and the templates: a page handler's one argument
    besides the request. ``nav`` are the pages listed in the side bar (``attack.ui.pages``)."""

    state: State
    csrf: str
    nav: list[Any] = field(default_factory=list)
    templates: Environment = field(default_factory=lambda: Environment(
        loader=PackageLoader("attack.ui", "templates"), autoescape=select_autoescape(), trim_blocks=True,
        lstrip_blocks=True, finalize=shown))

    def page(self, template: str | Template, **context: Any) -> HTMLResponse:
        """A template (the name of one in ``attack/ui/templates`` or one made with
        ``view.templates.from_string``) in the shared frame: scenario bar, side bar, scenario file."""
        s = self.state.session
        notice, self.state.notice = self.state.notice, None
        base = s.path.parent
        chosen = self.templates.get_template(template) if isinstance(template, str) else template
        return HTMLResponse(chosen.render(
            session=s, screens=s.screens(), toml=s.toml(), notice=notice and shown_under(notice, base),
            job=self.state.job, version=attack.__version__,
            scenario_error=s.error and shown_under(str(s.error), base), csrf=self.csrf, nav=self.nav, **context))


def back(url: str) -> RedirectResponse:
    """After a form: the browser goes (GET) to ``url``."""
    return RedirectResponse(url, status_code=303)


def shown_under(text: str, base: Path) -> str:
    """A line for the page: paths under the scenario's folder relative to it."""
    return text.replace(str(base) + os.sep, "")


def relative_to(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it lies under it, else as it is."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
