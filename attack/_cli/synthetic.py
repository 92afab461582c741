"""The commands on synthetic data (``attack synth``, ``tune-synthesis``, ``synthesize``) and
``attack run``/``attack tune`` on a synthetic-release scenario: their flags made into the
settings of one public call (``attack.SynthSpec`` for ``attack.attack_synthetic``, the grid of
``attack.tune_synthesis``, the options of ``attack.synthesize``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, overload

import click

import attack
from attack import frontend, vocabulary
from attack._cli import app


def run(scenario: attack.SyntheticScenario, json_path: Path | None, html_path: Path | None,
        certificate_path: Path | None, key: Any, quiet: bool) -> bool:
    """``attack run`` on a synthetic-release scenario: synthesise if asked, attack, certify."""
    json_path = json_path or scenario.outputs.get("json")
    html_path = html_path or scenario.outputs.get("html")
    certificate = attack.certificate_path(scenario, json_path, certificate_path)
    made_path = scenario.outputs.get("synthetic")
    app.guard([*frontend.certificate_paths(certificate), json_path, html_path, made_path], scenario.input_paths())
    outcome = scenario.run()
    outcome.write(json=json_path, html=html_path, certificate=certificate, synthetic=made_path, key=key)
    if made_path is not None and outcome.synthetic is not None:
        app.release_note(made_path)
    if not quiet:
        sealed = json.loads(certificate.read_text(encoding="utf-8"))
        app.note(f"certificate written to {certificate}{app.how_to_verify(certificate, sealed)}")
        click.echo(outcome.to_markdown())
    return outcome.passed


def tune(scenario: attack.SyntheticScenario, json_path: Path | None, release_path: Path | None,
         html_path: Path | None, quiet: bool) -> bool:
    """``attack tune`` on a synthetic-release scenario: the grid of its [tune] table."""
    if html_path:
        raise attack.InputError("--html: the synthesis tuning writes JSON and prints its table; no HTML report yet")
    json_path = frontend.tune_json_path(scenario, json_path)
    release_path = release_path or (None if scenario.settings.tune is None or scenario.settings.tune.release is None
                                    else scenario.base / scenario.settings.tune.release)
    app.guard([json_path, release_path], scenario.input_paths())
    outcome = scenario.tune()
    outcome.write(json=json_path, release=release_path, inputs=scenario.input_paths())
    if release_path and outcome.release is not None:
        app.release_note(release_path)
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
    document = frontend.load_json(path, "JSON document")
    if not isinstance(document, dict):
        raise attack.InputError("expected a JSON object", file=Path(path).name)
    return document


def run_tune_synthesis(original_path, holdout_path, grid, dropped, special_codes, keys, targets, tau, n_attacks,
                           membership, utility_model, seed, json_path, out_path,
                           quiet, sep, decimal, encoding, sheet, na, codes) -> bool:
    """``attack tune-synthesis``: search the grid, write the chosen file; False when no candidate passes."""
    app.guard([json_path, out_path], [original_path, holdout_path])
    parsed = vocabulary.parse_grid(grid)
    reading = attack.read_options(sep, decimal, encoding, sheet, na, codes)
    original, holdout = attack.read_tables([original_path, holdout_path], reading)
    assert original is not None  # a required option
    columns = [c for c in original.frame.columns if c not in dropped]
    outcome = attack.tune_synthesis(
        original.frame, parsed, holdout=None if holdout is None else holdout.frame, columns=columns,
        fixed={"special_codes": list(special_codes)} if special_codes else None,
        attacks={"keys": keys, "targets": targets, "tau": tau, "n_attacks": n_attacks},
        membership={} if membership else None, utility_model=utility_model, seed=seed,
    )
    outcome.write(json=json_path, release=out_path, inputs=[original_path, holdout_path])
    return app.print_synthesis_tuning(outcome, quiet)


def synth_settings(*, keys, targets, gammas, tau, exclude, categorical, codes, metric, scaling, bins, n_attacks, seed,
                   membership_log, isolated, random_targets, shadow_sets, test_sets, jobs, shadow_size,
                   holdout_share, family, mia_attacks, mia_fpr, exposed_path, decide, claimed_epsilon,
                   claimed_delta, ledger_path, claim_confidence, inference_recall) -> attack.SynthSpec:
    """The flags of ``attack synth`` as the settings of ``attack.attack_synthetic``."""
    return attack.SynthSpec(
        keys=keys, targets=targets, exclude=exclude, categorical=list(dict.fromkeys([*categorical, *codes])),
        **({"gammas": gammas} if gammas else {}), **({"tau": tau} if tau is not None else {}),
        metric=metric, scaling=scaling, n_attacks=n_attacks, seed=seed,
        bins=dict(vocabulary.parse_binning(b) for b in bins),
        membership=None if membership_log is None else {
            "synthesis": frontend.settings_from_log(json_document(membership_log)), "n_isolated": isolated,
            "n_random": random_targets, "shadow_sets": shadow_sets, "test_sets": test_sets,
            "shadow_size": shadow_size, "jobs": jobs},
        holdout_share=holdout_share or 0.0,
        membership_family=None if not family else {
            "attacks": list(mia_attacks) or None, "verdict_fpr": mia_fpr, "exposed": exposed_path is not None},
        decide=decide,
        privacy_claim=frontend.claim_settings(claimed_epsilon, claimed_delta, ledger_path, claim_confidence),
        options={} if inference_recall is None else {"inference_confidence": {"recall": inference_recall}},
    )


def run_synth(original_path, synthetic_path, holdout_path, keys, targets, gammas, tau, exclude, categorical,
              metric, scaling, bins, n_attacks, seed, json_path, html_path, certificate_path, sign_path,
              passphrase_env, membership_log, isolated, random_targets, shadow_sets, test_sets, jobs, shadow_size,
              family, holdout_share, reference_path, mia_attacks, mia_fpr, decide, exposed_path,
              quiet, sep, decimal, encoding, sheet, na, codes, claimed_epsilon=None, claimed_delta=None,
              ledger_path=None, claim_confidence=None, inference_recall=None) -> bool:
    """``attack synth``: attack a synthetic release and certify the verdict; returns it."""
    spec = synth_settings(keys=keys, targets=targets, gammas=gammas, tau=tau, exclude=exclude,
                          categorical=categorical, codes=codes, metric=metric, scaling=scaling, bins=bins,
                          n_attacks=n_attacks, seed=seed, membership_log=membership_log, isolated=isolated,
                          random_targets=random_targets, shadow_sets=shadow_sets, test_sets=test_sets,
                          jobs=jobs, shadow_size=shadow_size, holdout_share=holdout_share, family=family,
                          mia_attacks=mia_attacks, mia_fpr=mia_fpr, exposed_path=exposed_path, decide=decide,
                          claimed_epsilon=claimed_epsilon, claimed_delta=claimed_delta,
                          ledger_path=ledger_path, claim_confidence=claim_confidence,
                          inference_recall=inference_recall)
    if not family and (reference_path or mia_attacks or exposed_path):
        raise attack.InputError("--reference, --mia-attack and --exposed need --membership-family")
    inputs = [original_path, synthetic_path, holdout_path, reference_path, membership_log, ledger_path]
    app.guard([json_path, html_path, exposed_path,
               *(app.certificate_paths(certificate_path) if certificate_path else [])], inputs)
    if sign_path is not None and certificate_path is None:
        raise attack.InputError("--sign needs --certificate PATH")
    key = None if sign_path is None else attack.load_private_key(sign_path, attack.passphrase_from_env(passphrase_env))
    reading = attack.read_options(sep, decimal, encoding, sheet, na, (*codes, *categorical))
    original, synthetic, holdout, reference = attack.read_tables(
        [original_path, synthetic_path, holdout_path, reference_path], reading)
    result = attack.attack_synthetic(original, synthetic, holdout, spec, reference=reference,
                              title=f"Attacks on the synthetic release {synthetic_path.name}")
    result.write(json=json_path, html=html_path, exposed=exposed_path, certificate=certificate_path,
                 key=key, inputs=inputs)
    if exposed_path:
        app.say_record_level(exposed_path, app.HOLDS_MEMBERS)
    if not quiet:
        click.echo(result.to_markdown())
    return bool(result.passed)


def run_synthesize(original_path, out_path, columns, dropped, kept, methods, default_method, visit, predictors,
                       minbucket, cp, ntree, smoothing, proper, special_codes, strata, m, rows, seed, log_path,
                       quiet, sep, decimal, encoding, sheet, na, codes) -> None:
    """``attack synthesize``: make the synthetic copies and their log."""
    out_path = Path(out_path)
    targets = frontend.copy_paths(out_path, m)
    log_path = log_path or out_path.with_suffix(".synthesis.json")
    app.guard([*targets, log_path], [original_path])
    [table] = attack.read_tables([original_path], attack.read_options(sep, decimal, encoding, sheet, na, codes))
    chosen = names(columns)
    if chosen is None:
        chosen = [c for c in table.frame.columns if c not in set(dropped) | set(kept) | set(strata)]
    result = attack.synthesize(
        table.frame, columns=chosen, method=pairs(methods, "--method"), default_method=default_method,
        visit_sequence=names(visit),
        predictors={c: names(v) for c, v in pairs(predictors, "--predictors").items()} or None,
        minbucket=minbucket, cp=cp, ntree=ntree, smoothing=smoothing, proper=proper, special_codes=special_codes,
        strata=strata, keep=kept, m=m, rows=rows, seed=seed,
    )
    result.write(out_path, log=log_path, original=original_path)
    for path in targets:
        app.release_note(path)
    if not quiet:
        click.echo(f"synthesised {len(result.methods)} columns, {m} cop{'y' if m == 1 else 'ies'} of "
               f"{len(result.frame)} rows; log in {log_path}")
