"""The attacker models (prosecutor, journalist, marketer) and, for a sample, the estimates of
population uniques (docs/method/population-uniqueness.md); always computed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from attack.errors import InputError
from attack.io.readers import Table
from attack.report.attack import ReportTable
from attack.report.frequency import number
from attack.risk.individual import HouseholdMethod
from attack.risk.measures import Cells, FrequencyMeasure, measure
from attack.risk.population_file import PopulationFile
from attack.risk.population_risk import PopulationRisk, population_risk


@dataclass(frozen=True)
class PopulationOptions:
    sampling_fraction: float | None = None
    population: int | None = None
    population_file: Table | pd.DataFrame | PopulationFile | None = None
    bootstrap: int = 1000
    seed: int = 0
    household_method: HouseholdMethod = "product"


#: Where an attacker takes the population frequencies F from.
_BASIS = {"sample": "the release taken as the population", "population_file": "the population file",
          "population_model": "the superpopulation model"}


@measure("population")
class PopulationMeasure(FrequencyMeasure):
    """The attackers' risks from the release, a population file or the superpopulation model."""

    order = 40
    options = PopulationOptions

    @classmethod
    def settings(cls, options: PopulationOptions, cells: Cells) -> dict[str, Any]:
        return {"sampling_fraction": options.sampling_fraction, "population": options.population,
                "population_file": options.population_file is not None, "bootstrap": options.bootstrap,
                "seed": options.seed}

    @classmethod
    def compute(cls, options: PopulationOptions, cells: Cells) -> PopulationRisk:
        if cells.weights is not None and (options.sampling_fraction is not None or options.population is not None):
            raise InputError("give either sampling weights or a sampling fraction / population size, not both")
        if options.sampling_fraction is not None and options.population is not None:
            raise InputError("give either the sampling fraction or the population size, not both")
        return population_risk(cells.table, list(cells.keys), threshold=cells.threshold,
                               sampling_fraction=options.sampling_fraction, population=options.population,
                               population_file=options.population_file, method=cells.method,  # type: ignore[arg-type]
                               replicates=options.bootstrap, seed=options.seed, households=cells.households,
                               household_method=options.household_method)

    @classmethod
    def entries(cls, section: PopulationRisk) -> dict[str, Any]:
        return section.to_dict()

    @classmethod
    def tables(cls, document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
        """The attacker models, the release context (whose measure is one of theirs) and, with a
        sampling fraction, the population-uniqueness models."""
        return [*_attackers(document), *_context(document), *_uniqueness(document)]


def _attackers(document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
    if "prosecutor_risk" not in document:
        return []
    table = ReportTable(["attacker", "F from", "highest risk", "records at risk", "average risk"],
                        [False, False, True, True, True])
    for name in ("prosecutor", "journalist", "marketer"):
        entry = document[f"{name}_risk"]
        table.add([name, _BASIS[entry["basis"]] if name != "prosecutor" else "the release",
                   number(entry["highest"]), number(entry["records_at_risk"]), number(entry["average"])])
    household = document.get("household_journalist_risk")
    if household:
        table.add(["journalist, household", _BASIS[household["basis"]], number(household["highest"]),
                   number(household["records_at_risk"]), number(household["average"])])
    return [(table, f"Attacker models (records at risk: record risk above "
                    f"{document['prosecutor_risk']['threshold']})")]


def _context(document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
    context = document.get("context")
    if not context:
        return []
    table = ReportTable(["question", "answer"], [False, False])
    for question, answer in context["answers"].items():
        table.add([question, str(answer)])
    verdict = "at or below" if context["measure_passed"] else "above"
    return [(table, f"Release context: {context['rule']}; the {context['attacker_model']}'s measure "
                    f"{number(context['measure'])} is {verdict} τ")]


def _uniqueness(document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
    uniqueness = document.get("population_uniqueness")
    if not uniqueness:
        return []
    table = ReportTable(["model", "status", "population uniques", "share of the population"],
                        [False, False, True, True])
    for name, entry in uniqueness["models"].items():
        table.add([name, entry["status"].replace("_", " "), number(entry["uniques"]), number(entry["share"])])
    dankar = uniqueness["dankar"]
    interval = uniqueness["interval"]
    bounds = (f"; {100 * interval['level']:g} % interval (Pitman, {interval['replicates']} replicates) "
              f"{interval['lower']:.0f} to {interval['upper']:.0f}" if interval else
              f"; interval {uniqueness['interval_status']}")
    return [(table, f"Population uniques (n = {uniqueness['records']}, N = {uniqueness['population']}); "
                    f"Dankar's rule: {dankar['model']}, {number(dankar['uniques'])}{bounds}")]
