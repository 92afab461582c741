"""Command-line interface: a thin layer over the library.

Bad input ends with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import logging
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from attack._version import __version__
from attack.defaults import SYNTHETIC_TAU
from attack.errors import InputError
from attack.io.jsonio import to_json
from attack.io.readers import ReadOptions, read_table, require_codes
from attack.io.writers import (
    OWNER_ONLY,
    certificate_paths,
    check_outputs,
    discard_staged,
    write_files_atomic,
)
from attack.linkage.assignment import METHODS
from attack.linkage.distances import METRIC_DISTANCES, STANDARDISATIONS
from attack.linkage.engines import ENGINES, parse_size
from attack.linkage.fellegi_sunter import INTRUDERS
from attack.linkage.keys import parse_block, parse_block_entry, parse_key
from attack.linkage.limits import DEFAULT_MEMORY_BUDGET
from attack.report.notebook import verdict_word
from attack.risk.evaluation import (
    DEFAULT_GAMMAS,
    DEFAULT_MIN_PROBABILITIES,
    DEFAULT_TAU,
    RISK_BASES,
)
from attack.study.signing import load_private_key, passphrase_from_env

if TYPE_CHECKING:  # the commands import their machinery when they run: start-up stays short
    from attack.risk.results import AttackResult
    from attack.study.results import ScenarioResult
    from attack.study.synthetic_scenario import SyntheticScenario

def _say_record_level(path, what: str) -> None:
    """The warning after a record-level file is written: what it holds, and that it is owner-only."""
    click.echo(f"warning: {path} {what}; it was written with owner-only permissions (0600). Keep it "
               "inside the secure environment.", err=True)


class _Attack(click.Group):
    """Turns ``InputError`` (and an unreadable or unwritable path) into one clear line and
    exit status 2."""

    def invoke(self, ctx: click.Context):
        previous = _leave_on_signals()
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"attack: error: {exc}", err=True)
            ctx.exit(2)
        except OSError as exc:  # e.g. an output path that cannot be written
            where = f"file {exc.filename}: " if exc.filename else ""
            click.echo(f"attack: error: {where}{exc.strerror or exc}", err=True)
            ctx.exit(2)
        except MemoryError:
            click.echo("attack: error: not enough memory for this run (nothing was written); "
                       "use a machine with more memory, fewer or smaller blocks, or --memory-budget", err=True)
            ctx.exit(2)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)


#: Exit status after Ctrl-C (SIGINT) and after SIGTERM: 128 + the signal number, as shells report.
EXIT_ON_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _leave_on_signals() -> dict:
    """On Ctrl-C or SIGTERM: remove the output files being staged, say so, and leave at once with
    130 or 143. Nothing is raised into the running computation (an exception thrown into a
    compiled kernel's callback can crash the interpreter); renames into place hold these
    signals, so a run ends with all its outputs or none. Returns the handlers replaced (none off
    the main thread)."""
    def leave(number, _frame):
        discard_staged()
        word = "interrupted" if number == signal.SIGINT else "terminated"
        os.write(2, f"attack: {word} (nothing was written)\n".encode())
        os._exit(EXIT_ON_SIGNAL[number])

    try:
        return {number: signal.signal(number, leave) for number in EXIT_ON_SIGNAL}
    except ValueError:  # not the main thread (e.g. inside a test runner's worker)
        return {}


@click.group(cls=_Attack)
@click.version_option(__version__, prog_name="attack")
def main() -> None:
    """Play the intruder against a candidate microdata release and measure the disclosure risk."""
    _show_warnings()


class _EchoWarnings(logging.Handler):
    """Warnings of the readers (logger ``attack.io``) on stderr as ``attack: warning: ...``."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(f"attack: warning: {record.getMessage()}", err=True)


def _show_warnings() -> None:
    logger = logging.getLogger("attack.io")
    if not any(isinstance(h, _EchoWarnings) for h in logger.handlers):
        logger.addHandler(_EchoWarnings(logging.WARNING))


def _parsing(parse):
    """A click callback that parses every value of a repeatable option with ``parse``."""

    def callback(_ctx, _param, values):
        try:
            return tuple(parse(v) for v in values)
        except InputError as exc:
            raise click.BadParameter(str(exc)) from exc

    return callback


_keys = _parsing(parse_key)
_classifiers = _parsing(parse_block)
_blocking_entries = _parsing(parse_block_entry)


def _gamma_vars(_ctx, _param, values):
    out = {}
    for value in values:
        name, sep, settings = value.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            out[name] = [float(s) for s in settings.split(",")]
        except ValueError as exc:
            raise click.BadParameter(f"{value!r}: expected NAME=G1[,G2...]") from exc
    return out


def _finite(_ctx, _param, values):
    """Numbers given on the command line must be finite (``nan`` and ``inf`` are not codes)."""
    import math

    for value in values:
        if not math.isfinite(value):
            raise click.BadParameter(f"{value!r} is not a finite number")
    return values


def _memory_budget(_ctx, _param, value):
    if value is None:
        return None
    try:
        return parse_size(value)
    except InputError as exc:
        raise click.BadParameter(str(exc)) from exc


_QUIET = click.option("--quiet", is_flag=True, help="Print no summary (errors and warnings still go to stderr).")


def _alias_key(dest: str) -> str:
    return f"attack.cli.alias.{dest}"


def _deprecated(dest: str):
    """Callback of an old spelling of --out: one notice on stderr, the value kept for --out."""
    def callback(ctx, param, value):
        if value is not None and not ctx.resilient_parsing:
            click.echo(f"attack: {param.opts[0]} is deprecated and goes in the next release; use --out", err=True)
            ctx.meta[_alias_key(dest)] = value
        return value
    return callback


def _out_option(dest: str, help: str, *, old: tuple[str, ...] = (), required: bool = False):
    """--out: the file the command makes. The ``old`` spellings stay as hidden aliases for one
    release, each with a notice on stderr (docs/reference/cli.md)."""
    kind = click.Path(dir_okay=False, path_type=Path)

    def value(ctx, param, given):
        aliased = ctx.meta.get(_alias_key(dest))
        if aliased is not None:
            if given is not None:
                raise click.UsageError(f"--out and {', '.join(old)} name the same output; give --out only")
            return aliased
        if given is None and required and not ctx.resilient_parsing:
            raise click.MissingParameter(ctx=ctx, param=param)
        return given

    def decorate(command):
        command = click.option("--out", dest, type=kind, callback=value,
                               help=help + (" [required]" if required else ""))(command)
        for spelling in old:
            command = click.option(spelling, type=kind, hidden=True, expose_value=False, is_eager=True,
                                   callback=_deprecated(dest))(command)
        return command
    return decorate


_JOBS = click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes solving the blocks (default: all cores; small runs stay in one process).")


def _engine_options(command):
    """--jobs, --engine, --scheduler and --memory-budget: how the blocks are solved. They never
    change the result."""
    options = [
        _JOBS,
        click.option("--engine", type=click.Choice(ENGINES), default=None, help="local: this machine (default); dask: a Dask cluster (pip install 'attack[dask]').", show_default=False),
        click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler to use with --engine dask (default: start a local cluster of --jobs workers)."),
        click.option("--memory-budget", callback=_memory_budget, metavar="SIZE", help=f"Largest dense cost matrix of one block, e.g. 2GiB, 512MiB or bytes (default {DEFAULT_MEMORY_BUDGET / 2**30:g}GiB)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _output_options(command):
    """--quiet, --verbose and --timings: what the command says besides the files it writes."""
    options = [
        _QUIET,
        click.option("--verbose", is_flag=True, help="Print the time each stage took to stderr."),
        click.option("--timings", is_flag=True, help="Add stage timings to the JSON (which then differs from run to run)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _read_options(command):
    """--sep, --decimal, --encoding, --sheet, --na and --code: how the input files are read
    (default: detected; see docs/howto/reading-files.md). They apply to every input file."""
    options = [
        click.option("--sep", metavar="CHAR", help="CSV separator: , ; | or tab (default: detected)."),
        click.option("--decimal", type=click.Choice([".", ","]), help="Decimal separator of CSV numbers (default: detected)."),
        click.option("--encoding", metavar="NAME", help="Text encoding of CSV files, e.g. utf-8, cp1252, latin-1 (default: detected)."),
        click.option("--sheet", metavar="NAME|INDEX", help="Sheet of an Excel or OpenDocument file (default: the first)."),
        click.option("--na", "na", multiple=True, metavar="[COLUMN=]CODE", help="Missing-value code, e.g. --na -9 --na k.A. or --na turnover=-8 (repeatable)."),
        click.option("--code", "codes", multiple=True, metavar="COLUMN", help="Column holding codes even if they look like numbers, e.g. NACE (repeatable)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _reading(sep, decimal, encoding, sheet, na, codes) -> ReadOptions:
    """The ``ReadOptions`` of the reading options given on the command line."""
    by_column: dict[str, list[str]] = {}
    for item in na:
        column, eq, code = item.partition("=")
        by_column.setdefault(column if eq and column else "*", []).append(code if eq and column else item)
    return ReadOptions.build(sep=sep, decimal=decimal, encoding=encoding, sheet=sheet,
                             na=by_column, codes=codes)


def _engine_flags(engine, jobs, scheduler, memory_budget) -> dict:
    """The engine options given on the command line (None where not given: the scenario's
    [engine] table or the defaults decide)."""
    return {"name": engine, "jobs": jobs, "scheduler": scheduler, "memory_budget": memory_budget}


@main.command("link")
@click.option("--external", "external_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The intruder's file.")
@click.option("--release", "release_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The candidate release.")
@click.option("--external-id", required=True, help="Column holding each external record's unit id (ground truth; may be empty).")
@click.option("--release-id", required=True, help="Column holding each release row's unit id (hidden from the matcher).")
@click.option("--original", "original_path", type=click.Path(dir_okay=False, path_type=Path), help="The confidential original: true values and cells.")
@click.option("--original-id", help="Unit id column of the original (default: --release-id).")
@click.option("--key", "keys", multiple=True, required=True, callback=_keys, metavar="NAME:TYPE[:WEIGHT][:OPT]", help="Distance key; TYPE metric|nominal|ordinal|hierarchical|string.")
@click.option("--block", "blocks", multiple=True, callback=_blocking_entries, metavar="NAME[:prefix=N|:bins=B,...|:soundex|:cologne][|ALTERNATIVE...]", help="Blocking key; several keys separated by | are alternatives (blocking passes whose candidate pairs are united).")
@click.option("--method", type=click.Choice(METHODS), default="greedy", show_default=True)
@click.option("--standardise", type=click.Choice(STANDARDISATIONS), default="maxmin", show_default=True)
@click.option("--metric-distance", type=click.Choice(METRIC_DISTANCES), default="squared", show_default=True)
@click.option("--seed", type=click.IntRange(min=0), help="Shuffle the external order of the sequential method.")
@click.option("--winsorise", is_flag=True, help="Set a metric value that alone spans its key's range to the nearest other value (recorded in the result) instead of stopping.")
@click.option("--gamma", "gammas", multiple=True, help="Usefulness threshold γ (repeatable; default 0.05 and 0.1).")
@click.option("--gamma-var", "gamma_vars", multiple=True, callback=_gamma_vars, metavar="NAME=G1[,G2...]", help="Per-variable γ_i, one per --gamma.")
@click.option("--tau", type=float, default=DEFAULT_TAU, show_default=True, help="Risk limit τ per cell, on the point estimate (why 0.5, and why attack synth defaults to 0.1: docs/reference/defaults.md).")
@click.option("--target", "targets", multiple=True, help="Evaluated variable (default: all numeric release columns).")
@click.option("--cell", "cells", multiple=True, callback=_classifiers, metavar="NAME[:prefix=N|:bins=B,...]", help="Cell variable.")
@click.option("--zero-tolerance", type=float, default=0.0, show_default=True, help="A true zero is useful when |released| <= this.")
@click.option("--intruder", type=click.Choice(INTRUDERS), default="distance", show_default=True, help="The intruder's model: weighted distances, or Fellegi–Sunter match weights (m by EM, u from random pairs).")
@click.option("--min-probability", "min_probabilities", multiple=True, type=click.FloatRange(0, 1), help="Report the confident links, those with a match probability of at least P (repeatable; default 0.5, 0.9 and 0.99).")
@click.option("--risk-on", type=click.Choice(RISK_BASES), default="all", show_default=True, help="What τ judges: all links (the handbook's hit rate) or only the confident links at the first --min-probability.")
@click.option("--learn-weights", "learn_weights", type=click.FloatRange(0, 1, min_open=True, max_open=True), metavar="SHARE", help="The worst case: the intruder knows this share of the verifiable units (seeded by --seed), learns the key weights from them and attacks the rest; only the rest is scored, the given weights beside.")
@click.option("--truth-complete", is_flag=True, help="The ground truth covers every external record: one whose unit is not in the release (or has no id) has no counterpart and its link is false; several records of one unit are allowed.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the result as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a self-contained HTML report.")
@click.option("--matches", "matches_path", type=click.Path(dir_okay=False, path_type=Path), help="Write record-level links (confidential).")
@_engine_options
@_output_options
@_read_options
def link_command(external_path, release_path, external_id, release_id, original_path, original_id,
                 keys, blocks, method, standardise, metric_distance, seed, winsorise, gammas, gamma_vars, tau,
                 targets, cells, zero_tolerance, intruder, min_probabilities, risk_on, learn_weights,
                 truth_complete, json_path, html_path, matches_path,
                 jobs, engine, scheduler, memory_budget, quiet, verbose, timings,
                 sep, decimal, encoding, sheet, na, codes) -> None:
    """Link an external file to a release and score the attack.

    Exit status: 0 when every cell's disclosure risk is below τ, 1 when the verdict is NOT
    PASSED, 2 for a usage or input error."""
    from attack.risk.mass import mass_attack

    reading = _reading(sep, decimal, encoding, sheet, na, codes)
    check_outputs([json_path, html_path, matches_path], [external_path, release_path, original_path])
    result = mass_attack(
        external_path, release_path, original=original_path, external_id=external_id,
        release_id=release_id, original_id=original_id, keys=keys, blocks=blocks, cells=cells,
        targets=targets or None, method=method, gammas=gammas or DEFAULT_GAMMAS,
        gamma_by_variable=gamma_vars or None, tau=tau, zero_tolerance=zero_tolerance,
        standardise=standardise, metric_distance=metric_distance, seed=seed, winsorise=winsorise,
        intruder=intruder, truth_complete=truth_complete, risk_on=risk_on, learn_weights=learn_weights,
        min_probabilities=min_probabilities or DEFAULT_MIN_PROBABILITIES,
        engine=_engine_flags(engine, jobs, scheduler, memory_budget), progress=not quiet,
        name=f"{_name(external_path)} against {_name(release_path)}", reading=reading,
    )
    _emit(result, json_path, html_path, matches_path, say=_Say(quiet, verbose, timings),
          inputs=[external_path, release_path, original_path])


@main.command("run")
@click.argument("scenario_path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Override the scenario's JSON output.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Override the scenario's HTML output.")
@click.option("--matches", "matches_path", type=click.Path(dir_okay=False, path_type=Path), help="Write record-level links (confidential).")
@click.option("--certificate", "certificate_path", type=click.Path(dir_okay=False, path_type=Path), help="Where the certificate goes (default: beside the JSON, or reports/).")
@click.option("--sign", "sign_path", type=click.Path(dir_okay=False, path_type=Path), help="Sign the certificate with this Ed25519 private key (from attack keygen).")
@click.option("--passphrase-env", metavar="VAR", help="Environment variable holding the private key's passphrase.")
@_engine_options
@_output_options
def run_command(scenario_path, json_path, html_path, matches_path, certificate_path, sign_path, passphrase_env,
                jobs, engine, scheduler, memory_budget, quiet, verbose, timings) -> None:
    """Run the attack described by a scenario file (TOML) and certify the result; the options
    override the file's [engine] table.

    Exit status: 0 when the verdict is passed, 1 when it is NOT PASSED, 2 for a usage or input
    error (the scenario is checked before any data file is read)."""
    from attack.study.synthetic_scenario import SyntheticScenario, open_scenario

    scenario = open_scenario(scenario_path)
    key = None if sign_path is None else load_private_key(sign_path, passphrase_from_env(passphrase_env))
    if isinstance(scenario, SyntheticScenario):
        if matches_path:
            raise InputError("--matches applies to linkage scenarios; a synthetic release has no links")
        _run_synthetic(scenario, json_path, html_path, certificate_path, key, quiet)
        return
    json_path = json_path or scenario.outputs.get("json")
    html_path = html_path or scenario.outputs.get("html")
    matches_path = matches_path or scenario.outputs.get("matches")
    certificate_path = _certificate_path(certificate_path, scenario, json_path, scenario_path)
    inputs = scenario.input_paths()
    check_outputs([*certificate_paths(certificate_path), json_path, html_path, matches_path], inputs)
    result = scenario.run(engine=_engine_flags(engine, jobs, scheduler, memory_budget), progress=not quiet)
    sealed = result.certificate(certificate_path.parent, key=key)
    _emit(result, json_path, html_path, matches_path, certificate=(certificate_path, sealed),
          say=_Say(quiet, verbose, timings), inputs=inputs)


def _certificate_path(given, scenario, json_path, scenario_path: Path) -> Path:
    """Where the certificate goes: the option, the scenario's [output], beside the JSON, reports/."""
    return Path(
        given
        or scenario.outputs.get("certificate")
        or (Path(json_path).with_suffix(".certificate.json") if json_path else None)
        or Path("reports") / f"{scenario_path.stem}.certificate.json"
    )


def _run_synthetic(scenario: SyntheticScenario, json_path, html_path, certificate_path, key, quiet) -> None:
    """``attack run`` on a synthetic-release scenario: synthesise if asked, attack, certify."""
    from attack.io.writers import table_content
    from attack.study.results import certificate_files

    json_path = json_path or scenario.outputs.get("json")
    html_path = html_path or scenario.outputs.get("html")
    certificate_path = _certificate_path(certificate_path, scenario, json_path, scenario.path)
    made_path = scenario.outputs.get("synthetic")
    check_outputs([*certificate_paths(certificate_path), json_path, html_path, made_path], scenario.input_paths())
    outcome = scenario.run()
    files = certificate_files(certificate_path, outcome.certificate(certificate_path.parent, key=key))
    if json_path:
        files[Path(json_path)] = (to_json(outcome.to_dict()), None)
    if html_path:
        files[Path(html_path)] = (outcome.to_html(), None)
    if made_path is not None and outcome.synthetic is not None:
        files[made_path] = (table_content(outcome.synthetic, made_path), OWNER_ONLY)
    write_files_atomic(files, inputs=scenario.input_paths())
    if made_path is not None and outcome.synthetic is not None:
        click.echo(RELEASE_NOTE.format(path=made_path), err=True)
    if not quiet:
        click.echo(f"certificate written to {certificate_path}", err=True)
        click.echo(outcome.to_markdown())
    if not outcome.passed:
        raise SystemExit(1)


@main.command("verify")
@click.argument("certificate_path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--public-key", "public_key", type=click.Path(dir_okay=False, path_type=Path), help="The issuer's public key (public.pem): check the signature.")
@click.option("--rerun", is_flag=True, help="Also rerun the attack and compare every figure.")
@click.option("--offline", is_flag=True, help="Check signature, digest, structure and verdict only, without the inputs (a recipient who holds only the certificate).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), help="Folder the input paths may not leave (default: the certificate's folder).")
@_QUIET
def verify_command(certificate_path, public_key, rerun, offline, root, quiet) -> None:
    """Check a certificate, one line per check (✔ passed, ✘ failed, • not checked): the
    signature against the issuer's public key, the digest, the structure of the certificate,
    that the verdict follows from all its figures and τ (cells, combined measure, single
    attacks, synthetic checks), the SHA-256 of every input and, with --rerun, that the attack
    reproduces every figure.

    Input paths must be relative and stay inside the certificate's folder (or --root): an
    absolute path or one that leaves it is a failed check and the file is not opened. The
    printable HTML twin is not checked: the JSON is what is verified.

    Exit status: 0 when every check performed passes, 1 when one fails (also a certificate
    that is JSON but breaks the certificate's structure), 2 for a usage error or a file that
    cannot be read as a certificate. Without --public-key the signer is not verified and the
    certificate is never called authentic."""
    from attack.study.verify import verify as verify_certificate

    outcome = verify_certificate(certificate_path, public_key=public_key, rerun=rerun, offline=offline, root=root)
    for check in outcome.checks:
        if not quiet or check.ok is False:
            click.echo(check.line(), err=quiet)
    if not outcome.ok:
        click.echo(f"certificate {certificate_path}: verification FAILED", err=True)
        raise SystemExit(1)
    state = "authentic and consistent" if outcome.authentic else "intact and consistent; its issuer is not verified"
    if not outcome.inputs_checked:
        state += "; its inputs were NOT checked (--offline)"
    if not quiet:
        click.echo(f"certificate {certificate_path}: {state}")


@main.command("keygen")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for private.pem and public.pem.")
@click.option("--passphrase-env", metavar="VAR", help="Encrypt the private key with the passphrase held in this environment variable.")
@_QUIET
def keygen_command(out_dir, passphrase_env, quiet) -> None:
    """Make an Ed25519 key pair for signing certificates: OUT/private.pem (owner-only; keep it
    secret) and OUT/public.pem (hand it to whoever verifies). Never overwrites a key."""
    from attack.study.signing import generate_keypair

    passphrase = passphrase_from_env(passphrase_env)
    private, public, print_ = generate_keypair(out_dir, passphrase)
    click.echo(f"wrote {private} (owner-only) and {public}", err=True)
    if not quiet:
        click.echo(f"public key fingerprint: {print_}")


@main.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("reports/demo"), show_default=True)
@click.option("--units", type=click.IntRange(min=100), default=17000, show_default=True, help="Size of the synthetic population.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--method", type=click.Choice(METHODS), default="greedy", show_default=True)
@_engine_options
@_QUIET
def demo_command(out_dir, units, seed, method, jobs, engine, scheduler, memory_budget, quiet) -> None:
    """Generate a synthetic enterprise population and attack two candidate releases.

    Exit status 0 when it ran (whatever the verdict), 2 for a usage error."""
    from attack.study.demo import run_demo

    demo = run_demo(out_dir, n_units=units, seed=seed, method=method,
                    engine=_engine_flags(engine, jobs, scheduler, memory_budget), progress=not quiet)
    if not quiet:
        click.echo(demo.result.to_summary((str(demo.html_path), str(demo.json_path))))
    folder = demo.json_path.parent
    click.echo(f"wrote demo.json, report.html, certificate.json and certificate.html in {folder}", err=True)


@main.command("truth")
@click.option("--external", "external_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="External database with names (and addresses).")
@click.option("--external-id", required=True, help="Record id column of the external file.")
@click.option("--original", "original_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The confidential original.")
@click.option("--original-id", required=True, help="Unit id column of the original.")
@click.option("--name", "name_column", required=True, help="Firm-name column (same name in both files).")
@click.option("--address", "address_column", help="Street-address column (same name in both files).")
@click.option("--address-weight", type=click.FloatRange(0, 1), default=0.3, show_default=True, help="Weight w of the address: score = (1-w)·name + w·address.")
@click.option("--form-penalty", type=click.FloatRange(0, 1), default=0.2, show_default=True, help="Subtracted when both records carry a legal form and the forms differ.")
@click.option("--margin", type=click.FloatRange(0, 1), default=0.02, show_default=True, help="A link is accepted only if it beats every rival by more than this.")
@click.option("--block", "blocks", multiple=True, callback=_classifiers, metavar="NAME[:prefix=N]", help="Blocking key, e.g. plz:prefix=3 or city.")
@click.option("--accept", type=float, default=0.92, show_default=True, help="Score from which a link is accepted as ground truth.")
@click.option("--review", type=float, default=0.80, show_default=True, help="Score from which a pair goes to clerical review.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="CSV: the external file plus the ground-truth column unit_id (confidential, owner-only).")
@click.option("--review-out", "review_path", type=click.Path(dir_okay=False, path_type=Path), help="CSV of the review band (confidential, owner-only).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="JSON of the counts per legal form and per block (aggregates only).")
@_QUIET
@_read_options
def truth_command(external_path, external_id, original_path, original_id, name_column, address_column,
                  address_weight, form_penalty, margin, blocks, accept, review, out_path, review_path, json_path,
                  quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """Build the ground-truth key by linking firm names (and addresses) to the original.

    See docs/method/ground-truth.md (Ronning et al. 2005, ch. 17)."""
    from attack.risk.truth import link_names

    text = [name_column] + ([address_column] if address_column else [])
    reading = _reading(sep, decimal, encoding, sheet, na, codes)
    check_outputs([out_path, review_path, json_path], [external_path, original_path])
    external = read_table(external_path, options=reading)
    original = read_table(original_path, [original_id, *text, *(b.name for b in blocks)], reading)
    require_codes([external, original])
    result = link_names(external, external_id, original, original_id, name=name_column,
                        address=address_column, block=[b.classifier() for b in blocks], accept=accept, review=review,
                        margin=margin, address_weight=address_weight, form_penalty=form_penalty)
    files = {Path(out_path): (result.key().to_csv(index=False), OWNER_ONLY)}
    if review_path:
        band = result.review_band().to_csv(index=False, float_format="%.6f")
        files[Path(review_path)] = (band, OWNER_ONLY)
    if json_path:
        files[Path(json_path)] = (to_json(result.to_dict()), None)
    write_files_atomic(files, inputs=[external_path, original_path])
    for path in (out_path, review_path):
        if path:
            _say_record_level(path, "pairs external identities with confidential original units")
    if quiet:
        return
    for label, count in result.summary().items():
        click.echo(f"{label}: {count}")
    click.echo("\nby legal form (external records):")
    click.echo(result.by_legal_form().to_string(index=False))


def _name(data) -> str:
    """The file name of an input given as a path or already read."""
    return Path(data).name if isinstance(data, (str, Path)) else Path(data.attrs.get("source", "<data>")).name


@dataclass(frozen=True)
class _Say:
    """How talkative a command is: --quiet, --verbose, --timings."""

    quiet: bool = False
    verbose: bool = False
    timings: bool = False


def _emit(result: AttackResult | ScenarioResult, json_path, html_path, matches_path,
          certificate=None, say: _Say = _Say(), inputs=()) -> None:
    """Write the requested files (all or none), print the Markdown summary, and end with the
    exit status of the verdict: 0 passed, 1 NOT PASSED."""
    from attack.risk.results import AttackResult
    from attack.study.results import write_outputs

    runs = [result] if isinstance(result, AttackResult) else list(result.runs)
    if say.verbose:
        for run in runs:
            stages = ", ".join(f"{stage} {sec:.2f} s" for stage, sec in run.timings.items())
            click.echo(f"timings ({run.name}): {stages}", err=True)
    write_outputs(result, json=json_path, html=html_path, matches=matches_path,
                  certificate=certificate, timings=say.timings, inputs=inputs)
    if matches_path:
        _say_record_level(matches_path, "links external identities to confidential release records")
    if certificate and not say.quiet:
        click.echo(f"certificate written to {certificate[0]}", err=True)
    if not say.quiet:
        click.echo(result.to_summary(tuple(str(p) for p in (html_path, json_path) if p)))
    if not result.passed:
        raise SystemExit(1)


RELEASE_NOTE = (
    "note: {path} holds record-level data derived from the confidential original and was written "
    "with owner-only permissions (0600); attack it before it leaves the secure environment."
)


def _method_catalogue() -> str:
    from attack.protect.catalogue import METHODS

    return "\n".join(f"{name:18} {m.summary}" for name, m in METHODS.items())


def _list_methods(ctx, _param, value):
    if value and not ctx.resilient_parsing:
        click.echo(_method_catalogue())
        ctx.exit(0)


@main.command("protect")
@click.option("--list-methods", is_flag=True, expose_value=False, is_eager=True, callback=_list_methods, help="List the methods with a one-line summary and exit.")
@click.option("--method", required=True, metavar="NAME", help="Protection method, e.g. separate-ma, mdav, hoehne-noise, pram (see --list-methods).")
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="File to protect (the original or an earlier stage).")
@_out_option("output_path", "Candidate release (.csv or .parquet), written owner-only.", old=("--output",), required=True)
@click.option("--columns", default="", metavar="A,B,...", help="Variables the method changes.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Method parameter, e.g. k=3 or f=0.08 (repeatable).")
@click.option("--by", "by", multiple=True, metavar="COLUMN", help="Run the method separately within each group of this variable (repeatable).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Master seed of every random step.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), help="Where the protection log (JSON) goes (default: OUT with .protection.json).")
@_QUIET
@_read_options
def protect_command(method, input_path, output_path, columns, params, by, seed, log_path,
                    quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """Make a candidate release with one protection method (docs/method/protection.md)."""
    from attack.io.writers import table_content
    from attack.protect.catalogue import protect

    log_path = log_path or Path(output_path).with_suffix(".protection.json")
    check_outputs([output_path, log_path], [input_path])
    data = read_table(input_path, options=_reading(sep, decimal, encoding, sheet, na, codes))
    require_codes([data])
    columns = [c.strip() for c in columns.split(",") if c.strip()]
    result = protect(data, method, params, columns=columns, by=by, seed=seed)
    log = {**result.log, "input": str(input_path), "output": str(output_path)}
    write_files_atomic({
        Path(output_path): (table_content(result.release, output_path), OWNER_ONLY),
        Path(log_path): (to_json(log), None),
    }, inputs=[input_path])
    click.echo(RELEASE_NOTE.format(path=output_path), err=True)
    for line in result.log["warnings"]:
        click.echo(f"warning: {line}", err=True)
    if quiet:
        return
    changed = ", ".join(f"{c} {n}" for c, n in result.log["changed_values"].items()) or "none"
    click.echo(f"{method}: {result.log['rows_in']} rows in, {result.log['rows_out']} rows out; "
               f"changed values: {changed}; log in {log_path}")


@main.command("tune")
@click.argument("scenario_path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Where the tuning results go (default: the scenario's [output] json with .tune.json, else reports/SCENARIO.tune.json; never the file attack run writes).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="HTML report with the risk-utility plot (default: the scenario's [output] html with .tune.html).")
@_out_option("release_path", "Where the chosen release goes (default: [tune] release).", old=("--release",))
@_engine_options
@_QUIET
def tune_command(scenario_path, json_path, html_path, release_path, jobs, engine, scheduler, memory_budget, quiet) -> None:
    """Find the weakest setting of a protection method that puts every cell below τ
    (the scenario's [tune] table; docs/method/utility.md)."""
    from attack.io.writers import table_content
    from attack.report.release import render_tune_html, render_tune_markdown
    from attack.study.synthetic_scenario import SyntheticScenario, open_scenario
    from attack.study.tuning import tune, tune_spec

    scenario = open_scenario(scenario_path)
    if isinstance(scenario, SyntheticScenario):
        _tune_synthetic(scenario, json_path, release_path, html_path, quiet)
        return
    say = None if quiet else (lambda line: click.echo(line, err=True))
    json_path = json_path or _tune_output(scenario.outputs.get("json"), ".json") or Path("reports") / f"{scenario_path.stem}.tune.json"
    html_path = html_path or _tune_output(scenario.outputs.get("html"), ".html")
    if scenario.tune is None:
        raise InputError("the scenario has no [tune] table", file=str(scenario_path))
    release_path = release_path or tune_spec(scenario.tune, scenario.base).release
    inputs = scenario.input_paths()
    check_outputs([json_path, html_path, release_path], inputs)
    outcome = tune(scenario, say=say, engine=_engine_flags(engine, jobs, scheduler, memory_budget))
    document = outcome.as_dict()
    files = {Path(json_path): (to_json(document), None)}
    if html_path:
        files[Path(html_path)] = (render_tune_html(document, scenario.title), None)
    chosen = outcome.chosen
    if release_path and chosen is not None:
        files[Path(release_path)] = (table_content(chosen.release, release_path), OWNER_ONLY)
    write_files_atomic(files, inputs=inputs)
    if release_path and chosen is not None:
        click.echo(RELEASE_NOTE.format(path=release_path), err=True)
    if not quiet:
        click.echo(render_tune_markdown(document, scenario.title))
    if chosen is None:
        raise SystemExit(1)


@main.command("utility")
@click.option("--original", "original_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The confidential original.")
@click.option("--release", "release_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The candidate release.")
@click.option("--variables", default="", metavar="A,B,...", help="Metric variables to check (default: numeric columns of both files).")
@click.option("--by", "by", multiple=True, metavar="COLUMN", help="Subpopulations: every category of this variable (repeatable).")
@click.option("--cross", "crosses", multiple=True, metavar="A,B", help="Also every cell of this cross-classification (repeatable).")
@click.option("--weight", help="Extrapolation-factor column: weighted means as well.")
@click.option("--model", "models", multiple=True, metavar="FORMULA", help='Reference OLS model, e.g. "log(turnover) ~ log(employees)" (repeatable).')
@click.option("--id", "id_columns", metavar="ORIGINAL[,RELEASE]", help="Unit id column(s) aligning records: per-value deviations and IL1s.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the full profile as JSON.")
@click.option("--propensity", is_flag=True, help="Add propensity-score utility: pMSE and S_pMSE (logistic, CART), two-way tables (for synthetic releases).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the CART permutation null and of the ML splits and models.")
@click.option("--ml", "ml_target", metavar="TARGET", help="Add the machine-learning utility: models trained on the release and on the original predict TARGET on held-out original rows (docs/method/ml-utility.md).")
@click.option("--ml-model", "ml_models", multiple=True, type=click.Choice(["linear", "forest", "boosting", "mlp"]), help="Model of the ML utility (repeatable; default all four).")
@click.option("--ml-features", default="", metavar="A,B,...", help="Predictors of the ML utility (default: every other shared column).")
@click.option("--ml-repetitions", type=click.IntRange(min=1), default=5, show_default=True, help="Random splits of the original for the ML utility.")
@click.option("--ml-metric", type=click.Choice(["rmse", "mae", "accuracy", "balanced_accuracy", "auc"]), help="Verdict metric (default rmse for a metric target, balanced_accuracy for a categorical one).")
@click.option("--ml-tolerance", "ml_tolerances", multiple=True, metavar="[MODEL=]LOSS", help="Largest relative loss of the verdict metric that keeps the utility, for all models or one (repeatable; default 0.1).")
@click.option("--protection-log", "log_path", type=click.Path(dir_okay=False, path_type=Path), help="Protection log of attack protect: adds what an analyst can recover with it (PRAM frequencies, calibrated slopes).")
@_QUIET
@_read_options
def utility_command(original_path, release_path, variables, by, crosses, weight, models, id_columns, json_path,
                    propensity, seed, ml_target, ml_models, ml_features, ml_repetitions, ml_metric, ml_tolerances,
                    log_path, quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """Check the analysis potential of a release against the original (docs/method/utility.md):
    reported beside the risk verdict, never merged with it."""
    from attack.report.release import render_utility_markdown
    from attack.utility.profile import utility_profile

    reading = _reading(sep, decimal, encoding, sheet, na, codes)
    check_outputs([json_path], [original_path, release_path, *([log_path] if log_path else [])])
    original = read_table(original_path, options=reading)
    release = read_table(release_path, options=reading)
    require_codes([original, release])
    ids = None
    if id_columns:
        parts = [p.strip() for p in id_columns.split(",")]
        ids = (parts[0], parts[-1])
    profile = utility_profile(
        original, release,
        variables=[v.strip() for v in variables.split(",") if v.strip()] or None,
        by=by, crosses=[tuple(c.split(",")) for c in crosses], weights=weight,
        models=models, per_record=ids, propensity={"seed": seed} if propensity else False,
        ml=_ml_settings(ml_target, ml_models, ml_features, ml_repetitions, ml_metric, ml_tolerances, seed),
        protection_log=_protection_log(log_path),
    )
    document = profile.as_dict()
    if json_path:
        write_files_atomic({Path(json_path): (to_json(document), None)}, inputs=[original_path, release_path])
    if not quiet:
        click.echo(render_utility_markdown(document, f"Analysis potential of {release_path.name}"))


def _protection_log(path: Path | None) -> dict | None:
    if path is None:
        return None
    import json

    try:
        log = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"expected the JSON protection log of attack protect: {exc}", file=str(path)) from None
    if not isinstance(log, dict) or "method" not in log:
        raise InputError("expected the JSON protection log of attack protect (no method)", file=str(path))
    return log


def _ml_settings(target, models, features, repetitions, metric, tolerances, seed) -> dict | None:
    """The ``ml`` settings of ``attack.utility_profile`` from the ``--ml`` options."""
    if not target:
        if models or features or metric or tolerances:
            raise InputError("the --ml-* options need --ml TARGET")
        return None
    tolerance: dict[str, float] = {}
    for item in tolerances:
        model, _, value = item.rpartition("=")
        try:
            tolerance[model.strip() or "default"] = float(value)
        except ValueError:
            raise InputError(f"--ml-tolerance expects [MODEL=]NUMBER, got {item!r}") from None
    settings = {"target": target, "repetitions": repetitions, "seed": seed, "metric": metric,
                "features": [f.strip() for f in features.split(",") if f.strip()] or None}
    if models:
        settings["models"] = list(models)
    if tolerance:
        settings["tolerance"] = tolerance
    return settings


@main.command("synth")
@click.option("--original", "original_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The training original the generator saw.")
@click.option("--synthetic", "synthetic_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The synthetic release.")
@click.option("--holdout", "holdout_path", type=click.Path(dir_okay=False, path_type=Path), help="Original records the generator did not see (control set).")
@click.option("--key", "keys", multiple=True, metavar="COLUMN", help="Variable the intruder knows (repeatable).")
@click.option("--target", "targets", multiple=True, metavar="COLUMN", help="Variable the intruder wants to learn (repeatable; needs --key).")
@click.option("--gamma", "gammas", multiple=True, type=float, help="Relative tolerance γ for numeric targets (repeatable; default 0.1).")
@click.option("--tau", type=float, default=None, help=f"Risk limit τ for every check, on its upper 95% bound (default {SYNTHETIC_TAU:g}; why: docs/reference/defaults.md).")
@click.option("--exclude", multiple=True, metavar="COLUMN", help="Column left out of the distance attacks and singling out, e.g. an id (repeatable).")
@click.option("--categorical", multiple=True, metavar="COLUMN", help="Treat this column as categorical (repeatable; default: non-numeric columns).")
@click.option("--metric", type=click.Choice(["gower_mean", "gower_sum", "euclidean", "l1"]), default="gower_mean", show_default=True, help="Distance between records (docs/method/synthetic-attacks.md).")
@click.option("--scaling", type=click.Choice(["minmax_range", "zscore", "robust", "none"]), default="minmax_range", show_default=True, help="Scaling of numeric columns, fitted on the original (Gower metrics need minmax_range).")
@click.option("--bins", "bins", multiple=True, metavar="VAR=RULE", help="Grouping of a numeric key or target for the table measures: quantile:K, equal_width:K or breaks:B1,B2,... (default quantile:5).")
@click.option("--n-attacks", type=click.IntRange(min=1), default=500, show_default=True, help="Targets per attack (singling out, linkability, inference).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the results as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a self-contained HTML report.")
@click.option("--certificate", "certificate_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a certificate of the verdict (JSON and a printable .html twin).")
@click.option("--sign", "sign_path", type=click.Path(dir_okay=False, path_type=Path), help="Sign the certificate with this Ed25519 private key (from attack keygen).")
@click.option("--passphrase-env", metavar="VAR", help="Environment variable holding the private key's passphrase.")
@click.option("--membership", "membership_log", type=click.Path(dir_okay=False, path_type=Path), help="Run shadow-model membership inference; the synthesis log (from attack synthesize) says how the release was made.")
@click.option("--isolated", type=click.IntRange(min=0), default=10, show_default=True, help="Membership targets: the most isolated records.")
@click.option("--random-targets", type=click.IntRange(min=0), default=10, show_default=True, help="Membership targets: records drawn at random.")
@click.option("--shadow-sets", type=click.IntRange(min=4), default=100, show_default=True, help="Membership games per target that train the classifier (half with the target).")
@click.option("--test-sets", type=click.IntRange(min=4), default=100, show_default=True, help="Membership games per target that measure it.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Processes for the shadow syntheses.")
@click.option("--shadow-size", type=click.IntRange(min=2), help="Records per shadow training set (default: min(2000, half the original)).")
@click.option("--membership-family", "family", is_flag=True, help="Run the data-only membership attacks (DCR, DCR difference, local density, density ratio, Gower ensemble; shadow model with --membership) and decide on the maximum over attacks (docs/method/membership-family.md). Needs --holdout or --holdout-share.")
@click.option("--holdout-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), help="Draw this share of --original (with --seed) as the holdout, as a scenario's synthesis.holdout_share does; only when the synthetic file was made from the rest.")
@click.option("--reference", "reference_path", type=click.Path(dir_okay=False, path_type=Path), help="The intruder's population sample for the membership family (default: half the holdout, never scored).")
@click.option("--mia-attack", "mia_attacks", multiple=True, type=click.Choice(["dcr", "dcr_difference", "local_density", "density_ratio", "gower_ensemble", "shadow_model"]), help="Membership-family attack to run (repeatable; default all that the inputs allow).")
@click.option("--mia-fpr", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.01, show_default=True, help="False-positive rate at which the maximum TPR over the membership attacks is checked against τ.")
@click.option("--decide", is_flag=True, help="When a check's interval straddles τ, run the attacks once more with as many attacks as the undecided checks need (at most the records available, 50,000).")
@click.option("--exposed", "exposed_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the members the family flags at --mia-fpr (record-level, 0600).")
@_QUIET
@_read_options
def synth_command(original_path, synthetic_path, holdout_path, keys, targets, gammas, tau, exclude, categorical,
                  metric, scaling, bins, n_attacks, seed, json_path, html_path, certificate_path, sign_path,
                  passphrase_env, membership_log, isolated, random_targets, shadow_sets, test_sets, jobs, shadow_size,
                  family, holdout_share, reference_path, mia_attacks, mia_fpr, decide, exposed_path,
                  quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """Attack a synthetic release: distance to closest record, the CAP family, singling out,
    linkability and inference against a holdout baseline (docs/method/synthetic-attacks.md)."""
    from attack.io.fingerprint import file_input
    from attack.io.writers import table_content
    from attack.study.certificate import build_synthetic
    from attack.study.results import certificate_files
    from attack.synthesis.sequential import settings_from_log
    from attack.synthetic.run import (
        DEFAULT_SYNTH_TAU,
        SynthSpec,
        attack_synthetic,
        categorical_mode_for,
        parse_binning,
    )

    spec = SynthSpec(
        keys=keys, targets=targets, exclude=exclude,
        categorical=tuple(dict.fromkeys([*categorical, *codes])) or None, gammas=tuple(gammas) or (0.10,),
        tau=DEFAULT_SYNTH_TAU if tau is None else tau, metric=metric, scaling=scaling,
        categorical_mode=categorical_mode_for(metric),
        n_attacks=n_attacks, seed=seed, bins=dict(parse_binning(b) for b in bins),
        membership=None if membership_log is None else {
            "synthesis": settings_from_log(_json_file(membership_log)), "n_isolated": isolated,
            "n_random": random_targets, "shadow_sets": shadow_sets, "test_sets": test_sets,
            "shadow_size": shadow_size, "jobs": jobs},
        holdout_share=holdout_share or 0.0,
        membership_family=None if not family else {
            "attacks": list(mia_attacks) or None, "verdict_fpr": mia_fpr, "exposed": exposed_path is not None},
        decide=decide,
    )
    if not family and (reference_path or mia_attacks or exposed_path):
        raise InputError("--reference, --mia-attack and --exposed need --membership-family")
    inputs = [original_path, synthetic_path, holdout_path, reference_path, membership_log]
    check_outputs([json_path, html_path, exposed_path,
                   *(certificate_paths(certificate_path) if certificate_path else [])], inputs)
    if sign_path is not None and certificate_path is None:
        raise InputError("--sign needs --certificate PATH")
    key = None if sign_path is None else load_private_key(sign_path, passphrase_from_env(passphrase_env))
    reading = _reading(sep, decimal, encoding, sheet, na, (*codes, *categorical))
    original = read_table(original_path, options=reading)
    synthetic = read_table(synthetic_path, options=reading)
    holdout = read_table(holdout_path, options=reading) if holdout_path else None
    reference = read_table(reference_path, options=reading) if reference_path else None
    require_codes([original, synthetic, holdout, reference])
    result = attack_synthetic(original, synthetic, holdout, spec, reference=reference,
                              title=f"Attacks on the synthetic release {synthetic_path.name}")
    files = {}
    if exposed_path:
        files[Path(exposed_path)] = (table_content(result.exposed, exposed_path), OWNER_ONLY)
    if json_path:
        files[Path(json_path)] = (to_json(result.to_dict()), None)
    if html_path:
        files[Path(html_path)] = (result.to_html(), None)
    if certificate_path:
        folder = Path(certificate_path).parent
        fingerprints = [file_input(role, path, folder, (frame.attrs["sha256"], frame.attrs["bytes"]))
                        for role, path, frame in (("original", original_path, original),
                                                  ("synthetic", synthetic_path, synthetic),
                                                  ("holdout", holdout_path, holdout),
                                                  ("reference", reference_path, reference))
                        if path is not None]
        sealed = build_synthetic(figures=result.figures, inputs=fingerprints, key=key)
        files.update(certificate_files(certificate_path, sealed))
    write_files_atomic(files, inputs=inputs)
    if exposed_path:
        _say_record_level(exposed_path, "names the original's records that a membership attack singles out")
    if not quiet:
        click.echo(result.to_markdown())
    if not result.passed:
        raise SystemExit(1)


@main.command("ui")
@click.argument("scenario_path", required=False, default="scenario.toml", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port to serve on (0: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on. Only this machine can reach the default; another address is served only when given here, with a warning.")
@click.option("--no-browser", is_flag=True, help="Print the address only; do not open a browser.")
def ui_command(scenario_path, port, host, no_browser) -> None:
    """Edit, run and certify a scenario in the browser: a local web interface (needs the ui
    extra, pip install "attack[ui]"). SCENARIO_PATH is the scenario file it edits (made when
    missing); the address it prints carries a session token."""
    try:
        from attack.ui.server import is_loopback, serve
    except ModuleNotFoundError as exc:
        raise InputError(f'the web interface needs the ui extra: pip install "attack[ui]" ({exc.name} is missing)') from None
    if not is_loopback(host):
        click.echo(f"warning: serving on {host}: other machines that reach this address can open the UI with "
                   "its token and run scenarios on this machine", err=True)
    serve(scenario_path, host=host, port=port, open_browser=not no_browser, say=lambda line: click.echo(line, err=True))


@main.command("schema")
@click.option("--synthetic", is_flag=True, help='The schema of synthetic-release scenario files (kind = "synthetic").')
def schema_command(synthetic) -> None:
    """Print the JSON Schema of scenario files.

    Save it (``attack schema > attack-scenario.schema.json``) and point your editor's TOML
    support at it (Even Better TOML / Taplo in VS Code: a ``#:schema attack-scenario.schema.json``
    first line in the scenario file), so that misspelt fields and wrong values show while you
    type. The same schema checks every scenario before any data file is read."""
    from attack.study.settings import json_schema
    from attack.study.synthetic_settings import synthetic_json_schema

    click.echo(to_json(synthetic_json_schema() if synthetic else json_schema()), nl=False)


@main.command("inspect")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the interpretation as JSON.")
@_read_options
def inspect_command(path, as_json, sep, decimal, encoding, sheet, na, codes) -> None:
    """Show how attack reads FILE: detected format, encoding and dialect, rows, and per column
    its role (number, code, text, identifier), missing share, distinct values and warnings."""
    from attack.io.inspect import inspect_file, render_inspection

    report = inspect_file(path, _reading(sep, decimal, encoding, sheet, na, codes))
    click.echo(to_json(report).rstrip("\n") if as_json else render_inspection(report))


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    """``COLUMN=VALUE`` options as a mapping; a malformed one is a usage error."""
    out = {}
    for item in values:
        column, eq, value = item.partition("=")
        if not eq or not column.strip() or not value.strip():
            raise InputError(f"{option} {item!r}: expected COLUMN=VALUE")
        out[column.strip()] = value.strip()
    return out


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [c.strip() for c in text.split(",") if c.strip()]


@main.command("synthesize")
@click.option("--original", "original_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The confidential original to synthesise.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Synthetic file (.csv or .parquet), owner-only; with --m 3: NAME_1, NAME_2, NAME_3.")
@click.option("--columns", metavar="A,B,...", help="Columns to synthesise (default: all but --drop, --keep and --strata).")
@click.option("--drop", "dropped", multiple=True, metavar="COLUMN", help="Leave this column out, e.g. the unit id (repeatable).")
@click.option("--keep", "kept", multiple=True, metavar="COLUMN", help="Keep this column as it is, row by row: partially synthetic data (repeatable).")
@click.option("--method", "methods", multiple=True, metavar="COLUMN=METHOD", help="sample, cart, rf, norm, normrank, logreg, polyreg, or '~ formula' (passive), e.g. margin='~ turnover - costs' (repeatable).")
@click.option("--default-method", default="cart", show_default=True, help="Method of every column not named by --method (the first column is sampled).")
@click.option("--visit", metavar="A,B,...", help="Visit sequence: the order of synthesis (default: column order).")
@click.option("--predictors", "predictors", multiple=True, metavar="COLUMN=A,B", help="The columns that predict COLUMN (default: all before it; repeatable).")
@click.option("--minbucket", type=int, default=5, show_default=True, help="Minimum leaf size of CART and random forests.")
@click.option("--cp", type=float, default=1e-4, show_default=True, help="Complexity parameter of CART: a split must reduce the lack of fit by this share.")
@click.option("--ntree", type=int, default=10, show_default=True, help="Trees of the rf method.")
@click.option("--smoothing", type=click.Choice(["none", "density"]), default="none", show_default=True, help="Gaussian kernel smoothing of drawn numbers.")
@click.option("--proper", is_flag=True, help="Fit every model to a bootstrap sample of the original.")
@click.option("--special-code", "special_codes", multiple=True, type=float, callback=_finite, metavar="NUMBER", help="A number that is a code, not a value, e.g. -8 (repeatable).")
@click.option("--strata", multiple=True, metavar="COLUMN", help="Synthesise separately within each group of this column (repeatable).")
@click.option("--m", "m", type=int, default=1, show_default=True, help="Number of synthetic copies.")
@click.option("--rows", type=int, help="Rows of each copy (default: as many as the original).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed: the same seed gives the same file.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), help="Synthesis log (JSON; default: OUT with .synthesis.json).")
@_QUIET
@_read_options
def synthesize_command(original_path, out_path, columns, dropped, kept, methods, default_method, visit, predictors,
                       minbucket, cp, ntree, smoothing, proper, special_codes, strata, m, rows, seed, log_path,
                       quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """Make a synthetic file by sequential conditional synthesis, as synthpop does
    (docs/method/synthesis.md)."""
    from attack.io.writers import table_content
    from attack.synthesis.sequential import synthesize

    out_path = Path(out_path)
    targets = [out_path] if m == 1 else [out_path.with_name(f"{out_path.stem}_{i}{out_path.suffix}") for i in range(1, m + 1)]
    log_path = log_path or out_path.with_suffix(".synthesis.json")
    check_outputs([*targets, log_path], [original_path])
    data = read_table(original_path, options=_reading(sep, decimal, encoding, sheet, na, codes))
    require_codes([data])
    chosen = _names(columns)
    if chosen is None:
        chosen = [c for c in data.columns if c not in set(dropped) | set(kept) | set(strata)]
    result = synthesize(
        data, columns=chosen, method=_pairs(methods, "--method"), default_method=default_method,
        visit_sequence=_names(visit),
        predictors={c: _names(v) for c, v in _pairs(predictors, "--predictors").items()} or None,
        minbucket=minbucket, cp=cp, ntree=ntree, smoothing=smoothing, proper=proper, special_codes=special_codes,
        strata=strata, keep=kept, m=m, rows=rows, seed=seed,
    )
    log = {"original": Path(original_path).name, "outputs": [p.name for p in targets], **result.to_dict(),
           "tool": f"attack {__version__}"}
    files = {p: (table_content(frame, p), OWNER_ONLY) for p, frame in zip(targets, result.copies, strict=True)}
    files[Path(log_path)] = (to_json(log), None)
    write_files_atomic(files, inputs=[original_path])
    for path in targets:
        click.echo(RELEASE_NOTE.format(path=path), err=True)
    if not quiet:
        click.echo(f"synthesised {len(result.methods)} columns, {m} cop{'y' if m == 1 else 'ies'} of "
               f"{len(result.frame)} rows; log in {log_path}")


def _json_file(path: Path) -> dict:
    """A JSON document read from a user's file; unreadable or invalid JSON is an input error."""
    import json

    from attack.io.readers import read_file_bytes

    try:
        document = json.loads(read_file_bytes(path).decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"cannot read JSON: {str(exc)[:200] or 'nested too deeply'}", file=Path(path).name) from None
    if not isinstance(document, dict):
        raise InputError("expected a JSON object", file=Path(path).name)
    return document


def _tune_output(run_output: str | Path | None, suffix: str) -> Path | None:
    """Where ``attack tune`` writes by default: beside the file ``attack run`` writes for the same
    scenario, never over it (``result.json`` -> ``result.tune.json``)."""
    return None if run_output is None else Path(run_output).with_suffix(".tune" + suffix)


def _tune_synthetic(scenario: SyntheticScenario, json_path, release_path, html_path, quiet: bool) -> None:
    """``attack tune`` on a synthetic-release scenario: the grid of its [tune] table."""
    from attack.io.writers import table_content

    if html_path:
        raise InputError("--html: the synthesis tuning writes JSON and prints its table; no HTML report yet")
    json_path = Path(json_path or _tune_output(scenario.outputs.get("json"), ".json")
                     or Path("reports") / f"{scenario.path.stem}.tune.json")
    release_path = release_path or (None if scenario.settings.tune is None or scenario.settings.tune.release is None
                                    else scenario.base / scenario.settings.tune.release)
    check_outputs([json_path, release_path], scenario.input_paths())
    outcome = scenario.tune()
    files = {json_path: (to_json(outcome.as_dict()), None)}
    if release_path and outcome.release is not None:
        files[Path(release_path)] = (table_content(outcome.release, release_path), OWNER_ONLY)
    write_files_atomic(files, inputs=scenario.input_paths())
    if release_path and outcome.release is not None:
        click.echo(RELEASE_NOTE.format(path=release_path), err=True)
    _print_synthesis_tuning(outcome, quiet)


def _print_synthesis_tuning(outcome, quiet: bool = False) -> None:
    """One line per candidate (* chosen, f on the frontier), the verdict; exit 1 if none passes."""
    for i, c in enumerate([] if quiet else outcome.candidates):
        mark = "*" if i == outcome.chosen else ("f" if i in outcome.frontier else " ")
        risk = "n/a" if c.worst_risk is None else f"{c.worst_risk:.3f}"
        click.echo(f"{mark} {c.settings}: worst risk {risk} ({c.worst_check}), S_pMSE {c.s_pmse:.2f}, "
                   f"{verdict_word(c.passed)}")
    if not quiet:
        click.echo(outcome.as_dict()["verdict"] + " (* chosen, f on the risk-utility frontier)")
    if outcome.chosen is None:
        raise SystemExit(1)


@main.command("tune-synthesis")
@click.option("--original", "original_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The confidential original.")
@click.option("--holdout", "holdout_path", type=click.Path(dir_okay=False, path_type=Path), help="Original records kept out of synthesis (control set of the attacks).")
@click.option("--grid", "grid", multiple=True, required=True, metavar="KEY=V1,V2", help="Settings to search, e.g. minbucket=5,20,50 or smoothing=none,density (repeatable; keys: method, method.COLUMN, minbucket, cp, smoothing, proper, ntree).")
@click.option("--drop", "dropped", multiple=True, metavar="COLUMN", help="Leave this column out, e.g. the unit id (repeatable).")
@click.option("--special-code", "special_codes", multiple=True, type=float, callback=_finite, metavar="NUMBER", help="A number that is a code, not a value, e.g. -8 (repeatable).")
@click.option("--key", "keys", multiple=True, metavar="COLUMN", help="Variable the intruder knows (repeatable).")
@click.option("--target", "targets", multiple=True, metavar="COLUMN", help="Variable the intruder wants (repeatable; needs --key).")
@click.option("--tau", type=float, default=SYNTHETIC_TAU, show_default=True, help="Risk limit τ of every check, on its upper 95% bound (why 0.1: docs/reference/defaults.md).")
@click.option("--n-attacks", type=click.IntRange(min=1), default=500, show_default=True, help="Targets per attack (singling out, linkability, inference).")
@click.option("--membership", is_flag=True, help="Also run shadow-model membership inference against every candidate.")
@click.option("--utility-model", type=click.Choice(["logistic", "logistic2", "cart"]), default="logistic", show_default=True, help="Propensity model whose S_pMSE ranks the candidates.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Every candidate, the choice and the risk-utility frontier (JSON).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), help="The chosen synthetic file (owner-only).")
@_QUIET
@_read_options
def tune_synthesis_command(original_path, holdout_path, grid, dropped, special_codes, keys, targets, tau, n_attacks,
                           membership, utility_model, seed, json_path, out_path,
                           quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """Find the most useful synthetic file (by S_pMSE) whose every risk is below τ
    (docs/howto/synthetic-release.md). Exit status 1 when no candidate of the grid passes."""
    from attack.io.writers import table_content
    from attack.study.synthesis_tuning import parse_grid, tune_synthesis

    check_outputs([json_path, out_path], [original_path, holdout_path])
    parsed = parse_grid(grid)
    reading = _reading(sep, decimal, encoding, sheet, na, codes)
    original = read_table(original_path, options=reading)
    holdout = read_table(holdout_path, options=reading) if holdout_path else None
    require_codes([original, holdout])
    columns = [c for c in original.columns if c not in dropped]
    outcome = tune_synthesis(
        original, parsed, holdout=holdout, columns=columns,
        fixed={"special_codes": list(special_codes)} if special_codes else None,
        attacks={"keys": keys, "targets": targets, "tau": tau, "n_attacks": n_attacks},
        membership={} if membership else None, utility_model=utility_model, seed=seed,
    )
    document = outcome.as_dict()
    files = {}
    if json_path:
        files[Path(json_path)] = (to_json(document), None)
    if out_path and outcome.release is not None:
        files[Path(out_path)] = (table_content(outcome.release, out_path), OWNER_ONLY)
    write_files_atomic(files, inputs=[original_path, holdout_path])
    _print_synthesis_tuning(outcome, quiet)


@main.command("risk")
@click.option("--data", "data_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The microdata file to assess (original or candidate release).")
@click.option("--key", "keys", multiple=True, required=True, metavar="COLUMN", help="Categorical key variable (quasi-identifier); repeatable.")
@click.option("--weight", metavar="COLUMN", help="Sampling weight: population frequencies F_k and the Benedetti-Franconi risk (default: the file is the population, risk 1/f_k).")
@click.option("--household", metavar="COLUMN", help="Household (cluster) identifier: adds the household risk.")
@click.option("--sensitive", metavar="COLUMN", help="Sensitive variable: adds its l-diversity per key combination.")
@click.option("--k", "k", type=click.IntRange(min=1), default=3, show_default=True, help="k-anonymity level of the verdict (violations for 2, 3 and 5 are always reported).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.1, show_default=True, help="Individual risk above which a record is at risk.")
@click.option("--method", type=click.Choice(["approx", "exact"]), default="approx", show_default=True, help="Individual risk formula for f_k > 2 (sdcMicro's indivRisk methods).")
@click.option("--alpha", type=click.FloatRange(0, 1), default=1.0, show_default=True, help="Weight of combinations with missing keys in the frequencies of those they match (sdcMicro's alpha).")
@click.option("--household-method", type=click.Choice(["product", "inclusion-exclusion"]), default="product", show_default=True, help="Household risk as 1 - prod(1 - r) or by inclusion-exclusion (the same probability).")
@click.option("--max-global-risk", type=float, default=0.01, show_default=True, help="Target re-identification rate for mu-Argus's threshold r*.")
@click.option("--suda/--no-suda", default=True, show_default=True, help="Compute SUDA and DIS-SUDA scores.")
@click.option("--dis-fraction", type=float, default=0.01, show_default=True, help="Sampling fraction of the DIS-SUDA calibration.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the aggregates as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the aggregates as an HTML page.")
@click.option("--records", "records_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the record-level risks (confidential, mode 0600).")
@_QUIET
@_read_options
def risk_command(data_path, keys, weight, household, sensitive, k, threshold, method, alpha, household_method,
                 max_global_risk, suda, dis_fraction, json_path, html_path, records_path, quiet,
                 sep, decimal, encoding, sheet, na, codes) -> None:
    """Frequency risk of categorical keys as sdcMicro and mu-Argus compute it
    (docs/method/frequency-risk.md): f_k, F_k, individual, household and global risk, k-anonymity,
    l-diversity and SUDA. Exit status 1 (NOT PASSED) when a record's individual risk exceeds
    --threshold or a key combination has fewer than --k records, else 0."""
    from attack.io.writers import table_content
    from attack.report.frequency import render_frequency_html, render_frequency_markdown
    from attack.risk.frequency import frequency_risk

    check_outputs([json_path, html_path, records_path], [data_path])
    data = read_table(data_path, options=_reading(sep, decimal, encoding, sheet, na, codes))
    result = frequency_risk(data, keys, weight, household, sensitive, alpha=alpha, method=method,
                            household_method=household_method, threshold=threshold, k=k,
                            max_global_risk=max_global_risk, suda=suda, dis_fraction=dis_fraction)
    document = result.to_dict()
    files = {}
    if json_path:
        files[Path(json_path)] = (to_json(document), None)
    if html_path:
        files[Path(html_path)] = (render_frequency_html(document, f"Frequency risk of {data_path.name}"), None)
    if records_path:
        files[Path(records_path)] = (table_content(result.records(), records_path), OWNER_ONLY)
    write_files_atomic(files, inputs=[data_path])
    if records_path:
        _say_record_level(records_path, "holds record-level risks that point at the riskiest records of the "
                                        "confidential file")
    if not quiet:
        click.echo(render_frequency_markdown(document))
    if not result.passed:
        raise SystemExit(1)


@main.command("report")
@click.argument("result_path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--board", is_flag=True, help="Write the release-board report: release context, data and identifiers, intruder models, initial risk, threshold and residual risk, the Article 29 criteria (what was and was not tested), sign-off and reproducibility, the result's SHA-256 on every page.")
@click.option("--context", type=click.Choice(["public-use", "scientific-use", "enclave"]), help="Release context of the board report: a public-use file, a scientific-use file or a secure enclave (required with --board).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), help="Where the HTML report goes (default: beside RESULT_PATH, named RESULT.board.html with --board, else RESULT.html).")
@click.option("--pdf", "pdf_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the report as PDF (A4, page numbers; needs the pdf extra: pip install \"attack[pdf]\").")
@click.option("--docs", "docs_url", default="", metavar="URL", help="Address of the attack documentation site the board report's method links point to (default: links relative to the report).")
@_QUIET
def report_command(result_path, board, context, out_path, pdf_path, docs_url, quiet) -> None:
    """Report a result again from its JSON (attack run, demo, link, synth or tune --json): the
    regular HTML report, or with --board the report a release board files, as HTML and with --pdf
    as PDF. Nothing is recomputed: every number comes from RESULT_PATH. Exit status 1 when the
    result is NOT PASSED, else 0."""
    import importlib.metadata
    import shlex

    from attack.report.documents import load_result, report_html, report_passed

    if board and context is None:
        raise InputError("--board needs --context: public-use, scientific-use or enclave (who may get the file "
                         "decides which controls stand beside the data's protection)")
    if context is not None and not board:
        raise InputError("--context belongs to the board report: add --board")
    suffix = ".board.html" if board else ".html"
    out_path = out_path or result_path.with_name(result_path.name.removesuffix(".json") + suffix)
    check_outputs([out_path, pdf_path], [result_path])
    document, digest = load_result(result_path)
    if board:
        from attack.report.board import BoardInput, render_board_html

        versions = {}
        for name in ("numpy", "pandas", "matplotlib", *(["weasyprint"] if pdf_path else [])):
            try:
                versions[name] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
        command = shlex.join(["attack", "report", str(result_path), "--board", "--context", context,
                              *(["--pdf", str(pdf_path)] if pdf_path else [])])
        text = render_board_html(document, BoardInput(context=context, digest=digest, file_name=result_path.name,
                                                      command=command, docs=docs_url, versions=versions))
    else:
        text = report_html(document, result_path.stem)
    files: dict[Path, tuple[str | bytes, int | None]] = {out_path: (text, None)}
    if pdf_path:
        from attack.report.pdf import html_to_pdf

        files[pdf_path] = (html_to_pdf(text), None)
    write_files_atomic(files, inputs=[result_path])
    passed = report_passed(document)
    if not quiet:
        written = ", ".join(str(p) for p in files)
        click.echo(f"{'PASSED' if passed else 'NOT PASSED'} (as recorded in {result_path}); wrote {written}")
    if not passed:
        raise SystemExit(1)
