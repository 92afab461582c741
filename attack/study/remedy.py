"""The least change that passes: protect only where the intruder succeeds (docs/method/remedy.md).

``attack tune`` applies one method with one strength to the whole file, so every record pays
for the riskiest ones. ``attack remedy`` takes the same ``[tune]`` table (method, parameter,
values weak to strong, columns, fixed parameters, groups, seeds, base, utility checks) and
applies the method only to the records the intruders re-identify in failing cells, and only to
the variables the attribution names:

1. attack the release (every intruder of the scenario, records kept);
2. stop when the scenario passes (every cell below τ on the measure it decides on);
3. in every failing cell, choose the re-identified records to treat: the share
   ``1 − τ / P_c`` of them, plus one, raised by half of it for every earlier round the cell
   failed (``OVERSHOOT``: a treated link breaks only with some probability), those with the smallest margin to the runner-up first
   (the links the least change breaks), and move each one step up the ladder of values;
4. rebuild the release from the base: each treated record takes, on the variables the
   attribution names, its values in the uniform candidate of its step (the whole base protected
   at that value with the tune table's first seed, exactly as ``attack tune`` makes it), so a
   record's values stay put while its step does;
5. repeat; a record already at the strongest value is not treated further, and when no record
   of a failing cell can be treated the remedy stops, NOT PASSED.

The variables are the tune table's columns without the keys that carry none of the failing
cells' disclosure risk: a key stays when its Shapley value in the failing cells' P_γ
(``attack.risk.attribution``, summed over intruders and cells) is positive, every other column
(a target, whose released values the intruder learns) stays; when no record of a failing cell
can be stepped up any more, the dropped keys are added back. ``variables`` in ``[remedy]`` names
them instead (and is never widened). The declared information loss is
IL1s over the tune table's utility variables (docs/method/utility.md), or the number of values
suppressed for a method of the reduction family (IL1s leaves incomplete rows out), with the
utility profile beside it; the best uniform setting of ``attack tune`` for the same τ is reported alongside when
``compare`` is on. The procedure is greedy: it reports the change it made, not a proven minimum.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from attack.errors import InputError, from_validation
from attack.io.readers import frame_of, id_column
from attack.protect.catalogue import METHODS, protect
from attack.protect.catalogue import _changed as changed_values  # the protection log's count
from attack.report.notebook import fields_html, one_line, result_html
from attack.risk.attribution import explain_attack
from attack.risk.evaluation import _cells as cell_codes  # the scoring's cells, not a copy
from attack.risk.results import CellRisk
from attack.study.results import ScenarioResult, release_records
from attack.study.scenario import Scenario
from attack.study.settings import Remedy
from attack.study.tuning import Candidate, _utility, tune, tune_table

#: How much the number of records a round treats in a failing cell grows, beyond the share
#: ``1 − τ/P`` it must lose, with every earlier round the cell failed: a treated link breaks only
#: with some probability, and a broken one may be replaced.
OVERSHOOT = 0.5

__all__ = ["Remedy", "RemedyResult", "RemedyRound", "remedy", "remedy_table"]


def remedy_table(table: Remedy | Mapping | None) -> Remedy:
    """The ``[remedy]`` table validated (an absent table: the defaults)."""
    if isinstance(table, Remedy):
        return table
    try:
        return Remedy.model_validate(dict(table or {}))
    except ValidationError as exc:
        raise from_validation(exc, model=Remedy, prefix="remedy") from None


@dataclass(frozen=True)
class RemedyRound:
    """One attack of the remedy: its verdict and what was treated after it."""

    round: int
    passed: bool
    n_failing_cells: int
    max_cell_risk: float
    n_reidentified: int
    n_treated: int
    n_records_protected: int

    def _repr_html_(self) -> str:
        return fields_html("Remedy round", self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "passed": self.passed, "n_failing_cells": self.n_failing_cells,
                "max_cell_risk": self.max_cell_risk, "n_reidentified": self.n_reidentified,
                "n_treated": self.n_treated, "n_records_protected": self.n_records_protected}


@dataclass(frozen=True)
class RemedyResult:
    """The remedied release, how it was reached, and the best uniform setting beside it."""

    tau: float
    method: str
    parameter: str
    values: tuple[Any, ...]
    seed: int
    variables: tuple[str, ...]
    passed: bool
    rounds: tuple[RemedyRound, ...]
    records_by_value: Mapping[str, int]
    values_changed: Mapping[str, int]
    utility: Mapping[str, Any]
    release: pd.DataFrame = field(repr=False)
    outcome: ScenarioResult = field(repr=False)
    uniform: Candidate | None = field(default=None, repr=False)
    uniform_values_changed: Mapping[str, int] | None = None
    compared: bool = False
    values_suppressed: int = 0
    uniform_values_suppressed: int | None = None

    @property
    def il1s(self) -> float | None:
        """IL1s of the remedied release against the truth (None when units cannot be aligned)."""
        return self.utility.get("il1s")

    @property
    def measure(self) -> str:
        """The declared information-loss measure: the number of values suppressed for a method
        of the reduction family (IL1s leaves rows with a missing value out, so it would fall),
        IL1s otherwise."""
        return SUPPRESSED if METHODS[self.method].family == "reduction" else "IL1s"

    @property
    def loss(self) -> float | None:
        """The remedy's information loss on the declared measure."""
        return _loss(self.measure, self.utility, self.values_suppressed)

    @property
    def uniform_loss(self) -> float | None:
        """The best uniform setting's information loss on the declared measure (None without one)."""
        if self.uniform is None:
            return None
        return _loss(self.measure, self.uniform.utility, self.uniform_values_suppressed)

    @property
    def lower_loss_than_uniform(self) -> bool | None:
        """Whether the remedy passes with lower information loss than the best uniform setting
        (None when not compared or either has no figure; False when the remedy does not pass)."""
        if self.loss is None or self.uniform_loss is None:
            return None
        return self.passed and self.loss < self.uniform_loss

    def _facts(self) -> list[str]:
        facts = [f"τ = {self.tau:g}", f"{len(self.rounds)} rounds", f"{sum(self.values_changed.values())} values changed"]
        if self.il1s is not None:
            facts.append(f"IL1s {self.il1s:.4f}")
        if self.uniform is not None and self.uniform.utility.get("il1s") is not None:
            facts.append(f"uniform {self.parameter} = {self.uniform.value!r}: IL1s {self.uniform.utility['il1s']:.4f}")
        return facts

    def __repr__(self) -> str:
        return one_line("RemedyResult", self.passed, *self._facts())

    def table(self) -> pd.DataFrame:
        """The remedy beside the best uniform setting: values changed, IL1s, the declared
        information loss (``measure``), utility checks passed."""
        rows = [{"release": "remedy", "passed": self.passed, "values_changed": sum(self.values_changed.values()),
                 "il1s": self.il1s, "information_loss": self.loss,
                 "utility_checks_passed": _checks_passed(self.utility)}]
        if self.uniform is not None:
            rows.append({"release": f"uniform {self.parameter} = {self.uniform.value!r}",
                         "passed": bool(self.uniform.risk["passed"]),
                         "values_changed": sum((self.uniform_values_changed or {}).values()),
                         "il1s": self.uniform.utility.get("il1s"), "information_loss": self.uniform_loss,
                         "utility_checks_passed": _checks_passed(self.uniform.utility)})
        return pd.DataFrame(rows)

    def _repr_html_(self) -> str:
        return result_html("The least change that passes", self.passed, self._facts(), self.table())

    def to_markdown(self, title: str = "attack remedy: the least change that passes") -> str:
        """The summary ``attack remedy`` prints: verdict, the rounds, the remedy beside the
        best uniform setting."""
        lines = [f"# {title}", "",
                 f"**{'PASSED' if self.passed else 'NOT PASSED'}** after {len(self.rounds)} rounds of attack and "
                 f"remedy ({self.method}, {self.parameter} = {', '.join(map(repr, self.values))}, seed {self.seed}; "
                 f"variables {', '.join(self.variables)}; τ = {self.tau:g}).", "",
                 f"| release | passed | values changed | information loss ({self.measure}) | IL1s | "
                 "utility checks passed |", "|---|---|---:|---:|---:|---|"]
        for row in self.table().to_dict("records"):
            il1s, loss = ("–" if row[c] is None or pd.isna(row[c]) else f"{row[c]:.4g}"
                          for c in ("il1s", "information_loss"))
            lines.append(f"| {row['release']} | {'yes' if row['passed'] else 'no'} | {row['values_changed']} | "
                         f"{loss} | {il1s} | {row['utility_checks_passed']} |")
        if self.compared and self.uniform is None:
            lines += ["", "No value of the tune grid passes uniformly."]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``attack remedy`` writes (aggregates only)."""
        uniform = None
        if self.uniform is not None:
            uniform = {"value": self.uniform.value, "seed": self.uniform.seed, "passed": bool(self.uniform.risk["passed"]),
                       "values_changed": dict(self.uniform_values_changed or {}),
                       "values_suppressed": self.uniform_values_suppressed,
                       "il1s": self.uniform.utility.get("il1s"), "utility": dict(self.uniform.utility),
                       "utility_checks_passed": _checks_passed(self.uniform.utility)}
        return {
            "remedy": {"method": self.method, "parameter": self.parameter, "values": list(self.values),
                       "seed": self.seed, "variables": list(self.variables)},
            "tau": self.tau,
            "passed": self.passed,
            "verdict": "passed" if self.passed else "NOT PASSED: some failing cell has no record left to treat",
            "decision": "protect only the re-identified records of failing cells, on the variables the attribution "
                        "names, one step of the tune ladder at a time, until every cell is below tau "
                        "(docs/method/remedy.md)",
            "rounds": [r.to_dict() for r in self.rounds],
            "records_by_value": dict(self.records_by_value),
            "values_changed": dict(self.values_changed),
            "information_loss": {"measure": self.measure, "value": self.loss,
                                 "uniform": self.uniform_loss},
            "utility": dict(self.utility),
            "utility_checks_passed": _checks_passed(self.utility),
            "uniform": uniform,
            "uniform_compared": self.compared,
            "lower_loss_than_uniform": self.lower_loss_than_uniform,
        }


#: The information-loss measure of suppression: values made missing.
SUPPRESSED = "values suppressed"


def _loss(measure: str, utility: Mapping[str, Any], suppressed: int | None) -> float | None:
    if measure == SUPPRESSED:
        return None if suppressed is None else float(suppressed)
    value = utility.get("il1s")
    return None if value is None else float(value)


def _suppressed(before: pd.DataFrame, after: pd.DataFrame, columns: list[str]) -> int:
    """Values of ``columns`` missing after but not before."""
    return int(sum((after[c].isna() & before[c].notna()).sum() for c in columns))


def _checks_passed(utility: Mapping[str, Any]) -> str:
    """``passed of applicable`` utility check families."""
    families = utility.get("families") or {}
    judged = [f for f in families.values() if f.get("passed") is not None]
    return f"{sum(bool(f['passed']) for f in judged)} of {len(judged)}"


def remedy(scenario: Scenario, table: Remedy | Mapping | None = None, *,
           say: Callable[[str], None] | None = None, engine: Mapping[str, Any] | None = None) -> RemedyResult:
    """Protect only where the intruders succeed until every cell is below τ (module docstring).

    ``table`` is the ``[remedy]`` table (default: the scenario's, else the defaults); the
    scenario's ``[tune]`` table names the method and its ladder."""
    spec, settings = _tables(scenario, table)
    base_table, base_id = scenario.load_source(spec.base)
    base = frame_of(base_table).reset_index(drop=True)
    truth, truth_id = scenario.load_source("original") if "original" in scenario.sources else (base_table, base_id)
    seed = spec.seeds[0]
    tau = scenario.evaluation.tau
    level = np.full(len(base), -1, dtype=np.int64)
    current = base
    rounds: list[RemedyRound] = []
    variables: list[str] | None = list(settings.variables) if settings.variables else None
    cells, labels = _cells_of(scenario, base, base_id, truth, truth_id)
    outcome: ScenarioResult | None = None
    ladder = _Ladder(base_table, spec, seed, len(base))
    failed: dict[str, int] = {}
    for number in range(1, settings.max_rounds + 1):
        outcome = scenario.with_release(current, base_id).run(engine=engine, records=True)
        records = release_records(outcome)
        hit = records["any: reidentified"].to_numpy()
        failing = [c for c in outcome.judged_cells if not c.passed]
        round_of = partial(RemedyRound, number, bool(outcome.passed), len(failing), _largest_risk(outcome),
                           int(hit.sum()))
        if outcome.passed:
            rounds.append(round_of(0, int((level >= 0).sum())))
            break
        if variables is None:
            variables = _attributed(scenario, current, base_id, spec.columns, engine)
        treat = _to_treat(failing, cells, labels, hit, records, level, len(spec.values), tau, failed)
        level[treat] += 1
        rounds.append(round_of(int(treat.size), int((level >= 0).sum())))
        _say(say, f"round {number}: {len(failing)} failing cells, max risk {rounds[-1].max_cell_risk:.4f}; "
                  f"treating {treat.size} records")
        if treat.size == 0:
            wider = [c for c in spec.columns if c not in variables]
            if settings.variables or not wider:
                break
            variables += wider  # the kept variables alone cannot do it: the dropped keys too
            _say(say, f"round {number}: no record left to treat on the keys; widening to {', '.join(variables)}")
        current = _rebuilt(base, level, ladder, variables)
    assert outcome is not None
    utility = _utility(truth, truth_id, current, base_id, spec)
    uniform, uniform_changed, uniform_suppressed = (
        _uniform(scenario, base, spec.columns, say, engine) if settings.compare else (None, None, None))
    return RemedyResult(
        tau=tau, method=spec.method, parameter=spec.parameter, values=tuple(spec.values), seed=seed,
        variables=tuple(variables or ()), passed=bool(outcome.passed), rounds=tuple(rounds),
        records_by_value={repr(spec.values[v]): int((level == v).sum()) for v in range(len(spec.values))},
        values_changed=changed_values(base, current, list(variables or spec.columns)), utility=utility,
        release=current, outcome=outcome, uniform=uniform, uniform_values_changed=uniform_changed,
        compared=settings.compare, values_suppressed=_suppressed(base, current, list(spec.columns)),
        uniform_values_suppressed=uniform_suppressed)


def _tables(scenario: Scenario, table: Remedy | Mapping | None) -> tuple[Any, Remedy]:
    """The scenario's ``[tune]`` table (required) and the ``[remedy]`` table: ``table``, else the
    scenario's, else the defaults."""
    if scenario.tune is None:
        raise InputError("attack remedy needs the scenario's [tune] table: the method, its parameter and "
                         "values weak to strong, and the columns it may change")
    if table is None and scenario.settings is not None:
        table = getattr(scenario.settings, "remedy", None)
    return tune_table(scenario.tune), remedy_table(table)


def _say(say: Callable[[str], None] | None, text: str) -> None:
    if say:
        say(text)


class _Ladder:
    """The base file protected at each step of the tune table's ladder, made once per step."""

    def __init__(self, base: Any, spec: Any, seed: Any, n_records: int) -> None:
        self._base, self._spec, self._seed, self._n = base, spec, seed, n_records
        self._made: dict[int, pd.DataFrame] = {}

    def __call__(self, step: int) -> pd.DataFrame:
        if step not in self._made:
            spec = self._spec
            protected = protect(self._base, spec.method, {**spec.params, spec.parameter: spec.values[step]},
                                columns=spec.columns, by=spec.by, seed=self._seed)
            if len(protected.release) != self._n:
                raise InputError(f"method {spec.method} deletes or adds records; the remedy needs one that keeps them",
                                 field="tune.method")
            self._made[step] = protected.release.reset_index(drop=True)
        return self._made[step]


def _largest_risk(outcome: ScenarioResult) -> float:
    """The largest disclosure risk of the cells the verdict is made on (0 without an estimate)."""
    risks = [r.value for c in outcome.judged_cells for r in c.disclosure_risk.values() if r.value is not None]
    return max(risks) if risks else 0.0


def _uniform(scenario: Scenario, base: pd.DataFrame, columns: Sequence[str], say: Callable[[str], None] | None,
             engine: Mapping[str, Any] | None) -> tuple[Any, Any, Any]:
    """The uniform protection the tuning chooses, beside the remedy: the candidate, and the values
    it changes and suppresses (None, None, None when no value passes)."""
    uniform = tune(scenario, say=say, engine=engine).chosen
    if uniform is None:
        return None, None, None
    release = uniform.release.reset_index(drop=True)
    return uniform, changed_values(base, release, list(columns)), _suppressed(base, release, list(columns))


def _cells_of(scenario: Scenario, base: pd.DataFrame, base_id: str, truth: Any,
              truth_id: str) -> tuple[np.ndarray, list[str]]:
    """The cell of every base record (of its true unit) as an index into labels (the cells'
    values as JSON, as the scoring orders them)."""
    ids = id_column(base, base_id)
    rows = pd.Index(id_column(truth, truth_id)).get_indexer(ids)
    if (rows < 0).any():
        raise InputError(f"unit {ids[np.flatnonzero(rows < 0)[0]]!r} of the release is not in the original")
    codes, values = cell_codes(truth, rows, scenario.evaluation.cells)
    return codes, [_label(v) for v in values]


def _label(cell: Mapping[str, str]) -> str:
    return json.dumps(dict(cell), sort_keys=True, ensure_ascii=False)


def _to_treat(failing: list[CellRisk], cells: np.ndarray, labels: list[str], hit: np.ndarray,
              records: pd.DataFrame, level: np.ndarray, n_values: int, tau: float,
              failed: dict[str, int]) -> np.ndarray:
    """Rows to move one step up: per failing cell, the share ``(1 + OVERSHOOT·r)(1 − τ/P)``
    (plus one) of its re-identified records that can still be treated, smallest margin first;
    ``r`` counts the earlier rounds in which the cell failed (``failed``, updated)."""
    margins = np.column_stack([records[c].to_numpy(dtype=float) for c in records.columns
                               if c.endswith(": margin") and not c.startswith("any:")])
    margin = np.nanmin(np.where(hit[:, None], margins, np.inf), axis=1)  # the most certain intruder's doubt
    chosen: list[np.ndarray] = []
    by_label = {label: i for i, label in enumerate(labels)}
    for cell in failing:
        label = _label(cell.cell)
        index = by_label.get(label)
        if index is None:
            continue
        risk = max(r.value for r in cell.disclosure_risk.values() if r.value is not None)
        rows = np.flatnonzero((cells == index) & hit & (level < n_values - 1))
        share = (1.0 + OVERSHOOT * failed.get(label, 0)) * (1.0 - tau / risk) if risk > 0 else 0.0
        failed[label] = failed.get(label, 0) + 1
        need = min(rows.size, math.ceil(share * rows.size) + 1) if risk > 0 else 0
        chosen.append(rows[np.argsort(margin[rows], kind="stable")[:need]])
    return np.unique(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)


def _attributed(scenario: Scenario, release: pd.DataFrame, release_id: str, columns: list[str],
                engine: Mapping[str, Any] | None) -> list[str]:
    """The tune ``columns`` the remedy changes: every column that is not an intruder's key (the
    targets, whose released values the intruder learns), and the keys with a positive summed
    attribution in the failing cells' P_γ, over intruders (all of ``columns`` when that leaves
    none)."""
    total: dict[str, float] = {}
    keys: set[str] = set()
    candidate = scenario.with_release(release, release_id)
    for intruder in candidate.intruders:
        keys.update(c for k in intruder.linkage.keys for c in k.columns)
        data = candidate.load_data(intruder, candidate.sources["release"])
        explained = explain_attack(data, intruder.linkage, candidate.evaluation, engine=engine)
        for cell in explained.cells:
            for key, share in cell.shares.items():
                total[key] = total.get(key, 0.0) + share
    named = [c for c in columns if c not in keys or total.get(c, 0.0) > 0]
    return named or list(columns)


def _rebuilt(base: pd.DataFrame, level: np.ndarray, ladder: Callable[[int], pd.DataFrame],
             variables: list[str]) -> pd.DataFrame:
    """The base with every treated record's variables taken from the uniform candidate of its
    step (``ladder(step)``: the whole base protected at that value, as ``attack tune`` makes it),
    so a record keeps the same values while its step stays."""
    out = base.copy()
    for step in np.unique(level[level >= 0]):
        rows = np.flatnonzero(level == step)
        part = ladder(int(step))
        for column in variables:
            if out[column].dtype.kind in "iu" and part[column].dtype.kind == "f":
                out[column] = out[column].astype(float)
            out.iloc[rows, out.columns.get_loc(column)] = part[column].to_numpy()[rows]
    return out
