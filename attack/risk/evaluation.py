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
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.columns import number_columns, require_number_columns
from attack.io.readers import Table, frame_of, source_name
from attack.io.serial import ABSENT
from attack.linkage.blocking import Block
from attack.report.labels import cell_label
from attack.risk.basis import judged_on
from attack.risk.population_linkage import population_reidentifications
from attack.risk.results import AttackFigures, CellRisk, Confident, GroupRisk, Proportion
from attack.risk.roles import ColumnRoles, assign_roles
from attack.risk.settings import Evaluation
from attack.risk.stats import wilson_interval
from attack.risk.targets import TargetComparison, resolve, usefulness
from attack.verdict import all_below_tau, below_tau, upper_reaches_tau

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
    """The scored links: the typed figures, and per verifiable external record its ``unit``,
    its ``cell`` (categorical; each category the cell's values as sorted JSON) and whether its
    link is ``correct`` — record-level, in memory only, for the maximum over intruders
    (``attack.risk.any_intruder``) — and how each target was compared (for the risk per record)."""

    figures: AttackFigures
    units: pd.DataFrame
    comparisons: tuple[TargetComparison, ...] = ()


def evaluate(*args: Any, **kwargs: Any) -> dict:
    """The figures of ``score`` (same arguments) as their JSON-ready dict."""
    return score(*args, **kwargs).figures.to_dict()


@dataclass(frozen=True)
class _Truth:
    """Where the truth of each verifiable external record is: its row in the release
    (``true_row``, −1 when its unit is not there) and in the frame holding the true values."""

    release_row: np.ndarray
    true_row: np.ndarray
    verifiable: np.ndarray
    truth: Table | pd.DataFrame
    truth_rows: np.ndarray


@dataclass(frozen=True)
class _Outcome:
    """Per verifiable external record: linked, linked correctly, and per γ and target whether
    the released value is useful (and evaluated at all); the cell of each record."""

    linked: np.ndarray
    correct: np.ndarray
    useful: np.ndarray
    evaluated: np.ndarray
    cell_codes: np.ndarray
    cell_values: list[dict]


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
    where = _locate(release_row, external_ids, release, release_ids, original, original_ids)
    if roles is None:
        roles = roles_of(release, where.truth, spec, id_columns=id_columns, key_columns=key_columns,
                         code_columns=categorical, external_ids=external_ids)
    comparisons = _comparisons(release, where, roles, spec, recodings or {})
    targets = [t.name for t in roles.targets]
    outcome = _outcome(release, where, comparisons, spec)
    cells = _cell_risks(outcome, spec, len(targets), match_probability, where)
    overall = _overall(outcome, spec, len(targets), match_probability, where, int(external_ids.size))
    judged = judged_on({"n_verifiable": overall["n_verifiable"], "n_matched": overall["n_matched"]},
                       roles, comparisons, spec)
    figures = AttackFigures(
        **overall,
        tau=spec.tau,
        passed=all_passed(cells) and not judged["reasons"],
        n_failing_cells=sum(not c.passed for c in cells),
        usefulness_by_variable=_by_variable(outcome.useful, outcome.evaluated, outcome.correct, targets, spec),
        cells=tuple(cells),
        evaluation=spec.to_dict(targets),
        judged_on=judged,
        roles=roles.to_dict(),
        population_reidentifications=_population(overall, release, spec),
        distance_histogram=ABSENT if distance is None else _histogram(
            distance[where.verifiable], outcome.linked, outcome.correct),
    )
    return Scored(figures, _units(external_ids[where.verifiable], outcome), tuple(comparisons))


def all_passed(cells: Sequence[CellRisk]) -> bool:
    """Every cell passes (True for none)."""
    return all(c.passed for c in cells)


