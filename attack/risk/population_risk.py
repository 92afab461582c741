"""A release's key classes seen from the population: population uniqueness (with a sampling
fraction or population size) and the prosecutor, journalist and marketer attackers (with the
sample, the population model or a population file), as ``attack risk`` reports them
(docs/method/population-uniqueness.md).

Key classes here are the exact combinations of the key values, a missing value being one more
value (as ARX treats a suppressed value), not sdcMicro's matching of missing values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from attack.io.readers import Table, as_table, require_columns
from attack.io.rules import Count, Fraction, Seed, checked
from attack.report.notebook import one_line, result_html
from attack.risk.attackers import AttackerRisk, attacker_risks
from attack.risk.individual import HouseholdMethod, RiskMethod, household_risk, individual_risk
from attack.risk.population_file import PopulationFile, population_class_sizes, release_classes
from attack.risk.population_uniqueness import (
    PopulationUniqueness,
    Replicates,
    SamplingFraction,
    population_uniqueness,
    resolve_population,
)


@dataclass(frozen=True)
class PopulationRisk:
    """Population uniqueness and the three attacker models of a release's keys.

    Attributes
    ----------
    uniqueness:
        Pitman's, Zayatz's and the SNB estimates with Dankar's choice (``None`` without a
        sampling fraction or population size).
    prosecutor, journalist, marketer:
        The attacker models' risks.
    household_journalist:
        With a population file and household numbers: the journalist's risk that at least one
        member of a record's household is re-identified, ``1 − Π(1 − 1/F_k)`` over its members
        (``highest``, ``records_at_risk`` and ``average`` over the records), else ``None``.
    """

    uniqueness: PopulationUniqueness | None
    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: AttackerRisk
    household_journalist: AttackerRisk | None = None

    def __repr__(self) -> str:
        chosen = [] if self.uniqueness is None else [repr(self.uniqueness)]
        return one_line("PopulationRisk", None, f"prosecutor highest {self.prosecutor.highest:.4g}",
                        f"journalist average {self.journalist.average:.4g}",
                        f"marketer {self.marketer.average:.4g}", *chosen)

    def _repr_html_(self) -> str:
        table = pd.DataFrame([{"attacker": a.model, "F from": a.basis, "highest": a.highest,
                               "records at risk": a.records_at_risk, "average": a.average}
                              for a in (self.prosecutor, self.journalist, self.marketer)])
        html = result_html("Attacker models", None, [f"threshold {self.prosecutor.threshold:g}"], table)
        return html + (self.uniqueness._repr_html_() if self.uniqueness is not None else "")

    def to_dict(self) -> dict:
        out: dict = {"prosecutor_risk": self.prosecutor.to_dict(), "journalist_risk": self.journalist.to_dict(),
                     "marketer_risk": self.marketer.to_dict()}
        if self.uniqueness is not None:
            out["population_uniqueness"] = self.uniqueness.to_dict()
        if self.household_journalist is not None:
            out["household_journalist_risk"] = self.household_journalist.to_dict()
        return out


@checked
def population_risk(frame: Table | pd.DataFrame, keys: list[str], *, threshold: Fraction = 0.1,
                    sampling_fraction: SamplingFraction | None = None, population: Count | None = None,
                    population_file: Table | pd.DataFrame | PopulationFile | None = None, method: RiskMethod = "approx",
                    replicates: Replicates = 1000, seed: Seed = 0, households: np.ndarray | None = None,
                    household_method: HouseholdMethod = "product") -> PopulationRisk:
    """Population uniqueness and attacker risks of ``frame``'s ``keys`` (module docstring).

    ``population_file`` is the intruder's file when it is the population: the journalist and
    marketer then use its exact class sizes. Otherwise, with ``sampling_fraction`` or
    ``population``, they use the superpopulation model; with neither, the release is the
    population (ARX's default). ``households`` (household numbers 0..H−1 of the records) with a
    population file adds the household journalist risk (``household_method`` as
    ``household_risk``)."""
    table = as_table(frame)
    require_columns(table, keys)
    sizes, big_f = _class_sizes(table, keys, population_file)
    uniqueness = None
    model_risk = None
    if sampling_fraction is not None or population is not None:
        uniqueness = population_uniqueness(sizes, sampling_fraction=sampling_fraction, population=population,
                                           replicates=replicates, seed=seed)
        if big_f is None:
            big_n = resolve_population(int(sizes.sum()), sampling_fraction, population)
            present = np.flatnonzero(np.bincount(sizes)).astype(float)   # the risk depends on f only
            by_size = np.zeros(int(present[-1]) + 1)
            by_size[present.astype(np.int64)] = individual_risk(present, present * big_n / sizes.sum(), method)
            model_risk = by_size[sizes]
    prosecutor, journalist, marketer = attacker_risks(sizes, big_f, threshold, model_risk)
    household = None
    if households is not None and big_f is not None:
        record = household_risk(1.0 / big_f[release_classes(table.frame, keys).inverse], households,
                                household_method)
        household = AttackerRisk("household journalist", "population_file", float(record.max()),
                                 float((record > threshold).mean()), float(record.mean()), float(record.min()),
                                 threshold)
    return PopulationRisk(uniqueness, prosecutor, journalist, marketer, household)


def _class_sizes(table: Table, keys: list[str],
                 population_file: Table | pd.DataFrame | PopulationFile | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Sample size of each key class and, with a population file, its population size
    (attack.risk.population_file: in memory or in chunks)."""
    if population_file is None:
        return release_classes(table.frame, keys).sizes, None
    return population_class_sizes(table, keys, population_file)
