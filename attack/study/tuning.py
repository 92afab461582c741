"""Tuning a protection method until every cell is below τ (docs/method/utility.md).

A scenario's ``[tune]`` table names one protection method, the parameter to vary and its values
ordered from weak to strong. Every value (and every seed of the sweep) gives a candidate release
built from the scenario's base file; each candidate is attacked by the scenario's intruders and
checked for analysis potential. Risk is a hard constraint and utility is only reported
(docs/method/utility.md): the chosen setting is the weakest one whose candidates pass τ in every cell for
every seed. Risk is not monotone in the knob, so by default the whole grid is evaluated and
the choice rests on each candidate's own attack.

``[tune]`` entries::

    method = "separate-ma"           # a name from ``attack protect --help``
    parameter = "k"                  # the knob
    values = [3, 4, 5, 7]            # weak -> strong
    columns = ["turnover", ...]      # variables the method changes
    params = { min_gap = 0.0 }       # fixed parameters (optional)
    by = ["east_west"]               # run within groups (optional)
    seeds = [1]                      # seed sweep (optional, default [0])
    base = "release"                 # the data entry to protect (default: release)
    stop_at_first = false            # stop at the first passing value instead of the whole grid
    release = "tuned.csv"            # where the chosen release goes (optional)
    [tune.utility]                   # analysis-potential checks (optional)
    by = ["east_west"]
    models = ["turnover ~ employees"]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import ValidationError

from attack.errors import InputError, from_validation
from attack.io.notices import gathered
from attack.io.table import Table
from attack.protect.catalogue import protect
from attack.report.notebook import figures_of, one_line, result_html
from attack.report.release import render_tune_html
from attack.study.scenario import Scenario
from attack.study.settings import Tune

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attack.study.results import ScenarioResult

__all__ = ["Candidate", "TuneResult", "tune", "tune_table"]


def tune_table(table: Tune | Mapping) -> Tune:
    """The ``[tune]`` table validated by the scenario schema (``attack.study.settings.Tune``), so
    every value is type-checked and every parameter value parsed before the first attack."""
    if isinstance(table, Tune):
        return table
    try:
        return Tune.model_validate(table)
    except ValidationError as exc:
        raise from_validation(exc, model=Tune, prefix="tune") from None


def chosen_release_path(scenario: Scenario) -> Path | None:
    """Where the scenario's ``[tune] release`` puts the chosen release (None when not set)."""
    table = None if scenario.tune is None else tune_table(scenario.tune)
    return None if table is None or table.release is None else scenario.base / table.release


def _table_dict(table: Tune) -> dict[str, Any]:
    """The ``tune`` block of the tuning JSON: the grid as validated (without the output path)."""
    return {
        "method": table.method, "parameter": table.parameter, "values": list(table.values),
        "columns": list(table.columns), "params": dict(table.params), "by": list(table.by),
        "seeds": list(table.seeds), "base": table.base, "stop_at_first": table.stop_at_first,
        "utility": table.utility.model_dump(exclude_defaults=True),
    }


@dataclass(frozen=True)
class Candidate:
    """One tried setting with one seed: its release, risk summary and utility profile."""

    value: Any
    seed: int
    release: pd.DataFrame = field(repr=False)
    log: Mapping[str, Any]
    risk: Mapping[str, Any]
    utility: Mapping[str, Any]
    outcome: Any = field(repr=False)
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "seed": self.seed, **self.risk,
                "utility": self.utility, "protection": self.log,
                "seconds": round(self.seconds, 2)}