def _locate(release_row: np.ndarray, external_ids: np.ndarray, release: Table | pd.DataFrame,
            release_ids: np.ndarray, original: Table | pd.DataFrame | None,
            original_ids: np.ndarray | None) -> _Truth:
    """The verifiable external records and where their truth is; none verifiable is an error."""
    true_row = pd.Index(release_ids).get_indexer(external_ids)
    verifiable = np.flatnonzero(true_row >= 0)
    if verifiable.size == 0:
        raise InputError(
            "no external identifier occurs in the release identifier column, so no link can be "
            "checked; are the id columns right?",
            file=source_name(release),
        )
    truth, truth_rows = _truth(release, release_ids, true_row[verifiable], original, original_ids)
    return _Truth(release_row, true_row, verifiable, truth, truth_rows)


def _comparisons(release: Table | pd.DataFrame, where: _Truth, roles: ColumnRoles, spec: Evaluation,
                 recodings: Mapping[str, Mapping[str, str]]) -> list[TargetComparison]:
    """How each target is compared; a missing target column or a per-variable γ for a variable
    that is not evaluated is an error."""
    targets = [t.name for t in roles.targets]
    for column in targets:
        for frame in (release, where.truth):
            if column not in frame_of(frame).columns:
                raise InputError("target column is missing", file=source_name(frame), column=column)
    rows = where.true_row[where.verifiable]
    comparisons = [resolve(t, release, where.truth, rows, where.truth_rows, recodings.get(t.name))
                   for t in roles.targets]
    stray = sorted({name for g in spec.gammas for name in g.by_variable} - set(targets))
    if stray:
        raise InputError(f"a per-variable γ is given for {stray[0]!r}, which is not an evaluated variable "
                         f"({', '.join(targets) or 'none'}); name it as a target or drop its γ",
                         field="gamma_by_variable")
    return comparisons


def _outcome(release: Table | pd.DataFrame, where: _Truth, comparisons: Sequence[TargetComparison],
             spec: Evaluation) -> _Outcome:
    """Each verifiable record's link outcome, usefulness and cell."""
    linked_row = where.release_row[where.verifiable]
    linked = linked_row >= 0
    correct = linked & (linked_row == where.true_row[where.verifiable])
    useful, evaluated = _usefulness(release, where.truth, where.truth_rows, linked_row, correct, comparisons, spec)
    codes, values = _cells(where.truth, where.truth_rows, spec.cells)
    return _Outcome(linked, correct, useful, evaluated, codes, values)


def _cell_risks(outcome: _Outcome, spec: Evaluation, n_targets: int, match_probability: np.ndarray | None,
                where: _Truth) -> list[CellRisk]:
    """Every cell's figures, with the identity decision when the re-identification rate is
    judged and the confident links when the links carry a match probability."""
    groups = _group_risks(outcome.cell_codes, len(outcome.cell_values), outcome, spec, n_targets)
    confident: list[dict | None] = [None] * len(groups)
    if match_probability is not None:
        confident = list(_confident(outcome.cell_codes, len(outcome.cell_values), outcome.linked, outcome.correct,
                                    match_probability[where.verifiable], spec))
    cells = []
    for values, group, sure in zip(outcome.cell_values, groups, confident, strict=True):
        cell = CellRisk(cell=values, label=cell_label(values), **_fields_of(group), confident=sure)
        cells.append(_with_identity(cell, spec.reidentification_limit))
    return cells


def _with_identity(cell: CellRisk, limit: float | None) -> CellRisk:
    """The cell judged on its re-identification rate too (below ``limit``), when there is one."""
    if limit is None:
        return cell
    rate = _rate(cell.reidentification_rate)
    identity = below_tau(rate, limit)
    passed = cell.passed and identity
    return replace(cell, identity_passed=identity, passed=passed,
                   upper_bound_exceeds_tau=bool(cell.upper_bound_exceeds_tau) and passed)


def _rate(proportion: Proportion | None) -> float | None:
    return None if proportion is None else proportion.value


