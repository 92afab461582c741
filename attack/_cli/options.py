"""Option declarations of the commands, with the callbacks that check their values as they are
parsed. Several options repeat across commands (how files are read, how the blocks are solved,
how talkative a command is); each is declared once here."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

import attack

# The vocabularies the options offer: declared once in the library, read here so that click can
# show and check them before any work starts.
from attack.vocabulary import (
    ASSIGNMENT_METHODS,
    COLUMN_ROLES,
    DEFAULT_MEMORY_BUDGET,
    DEFAULT_MIN_SCORED,
    ENGINES,
    IDENTITY_RULES,
    INTRUDERS,
    LINKAGE_TAU,
    METRIC_DISTANCES,
    RISK_BASES,
    STANDARDISATIONS,
    SYNTHETIC_METRICS,
    SYNTHETIC_SCALINGS,
    SYNTHETIC_TAU,
    TARGET_TYPES,
    key_types,
    parse_block,
    parse_block_entry,
    parse_key,
    parse_size,
)

F = TypeVar("F", bound=Callable[..., Any])
FILE = click.Path(dir_okay=False, path_type=Path)
FOLDER = click.Path(file_okay=False, path_type=Path)


def stack(*decorators: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` as if written one above the other."""
    def apply(command: F) -> F:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command
    return apply


def _parsing(parse: Callable[[str], Any]) -> Callable[[click.Context, click.Parameter, Sequence[str]], tuple]:
    """A click callback that parses every value of a repeatable option with ``parse``."""
    def callback(_ctx: click.Context, _param: click.Parameter, values: Sequence[str]) -> tuple:
        try:
            return tuple(parse(v) for v in values)
        except attack.InputError as exc:
            raise click.BadParameter(str(exc)) from exc
    return callback


_keys = _parsing(parse_key)
_classifiers = _parsing(parse_block)
_blocking_entries = _parsing(parse_block_entry)


def _gamma_vars(_ctx: click.Context, _param: click.Parameter, values: Sequence[str]) -> dict[str, list[float]]:
    try:
        return attack.gammas_by_variable(values)
    except attack.InputError as exc:
        raise click.BadParameter(str(exc)) from exc


def _roles(_ctx: click.Context, _param: click.Parameter, values: Sequence[str]) -> dict[str, str] | None:
    out = {}
    for value in values:
        column, eq, role = value.rpartition("=")
        if not eq or not column or role not in COLUMN_ROLES:
            raise click.BadParameter(f"{value!r}: expected COLUMN=ROLE, ROLE one of {', '.join(COLUMN_ROLES)}")
        out[column] = role
    return out or None


def finite(_ctx: click.Context, _param: click.Parameter, values: Sequence[float]) -> Sequence[float]:
    """Numbers given on the command line must be finite (``nan`` and ``inf`` are not codes)."""
    for value in values:
        if not math.isfinite(value):
            raise click.BadParameter(f"{value!r} is not a finite number")
    return values


