"""Frequency-based disclosure risk of categorical keys, as sdcMicro and μ-Argus compute it
(docs/method/frequency-risk.md): sample and population frequencies, individual risk, household
risk, global risk, μ-Argus's threshold, k-anonymity, l-diversity and SUDA.

``frequency_risk`` is the function behind ``attack risk``; its ``FrequencyRisk`` holds
the record-level figures (written only on request: they point at the riskiest records) and its
``to_dict`` the aggregates for JSON and HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.errors import InputError
from attack.io.columns import numeric_column, weight_plausibility
from attack.io.notices import gathered
from attack.io.readers import Table, as_table, require_columns
from attack.report.notebook import one_line, result_html
from attack.risk.frequencies import key_codes, key_frequencies
from attack.risk.individual import (
    HouseholdMethod,
    RiskMethod,
    household_risk,
    individual_risk,
    risk_threshold,
)
from attack.risk.key_cells import LDiversity, category_codes, l_diversity
from attack.risk.population_file import PopulationFile
from attack.risk.population_risk import PopulationRisk, population_risk
from attack.risk.release_context import ReleaseContext
from attack.risk.suda import Suda, suda_scores

#: k of the k-anonymity counts every result carries.
K_LEVELS = (2, 3, 5)


@dataclass(frozen=True)
class FrequencyRisk:
    """Frequency risk of a file's key variables.

    Attributes
    ----------
    keys, weight, household, sensitive:
        The variables used (``None`` when not given).
    settings:
        ``alpha``, ``method``, ``household_method``, ``threshold``, ``k``, ``max_global_risk``,
        ``dis_fraction``.
    fk, big_fk:
        Per record the sample frequency of its key cell and the sum of the cell's sampling weights
        (``F_k = f_k`` without weights); both with sdcMicro's treatment of missing keys.
    risk:
        Individual risk per record (``1/f_k`` without weights).
    household_risk:
        Per record the risk that someone of its household is re-identified (``None`` without households).
    suda:
        SUDA scores (``None`` when not computed).
    l_diversity:
        Distinct sensitive values per key cell (``None`` without a sensitive variable).
    population:
        Population uniqueness (with a sampling fraction or population size) and the
        prosecutor, journalist and marketer risks (docs/method/population-uniqueness.md).
    context:
        The release context whose τ is the threshold and whose attacker model's measure must
        stay at or below τ (docs/method/release-context.md).
    """

    keys: tuple[str, ...]
    weight: str | None
    household: str | None
    sensitive: str | None
    settings: dict
    fk: np.ndarray = field(repr=False)
    big_fk: np.ndarray = field(repr=False)
    risk: np.ndarray = field(repr=False)
    household_risk: np.ndarray | None = field(default=None, repr=False)
    suda: Suda | None = field(default=None, repr=False)
    l_diversity: LDiversity | None = field(default=None, repr=False)
    population: PopulationRisk | None = field(default=None, repr=False)
    context: ReleaseContext | None = None

    @property
    def n(self) -> int:
        return int(self.risk.size)

    @property
    def expected_reidentifications(self) -> float:
        """Sum of the individual risks (sdcMicro's ``global_risk_ER``)."""
        return float(np.nansum(self.risk))

    @property
    def global_risk(self) -> float | None:
        """Expected re-identifications per record, μ-Argus's re-identification rate ξ."""
        return self.expected_reidentifications / self.n if self.n else None

    @property
    def above_threshold(self) -> int:
        """Records whose individual risk exceeds ``settings["threshold"]``."""
        return int((self.risk > self.settings["threshold"]).sum())

    def k_violations(self, k: int) -> int:
        """Records whose key cell has fewer than ``k`` records (``f_k < k``)."""
        return int((self.fk < k).sum())

    @property
    def context_measure(self) -> float | None:
        """The release context's attacker measure: the prosecutor's highest risk (public-use),
        the journalist's or the marketer's average risk (``None`` without a context)."""
        if self.context is None or self.population is None:
            return None
        model = self.context.attacker_model
        attacker = getattr(self.population, model)
        return float(attacker.highest if model == "prosecutor" else attacker.average)

    @property
    def passed(self) -> bool:
        """True when no record's risk exceeds the threshold, every key cell reaches ``k`` and,
        with a release context, its attacker measure stays at or below τ."""
        measure = self.context_measure
        return (self.above_threshold == 0 and self.k_violations(self.settings["k"]) == 0
                and (measure is None or measure <= self.settings["threshold"]))

    def _facts(self) -> list[str]:
        k = self.settings["k"]
        return [f"{self.n} records", f"{self.above_threshold} with individual risk above {self.settings['threshold']:g}",
                f"{self.k_violations(k)} in key cells of fewer than {k}",
                f"global risk {self.global_risk:.4g}" if self.global_risk is not None else "no records"]

    def __repr__(self) -> str:
        return one_line("FrequencyRisk", self.passed, f"keys {', '.join(self.keys)}", *self._facts())

    def _repr_html_(self) -> str:
        table = pd.DataFrame({"k": list(K_LEVELS), "records violating k-anonymity": [self.k_violations(k) for k in K_LEVELS]})
        return result_html(f"Frequency risk of the keys {', '.join(self.keys)}", self.passed, self._facts(), table,
                           failing=[k == self.settings["k"] and v > 0 for k, v in zip(table["k"], table.iloc[:, 1], strict=True)])

    def to_dict(self) -> dict:
        """Aggregates only (no record-level values), JSON-ready and deterministic."""
        risk = self.risk
        out: dict = {
            "kind": "frequency_risk",
            "tool": f"attack {__version__}",
            "keys": list(self.keys),
            "weight": self.weight,
            "household": self.household,
            "sensitive": self.sensitive,
            "settings": dict(self.settings),
            "records": self.n,
            "passed": self.passed,
            "k_anonymity": {str(k): {"violating": self.k_violations(k)} for k in
                            sorted({*K_LEVELS, self.settings["k"]})},
            "sample_uniques": int((self.fk == 1).sum()),
            "individual_risk": {
                "expected_reidentifications": self.expected_reidentifications,
                "global_risk": self.global_risk,
                "global_risk_pct": None if self.global_risk is None else 100 * self.global_risk,
                "above_threshold": self.above_threshold,
                "higher_than_main_part": _outlying(risk),
                "max": float(risk.max()) if self.n else None,
                "quantiles": _quantiles(risk),
                "threshold_for_max_global_risk": risk_threshold(risk, self.settings["max_global_risk"])
                if self.n else None,
            },
        }
        if self.household_risk is not None:
            er = float(np.sum(self.household_risk))
            out["household_risk"] = {"expected_reidentifications": er, "global_risk": er / self.n,
                                     "global_risk_pct": 100 * er / self.n, "quantiles": _quantiles(self.household_risk)}
        if self.l_diversity is not None:
            out["l_diversity"] = self.l_diversity.to_dict()
        if self.suda is not None:
            out["suda"] = self.suda.to_dict()
        if self.population is not None:
            out.update(self.population.to_dict())
        if self.context is not None:
            out["context"] = self.context.record() | {"measure": self.context_measure,
                                                      "measure_passed": self.context_measure is not None
                                                      and self.context_measure <= self.context.tau}
        return out

    def records(self) -> pd.DataFrame:
        """Record-level figures in the input's row order (confidential: they single out records)."""
        table = pd.DataFrame({"fk": self.fk, "Fk": self.big_fk, "risk": self.risk})
        if self.household_risk is not None:
            table["household_risk"] = self.household_risk
        if self.l_diversity is not None:
            table["l_diversity"] = self.l_diversity.diversity
        if self.suda is not None:
            table["suda_score"] = self.suda.score
            table["dis_suda_score"] = self.suda.dis_score
            for j, key in enumerate(self.suda.keys):
                table[f"{key}_contribution"] = self.suda.contributions[:, j]
        return table


def _quantiles(values: np.ndarray) -> dict[str, float] | None:
    if not values.size:
        return None
    points = (0.5, 0.9, 0.99)
    return {str(p): float(q) for p, q in zip(points, np.quantile(values, points), strict=True)}


def _outlying(risk: np.ndarray) -> int:
    """Records with risk above ``median + 3·MAD`` and above 0.1, the count sdcMicro prints as
    "obs. with higher risk as the main part" (MAD scaled by 1.4826 as R's ``mad``)."""
    if not risk.size:
        return 0
    median = np.median(risk)
    mad = 1.4826 * np.median(np.abs(risk - median))
    return int(((risk > median + 3 * mad) & (risk > 0.1)).sum())


@gathered
def frequency_risk(
    frame: Table | pd.DataFrame,
    keys: Sequence[str],
    weight: str | None = None,
    household: str | None = None,
    sensitive: str | None = None,
    *,
    alpha: float = 1.0,
    method: RiskMethod = "approx",
    household_method: HouseholdMethod = "product",
    threshold: float = 0.1,
    k: int = 3,
    max_global_risk: float = 0.01,
    suda: bool = True,
    dis_fraction: float = 0.01,
    sampling_fraction: float | None = None,
    population: int | None = None,
    population_file: Table | pd.DataFrame | PopulationFile | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    context: ReleaseContext | None = None,
    check_keys: bool = True,
) -> FrequencyRisk:
    """Frequency risk of the categorical ``keys`` of ``frame`` (docs/method/frequency-risk.md).

    Parameters
    ----------
    frame:
        The microdata, one row per record.
    keys:
        Categorical key variables (quasi-identifiers).
    weight:
        Sampling weight column; without it the file is taken as the population (risk ``1/f_k``).
    household:
        Household (cluster) identifier; adds the household risk.
    sensitive:
        Sensitive variable for l-diversity.
    alpha:
        Weight of a combination with missing keys in the frequencies of those it matches
        (sdcMicro's ``alpha``, default 1: a missing value matches any value).
    method:
        Individual risk ``approx`` (sdcMicro's default) or ``exact``.
    household_method:
        ``product`` (``1 − Π(1 − r)``) or ``inclusion-exclusion`` (same probability, Boole's form).
    threshold:
        A record is at risk when its individual risk exceeds this.
    k:
        The k-anonymity level of the verdict (counts for 2, 3 and 5 are always given).
    max_global_risk:
        Target re-identification rate ξ for μ-Argus's threshold ``r*``.
    suda:
        Compute SUDA and DIS-SUDA scores.
    dis_fraction:
        Sampling fraction of the DIS-SUDA calibration.
    sampling_fraction, population:
        The release is a simple random sample with this sampling fraction, or of a population
        of this size (at most one): adds the population-uniqueness models and makes the
        journalist and marketer risks those of the superpopulation model.
    population_file:
        The intruder's file when it is the population: exact journalist and marketer risks
        (``attack.PopulationFile``: a Parquet file read in chunks, only its key columns).
    bootstrap:
        Replicates of the population-uniqueness interval (0: none).
    seed:
        Seed of the bootstrap.
    context:
        Release context (``attack.release_context``): its τ replaces ``threshold`` and its
        attacker model's measure enters the verdict.
    check_keys:
        Refuse a key missing in every row (a missing value matches every value, so it would
        lower the counts) and warn of a key with one value; off for keys the tool derives itself.
    """
    keys = list(keys)
    if context is not None:
        threshold = context.tau
    if len(set(keys)) != len(keys):
        raise InputError("a key variable is listed twice")
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if not 0.0 < max_global_risk < 1.0:
        raise InputError(f"max_global_risk must lie strictly between 0 and 1, got {max_global_risk}")
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"the risk threshold must lie in [0, 1], got {threshold}")
    for role, column in (("weight", weight), ("household", household), ("sensitive", sensitive)):
        if column is not None and column in keys:
            raise InputError(f"the {role} variable {column!r} cannot also be a key")
    table = as_table(frame)
    frame = table.frame
    require_columns(table, keys)
    codes = key_codes(table, keys, informative=check_keys)
    weights = _weights(table, weight)
    fk, big_fk = key_frequencies(codes, weights, alpha)
    risk = individual_risk(fk, None if weights is None else big_fk, method)
    hh = None
    ids = None
    if household is not None:
        require_columns(table, [household])
        ids = category_codes(frame, household, warn=False)[0]
        if (ids < 0).any():
            raise InputError("the household identifier is missing", file=table.source,
                             column=household, row=int(np.flatnonzero(ids < 0)[0]) + 1)
        hh = household_risk(risk, ids, household_method)
    if sensitive is not None:
        require_columns(table, [sensitive])
    if weights is not None and (sampling_fraction is not None or population is not None):
        raise InputError("give either sampling weights or a sampling fraction / population size, not both")
    if sampling_fraction is not None and population is not None:
        raise InputError("give either the sampling fraction or the population size, not both")
    pop = population_risk(table, keys, threshold=threshold, sampling_fraction=sampling_fraction,
                          population=population, population_file=population_file, method=method,
                          replicates=bootstrap, seed=seed, households=ids,
                          household_method=household_method)
    settings = {"alpha": alpha, "method": method if weights is not None else "population",
                "household_method": household_method if household is not None else None,
                "threshold": threshold, "k": k, "max_global_risk": max_global_risk,
                "dis_fraction": dis_fraction if suda else None, "sampling_fraction": sampling_fraction,
                "population": population, "population_file": population_file is not None,
                "bootstrap": bootstrap, "seed": seed}
    return FrequencyRisk(
        tuple(keys), weight, household, sensitive, settings, fk, big_fk, risk, hh,
        suda_scores(codes, tuple(keys), dis_fraction) if suda else None,
        l_diversity(frame, keys, sensitive, warn=False) if sensitive is not None else None, pop, context,
    )


def _weights(table: Table, weight: str | None) -> np.ndarray | None:
    if weight is None:
        return None
    require_columns(table, [weight])
    values = np.asarray(numeric_column(table, weight), dtype=float)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        raise InputError("sampling weights must be positive numbers", file=table.source,
                         column=weight, row=int(np.flatnonzero(bad)[0]) + 1)
    weight_plausibility(table.source, weight, values)
    return values