def _overall(outcome: _Outcome, spec: Evaluation, n_targets: int, match_probability: np.ndarray | None,
             where: _Truth, n_external: int) -> dict[str, Any]:
    """The overall figures but the verdict (as fields of ``AttackFigures``): the one group of all
    verifiable records, the links without counterpart when the truth is complete, the confident
    links, and the units when several external records name one."""
    everyone = np.zeros(where.verifiable.size, dtype=np.int64)
    group = _group_risks(everyone, 1, outcome, spec, n_targets)[0]
    overall: dict[str, Any] = {"n_external": n_external,
                               **{k: v for k, v in _fields_of(group).items() if k != "passed"}}
    absent = np.flatnonzero(where.true_row < 0) if spec.truth_complete else np.zeros(0, dtype=np.int64)
    absent_linked = where.release_row[absent] >= 0
    if spec.truth_complete:
        overall.update(_with_absent(group, absent.size, int(absent_linked.sum())))
    if match_probability is not None:
        overall["confident"] = _confident(everyone, 1, outcome.linked, outcome.correct,
                                          match_probability[where.verifiable], spec,
                                          match_probability[absent[absent_linked]])[0]
    units = where.true_row[where.verifiable]
    if np.unique(units).size < units.size:
        overall["n_units_verifiable"] = int(np.unique(units).size)
        overall["n_units_reidentified"] = int(np.unique(units[outcome.correct]).size)
    return overall


def _fields_of(group: GroupRisk) -> dict[str, Any]:
    """A group's figures as the keyword arguments of a result built on them."""
    return {f.name: getattr(group, f.name) for f in fields(GroupRisk)}


def _population(overall: Mapping[str, Any], release: Table | pd.DataFrame, spec: Evaluation) -> dict | None:
    """The expected re-identifications in the population, when the coverage or fraction is given."""
    if spec.external_coverage is None and spec.release_fraction is None:
        return None
    return population_reidentifications(int(overall["n_correct"]), int(overall["n_verifiable"]),
                                        len(frame_of(release)), spec.external_coverage, spec.release_fraction)


def _units(unit_ids: np.ndarray, outcome: _Outcome) -> pd.DataFrame:
    """Per verifiable external record its unit, whether its link is correct and its cell."""
    labels = [json.dumps(v, ensure_ascii=False) for v in outcome.cell_values]  # the cells' and variables' order
    return pd.DataFrame({"unit": unit_ids, "correct": outcome.correct,
                         "cell": pd.Categorical.from_codes(outcome.cell_codes, categories=labels)})


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


def _group_risks(codes: np.ndarray, n_groups: int, outcome: _Outcome, spec: Evaluation,
                 n_targets: int) -> list[GroupRisk]:
    """Rates, intervals and the τ decision for every group of records (``codes`` per record)."""
    def count(x: np.ndarray) -> np.ndarray:
        return np.bincount(codes, weights=x, minlength=n_groups)

    n = count(np.ones(codes.size))
    n_linked = count(outcome.linked.astype(float))
    n_correct = count(outcome.correct.astype(float))
    n_evaluated = count(outcome.evaluated.sum(axis=1).astype(float))
    n_useful = [count(u.sum(axis=1).astype(float)) for u in outcome.useful]
    return [_group_risk(int(n[g]), int(n_linked[g]), int(n_correct[g]), int(n_evaluated[g]),
                        [int(u[g]) for u in n_useful], spec, n_targets) for g in range(n_groups)]


