"""``attack ui``: start the local web interface (the optional ``ui`` extra)."""

from __future__ import annotations

from pathlib import Path

import click

import attack
from attack.frontend import load_toml


def serve_ui(scenario_path: Path, port: int, host: str, no_browser: bool) -> None:
    """Serve the interface on ``host``; another address than this machine's only with a warning.
    A scenario file it cannot read is refused first, with or without the extra."""
    if scenario_path.is_file():
        load_toml(scenario_path, "scenario file")
    try:
        from attack.ui.server import is_loopback, serve
    except ModuleNotFoundError as exc:
        raise attack.InputError(
            f'the web interface needs the ui extra: pip install "attack[ui]" ({exc.name} is missing)') from None
    if not is_loopback(host):
        click.echo(f"warning: serving on {host}: other machines that reach this address can open the UI with "
                   "its token and run scenarios on this machine", err=True)
    serve(scenario_path, host=host, port=port, open_browser=not no_browser, say=lambda line: click.echo(line, err=True))
