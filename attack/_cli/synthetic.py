"""``attack run`` and ``attack tune`` on a synthetic-release scenario, and the small parsers of
the synthetic-data commands. (Their orchestration moves behind the library with the synthetic
attacks' own refactoring; until then it lives here, apart from the thin commands.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, overload

import click

import attack
from attack._cli import app
from attack.io.writers import certificate_paths
from attack.study.outputs import tune_json_path


def run(scenario: attack.SyntheticScenario, json_path: Path | None, html_path: Path | None,
        certificate_path: Path | None, key: Any, quiet: bool) -> bool:
    """``attack run`` on a synthetic-release scenario: synthesise if asked, attack, certify."""
    from attack.study.results import certificate_files

    json_path = json_path or scenario.outputs.get("json")
    html_path = html_path or scenario.outputs.get("html")
    certificate = attack.certificate_path(scenario, json_path, certificate_path)
    made_path = scenario.outputs.get("synthetic")
    app.guard([*certificate_paths(certificate), json_path, html_path, made_path], scenario.input_paths())
    outcome = scenario.run()
    files: app.Files = {**certificate_files(certificate, outcome.certificate(certificate.parent, key=key))}
    if json_path:
        files[Path(json_path)] = app.json_file(outcome.to_dict())
    if html_path:
        files[Path(html_path)] = (outcome.to_html(), None)
    if made_path is not None and outcome.synthetic is not None:
        files[made_path] = app.record_file(outcome.synthetic, made_path)
    app.write(files, scenario.input_paths())
    if made_path is not None and outcome.synthetic is not None:
        app.note(app.RELEASE_NOTE.format(path=made_path))
    if not quiet:
        app.note(f"certificate written to {certificate}")
        click.echo(outcome.to_markdown())
    return outcome.passed


def tune(scenario: attack.SyntheticScenario, json_path: Path | None, release_path: Path | None,
         html_path: Path | None, quiet: bool) -> bool:
    """``attack tune`` on a synthetic-release scenario: the grid of its [tune] table."""
    if html_path:
        raise attack.InputError("--html: the synthesis tuning writes JSON and prints its table; no HTML report yet")
    json_path = tune_json_path(scenario, json_path)
    release_path = release_path or (None if scenario.settings.tune is None or scenario.settings.tune.release is None
                                    else scenario.base / scenario.settings.tune.release)
    app.guard([json_path, release_path], scenario.input_paths())
    outcome = scenario.tune()
    files: app.Files = {json_path: app.json_file(outcome.as_dict())}
    if release_path and outcome.release is not None:
        files[Path(release_path)] = app.record_file(outcome.release, release_path)
    app.write(files, scenario.input_paths())
    if release_path and outcome.release is not None:
        app.note(app.RELEASE_NOTE.format(path=release_path))
    return app.print_synthesis_tuning(outcome, quiet)


def pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    """``COLUMN=VALUE`` options as a mapping; a malformed one is a usage error."""
    out = {}
    for item in values:
        column, eq, value = item.partition("=")
        if not eq or not column.strip() or not value.strip():
            raise attack.InputError(f"{option} {item!r}: expected COLUMN=VALUE")
        out[column.strip()] = value.strip()
    return out


@overload
def names(text: str) -> list[str]: ...
@overload
def names(text: None) -> None: ...
def names(text: str | None) -> list[str] | None:
    """A comma-separated list of names (None stays None)."""
    return None if text is None else [c.strip() for c in text.split(",") if c.strip()]


def json_document(path: Path) -> dict:
    """A JSON document read from a user's file; unreadable or invalid JSON is an input error."""
    from attack.io.readers import read_file_bytes

    try:
        document = json.loads(read_file_bytes(path).decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise attack.InputError(f"cannot read JSON: {str(exc)[:200] or 'nested too deeply'}",
                                file=Path(path).name) from None
    if not isinstance(document, dict):
        raise attack.InputError("expected a JSON object", file=Path(path).name)
    return document
