"""Scoring a linkage against the ground truth (docs/method/risk.md, handbook §12 and Ch. 35).

An external record is *verifiable* when its unit id occurs in the release's id column; only
verifiable records enter the rates. Per cell (a cross-classification of the true unit's values):

* hit (re-identification) rate ``h = correct / n_verifiable`` (docs/method/risk.md);
* false-match rate ``false / matched`` among the verifiable records that got a link;
* usefulness share ``u`` per γ: among the target values of correctly linked records, the share
  whose released value deviates from the TRUE value by less than γ, ``|w' − w| / |w| < γ``
  (strict; per-variable γ_i allowed). A true zero is useful only when the released value is
  within the zero tolerance of zero (default: exactly zero). A missing true value is not
  evaluated; a missing released value is evaluated and not useful (docs/method/risk.md);
* disclosure risk ``P = h · u`` (``u`` is undefined and ``P = 0`` without correct links,
  ``u = 1`` when correct links have nothing to evaluate);
* the cell passes when ``P < τ`` for every γ (strict inequality).

Every rate carries a Wilson 95% interval; for ``P`` the successes are taken as ``P · n · |W|``
out of ``n · |W|`` value slots, an approximation (docs/method/risk.md).

The intruder's precision is ``correct / matched``. With a complete truth (``truth_complete``)
an external record whose unit is not in the release has no counterpart: its link is a false
link in the overall counts, false-match rate and precision. Links with a match probability
carry the confident figures per threshold P (docs/method/intruder-confidence.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.columns import number_columns, require_number_columns
from attack.io.readers import Table, frame_of, source_name
from attack.linkage.blocking import Block
from attack.report.labels import cell_label
from attack.risk.basis import judged_on
from attack.risk.population_linkage import population_reidentifications
from attack.risk.roles import ColumnRoles, assign_roles
from attack.risk.settings import Evaluation
from attack.risk.stats import wilson_interval
from attack.risk.targets import TargetComparison, resolve, usefulness

HISTOGRAM_BINS = 20


def default_targets(release: Table | pd.DataFrame, truth: Table | pd.DataFrame, exclude: Sequence[str]) -> list[str]:
    """Number columns present in both the release and the truth file (W = all metric variables
    of the release; Destatis handbook, Ronning et al. 2005, §13.4), without ``exclude``
    (identifiers and the columns declared as codes). Numbers and codes are told apart by the
    column model of ``attack.io.columns``; a column that is mostly numbers but holds text is
    an error rather than silently left out."""
    candidates = [c for c in frame_of(release).columns if c not in exclude and c in frame_of(truth).columns]
    require_number_columns(release, candidates)
    return number_columns(frame_of(release), exclude, candidates)


def roles_of(release: Table | pd.DataFrame, truth: Table | pd.DataFrame, spec: Evaluation, *,
             id_columns: Sequence[str] = (), key_columns: Sequence[str] = (), code_columns: Sequence[str] = (),
             external_ids: np.ndarray | None = None) -> ColumnRoles:
    """Every release column's role (``attack.risk.roles``) under ``spec``: its declared roles,
    targets and harmless identifiers; keys and unbinned cell variables are never targets. A
    column that is mostly numbers but holds text is an error rather than silently left out."""
    cells = [c.name for c in spec.cells if c.bins is None]
    if spec.targets is None:
        exclude = {*id_columns, *key_columns, *code_columns, *cells, *spec.roles}
        require_number_columns(release, [c for c in frame_of(release).columns
                                         if c not in exclude and c in frame_of(truth).columns])
    return assign_roles(release, truth, declared=spec.roles, targets=spec.target_specs, id_columns=id_columns,
                        key_columns=[*key_columns, *code_columns], code_columns=code_columns, cell_columns=cells,
                        external_ids=external_ids, harmless=spec.harmless)


@dataclass(frozen=True)
class Scored:
    """The scored links: the JSON-ready figures, and per verifiable external record its ``unit``,
    its ``cell`` (categorical; each category the cell's values as sorted JSON) and whether its
    link is ``correct`` — record-level, in memory only, for the maximum over intruders
    (``attack.risk.any_intruder``) — and how each target was compared (for the risk per record)."""

    figures: dict
    units: pd.DataFrame
    comparisons: tuple[TargetComparison, ...] = ()


def evaluate(*args: Any, **kwargs: Any) -> dict:
    """The figures of ``score`` (same arguments): a JSON-ready dict."""
    return score(*args, **kwargs).figures


def score(
    release_row: np.ndarray,
    external_ids: np.ndarray,
    release: Table | pd.DataFrame,
    release_ids: np.ndarray,
    spec: Evaluation,
    *,
    original: Table | pd.DataFrame | None = None,
    original_ids: np.ndarray | None = None,
    distance: np.ndarray | None = None,
    categorical: Sequence[str] = (),
    id_columns: Sequence[str] = (),
    match_probability: np.ndarray | None = None,
    key_columns: Sequence[str] = (),
    roles: ColumnRoles | None = None,
    recodings: Mapping[str, Mapping[str, str]] | None = None,
) -> Scored:
    """Score links (``release_row[i]`` for external record ``i``, −1 = none) against the truth.

    Without ``original`` the release values count as the truth. ``categorical`` names columns
    known to hold codes and ``id_columns`` the identifiers; neither is ever a default target.
    ``match_probability`` (per external record, NaN without a link) adds the confident links
    at every ``spec.min_probabilities`` (docs/method/intruder-confidence.md). Several external
    records may name one unit; each is scored. ``recodings`` (per column, the code map of the
    protection log) compares a recoded target with the original recoded the same way.
    """
    if match_probability is not None and spec.risk_on == "confident":
        keep = np.nan_to_num(match_probability, nan=-1.0) >= spec.min_probabilities[0]
        release_row = np.where(keep, release_row, -1)
    true_row = pd.Index(release_ids).get_indexer(external_ids)
    verifiable = np.flatnonzero(true_row >= 0)
    if verifiable.size == 0:
        raise InputError(
            "no external identifier occurs in the release identifier column, so no link can be "
            "checked; are the id columns right?",
            file=source_name(release),
        )
    truth, truth_rows = _truth(release, release_ids, true_row[verifiable], original, original_ids)
    if roles is None:
        roles = roles_of(release, truth, spec, id_columns=id_columns, key_columns=key_columns,
                         code_columns=categorical, external_ids=external_ids)
    targets = [t.name for t in roles.targets]
    for column in targets:
        for frame in (release, truth):
            if column not in frame_of(frame).columns:
                raise InputError("target column is missing", file=source_name(frame), column=column)
    comparisons = [resolve(t, release, truth, true_row[verifiable], truth_rows, (recodings or {}).get(t.name))
                   for t in roles.targets]
    stray = sorted({name for g in spec.gammas for name in g.by_variable} - set(targets))
    if stray:
        raise InputError(f"a per-variable γ is given for {stray[0]!r}, which is not an evaluated variable "
                         f"({', '.join(targets) or 'none'}); name it as a target or drop its γ",
                         field="gamma_by_variable")

    linked_row = release_row[verifiable]
    linked = linked_row >= 0
    correct = linked & (linked_row == true_row[verifiable])
    useful, evaluated = _usefulness(release, truth, truth_rows, linked_row, correct, comparisons, spec)
    cell_codes, cell_values = _cells(truth, truth_rows, spec.cells)

    outcome = (linked, correct, useful, evaluated)
    summary = _figures(np.zeros(verifiable.size, dtype=np.int64), 1, *outcome, spec, len(targets))[0]
    per_cell = _figures(cell_codes, len(cell_values), *outcome, spec, len(targets))
    cells = [{"cell": values, "label": cell_label(values), **figures}
             for values, figures in zip(cell_values, per_cell, strict=True)]
    limit = spec.reidentification_limit
    if limit is not None:
        for cell in cells:
            cell["identity_passed"] = cell["reidentification_rate"] < limit
            cell["passed"] = cell["passed"] and cell["identity_passed"]
            cell["upper_bound_exceeds_tau"] = cell["upper_bound_exceeds_tau"] and cell["passed"]
    absent = np.flatnonzero(true_row < 0) if spec.truth_complete else np.zeros(0, dtype=np.int64)
    absent_linked = release_row[absent] >= 0
    if spec.truth_complete:
        summary.update(_with_absent(summary, absent.size, int(absent_linked.sum())))
    if match_probability is not None:
        probability = match_probability[verifiable]
        summary["confident"] = _confident(
            np.zeros(verifiable.size, dtype=np.int64), 1, linked, correct, probability, spec,
            match_probability[absent[absent_linked]],
        )[0]
        for cell, figures in zip(cells, _confident(cell_codes, len(cell_values), linked, correct,
                                                   probability, spec), strict=True):
            cell["confident"] = figures
    units = true_row[verifiable]
    if np.unique(units).size < units.size:
        summary["n_units_verifiable"] = int(np.unique(units).size)
        summary["n_units_reidentified"] = int(np.unique(units[correct]).size)
    judged = judged_on(summary, roles, comparisons, spec)
    passed = all(c["passed"] for c in cells) and not judged["reasons"]
    result = {
        "n_external": int(external_ids.size),
        **summary,
        "tau": spec.tau,
        "passed": passed,
        "n_failing_cells": sum(not c["passed"] for c in cells),
        "usefulness_by_variable": _by_variable(useful, evaluated, correct, targets, spec),
        "cells": cells,
        "evaluation": spec.to_dict(targets),
        "judged_on": judged,
        "roles": roles.to_dict(),
    }
    if spec.external_coverage is not None or spec.release_fraction is not None:
        result["population_reidentifications"] = population_reidentifications(
            int(summary["n_correct"]), int(summary["n_verifiable"]), len(frame_of(release)),
            spec.external_coverage, spec.release_fraction)
    if distance is not None:
        result["distance_histogram"] = _histogram(distance[verifiable], linked, correct)
    labels = [json.dumps(v, ensure_ascii=False) for v in cell_values]  # the cells' order and variables' order
    units = pd.DataFrame({"unit": external_ids[verifiable], "correct": correct,
                          "cell": pd.Categorical.from_codes(cell_codes, categories=labels)})
    return Scored(result, units, tuple(comparisons))


def _truth(
    release: Table | pd.DataFrame,
    release_ids: np.ndarray,
    rows_in_release: np.ndarray,
    original: Table | pd.DataFrame | None,
    original_ids: np.ndarray | None,
) -> tuple[Table | pd.DataFrame, np.ndarray]:
    """The frame holding true values and the row of each verifiable unit in it."""
    if original is None:
        return release, rows_in_release
    rows = pd.Index(original_ids).get_indexer(release_ids[rows_in_release])
    absent = np.flatnonzero(rows < 0)
    if absent.size:
        raise InputError(
            f"unit {release_ids[rows_in_release][absent[0]]!r} of the release is not in the original",
            file=source_name(original),
        )
    return original, rows


def _usefulness(
    release: Table | pd.DataFrame,
    truth: Table | pd.DataFrame,
    truth_rows: np.ndarray,
    linked_row: np.ndarray,
    correct: np.ndarray,
    comparisons: Sequence[TargetComparison],
    spec: Evaluation,
) -> tuple[np.ndarray, np.ndarray]:
    """Boolean arrays (γ, record, variable) of useful values and (record, variable) of evaluated
    values, for correctly linked records only, each target by its type (``attack.risk.targets``)."""
    n, k = correct.size, len(comparisons)
    useful = np.zeros((len(spec.gammas), n, k), dtype=bool)
    evaluated = np.zeros((n, k), dtype=bool)
    rows = np.flatnonzero(correct)
    for j, comparison in enumerate(comparisons):
        useful[:, rows, j], evaluated[rows, j] = usefulness(
            comparison, release, truth, linked_row[rows], truth_rows[rows], spec.gammas, spec.zero_tolerance)
    return useful, evaluated


def _cells(
    truth: Table | pd.DataFrame, truth_rows: np.ndarray, cells: Sequence[Block]
) -> tuple[np.ndarray, list[dict]]:
    """Cell index of every verifiable record and the cells' values, in natural order."""
    if not cells:
        return np.zeros(truth_rows.size, dtype=np.int64), [{}]
    labels = []
    for c in cells:
        values = c.classes(truth, c.name)[truth_rows]
        values = np.array(["(missing)" if v is None else v for v in values], dtype=object)
        order = c.order(sorted(set(values)))
        labels.append(pd.Categorical(values, categories=order, ordered=True))
    frame = pd.DataFrame({str(i): lab for i, lab in enumerate(labels)})
    codes = frame.groupby(list(frame.columns), sort=True, observed=True).ngroup().to_numpy()
    first = np.unique(codes, return_index=True)[1]
    cell_values = [{c.label(): str(lab[row]) for c, lab in zip(cells, labels, strict=True)} for row in first]
    return codes, cell_values


def _figures(
    codes: np.ndarray,
    n_groups: int,
    linked: np.ndarray,
    correct: np.ndarray,
    useful: np.ndarray,
    evaluated: np.ndarray,
    spec: Evaluation,
    n_targets: int,
) -> list[dict]:
    """Rates, intervals and the τ decision for every group of records."""
    def count(x: np.ndarray) -> np.ndarray:
        return np.bincount(codes, weights=x, minlength=n_groups)

    n = count(np.ones(codes.size))
    n_linked = count(linked.astype(float))
    n_correct = count(correct.astype(float))
    n_evaluated = count(evaluated.sum(axis=1).astype(float))
    n_useful = [count(u.sum(axis=1).astype(float)) for u in useful]
    out = []
    for g in range(n_groups):
        n_g, h_g, m_g = int(n[g]), int(n_correct[g]), int(n_linked[g])
        v_g = int(n_evaluated[g])
        f_g = m_g - h_g
        rate = h_g / n_g if n_g else 0.0
        usefulness: dict[str, float | None] = {}
        usefulness_ci: dict[str, list[float] | None] = {}
        risks: dict[str, float] = {}
        risks_ci: dict[str, list[float] | None] = {}
        passed = True
        for i, gamma in enumerate(spec.gammas):
            u_count = int(n_useful[i][g])
            use: float | None
            if h_g == 0:
                use, use_ci = None, None
            elif v_g == 0:
                use, use_ci = 1.0, None
            else:
                use, use_ci = u_count / v_g, wilson_interval(u_count, v_g)
            risk = rate * use if use is not None else 0.0
            slots = n_g * max(n_targets, 1)
            usefulness[gamma.label] = use
            usefulness_ci[gamma.label] = use_ci
            risks[gamma.label] = risk
            risks_ci[gamma.label] = wilson_interval(risk * slots, slots)
            passed = passed and risk < spec.tau
        upper = [ci[1] for ci in risks_ci.values() if ci is not None]
        out.append({
            "n_verifiable": n_g,
            "n_matched": m_g,
            "n_correct": h_g,
            "n_false": f_g,
            "n_none": n_g - m_g,
            "reidentification_rate": rate,
            "reidentification_rate_ci": wilson_interval(h_g, n_g),
            "false_match_rate": f_g / m_g if m_g else None,
            "false_match_rate_ci": wilson_interval(f_g, m_g),
            "precision": h_g / m_g if m_g else None,
            "precision_ci": wilson_interval(h_g, m_g),
            "usefulness": usefulness,
            "usefulness_ci": usefulness_ci,
            "disclosure_risk": risks,
            "disclosure_risk_ci": risks_ci,
            "passed": passed,
            "upper_bound_exceeds_tau": bool(passed and any(u >= spec.tau for u in upper)),
        })
    return out


def _with_absent(summary: dict, n_absent: int, n_absent_linked: int) -> dict:
    """Overall counts and rates once the links of external records without a counterpart in
    the release (known when the truth is complete) count as false links."""
    m_g = summary["n_matched"] + n_absent_linked
    f_g = summary["n_false"] + n_absent_linked
    h_g = summary["n_correct"]
    return {
        "n_no_counterpart": n_absent,
        "n_linked_no_counterpart": n_absent_linked,
        "n_matched": m_g,
        "n_false": f_g,
        "false_match_rate": f_g / m_g if m_g else None,
        "false_match_rate_ci": wilson_interval(f_g, m_g),
        "precision": h_g / m_g if m_g else None,
        "precision_ci": wilson_interval(h_g, m_g),
    }


def _confident(
    codes: np.ndarray,
    n_groups: int,
    linked: np.ndarray,
    correct: np.ndarray,
    probability: np.ndarray,
    spec: Evaluation,
    absent_probability: np.ndarray | None = None,
) -> list[dict]:
    """Per group and threshold P: links with match probability ≥ P, the correct ones among them,
    the confident hit rate (over the verifiable records) and the precision (over the confident
    links, plus the confident links of records without counterpart in the overall group)."""
    def count(x: np.ndarray) -> np.ndarray:
        return np.bincount(codes, weights=x.astype(float), minlength=n_groups)

    n = count(np.ones(codes.size))
    score = np.nan_to_num(probability, nan=-1.0)
    out: list[dict] = [{} for _ in range(n_groups)]
    for p in spec.min_probabilities:
        sure = linked & (score >= p)
        n_sure, n_hit = count(sure), count(sure & correct)
        extra = 0 if absent_probability is None else int((absent_probability >= p).sum())
        for g in range(n_groups):
            n_g, s_g, h_g = int(n[g]), int(n_sure[g]) + extra, int(n_hit[g])
            out[g][repr(float(p))] = {
                "n_confident": s_g,
                "n_confident_correct": h_g,
                "confident_rate": h_g / n_g if n_g else 0.0,
                "confident_rate_ci": wilson_interval(h_g, n_g),
                "precision": h_g / s_g if s_g else None,
                "precision_ci": wilson_interval(h_g, s_g),
            }
    return out


def _by_variable(
    useful: np.ndarray,
    evaluated: np.ndarray,
    correct: np.ndarray,
    targets: Sequence[str],
    spec: Evaluation,
) -> dict:
    """Per-variable usefulness shares over all correct links (diagnostic, docs/method/risk.md)."""
    out = {}
    for i, gamma in enumerate(spec.gammas):
        shares = {}
        for j, column in enumerate(targets):
            v = int(evaluated[correct, j].sum())
            shares[column] = float(useful[i][correct, j].sum() / v) if v else None
        out[gamma.label] = shares
    return out


def _histogram(distance: np.ndarray, linked: np.ndarray, correct: np.ndarray) -> dict | None:
    """Counts of assigned-pair distances for correct and false links (aggregates only)."""
    d = distance[linked]
    if d.size == 0:
        return None
    ok = correct[linked]
    positive = d[d > 0]
    high = float(d.max())
    if positive.size and high / positive.min() > 100:
        edges = np.concatenate([[0.0], np.geomspace(positive.min(), high, HISTOGRAM_BINS)])
    else:
        edges = np.linspace(0.0, high if high > 0 else 1.0, HISTOGRAM_BINS + 1)
    return {
        "edges": [float(e) for e in edges],
        "correct": np.histogram(d[ok], bins=edges)[0].tolist(),
        "false": np.histogram(d[~ok], bins=edges)[0].tolist(),
    }