@dataclass(frozen=True)
class TuneResult:
    """Every candidate and the chosen setting (None when no value of the grid passes)."""

    settings: Tune
    tau: float
    candidates: tuple[Candidate, ...]
    chosen_value: Any

    @property
    def chosen(self) -> Candidate | None:
        """The chosen setting's candidate for the first seed (the release that is written)."""
        for c in self.candidates:
            if c.value == self.chosen_value and c.seed == self.settings.seeds[0]:
                return c
        return None

    def table(self) -> pd.DataFrame:
        """One row per candidate (value and seed): its verdict, failing cells and largest cell risk."""
        return pd.DataFrame([{"passed": c.risk["passed"], "value": c.value, "seed": c.seed,
                              "chosen": c.value == self.chosen_value, "failing_cells": c.risk["n_failing_cells"],
                              "max_cell_risk": c.risk["max_cell_risk"]} for c in self.candidates])

    def _facts(self) -> list[str]:
        chosen = "no value of the grid passes" if self.chosen_value is None else f"chosen value {self.chosen_value!r}"
        return [f"{len(self.candidates)} candidates", chosen, f"τ = {self.tau:g}"]

    def __repr__(self) -> str:
        return one_line("TuneResult", self.chosen_value is not None, *self._facts())

    def _repr_html_(self) -> str:
        return result_html("Tuning of the protection", self.chosen_value is not None, self._facts(), self.table(),
                           failing=[not c.risk["passed"] for c in self.candidates], full=".table()")

    def plot(self) -> list[Figure]:
        """The figure of the HTML report (risk against utility per candidate), as matplotlib figures."""
        return figures_of(lambda: render_tune_html(self.to_dict(), "tuning"))

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``attack tune`` writes."""
        return {
            "tune": _table_dict(self.settings),
            "tau": self.tau,
            "decision": "the first value, in the order the grid lists them (weak to strong), whose "
                        "candidates pass tau in every cell for every seed; utility is reported, never "
                        "traded against risk (docs/method/utility.md)",
            "chosen": None if self.chosen_value is None else {
                "value": self.chosen_value, "seed": self.settings.seeds[0]},
            "verdict": "feasible" if self.chosen_value is not None
            else "no feasible candidate within the configured grid",
            "candidates": [c.to_dict() for c in self.candidates],
        }


@gathered
def tune(scenario: Scenario, say: Callable[[str], None] | None = None,
         engine: Mapping[str, Any] | None = None) -> TuneResult:
    """Run the ``[tune]`` grid of ``scenario`` (docs/method/utility.md steps 3-6); ``say`` receives
    one progress line per candidate, ``engine`` goes to the attacks (it never changes a figure)."""
    if scenario.tune is None:
        raise InputError("the scenario has no [tune] table")
    spec = tune_table(scenario.tune)
    base, base_id = scenario.load_source(spec.base)
    truth, truth_id = (scenario.load_source("original") if "original" in scenario.sources
                       else (base, base_id))
    candidates: list[Candidate] = []
    chosen = None
    for value in spec.values:
        passed_all = True
        for seed in spec.seeds:
            start = time.perf_counter()
            protected = protect(base, spec.method, {**spec.params, spec.parameter: value},
                                columns=spec.columns, by=spec.by, seed=seed)
            outcome = scenario.with_release(protected.release, base_id).run(engine=engine)
            risk = _risk_summary(outcome)
            utility = _utility(truth, truth_id, protected.release, base_id, spec)
            candidates.append(Candidate(value, seed, protected.release, protected.log, risk,
                                        utility, outcome, time.perf_counter() - start))
            passed_all = passed_all and risk["passed"]
            if say:
                say(f"{spec.parameter} = {value}, seed {seed}: "
                         f"{'passes' if risk['passed'] else 'fails'} "
                         f"({risk['n_failing_cells']} failing cells, max risk {risk['max_cell_risk']:.4f})")
        if passed_all and chosen is None:
            chosen = value
            if spec.stop_at_first:
                break
    return TuneResult(spec, scenario.evaluation.tau, tuple(candidates), chosen)


def _risk_summary(outcome: ScenarioResult) -> dict[str, Any]:
    """Passed, failing cells and the largest cell risk over every γ, on the measure the scenario
    decides on (combined when it combines intruders)."""
    cells = outcome.judged_cells
    risks = [r.value for c in cells for r in c.disclosure_risk.values() if r.value is not None]
    uncovered = sum(1 for c in cells for r in c.disclosure_risk.values() if r.value is None)
    return {
        "passed": bool(outcome.passed),
        "n_cells": len(cells),
        "n_failing_cells": sum(1 for c in cells if not c.passed),
        "max_cell_risk": max(risks) if risks else 0.0,
        "n_cells_without_estimate": uncovered,
        "overall_reidentification_rate": {run.name: run.reidentification_rate.value for run in outcome.runs},
    }


def _utility(truth: Table | pd.DataFrame, truth_id: str, release: pd.DataFrame, release_id: str,
             spec: Tune) -> dict[str, Any]:
    """A candidate's utility against the truth file: per check family the cases, exceedances
    and share (docs/method/utility.md), and IL1s when units can be aligned by id."""
    from attack.utility.profile import utility_profile

    options = dict(spec.utility)
    variables = options.pop("variables", None) or list(spec.columns)
    options["crosses"] = [tuple(c) for c in options.get("crosses", [])]
    profile = utility_profile(
        truth, release, variables=variables, per_record=(truth_id, release_id), **options)
    per_record = profile.to_dict()["per_record"] or {}
    return {"families": profile.summary(), "il1s": (per_record.get("il1s") or {}).get("sample_sd")}