def _memory_budget(_ctx: click.Context, _param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_size(value)
    except attack.InputError as exc:
        raise click.BadParameter(str(exc)) from exc


def _list_methods(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(attack.protection_listing())
        ctx.exit(0)


def _alias_key(dest: str) -> str:
    return f"attack.cli.alias.{dest}"


def _deprecated(dest: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """Callback of an old spelling of --out: one notice on stderr, the value kept for --out."""
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is not None and not ctx.resilient_parsing:
            click.echo(f"attack: {param.opts[0]} is deprecated and goes in the next release; use --out", err=True)
            ctx.meta[_alias_key(dest)] = value
        return value
    return callback


def out_option(dest: str, help: str, *, old: tuple[str, ...] = (), required: bool = False) -> Callable[[F], F]:
    """--out: the file the command makes. The ``old`` spellings stay as hidden aliases for one
    release, each with a notice on stderr (docs/reference/cli.md)."""
    def value(ctx: click.Context, param: click.Parameter, given: Any) -> Any:
        aliased = ctx.meta.get(_alias_key(dest))
        if aliased is not None:
            if given is not None:
                raise click.UsageError(f"--out and {', '.join(old)} name the same output; give --out only")
            return aliased
        if given is None and required and not ctx.resilient_parsing:
            raise click.MissingParameter(ctx=ctx, param=param)
        return given

    def decorate(command: F) -> F:
        command = click.option("--out", dest, type=FILE, callback=value,
                               help=help + (" [required]" if required else ""))(command)
        for spelling in old:
            command = click.option(spelling, type=FILE, hidden=True, expose_value=False, is_eager=True,
                                   callback=_deprecated(dest))(command)
        return command
    return decorate


def _collapsing(options: Sequence[Callable[[Any], Any]], names: Sequence[str], into: str,
                build: Callable[..., Any]) -> Callable[[F], F]:
    """Declare ``options`` and hand the command one value, ``into``, built from theirs."""
    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            return command(*args, **{**kwargs, into: build(**values)})
        return stack(*options)(wrapper)  # type: ignore[return-value]
    return decorate


def _quiet(_ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    """--quiet silences the notices too (the command group restores the filters after the run)."""
    if value:
        warnings.simplefilter("ignore", attack.DataNotice)
    return value


quiet = click.option("--quiet", is_flag=True, callback=_quiet,
                     help="Print no summary and no notices (errors and warnings still go to stderr).")

_READING = (
    click.option("--sep", metavar="CHAR", help="CSV separator: , ; | or tab (default: detected)."),
    click.option("--decimal", type=click.Choice([".", ","]), help="Decimal separator of CSV numbers (default: detected)."),
    click.option("--encoding", metavar="NAME", help="Text encoding of CSV files, e.g. utf-8, cp1252, latin-1 (default: detected)."),
    click.option("--sheet", metavar="NAME|INDEX", help="Sheet of an Excel or OpenDocument file (default: the first)."),
    click.option("--na", "na", multiple=True, metavar="[COLUMN=]CODE", help="Missing-value code, e.g. --na -9 --na k.A. or --na turnover=-8 (repeatable)."),
    click.option("--code", "codes", multiple=True, metavar="COLUMN", help="Column holding codes even if they look like numbers, e.g. NACE (repeatable)."),
)
#: --sep, --decimal, --encoding, --sheet, --na and --code as given (see ``reading``).
read_flags = stack(*_READING)
#: How the input files are read (default: detected; docs/howto/reading-files.md), handed to the
#: command as ``reading``, an ``attack.ReadOptions``. They apply to every input file.
reading = _collapsing(_READING, ("sep", "decimal", "encoding", "sheet", "na", "codes"), "reading",
                      attack.read_options)

#: --jobs, --engine, --scheduler and --memory-budget, handed to the command as ``engine``: how the
#: blocks are solved (None where not given: the scenario's [engine] table or the defaults decide).
#: They never change the result.
engine = _collapsing((
    click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes solving the blocks (default: all cores; small runs stay in one process)."),
    click.option("--engine", type=click.Choice(ENGINES), default=None, help="local: this machine (default); dask: a Dask cluster (pip install 'attack[dask]').", show_default=False),
    click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler to use with --engine dask (default: start a local cluster of --jobs workers)."),
    click.option("--memory-budget", callback=_memory_budget, metavar="SIZE", help=f"Largest dense cost matrix of one block, e.g. 2GiB, 512MiB or bytes (default {DEFAULT_MEMORY_BUDGET / 2**30:g}GiB)."),
), ("jobs", "engine", "scheduler", "memory_budget"), "engine",
    lambda jobs, engine, scheduler, memory_budget: {"name": engine, "jobs": jobs, "scheduler": scheduler,
                                                    "memory_budget": memory_budget})


@dataclass(frozen=True)
class Say:
    """How talkative a command is: --quiet, --verbose, --timings."""

    quiet: bool = False
    verbose: bool = False
    timings: bool = False


#: --quiet, --verbose and --timings, handed to the command as ``say``: what the command says
#: besides the files it writes.
talk = _collapsing((
    quiet,
    click.option("--verbose", is_flag=True, help="Print the time each stage took to stderr."),
    click.option("--timings", is_flag=True, help="Add stage timings to the JSON (which then differs from run to run)."),
), ("quiet", "verbose", "timings"), "say", Say)

LINK = stack(
    click.option("--external", "external_path", required=True, type=FILE, help="The intruder's file."),
    click.option("--release", "release_path", required=True, type=FILE, help="The candidate release."),
    click.option("--external-id", required=True, help="Column holding each external record's unit id (ground truth; may be empty)."),
    click.option("--release-id", required=True, help="Column holding each release row's unit id (hidden from the matcher)."),
    click.option("--original", "original_path", type=FILE, help="The confidential original: true values and cells."),
    click.option("--original-id", help="Unit id column of the original (default: --release-id)."),
    click.option("--key", "keys", multiple=True, required=True, callback=_keys, metavar="NAME:TYPE[:WEIGHT][:OPT]", help="Distance key; TYPE " + "|".join(key_types()) + "."),
    click.option("--block", "blocks", multiple=True, callback=_blocking_entries, metavar="NAME[:prefix=N|:bins=B,...|:soundex|:cologne][|ALTERNATIVE...]", help="Blocking key; several keys separated by | are alternatives (blocking passes whose candidate pairs are united)."),
    click.option("--method", type=click.Choice(ASSIGNMENT_METHODS), default="greedy", show_default=True),
    click.option("--standardise", type=click.Choice(STANDARDISATIONS), default="maxmin", show_default=True),
    click.option("--metric-distance", type=click.Choice(METRIC_DISTANCES), default="squared", show_default=True),
    click.option("--seed", type=click.IntRange(min=0), help="Shuffle the external order of the sequential method."),
    click.option("--winsorise", is_flag=True, help="Set a metric value that alone spans its key's range to the nearest other value (recorded in the result) instead of stopping."),
    click.option("--gamma", "gammas", multiple=True, help="Usefulness threshold γ (repeatable; default 0.05 and 0.1)."),
    click.option("--gamma-var", "gamma_by_variable", multiple=True, callback=_gamma_vars, metavar="NAME=G1[,G2...]", help="Per-variable γ_i, one per --gamma."),
    click.option("--tau", type=float, default=LINKAGE_TAU, show_default=True, help="Risk limit τ per cell, on the point estimate (why 0.5, and why attack synth defaults to 0.1: docs/reference/defaults.md)."),
    click.option("--target", "targets", multiple=True, metavar="NAME[:TYPE[:OPTION]]", help="Evaluated variable, TYPE " + "|".join(TARGET_TYPES) + ", e.g. nace:categorical:prefix=2, dob:date:days=30 (default: the columns whose inferred role is target)."),
    click.option("--cell", "cells", multiple=True, callback=_classifiers, metavar="NAME[:prefix=N|:bins=B,...]", help="Cell variable."),
    click.option("--zero-tolerance", type=float, default=0.0, show_default=True, help="A true zero is useful when |released| <= this."),
    click.option("--intruder", type=click.Choice(INTRUDERS), default="distance", show_default=True, help="The intruder's model: weighted distances, or Fellegi–Sunter match weights (m by EM, u from random pairs)."),
    click.option("--min-probability", "min_probabilities", multiple=True, type=click.FloatRange(0, 1), help="Report the confident links, those with a match probability of at least P (repeatable; default 0.5, 0.9 and 0.99)."),
    click.option("--risk-on", type=click.Choice(RISK_BASES), default="all", show_default=True, help="What τ judges: all links (the handbook's hit rate) or only the confident links at the first --min-probability."),
    click.option("--learn-weights", "learn_weights", type=click.FloatRange(0, 1, min_open=True, max_open=True), metavar="SHARE", help="The worst case: the intruder knows this share of the verifiable units (seeded by --seed), learns the key weights from them and attacks the rest; only the rest is scored, the given weights beside."),
    click.option("--truth-complete", is_flag=True, help="The ground truth covers every external record: one whose unit is not in the release (or has no id) has no counterpart and its link is false; several records of one unit are allowed."),
    click.option("--json", "json_path", type=FILE, help="Write the result as JSON."),
    click.option("--html", "html_path", type=FILE, help="Write a self-contained HTML report."),
    click.option("--matches", "matches_path", type=FILE, help="Write record-level links (confidential)."),
    click.option("--external-coverage", type=click.FloatRange(0, 1, min_open=True), help="Share of the population the external file covers: adds the expected re-identifications in the population with their interval."),
    click.option("--release-fraction", type=click.FloatRange(0, 1, min_open=True), help="Sampling fraction of the release (1 for a complete file): adds the expected re-identifications in the population."),
    click.option("--context", "context_value", metavar="NAME|FILE", help="Release context: public-use, scientific-use, enclave or a TOML file with the [context] questionnaire; its tau replaces --tau and the result records it (docs/method/release-context.md)."),
    click.option("--records", "records_path", type=FILE, help="Write the risk of every release record (confidential, owner-only): re-identified, match probability, margin to the runner-up, frequency risk, targets disclosed within γ."),
    click.option("--explain", is_flag=True, help="Add the attribution of the re-identification rate to the keys (Shapley values; re-links with every subset of the keys) to the JSON."),
    click.option("--role", "roles", multiple=True, callback=_roles, metavar="COLUMN=ROLE", help="Role of a release column, ROLE " + "|".join(COLUMN_ROLES) + " (repeatable; the others are inferred, docs/method/roles.md)."),
    click.option("--identity", type=click.Choice(IDENTITY_RULES), default="judged", show_default=True, help="judged: every cell's re-identification rate must stay below --identity-limit; discloses-nothing: re-identification alone discloses nothing here (perturbed business data)."),
    click.option("--identity-limit", type=click.FloatRange(0, 1, min_open=True), help="Limit of every cell's re-identification rate (default: --tau)."),
    click.option("--min-scored", type=click.IntRange(min=1), default=DEFAULT_MIN_SCORED, show_default=True, help="Fewest scored units and links (confident links with --risk-on confident) a verdict may rest on."),
    click.option("--harmless", multiple=True, metavar="COLUMN", help="A released direct identifier declared harmless (recorded; repeatable)."),
    click.option("--protection-log", "protection_log", type=FILE, help="The protection log of attack protect: a target it recoded or coarsened is compared with the original mapped the same way."),
    click.option("--cluster", metavar="COLUMN|EXT_COLUMN:REL_COLUMN", help="Cluster column (household, enterprise, employer): the cluster-aware intruder links whole clusters, then their members, reported beside the person-level attack."),
    click.option("--wave", metavar="COLUMN|EXT_COLUMN:REL_COLUMN", help="Wave column of long panel files (one row per unit and wave; the id columns hold the units): the panel intruder combines each unit's waves; figures after 1, 2, ... waves."),
    click.option("--trajectory", is_flag=True, default=None, help="With --wave: growth rates between consecutive waves are keys too."),
)


RUN = stack(
    click.argument("scenario_path", type=FILE),
    click.option("--json", "json_path", type=FILE, help="Override the scenario's JSON output."),
    click.option("--html", "html_path", type=FILE, help="Override the scenario's HTML output."),
    click.option("--matches", "matches_path", type=FILE, help="Write record-level links (confidential)."),
    click.option("--records", "records_path", type=FILE, help="Write the risk of every release record (confidential, owner-only)."),
    click.option("--certificate", "certificate_path", type=FILE, help="Where the certificate goes (default: beside the JSON, or reports/)."),
    click.option("--sign", "sign_path", type=FILE, help="Sign the certificate with this Ed25519 private key (from attack keygen)."),
    click.option("--passphrase-env", metavar="VAR", help="Environment variable holding the private key's passphrase."),
)


VERIFY = stack(
    click.argument("certificate_path", type=FILE),
    click.option("--public-key", "public_key", type=FILE, help="The issuer's public key (public.pem): check the signature."),
    click.option("--rerun", is_flag=True, help="Also rerun the attack and compare every figure."),
    click.option("--offline", is_flag=True, help="Check signature, digest, structure and verdict only, without the inputs (a recipient who holds only the certificate)."),
    click.option("--root", type=FOLDER, help="Folder the input paths may not leave (default: the certificate's folder)."),
)


KEYGEN = stack(
    click.option("--out", "out_dir", required=True, type=FOLDER, help="Folder for private.pem and public.pem."),
    click.option("--passphrase-env", metavar="VAR", help="Encrypt the private key with the passphrase held in this environment variable."),
)


DEMO = stack(
    click.option("--out", "out_dir", type=FOLDER, default=Path("reports/demo"), show_default=True),
    click.option("--units", type=click.IntRange(min=100), default=17000, show_default=True, help="Size of the synthetic population."),
    click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True),
    click.option("--method", type=click.Choice(ASSIGNMENT_METHODS), default="greedy", show_default=True),
)


TRUTH = stack(
    click.option("--external", "external_path", required=True, type=FILE, help="External database with names (and addresses)."),
    click.option("--external-id", required=True, help="Record id column of the external file."),
    click.option("--original", "original_path", required=True, type=FILE, help="The confidential original."),
    click.option("--original-id", required=True, help="Unit id column of the original."),
    click.option("--name", "name_column", required=True, help="Firm-name column (same name in both files)."),
    click.option("--address", "address_column", help="Street-address column (same name in both files)."),
    click.option("--address-weight", type=click.FloatRange(0, 1), default=0.3, show_default=True, help="Weight w of the address: score = (1-w)·name + w·address."),
    click.option("--form-penalty", type=click.FloatRange(0, 1), default=0.2, show_default=True, help="Subtracted when both records carry a legal form and the forms differ."),
    click.option("--margin", type=click.FloatRange(0, 1), default=0.02, show_default=True, help="A link is accepted only if it beats every rival by more than this."),
    click.option("--block", "blocks", multiple=True, callback=_classifiers, metavar="NAME[:prefix=N]", help="Blocking key, e.g. plz:prefix=3 or city."),
    click.option("--accept", type=float, default=0.92, show_default=True, help="Score from which a link is accepted as ground truth."),
    click.option("--review", type=float, default=0.80, show_default=True, help="Score from which a pair goes to clerical review."),
    click.option("--out", "out_path", required=True, type=FILE, help="CSV: the external file plus the ground-truth column unit_id (confidential, owner-only)."),
    click.option("--review-out", "review_path", type=FILE, help="CSV of the review band (confidential, owner-only)."),
    click.option("--json", "json_path", type=FILE, help="JSON of the counts per legal form and per block (aggregates only)."),
)


PROTECT = stack(
    click.option("--list-methods", is_flag=True, expose_value=False, is_eager=True, callback=_list_methods, help="List the methods, each with a one-line summary and its parameters (kind, default, bounds, meaning), and exit."),
    click.option("--method", required=True, metavar="NAME", help="Protection method, e.g. separate-ma, mdav, hoehne-noise, pram (see --list-methods)."),
    click.option("--input", "input_path", required=True, type=FILE, help="File to protect (the original or an earlier stage)."),
    out_option("output_path", "Candidate release (.csv or .parquet), written owner-only.", old=("--output",), required=True),
    click.option("--columns", default="", metavar="A,B,...", help="Variables the method changes."),
    click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Method parameter, e.g. k=3 or f=0.08 (repeatable)."),
    click.option("--by", "by", multiple=True, metavar="COLUMN", help="Run the method separately within each group of this variable (repeatable)."),
    click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Master seed of every random step."),
    click.option("--log", "log_path", type=FILE, help="Where the protection log (JSON) goes (default: OUT with .protection.json)."),
)


TUNE = stack(
    click.argument("scenario_path", type=FILE),
    click.option("--json", "json_path", type=FILE, help="Where the tuning results go (default: the scenario's [output] json with .tune.json, else reports/SCENARIO.tune.json; never the file attack run writes)."),
    click.option("--html", "html_path", type=FILE, help="HTML report with the risk-utility plot (default: the scenario's [output] html with .tune.html)."),
    out_option("release_path", "Where the chosen release goes (default: [tune] release).", old=("--release",)),
)


REMEDY = stack(
    click.argument("scenario_path", type=FILE),
    click.option("--json", "json_path", type=FILE, help="Where the remedy's results go (aggregates only)."),
    out_option("release_path", "Where the remedied release goes (owner-only; default: [remedy] release)."),
)


UTILITY = stack(
    click.option("--original", "original_path", required=True, type=FILE, help="The confidential original."),
    click.option("--release", "release_path", required=True, type=FILE, help="The candidate release."),
    click.option("--variables", default="", metavar="A,B,...", help="Metric variables to check (default: numeric columns of both files)."),
    click.option("--by", "by", multiple=True, metavar="COLUMN", help="Subpopulations: every category of this variable (repeatable)."),
    click.option("--cross", "crosses", multiple=True, metavar="A,B", help="Also every cell of this cross-classification (repeatable)."),
    click.option("--weight", help="Extrapolation-factor column: weighted means as well."),
    click.option("--model", "models", multiple=True, metavar="FORMULA", help='Reference OLS model, e.g. "log(turnover) ~ log(employees)" (repeatable).'),
    click.option("--id", "id_columns", metavar="ORIGINAL[,RELEASE]", help="Unit id column(s) aligning records: per-value deviations and IL1s."),
    click.option("--json", "json_path", type=FILE, help="Write the full profile as JSON."),
    click.option("--propensity", is_flag=True, help="Add propensity-score utility: pMSE and S_pMSE (logistic, CART), two-way tables (for synthetic releases)."),
    click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the CART permutation null and of the ML splits and models."),
    click.option("--ml", "ml_target", metavar="TARGET", help="Add the machine-learning utility: models trained on the release and on the original predict TARGET on held-out original rows (docs/method/ml-utility.md)."),
    click.option("--ml-model", "ml_models", multiple=True, type=click.Choice(["linear", "forest", "boosting", "mlp"]), help="Model of the ML utility (repeatable; default all four)."),
    click.option("--ml-features", default="", metavar="A,B,...", help="Predictors of the ML utility (default: every other shared column)."),
    click.option("--ml-repetitions", type=click.IntRange(min=1), default=5, show_default=True, help="Random splits of the original for the ML utility."),
    click.option("--ml-metric", type=click.Choice(["rmse", "mae", "accuracy", "balanced_accuracy", "auc"]), help="Verdict metric (default rmse for a metric target, balanced_accuracy for a categorical one)."),
    click.option("--ml-tolerance", "ml_tolerances", multiple=True, metavar="[MODEL=]LOSS", help="Largest relative loss of the verdict metric that keeps the utility, for all models or one (repeatable; default 0.1)."),
    click.option("--protection-log", "log_path", type=FILE, help="Protection log of attack protect: adds what an analyst can recover with it (PRAM frequencies, calibrated slopes)."),
    click.option("--holdout", "holdout_path", type=FILE, help="Real rows the generator or the protection never saw: every ML model is tested on them (needs --ml; docs/method/ml-utility.md)."),
)


RISK = stack(
    click.option("--data", "data_path", required=True, type=FILE, help="The microdata file to assess (original or candidate release)."),
    click.option("--key", "keys", multiple=True, required=True, metavar="COLUMN", help="Categorical key variable (quasi-identifier); repeatable."),
    click.option("--weight", metavar="COLUMN", help="Sampling weight: population frequencies F_k and the Benedetti-Franconi risk (default: the file is the population, risk 1/f_k)."),
    click.option("--household", metavar="COLUMN", help="Household (cluster) identifier: adds the household risk."),
    click.option("--sensitive", metavar="COLUMN", help="Sensitive variable: adds its l-diversity per key combination."),
    click.option("--k", "k", type=click.IntRange(min=1), default=3, show_default=True, help="k-anonymity level of the verdict (violations for 2, 3 and 5 are always reported)."),
    click.option("--threshold", type=click.FloatRange(0, 1), default=0.1, show_default=True, help="Individual risk above which a record is at risk."),
    click.option("--method", type=click.Choice(["approx", "exact"]), default="approx", show_default=True, help="Individual risk formula for f_k > 2 (sdcMicro's indivRisk methods)."),
    click.option("--alpha", type=click.FloatRange(0, 1), default=1.0, show_default=True, help="Weight of combinations with missing keys in the frequencies of those they match (sdcMicro's alpha)."),
    click.option("--household-method", type=click.Choice(["product", "inclusion-exclusion"]), default="product", show_default=True, help="Household risk as 1 - prod(1 - r) or by inclusion-exclusion (the same probability)."),
    click.option("--max-global-risk", type=float, default=0.01, show_default=True, help="Target re-identification rate for mu-Argus's threshold r*."),
    click.option("--suda/--no-suda", default=True, show_default=True, help="Compute SUDA and DIS-SUDA scores."),
    click.option("--dis-fraction", type=float, default=0.01, show_default=True, help="Sampling fraction of the DIS-SUDA calibration."),
    click.option("--json", "json_path", type=FILE, help="Write the aggregates as JSON."),
    click.option("--html", "html_path", type=FILE, help="Write the aggregates as an HTML page."),
    click.option("--records", "records_path", type=FILE, help="Write the record-level risks (confidential, mode 0600)."),
    click.option("--sampling-fraction", type=click.FloatRange(0, 1, min_open=True), help="The file is a simple random sample with this sampling fraction: adds Pitman's, Zayatz's and the SNB estimates of population uniques (docs/method/population-uniqueness.md)."),
    click.option("--population", type=click.IntRange(min=1), help="The file is a sample of a population of this size (instead of --sampling-fraction)."),
    click.option("--population-file", "population_path", type=FILE, help="The intruder's file is the population: exact journalist and marketer risks from its key classes."),
    click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True, help="Replicates of the bootstrap interval of the population uniques (0: none)."),
    click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap."),
    click.option("--context", "context_value", metavar="NAME|FILE", help="Release context: public-use, scientific-use, enclave or a TOML file with the [context] questionnaire; its tau replaces --threshold and its attacker model enters the verdict (docs/method/release-context.md)."),
)


REPORT = stack(
    click.argument("result_path", type=FILE),
    click.option("--board", is_flag=True, help="Write the release-board report: release context, data and identifiers, intruder models, initial risk, threshold and residual risk, the Article 29 criteria (what was and was not tested), sign-off and reproducibility, the result's SHA-256 on every page."),
    click.option("--context", metavar="NAME|FILE", help="Release context of the board report: public-use, scientific-use, enclave or a TOML file with the [context] questionnaire, whose answers and tau the report records (required with --board; docs/method/release-context.md)."),
    click.option("--out", "out_path", type=FILE, help="Where the HTML report goes (default: beside RESULT_PATH, named RESULT.board.html with --board, else RESULT.html)."),
    click.option("--pdf", "pdf_path", type=FILE, help="Also write the report as PDF (A4, page numbers; needs the pdf extra: pip install \"attack[pdf]\")."),
    click.option("--docs", "docs_url", default="", metavar="URL", help="Address of the attack documentation site the board report's method links point to (default: links relative to the report)."),
)


SCHEMA = stack(
    click.option("--synthetic", is_flag=True, hidden=True, help='Only the schema of synthetic-release scenario files (kind = "synthetic").'),
)


INSPECT = stack(
    click.argument("path", type=click.Path(path_type=Path)),
    click.option("--json", "as_json", is_flag=True, help="Print the interpretation as JSON."),
)

# The commands on synthetic data (attack synth, tune-synthesis, synthesize)


SYNTH = stack(
    click.option("--original", "original_path", required=True, type=FILE, help="The training original the generator saw."),
    click.option("--synthetic", "synthetic_path", required=True, type=FILE, help="The synthetic release."),
    click.option("--holdout", "holdout_path", type=FILE, help="Original records the generator did not see (control set)."),
    click.option("--key", "keys", multiple=True, metavar="COLUMN", help="Variable the intruder knows (repeatable)."),
    click.option("--target", "targets", multiple=True, metavar="COLUMN", help="Variable the intruder wants to learn (repeatable; needs --key)."),
    click.option("--gamma", "gammas", multiple=True, type=float, help="Relative tolerance γ for numeric targets (repeatable; default 0.1)."),
    click.option("--tau", type=float, default=None, help=f"Risk limit τ for every check, on its upper 95% bound (default {SYNTHETIC_TAU:g}; why: docs/reference/defaults.md)."),
    click.option("--exclude", multiple=True, metavar="COLUMN", help="Column left out of the distance attacks and singling out, e.g. an id (repeatable)."),
    click.option("--categorical", multiple=True, metavar="COLUMN", help="Treat this column as categorical (repeatable; default: non-numeric columns)."),
    click.option("--metric", type=click.Choice(SYNTHETIC_METRICS), default=SYNTHETIC_METRICS[0], show_default=True, help="Distance between records (docs/method/synthetic-attacks.md)."),
    click.option("--scaling", type=click.Choice(SYNTHETIC_SCALINGS), default=SYNTHETIC_SCALINGS[0], show_default=True, help="Scaling of numeric columns, fitted on the original (Gower metrics need minmax_range)."),
    click.option("--bins", "bins", multiple=True, metavar="VAR=RULE", help="Grouping of a numeric key or target for the table measures: quantile:K, equal_width:K or breaks:B1,B2,... (default quantile:5)."),
    click.option("--n-attacks", type=click.IntRange(min=1), default=500, show_default=True, help="Targets per attack (singling out, linkability, inference)."),
    click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True),
    click.option("--json", "json_path", type=FILE, help="Write the results as JSON."),
    click.option("--html", "html_path", type=FILE, help="Write a self-contained HTML report."),
    click.option("--certificate", "certificate_path", type=FILE, help="Write a certificate of the verdict (JSON and a printable .html twin)."),
    click.option("--sign", "sign_path", type=FILE, help="Sign the certificate with this Ed25519 private key (from attack keygen)."),
    click.option("--passphrase-env", metavar="VAR", help="Environment variable holding the private key's passphrase."),
    click.option("--membership", "membership_log", type=FILE, help="Run shadow-model membership inference; the synthesis log (from attack synthesize) says how the release was made."),
    click.option("--isolated", type=click.IntRange(min=0), default=10, show_default=True, help="Membership targets: the most isolated records."),
    click.option("--random-targets", type=click.IntRange(min=0), default=10, show_default=True, help="Membership targets: records drawn at random."),
    click.option("--shadow-sets", type=click.IntRange(min=4), default=100, show_default=True, help="Membership games per target that train the classifier (half with the target)."),
    click.option("--test-sets", type=click.IntRange(min=4), default=100, show_default=True, help="Membership games per target that measure it."),
    click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Processes for the shadow syntheses."),
    click.option("--shadow-size", type=click.IntRange(min=2), help="Records per shadow training set (default: min(2000, half the original))."),
    click.option("--membership-family", "family", is_flag=True, help="Run the data-only membership attacks (DCR, DCR difference, local density, density ratio, Gower ensemble; shadow model with --membership) and decide on the maximum over attacks (docs/method/membership-family.md). Needs --holdout or --holdout-share."),
    click.option("--holdout-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), help="Draw this share of --original (with --seed) as the holdout, as a scenario's synthesis.holdout_share does; only when the synthetic file was made from the rest."),
    click.option("--reference", "reference_path", type=FILE, help="The intruder's population sample for the membership family (default: half the holdout, never scored)."),
    click.option("--mia-attack", "mia_attacks", multiple=True, type=click.Choice(["dcr", "dcr_difference", "local_density", "density_ratio", "gower_ensemble", "shadow_model"]), help="Membership-family attack to run (repeatable; default all that the inputs allow)."),
    click.option("--mia-fpr", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.01, show_default=True, help="False-positive rate at which the maximum TPR over the membership attacks is checked against τ."),
    click.option("--decide", is_flag=True, help="When a check's interval straddles τ, run the attacks once more with as many attacks as the undecided checks need (at most the records available, 50,000)."),
    click.option("--exposed", "exposed_path", type=FILE, help="Write the members the family flags at --mia-fpr (record-level, 0600)."),
    click.option("--claimed-epsilon", type=click.FloatRange(0, min_open=True), help="The generator's claimed ε: checked against the lower bound on ε the membership family proves (needs --membership-family; docs/method/privacy-claims.md)."),
    click.option("--claimed-delta", type=click.FloatRange(0, 1, max_open=True), help="The claimed δ (default 0, or the ledger's total)."),
    click.option("--budget-ledger", "ledger_path", type=FILE, help="TOML ledger of every release's (ε, δ) spend; summed by basic composition, the total is the claim unless --claimed-epsilon is given."),
    click.option("--claim-confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), help="Confidence of the lower bound on ε (default 0.95)."),
    click.option("--recall", "inference_recall", type=click.FloatRange(0, 1, min_open=True), help="Declared recall at which τ applies to the advantage of the inference with confidence (default 0.1; docs/method/synthetic-attacks.md)."),
)


TUNE_SYNTHESIS = stack(
    click.option("--original", "original_path", required=True, type=FILE, help="The confidential original."),
    click.option("--holdout", "holdout_path", type=FILE, help="Original records kept out of synthesis (control set of the attacks; the propensity utility compares each candidate with them)."),
    click.option("--grid", "grid", multiple=True, required=True, metavar="KEY=V1,V2", help="Settings to search, e.g. minbucket=5,20,50 or smoothing=none,density (repeatable; keys: method, method.COLUMN, minbucket, cp, smoothing, proper, ntree)."),
    click.option("--drop", "dropped", multiple=True, metavar="COLUMN", help="Leave this column out, e.g. the unit id (repeatable)."),
    click.option("--special-code", "special_codes", multiple=True, type=float, callback=finite, metavar="NUMBER", help="A number that is a code, not a value, e.g. -8 (repeatable)."),
    click.option("--key", "keys", multiple=True, metavar="COLUMN", help="Variable the intruder knows (repeatable)."),
    click.option("--target", "targets", multiple=True, metavar="COLUMN", help="Variable the intruder wants (repeatable; needs --key)."),
    click.option("--tau", type=float, default=SYNTHETIC_TAU, show_default=True, help="Risk limit τ of every check, on its upper 95% bound (why 0.1: docs/reference/defaults.md)."),
    click.option("--n-attacks", type=click.IntRange(min=1), default=500, show_default=True, help="Targets per attack (singling out, linkability, inference)."),
    click.option("--membership", is_flag=True, help="Also run shadow-model membership inference against every candidate."),
    click.option("--utility-model", type=click.Choice(["logistic", "logistic2", "cart"]), default="logistic", show_default=True, help="Propensity model whose S_pMSE ranks the candidates."),
    click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True),
    click.option("--json", "json_path", type=FILE, help="Every candidate, the choice and the risk-utility frontier (JSON)."),
    click.option("--out", "out_path", type=FILE, help="The chosen synthetic file (owner-only)."),
)


SYNTHESIZE = stack(
    click.option("--original", "original_path", required=True, type=FILE, help="The confidential original to synthesise."),
    click.option("--out", "out_path", required=True, type=FILE, help="Synthetic file (.csv or .parquet), owner-only; with --m 3: NAME_1, NAME_2, NAME_3."),
    click.option("--columns", metavar="A,B,...", help="Columns to synthesise (default: all but --drop, --keep and --strata)."),
    click.option("--drop", "dropped", multiple=True, metavar="COLUMN", help="Leave this column out, e.g. the unit id (repeatable)."),
    click.option("--keep", "kept", multiple=True, metavar="COLUMN", help="Keep this column as it is, row by row: partially synthetic data (repeatable)."),
    click.option("--method", "methods", multiple=True, metavar="COLUMN=METHOD", help="sample, cart, rf, norm, normrank, logreg, polyreg, or '~ formula' (passive), e.g. margin='~ turnover - costs' (repeatable)."),
    click.option("--default-method", default="cart", show_default=True, help="Method of every column not named by --method (the first column is sampled)."),
    click.option("--visit", metavar="A,B,...", help="Visit sequence: the order of synthesis (default: column order)."),
    click.option("--predictors", "predictors", multiple=True, metavar="COLUMN=A,B", help="The columns that predict COLUMN (default: all before it; repeatable)."),
    click.option("--minbucket", type=int, default=5, show_default=True, help="Minimum leaf size of CART and random forests."),
    click.option("--cp", type=float, default=1e-4, show_default=True, help="Complexity parameter of CART: a split must reduce the lack of fit by this share."),
    click.option("--ntree", type=int, default=10, show_default=True, help="Trees of the rf method."),
    click.option("--smoothing", type=click.Choice(["none", "density"]), default="none", show_default=True, help="Gaussian kernel smoothing of drawn numbers."),
    click.option("--proper", is_flag=True, help="Fit every model to a bootstrap sample of the original."),
    click.option("--special-code", "special_codes", multiple=True, type=float, callback=finite, metavar="NUMBER", help="A number that is a code, not a value, e.g. -8 (repeatable)."),
    click.option("--strata", multiple=True, metavar="COLUMN", help="Synthesise separately within each group of this column (repeatable)."),
    click.option("--m", "m", type=int, default=1, show_default=True, help="Number of synthetic copies."),
    click.option("--rows", type=int, help="Rows of each copy (default: as many as the original)."),
    click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed: the same seed gives the same file."),
    click.option("--log", "log_path", type=FILE, help="Synthesis log (JSON; default: OUT with .synthesis.json)."),
)