def _group_risk(n_g: int, m_g: int, h_g: int, v_g: int, useful: Sequence[int], spec: Evaluation,
                n_targets: int) -> GroupRisk:
    """One group's figures from its counts: ``n_g`` verifiable, ``m_g`` linked, ``h_g`` correct,
    ``v_g`` evaluated values and, per γ, the useful ones."""
    f_g = m_g - h_g
    rate = h_g / n_g if n_g else 0.0
    slots = n_g * max(n_targets, 1)
    usefulness: dict[str, Proportion] = {}
    risks: dict[str, Proportion] = {}
    for gamma, u_count in zip(spec.gammas, useful, strict=True):
        use = _usefulness_share(u_count, h_g, v_g)
        risk = rate * use.value if use.value is not None else 0.0
        usefulness[gamma.label] = use
        risks[gamma.label] = Proportion.of(risk, wilson_interval(risk * slots, slots))
    passed = all_below_tau((r.value for r in risks.values()), spec.tau)
    return GroupRisk(
        n_verifiable=n_g, n_matched=m_g, n_correct=h_g, n_false=f_g, n_none=n_g - m_g,
        reidentification_rate=Proportion.of(rate, wilson_interval(h_g, n_g)),
        false_match_rate=Proportion.of(f_g / m_g if m_g else None, wilson_interval(f_g, m_g)),
        precision=Proportion.of(h_g / m_g if m_g else None, wilson_interval(h_g, m_g)),
        usefulness=usefulness,
        disclosure_risk=risks,
        passed=passed,
        upper_bound_exceeds_tau=bool(passed and upper_reaches_tau((r.interval for r in risks.values()), spec.tau)),
    )


def _usefulness_share(u_count: int, h_g: int, v_g: int) -> Proportion:
    """The usefulness share: undefined without correct links, 1 when they have nothing to evaluate."""
    if h_g == 0:
        return Proportion(None, None)
    if v_g == 0:
        return Proportion(1.0, None)
    return Proportion.of(u_count / v_g, wilson_interval(u_count, v_g))


def _with_absent(group: GroupRisk, n_absent: int, n_absent_linked: int) -> dict[str, Any]:
    """Overall counts and rates once the links of external records without a counterpart in
    the release (known when the truth is complete) count as false links."""
    m_g = (group.n_matched or 0) + n_absent_linked
    f_g = (group.n_false or 0) + n_absent_linked
    h_g = group.n_correct or 0
    return {
        "n_no_counterpart": n_absent,
        "n_linked_no_counterpart": n_absent_linked,
        "n_matched": m_g,
        "n_false": f_g,
        "false_match_rate": Proportion.of(f_g / m_g if m_g else None, wilson_interval(f_g, m_g)),
        "precision": Proportion.of(h_g / m_g if m_g else None, wilson_interval(h_g, m_g)),
    }


def _confident(
    codes: np.ndarray,
    n_groups: int,
    linked: np.ndarray,
    correct: np.ndarray,
    probability: np.ndarray,
    spec: Evaluation,
    absent_probability: np.ndarray | None = None,
) -> list[dict[str, Confident]]:
    """Per group and threshold P: links with match probability ≥ P, the correct ones among them,
    the confident hit rate (over the verifiable records) and the precision (over the confident
    links, plus the confident links of records without counterpart in the overall group)."""
    def count(x: np.ndarray) -> np.ndarray:
        return np.bincount(codes, weights=x.astype(float), minlength=n_groups)

    n = count(np.ones(codes.size))
    score = np.nan_to_num(probability, nan=-1.0)
    out: list[dict[str, Confident]] = [{} for _ in range(n_groups)]
    for p in spec.min_probabilities:
        sure = linked & (score >= p)
        n_sure, n_hit = count(sure), count(sure & correct)
        extra = 0 if absent_probability is None else int((absent_probability >= p).sum())
        for g in range(n_groups):
            n_g, s_g, h_g = int(n[g]), int(n_sure[g]) + extra, int(n_hit[g])
            out[g][repr(float(p))] = Confident(
                n_confident=s_g, n_confident_correct=h_g,
                confident_rate=Proportion.of(h_g / n_g if n_g else 0.0, wilson_interval(h_g, n_g)),
                precision=Proportion.of(h_g / s_g if s_g else None, wilson_interval(h_g, s_g)))
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
