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

from attack.errors import InputError
from attack.io.readers import Table, as_table, require_columns
from attack.report.notebook import one_line, result_html
from attack.risk.attackers import AttackerRisk, attacker_risks
from attack.risk.individual import RiskMethod, individual_risk
from attack.risk.population_uniqueness import (
    PopulationUniqueness,
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
    """

    uniqueness: PopulationUniqueness | None
    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: AttackerRisk

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
        return out


def population_risk(frame: Table | pd.DataFrame, keys: list[str], *, threshold: float = 0.1,
                    sampling_fraction: float | None = None, population: int | None = None,
                    population_file: Table | pd.DataFrame | None = None, method: RiskMethod = "approx",
                    replicates: int = 1000, seed: int = 0) -> PopulationRisk:
    """Population uniqueness and attacker risks of ``frame``'s ``keys`` (module docstring).

    ``population_file`` is the intruder's file when it is the population: the journalist and
    marketer then use its exact class sizes. Otherwise, with ``sampling_fraction`` or
    ``population``, they use the superpopulation model; with neither, the release is the
    population (ARX's default)."""
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
    return PopulationRisk(uniqueness, prosecutor, journalist, marketer)


def _class_sizes(table: Table, keys: list[str],
                 population_file: Table | pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Sample size of each key class and, with a population file, its population size."""
    n = len(table.frame)
    if population_file is None:
        return np.unique(_packed_rows([table.frame], keys), return_counts=True)[1].astype(np.int64), None
    pop = as_table(population_file)
    require_columns(pop, keys)
    classes = np.unique(_packed_rows([table.frame, pop.frame], keys), return_inverse=True)[1].reshape(-1)
    groups = int(classes.max()) + 1 if classes.size else 0
    f = np.bincount(classes[:n], minlength=groups)
    big_f = np.bincount(classes[n:], minlength=groups)
    short = (f > 0) & (big_f < f)
    if short.any():
        row = int(np.flatnonzero(short[classes[:n]])[0]) + 1
        raise InputError("the population file holds fewer units than the release in this record's key class "
                         "(the population must contain every released record)", file=table.source, row=row)
    seen = f > 0
    return f[seen].astype(np.int64), big_f[seen].astype(np.int64)


def _packed_rows(frames: list[pd.DataFrame], keys: list[str]) -> np.ndarray:
    """One integer per row of the frames stacked that is equal for equal key combinations (a
    missing value being one more value): the keys' codes packed in mixed radix, or the group
    number when their ranges do not fit 62 bits."""
    columns = [_codes(frames[0][key] if len(frames) == 1 else pd.concat([f[key] for f in frames], ignore_index=True))
               for key in keys]
    if float(np.prod([float(size) for _, size in columns])) < 2.0**62:
        packed = np.zeros(columns[0][0].size if columns else 0, dtype=np.int64)
        for codes, size in columns:
            packed = packed * size + codes
        return packed
    return pd.DataFrame({j: c for j, (c, _) in enumerate(columns)}).groupby(
        list(range(len(columns))), sort=False).ngroup().to_numpy()


def _codes(values: pd.Series) -> tuple[np.ndarray, int]:
    """Codes 0 (missing), 1, 2, … of a key column and their number: integer columns of a
    moderate range by their offset from the minimum, categoricals by their codes, any other
    column by ``pd.factorize``."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy().astype(np.int64) + 1, len(values.cat.categories) + 1
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "iu" and len(values):
        array = values.to_numpy()
        low, high = int(array.min()), int(array.max())
        if high - low <= max(len(array), 1 << 16):
            return array.astype(np.int64) - low + 1, high - low + 2
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(np.int64) + 1, len(uniques) + 1
