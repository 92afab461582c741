"""What every command does around its one library call: one line for bad input, the exit status
decided once from the verdict, the files written all or none, the notes on record-level files."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import click

import attack
from attack._cli.options import Say
from attack.frontend import (
    OWNER_ONLY,
    VisibleControls,
    certificate_paths,
    check_outputs,
    discard_staged,
    gathering,
    json_file,
    load_json,
    record_file,
    terminal_text,
    to_json,
    verify_root,
    write_files_atomic,
)

__all__ = ["OWNER_ONLY", "RELEASE_NOTE", "Attack", "Files", "certificate_paths", "emit", "guard", "json_file",
           "note", "record_file", "release_note", "say_record_level", "show_warnings", "shown", "to_json", "write"]

#: Exit status of ``attack verify`` when no check failed but inputs outside the certificate's
#: folder were not opened (not checked: neither verified nor failed).
EXIT_NOT_CHECKED = 2
#: Exit status after Ctrl-C (SIGINT) and after SIGTERM: 128 + the signal number, as shells report.
EXIT_ON_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}

RELEASE_NOTE = (
    "note: {path} holds record-level data derived from the confidential original and was written "
    "with owner-only permissions (0600); attack it before it leaves the secure environment."
)

#: What a record-level file holds, for the warning printed after it is written.
HOLDS_LINKS = "links external identities to confidential release records"
HOLDS_RISKS = "holds record-level risks that point at the riskiest records of the confidential file"
HOLDS_PAIRS = "pairs external identities with confidential original units"
HOLDS_MEMBERS = "names the original's records that a membership attack singles out"

#: A file to write: its content and its mode (None: the default; OWNER_ONLY for record-level data).
Files = dict[Path, tuple[str | bytes, int | None]]


class Attack(click.Group):
    """The command group. Turns ``InputError`` (and an unreadable or unwritable path, or too
    little memory) into one clear line and exit status 2, and a command's verdict into the exit
    status: a command returns ``False`` for NOT PASSED (exit 1), anything else exits 0."""

    def invoke(self, ctx: click.Context) -> Any:
        previous = _leave_on_signals()
        streams = sys.stdout, sys.stderr
        # everything a command prints shows its bidirectional controls (attack.report.safe_text)
        sys.stdout, sys.stderr = VisibleControls(sys.stdout, terminal=True), VisibleControls(sys.stderr)
        try:
            with notices_on_stderr():
                passed = super().invoke(ctx)
        except attack.InputError as exc:
            click.echo(f"attack: error: {terminal_text(str(exc))}", err=True)
            ctx.exit(2)
        except OSError as exc:  # e.g. an output path that cannot be written
            where = f"file {exc.filename}: " if exc.filename else ""
            click.echo(f"attack: error: {where}{exc.strerror or exc}", err=True)
            ctx.exit(2)
        except MemoryError:
            click.echo("attack: error: not enough memory for this run (nothing was written); "
                       "use a machine with more memory, fewer or smaller blocks, or --memory-budget",
                       err=True)
            ctx.exit(2)
        finally:
            sys.stdout, sys.stderr = streams
            for number, handler in previous.items():
                signal.signal(number, handler)
        if passed is False:
            ctx.exit(1)
        return passed


def _leave_on_signals() -> dict[int, Any]:
    """On Ctrl-C or SIGTERM: remove the output files being staged, say so, and leave at once with
    130 or 143. Nothing is raised into the running computation (an exception thrown into a
    compiled kernel's callback can crash the interpreter); renames into place hold these
    signals, so a run ends with all its outputs or none. Returns the handlers replaced (none off
    the main thread)."""
    def leave(number: int, _frame: FrameType | None) -> None:
        discard_staged()
        word = "interrupted" if number == signal.SIGINT else "terminated"
        os.write(2, f"attack: {word} (nothing was written)\n".encode())
        os._exit(EXIT_ON_SIGNAL[signal.Signals(number)])

    try:
        return {number: signal.signal(number, leave) for number in EXIT_ON_SIGNAL}
    except ValueError:  # not the main thread (e.g. inside a test runner's worker)
        return {}


class _EchoWarnings(logging.Handler):
    """Warnings of the readers (logger ``attack.io``) on stderr as ``attack: warning: ...``."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(f"attack: warning: {record.getMessage()}", err=True)


def show_warnings() -> None:
    """Echo the library's reading warnings on stderr (once, however often it is called)."""
    logger = logging.getLogger("attack.io")
    if not any(isinstance(h, _EchoWarnings) for h in logger.handlers):
        logger.addHandler(_EchoWarnings(logging.WARNING))


#: How a notice (``attack.DataNotice``) starts on stderr.
NOTICE_PREFIX = "attack: notice: "


@contextlib.contextmanager
def notices_on_stderr() -> Iterator[None]:
    """One command is one run: its notices (``attack.DataNotice``) are gathered and printed at
    its end, one line per kind, as ``attack: notice: ...`` on stderr; ``--quiet`` silences them,
    and so does an input error (its one line is all a failed command prints). Other warnings are
    shown as Python shows them."""
    failed = False
    with warnings.catch_warnings():
        warnings.simplefilter("always", attack.DataNotice)
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
            if not issubclass(category, attack.DataNotice):
                shown(message, category, filename, lineno, file, line)
            elif not failed:
                click.echo(f"{NOTICE_PREFIX}{terminal_text(str(message))}", err=True)

        warnings.showwarning = show
        with gathering():
            try:
                yield
            except attack.InputError:
                failed = True
                raise


def note(line: str) -> None:
    """A note on stderr."""
    click.echo(terminal_text(line), err=True)


def shown(path: str | Path) -> str:
    """A path as a message shows it: normalised (``scenarios/../reports/x.csv`` is
    ``reports/x.csv``), and relative to the working folder when it lies inside it, so that no
    folder of this machine is printed that the user did not type."""
    normal = os.path.normpath(path)
    if os.path.isabs(normal):
        inside = os.path.relpath(normal, os.getcwd())
        return normal if inside.startswith(os.pardir) else inside
    return normal


def release_note(path: str | Path) -> None:
    """The note after a candidate release (record-level) is written."""
    note(RELEASE_NOTE.format(path=shown(path)))


def say_record_level(path: str | Path, what: str) -> None:
    """The warning after a record-level file is written: what it holds, and that it is owner-only."""
    note(f"warning: {shown(path)} {what}; it was written with owner-only permissions (0600). Keep it "
        "inside the secure environment.")


def write(files: Files, inputs: Sequence[str | Path | None]) -> None:
    """Write the files, all or none, never over one of ``inputs``."""
    write_files_atomic(files, inputs=inputs)


def guard(outputs: Sequence[str | Path | None], inputs: Sequence[str | Path | None]) -> None:
    """Refuse, before any work, an output that is an input or given twice."""
    check_outputs(outputs, inputs)


def emit(result: attack.AttackResult | attack.ScenarioResult, json_path: Path | None, html_path: Path | None,
         matches_path: Path | None, *, say: Say, certificate: tuple[Path, Mapping[str, Any]] | None = None,
         inputs: Sequence[str | Path | None] = (), records_path: Path | None = None) -> bool:
    """Write the requested files of a linkage result (all or none), print its summary; returns
    the verdict."""
    runs = result.runs if isinstance(result, attack.ScenarioResult) else [result]
    if say.verbose:
        for run in runs:
            stages = ", ".join(f"{stage} {sec:.2f} s" for stage, sec in run.timings.items())
            note(f"timings ({run.name}): {stages}")
    attack.write_outputs(result, json=json_path, html=html_path, matches=matches_path,
                         certificate=certificate, timings=say.timings, inputs=inputs, records=records_path)
    if matches_path:
        say_record_level(matches_path, HOLDS_LINKS)
    if records_path:
        say_record_level(records_path, HOLDS_RISKS)
    if certificate and not say.quiet:
        note(f"certificate written to {certificate[0]}{how_to_verify(*certificate)}")
    if not say.quiet:
        click.echo(result.to_summary(tuple(str(p) for p in (html_path, json_path) if p)))
    return bool(result.passed)


def how_to_verify(path: Path, certificate: Mapping[str, Any]) -> str:
    """How a plain ``attack verify`` reaches the inputs of the certificate just written to
    ``path``: nothing to say when its folder holds them, else the --root to give."""
    inputs = certificate.get("inputs") or []
    root = verify_root(path, [i["path"] for i in inputs if isinstance(i.get("path"), str)])
    if root is None:
        return ""
    return f"; its inputs lie outside its folder, so check it with: attack verify {path} --root {root}"


def print_synthesis_tuning(outcome: Any, quiet: bool = False) -> bool:
    """The candidates and the verdict (unless quiet); False when no candidate passes."""
    if not quiet:
        click.echo("\n".join(outcome.summary_lines()))
    return outcome.chosen is not None


def protection_log(path: Path | None) -> dict | None:
    """The protection log of ``attack protect`` given to ``attack utility`` (None: none given)."""
    if path is None:
        return None
    log = load_json(path, "JSON protection log of attack protect")
    if not isinstance(log, dict) or "method" not in log:
        raise attack.InputError("expected the JSON protection log of attack protect (no method)", file=str(path))
    return log


def ml_settings(target: str | None, models: Sequence[str], features: str, repetitions: int, metric: str | None,
                tolerances: Sequence[str], seed: int) -> dict | None:
    """The ``ml`` settings of ``attack.utility_profile`` from the ``--ml`` options."""
    if not target:
        if models or features or metric or tolerances:
            raise attack.InputError("the --ml-* options need --ml TARGET")
        return None
    tolerance: dict[str, float] = {}
    for item in tolerances:
        model, _, value = item.rpartition("=")
        try:
            tolerance[model.strip() or "default"] = float(value)
        except ValueError:
            raise attack.InputError(f"--ml-tolerance expects [MODEL=]NUMBER, got {item!r}") from None
    settings: dict[str, Any] = {"target": target, "repetitions": repetitions, "seed": seed, "metric": metric,
                                "features": names(features)}
    if models:
        settings["models"] = list(models)
    if tolerance:
        settings["tolerance"] = tolerance
    return settings


def names(text: str) -> list[str] | None:
    """A comma-separated list of names; None when it names none."""
    return [v.strip() for v in text.split(",") if v.strip()] or None


def given(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the user gave: repeatable options given no value and absent options are left
    to the library's defaults."""
    return {k: v for k, v in settings.items() if v is not None and not (isinstance(v, tuple | dict) and not v)}

