"""Command-line interface: a thin layer over the library.

Each command reads its flags, makes one call of the public API (``import attack``), writes the
outputs (all or none) and ends with the exit status of the verdict: 0 passed, 1 NOT PASSED, 2 a
usage or input error (one line on stderr, never a traceback). The options shared by several
commands are declared once in ``attack._cli.options``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

import attack
from attack import frontend
from attack._cli import app, options, ui
from attack._cli import synthetic as synthetic_data


@click.group(cls=app.Attack)
@click.version_option(attack.__version__, prog_name="attack")
def main() -> None:
    """Play the intruder against a candidate microdata release and measure the disclosure risk."""
    app.show_warnings()


@main.command("link")
@options.LINK
@options.engine
@options.talk
@options.reading
def link_command(external_path: Path, release_path: Path, original_path: Path | None, json_path: Path | None,
                 html_path: Path | None, matches_path: Path | None, records_path: Path | None, engine: dict,
                 say: options.Say, reading: attack.ReadOptions, context_value: str | None = None,
                 **settings: Any) -> bool:
    """Link an external file to a release and score the attack.

    Exit status: 0 when every cell's disclosure risk is below τ, 1 when the verdict is NOT
    PASSED, 2 for a usage or input error."""
    inputs = [external_path, release_path, original_path, settings.get("protection_log")]
    app.guard([json_path, html_path, matches_path, records_path], inputs)
    context = None if context_value is None else attack.resolve_context(context_value)
    if context is not None:
        if click.get_current_context().get_parameter_source("tau") == click.core.ParameterSource.COMMANDLINE:
            raise attack.InputError("--context sets tau: leave out --tau")
        settings["tau"] = context.tau
    result = attack.mass_attack(external_path, release_path, original=original_path, engine=engine,
                                progress=not say.quiet, name=f"{external_path.name} against {release_path.name}",
                                reading=reading, records=records_path is not None, **app.given(settings))
    if context is not None:
        result = dataclasses.replace(result, scored=dataclasses.replace(result.scored, context=context.record()))
    return app.emit(result, json_path, html_path, matches_path, say=say, inputs=inputs, records_path=records_path)


@main.command("run")
@options.RUN
@options.engine
@options.talk
def run_command(scenario_path: Path, json_path: Path | None, html_path: Path | None, matches_path: Path | None,
                records_path: Path | None, certificate_path: Path | None, sign_path: Path | None,
                passphrase_env: str | None, engine: dict, say: options.Say) -> bool:
    """Run the attack described by a scenario file (TOML) and certify the result; the options
    override the file's [engine] table.

    Exit status: 0 when the verdict is passed, 1 when it is NOT PASSED, 2 for a usage or input
    error (the scenario is checked before any data file is read)."""
    scenario = attack.load_scenario(scenario_path)
    key = None if sign_path is None else attack.load_private_key(sign_path, attack.passphrase_from_env(passphrase_env))
    if isinstance(scenario, attack.SyntheticScenario):
        if matches_path or records_path:
            raise attack.InputError("--matches and --records apply to linkage scenarios; a synthetic release has no links")
        return synthetic_data.run(scenario, json_path, html_path, certificate_path, key, say.quiet)
    json_path = json_path or scenario.outputs.get("json")
    html_path = html_path or scenario.outputs.get("html")
    matches_path = matches_path or scenario.outputs.get("matches")
    records_path = records_path or scenario.outputs.get("records")
    certificate = attack.certificate_path(scenario, json_path, certificate_path)
    inputs = scenario.input_paths()
    app.guard([*app.certificate_paths(certificate), json_path, html_path, matches_path, records_path], inputs)
    result = scenario.run(engine=engine, progress=not say.quiet, records=records_path is not None)
    sealed = result.certificate(certificate.parent, key=key)
    return app.emit(result, json_path, html_path, matches_path, certificate=(certificate, sealed), say=say,
                    inputs=inputs, records_path=records_path)


@main.command("verify")
@options.VERIFY
@options.quiet
def verify_command(certificate_path: Path, public_key: Path | None, rerun: bool, offline: bool, root: Path | None,
                   quiet: bool) -> bool:
    """Check a certificate, one line per check (✔ passed, ✘ failed, • not checked): the
    signature against the issuer's public key, the digest, the structure of the certificate,
    that the verdict follows from all its figures and τ (cells, combined measure, single
    attacks, synthetic checks), the SHA-256 of every input and, with --rerun, that the attack
    reproduces every figure.

    Input paths must be relative and stay inside the certificate's folder (or --root): an
    absolute path is a failed check; a file that leaves the folder (by '..' or a link) is not
    opened and not checked (? on its line). The printable HTML twin is not checked: the JSON
    is what is verified.

    Exit status: 0 when every check performed passes, 1 when one fails (also a certificate
    that is JSON but breaks the certificate's structure), 2 for a usage error or a file that
    cannot be read as a certificate, and also 2 when none failed but inputs outside the
    certificate's folder were not checked (give --root DIR, a folder holding the certificate and its
    inputs). Without --public-key the signer is not verified and the certificate is never
    called authentic."""
    outcome = attack.verify(certificate_path, public_key=public_key, rerun=rerun, offline=offline, root=root)
    for check in outcome.checks:
        if not quiet or check.ok is False or check.outside:
            click.echo(check.line(), err=quiet)
    if outcome.status == "failed":
        app.note(f"certificate {certificate_path}: verification FAILED")
        return False
    if outcome.status == "not checked":
        how = f"attack verify {certificate_path} --root {outcome.root}" if outcome.root else "--root DIR"
        app.note(f"certificate {certificate_path}: NOT CHECKED: {len(outcome.not_checked)} check(s) not done, "
                 f"their files lie outside the certificate's folder; give the folder that holds the certificate "
                 f"and its inputs: {how}")
        click.get_current_context().exit(app.EXIT_NOT_CHECKED)
    state = "authentic and consistent" if outcome.authentic else "intact and consistent; its issuer is not verified"
    if not outcome.inputs_checked:
        state += "; its inputs were NOT checked (--offline)"
    if not quiet:
        click.echo(f"certificate {certificate_path}: {state}")
    return True


@main.command("keygen")
@options.KEYGEN
@options.quiet
def keygen_command(out_dir: Path, passphrase_env: str | None, quiet: bool) -> None:
    """Make an Ed25519 key pair for signing certificates: OUT/private.pem (owner-only; keep it
    secret) and OUT/public.pem (hand it to whoever verifies). Never overwrites a key."""
    private, public, print_ = attack.generate_keypair(out_dir, attack.passphrase_from_env(passphrase_env))
    app.note(f"wrote {private} (owner-only) and {public}")
    if not quiet:
        click.echo(f"public key fingerprint: {print_}")


@main.command("demo")
@options.DEMO
@options.engine
@options.quiet
def demo_command(out_dir: Path, units: int, seed: int, method: str, engine: dict, quiet: bool) -> None:
    """Generate a synthetic enterprise population and attack two candidate releases.

    Exit status 0 when it ran (whatever the verdict), 2 for a usage error."""
    demo = attack.run_demo(out_dir, n_units=units, seed=seed, method=method, engine=engine, progress=not quiet)
    if not quiet:
        click.echo(demo.result.to_summary((str(demo.html_path), str(demo.json_path))))
    app.note(f"wrote demo.json, report.html, certificate.json and certificate.html in {demo.json_path.parent}")


@main.command("truth")
@options.TRUTH
@options.quiet
@options.reading
def truth_command(external_path: Path, external_id: str, original_path: Path, original_id: str, name_column: str,
                  address_column: str | None, blocks: tuple, out_path: Path, review_path: Path | None,
                  json_path: Path | None, quiet: bool, reading: attack.ReadOptions, **settings: Any) -> None:
    """Build the ground-truth key by linking firm names (and addresses) to the original.

    See docs/method/ground-truth.md (Ronning et al. 2005, ch. 17)."""
    text = [name_column] + ([address_column] if address_column else [])
    inputs = [external_path, original_path]
    app.guard([out_path, review_path, json_path], inputs)
    external, original = attack.read_tables(inputs, reading, [None, [original_id, *text, *(b.name for b in blocks)]])
    result = attack.link_names(external, external_id, original, original_id, name=name_column, address=address_column,
                               block=list(blocks), **settings)
    files: app.Files = {out_path: (result.key().to_csv(index=False), app.OWNER_ONLY)}
    if review_path:
        files[review_path] = (result.review_band().to_csv(index=False, float_format="%.6f"), app.OWNER_ONLY)
    if json_path:
        files[json_path] = app.json_file(result.to_dict())
    app.write(files, inputs)
    for path in (out_path, review_path):
        if path:
            app.say_record_level(path, app.HOLDS_PAIRS)
    if not quiet:
        for label, count in result.summary().items():
            click.echo(f"{label}: {count}")
        click.echo("\nby legal form (external records):")
        click.echo(result.by_legal_form().to_string(index=False))


@main.command("tune-synthesis")
@options.TUNE_SYNTHESIS
@options.quiet
@options.read_flags
def tune_synthesis_command(**flags: Any) -> bool:
    """Find the most useful synthetic file (by S_pMSE) whose every risk is below τ
    (docs/howto/synthetic-release.md). Exit status 1 when no candidate of the grid passes."""
    return synthetic_data.run_tune_synthesis(**flags)


@main.command("risk")
@options.RISK
@options.quiet
@options.reading
def risk_command(data_path: Path, keys: tuple[str, ...], weight: str | None, household: str | None,
                 sensitive: str | None, json_path: Path | None, html_path: Path | None, records_path: Path | None,
                 quiet: bool, reading: attack.ReadOptions, population_path: Path | None = None,
                 context_value: str | None = None, **settings: Any) -> bool:
    """Frequency risk of categorical keys as sdcMicro and mu-Argus compute it
    (docs/method/frequency-risk.md): f_k, F_k, individual, household and global risk, k-anonymity,
    l-diversity and SUDA. Exit status 1 (NOT PASSED) when a record's individual risk exceeds
    --threshold or a key combination has fewer than --k records, else 0."""
    if context_value is not None:
        if click.get_current_context().get_parameter_source("threshold") == click.core.ParameterSource.COMMANDLINE:
            raise attack.InputError("--context sets the threshold (its tau): leave out --threshold")
        settings["context"] = attack.resolve_context(context_value)
    inputs = [data_path] + ([population_path] if population_path else [])
    app.guard([json_path, html_path, records_path], inputs)
    chunked = population_path is not None and population_path.suffix.lower() in (".parquet", ".pq")
    data, *population = attack.read_tables(inputs[:1] if chunked else inputs, reading)
    population_file = (attack.PopulationFile(population_path, options=reading)  # its key columns, in chunks
                       if chunked and population_path is not None else population[0] if population else None)
    result = attack.frequency_risk(data, keys, weight, household, sensitive,
                                   population_file=population_file, **settings)
    document = result.to_dict()
    files: app.Files = {}
    if json_path:
        files[json_path] = app.json_file(document)
    if html_path:
        files[html_path] = (frontend.render_frequency_html(document, f"Frequency risk of {data_path.name}"), None)
    if records_path:
        files[records_path] = app.record_file(result.records(), records_path)
    app.write(files, inputs)
    if records_path:
        app.say_record_level(records_path, app.HOLDS_RISKS)
    if not quiet:
        click.echo(frontend.render_frequency_markdown(document))
    return bool(result.passed)


@main.command("report")
@options.REPORT
@options.quiet
def report_command(result_path: Path, board: bool, context: str | None, out_path: Path | None,
                   pdf_path: Path | None, docs_url: str, quiet: bool) -> bool:
    """Report a result again from its JSON (attack run, demo, link, synth or tune --json): the
    regular HTML report, or with --board the report a release board files, as HTML and with --pdf
    as PDF. Every number comes from RESULT_PATH; a result whose verdict does not follow from its figures
    (recomputed as attack verify does) is refused with exit 2. Exit status 1 when the
    result is NOT PASSED, else 0."""
    out_path = out_path or attack.report_path(result_path, board)
    app.guard([out_path, pdf_path], [result_path])
    report = attack.render_report(result_path, board=board, context=context, pdf=pdf_path, docs=docs_url)
    files: app.Files = {out_path: (report.html, None)}
    if pdf_path and report.pdf is not None:
        files[pdf_path] = (report.pdf, None)
    app.write(files, [result_path])
    if not quiet:
        written = ", ".join(str(p) for p in files)
        click.echo(f"{'PASSED' if report.passed else 'NOT PASSED'} (as recorded in {result_path}); wrote {written}")
    return report.passed


@main.command("protect")
@options.PROTECT
@options.quiet
@options.reading
def protect_command(method: str, input_path: Path, output_path: Path, columns: str, params: tuple[str, ...],
                    by: tuple[str, ...], seed: int, log_path: Path | None, quiet: bool,
                    reading: attack.ReadOptions) -> None:
    """Make a candidate release with one protection method (docs/method/protection.md)."""
    log_path = log_path or output_path.with_suffix(".protection.json")
    app.guard([output_path, log_path], [input_path])
    [data] = attack.read_tables([input_path], reading)
    result = attack.protect(data, method, params, columns=app.names(columns) or [], by=by, seed=seed)
    log = {**result.log, "input": input_path.name, "output": output_path.name}  # names: the log is shared
    app.write({output_path: app.record_file(result.release, output_path), log_path: app.json_file(log)}, [input_path])
    app.release_note(output_path)
    for line in result.log["warnings"]:
        app.note(f"warning: {line}")
    if not quiet:
        changed = ", ".join(f"{c} {n}" for c, n in result.log["changed_values"].items()) or "none"
        click.echo(f"{method}: {result.log['rows_in']} rows in, {result.log['rows_out']} rows out; "
                   f"changed values: {changed}; log in {log_path}")


@main.command("tune")
@options.TUNE
@options.engine
@options.quiet
def tune_command(scenario_path: Path, json_path: Path | None, html_path: Path | None, release_path: Path | None,
                 engine: dict, quiet: bool) -> bool:
    """Find the weakest setting of a protection method that puts every cell below τ
    (the scenario's [tune] table; docs/method/utility.md)."""
    scenario = attack.load_scenario(scenario_path)
    if isinstance(scenario, attack.SyntheticScenario):
        return synthetic_data.tune(scenario, json_path, release_path, html_path, quiet)
    json_path, html_path, release_path = attack.tune_paths(scenario, json_path, html_path, release_path)
    inputs = scenario.input_paths()
    app.guard([json_path, html_path, release_path], inputs)
    outcome = attack.tune(scenario, say=None if quiet else app.note, engine=engine)
    document = outcome.to_dict()
    files: app.Files = {json_path: app.json_file(document)}
    if html_path:
        files[html_path] = (frontend.render_tune_html(document, scenario.title), None)
    chosen = outcome.chosen
    if release_path and chosen is not None:
        files[release_path] = app.record_file(chosen.release, release_path)
    app.write(files, inputs)
    if release_path and chosen is not None:
        app.release_note(release_path)
    if not quiet:
        click.echo(frontend.render_tune_markdown(document, scenario.title))
    return chosen is not None


@main.command("utility")
@options.UTILITY
@options.quiet
@options.reading
def utility_command(original_path: Path, release_path: Path, variables: str, by: tuple[str, ...],
                    crosses: tuple[str, ...], weight: str | None, models: tuple[str, ...], id_columns: str | None,
                    json_path: Path | None, propensity: bool, seed: int, log_path: Path | None, quiet: bool,
                    reading: attack.ReadOptions, **ml: Any) -> None:
    """Check the analysis potential of a release against the original (docs/method/utility.md):
    reported beside the risk verdict, never merged with it."""
    holdout_path = ml.pop("holdout_path", None)
    app.guard([json_path], [original_path, release_path, *([log_path] if log_path else []), holdout_path])
    original, release, holdout = attack.read_tables([original_path, release_path, holdout_path], reading)
    parts = [p.strip() for p in id_columns.split(",")] if id_columns else None
    learn = app.ml_settings(ml["ml_target"], ml["ml_models"], ml["ml_features"], ml["ml_repetitions"],
                            ml["ml_metric"], ml["ml_tolerances"], seed)
    if holdout is not None:
        if learn is None:
            raise attack.InputError("--holdout tests the ML models: it needs --ml TARGET")
        learn["holdout"] = holdout.frame
    profile = attack.utility_profile(
        original, release, variables=app.names(variables), by=by, crosses=[tuple(c.split(",")) for c in crosses],
        weights=weight, models=models, per_record=None if parts is None else (parts[0], parts[-1]),
        propensity={"seed": seed} if propensity else False, protection_log=app.protection_log(log_path),
        ml=learn,
    )
    document = profile.to_dict()
    if json_path:
        app.write({json_path: app.json_file(document)}, [original_path, release_path])
    if not quiet:
        click.echo(frontend.render_utility_markdown(document, f"Analysis potential of {release_path.name}"))


@main.command("synth")
@options.SYNTH
@options.quiet
@options.read_flags
def synth_command(**flags: Any) -> bool:
    """Attack a synthetic release: distance to closest record, the CAP family, singling out,
    linkability and inference against a holdout baseline (docs/method/synthetic-attacks.md)."""
    return synthetic_data.run_synth(**flags)


@main.command("ui")
@click.argument("scenario_path", required=False, default="scenario.toml", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port to serve on (0: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on. Only this machine can reach the default; another address is served only when given here, with a warning.")
@click.option("--no-browser", is_flag=True, help="Print the address only; do not open a browser.")
def ui_command(scenario_path: Path, port: int, host: str, no_browser: bool) -> None:
    """Edit, run and certify a scenario in the browser: a local web interface (needs the ui
    extra, pip install "attack[ui]"). SCENARIO_PATH is the scenario file it edits (made when
    missing); the address it prints carries a session token."""
    ui.serve_ui(scenario_path, port, host, no_browser)


@main.command("schema")
@options.SCHEMA
def schema_command(synthetic: bool) -> None:
    """Print the JSON Schema of scenario files (both kinds: linkage and synthetic-release).

    Save it (``attack schema > attack-scenario.schema.json``) and point your editor's TOML
    support at it (Even Better TOML / Taplo in VS Code: a ``#:schema attack-scenario.schema.json``
    first line in the scenario file), so that misspelt fields and wrong values show while you
    type. The same schema checks every scenario before any data file is read."""
    click.echo(app.to_json(attack.json_schema("synthetic" if synthetic else None)), nl=False)


@main.command("inspect")
@options.INSPECT
@options.reading
def inspect_command(path: Path, as_json: bool, reading: attack.ReadOptions) -> None:
    """Show how attack reads FILE: detected format, encoding and dialect, rows, and per column
    its role (number, code, text, identifier), missing share, distinct values and warnings."""
    report = attack.inspect_file(path, reading)
    click.echo(app.to_json(report).rstrip("\n") if as_json else attack.render_inspection(report))


@main.command("synthesize")
@options.SYNTHESIZE
@options.quiet
@options.read_flags
def synthesize_command(**flags: Any) -> None:
    """Make a synthetic file by sequential conditional synthesis, as synthpop does
    (docs/method/synthesis.md)."""
    return synthetic_data.run_synthesize(**flags)

@main.command("remedy")
@options.REMEDY
@options.engine
@options.quiet
def remedy_command(scenario_path: Path, json_path: Path | None, release_path: Path | None, engine: dict,
                   quiet: bool) -> bool:
    """Protect only where the intruders succeed: the [tune] table's method, one step at a time,
    on the re-identified records of failing cells and the variables the attribution names, until
    every cell is below τ; the best uniform setting of attack tune beside it
    (docs/method/remedy.md).

    Exit status: 0 when the remedied release passes, 1 when it does not, 2 for a usage or input
    error."""
    scenario = attack.load_scenario(scenario_path)
    if isinstance(scenario, attack.SyntheticScenario):
        raise attack.InputError("attack remedy applies to linkage scenarios")
    settings = attack.remedy_table(getattr(scenario.settings, "remedy", None))
    release_path = release_path or (scenario.base / settings.release if settings.release else None)
    inputs = scenario.input_paths()
    app.guard([json_path, release_path], inputs)
    outcome = attack.remedy(scenario, settings, say=None if quiet else app.note, engine=engine)
    files: app.Files = {}
    if json_path:
        files[json_path] = app.json_file(outcome.to_dict())
    if release_path:
        files[release_path] = app.record_file(outcome.release, release_path)
    app.write(files, inputs)
    if release_path:
        app.release_note(release_path)
    if not quiet:
        click.echo(outcome.to_markdown(scenario.title))
    return outcome.passed
