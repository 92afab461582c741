"""Frequency-based disclosure risk of categorical keys, as sdcMicro and μ-Argus compute it
(docs/method/frequency-risk.md): sample and population frequencies, individual risk, household
risk, global risk, μ-Argus's threshold, k-anonymity, l-diversity and SUDA.

``frequency_risk`` is the function behind ``attack risk``: it computes the key cells' frequencies
and individual risk (the core every measure reads) and then runs every registered measure
(``attack.risk.measures``: household risk, l-diversity, SUDA, the attacker models, and any
measure added as a module there). Its ``FrequencyRisk`` holds the record-level figures (written
only on request: they point at the riskiest records), one section per measure, and its
``to_dict`` the aggregates for JSON and HTML.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.errors import InputError
from attack.io.columns import numeric_column, weight_plausibility
from attack.io.notices import gathered
from attack.io.readers import Table, as_table, require_columns
from attack.io.rules import Count, Fraction, Seed, Share, checked
from attack.report.notebook import one_line, result_html
from attack.risk.frequencies import key_codes, key_frequencies
from attack.risk.individual import HouseholdMethod, RiskMethod, individual_risk, risk_threshold
from attack.risk.key_cells import LDiversity, category_codes
from attack.risk.measures import MEASURES, Cells, FrequencyMeasure, quantiles
from attack.risk.population_file import PopulationFile
from attack.risk.population_risk import PopulationRisk
from attack.risk.population_uniqueness import Replicates, SamplingFraction
from attack.risk.release_context import ReleaseContext
from attack.risk.suda import Suda

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
        ``dis_fraction``, ... in the order of ``frequency_risk``'s keywords (``options`` when given).
    fk, big_fk:
        Per record the sample frequency of its key cell and the sum of the cell's sampling weights
        (``F_k = f_k`` without weights); both with sdcMicro's treatment of missing keys.
    risk:
        Individual risk per record (``1/f_k`` without weights).
    sections:
        Measure name -> its section (``attack.risk.measures``), for the measures that ran:
        ``household_risk``, ``suda``, ``l_diversity`` and ``population`` read them.
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
    sections: Mapping[str, Any] = field(default_factory=dict, repr=False)
    context: ReleaseContext | None = None

    @property
    def household_risk(self) -> np.ndarray | None:
        """Per record the risk that someone of its household is re-identified (``None`` without households)."""
        return self.sections.get("household")

    @property
    def suda(self) -> Suda | None:
        """SUDA scores (``None`` when not computed)."""
        return self.sections.get("suda")

    @property
    def l_diversity(self) -> LDiversity | None:
        """Distinct sensitive values per key cell (``None`` without a sensitive variable)."""
        return self.sections.get("l_diversity")

    @property
    def population(self) -> PopulationRisk | None:
        """Population uniqueness (with a sampling fraction or population size) and the
        prosecutor, journalist and marketer risks (docs/method/population-uniqueness.md)."""
        return self.sections.get("population")

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
                "quantiles": quantiles(risk),
                "threshold_for_max_global_risk": risk_threshold(risk, self.settings["max_global_risk"])
                if self.n else None,
            },
        }
        for name, measure in self._measures():
            out.update(measure.entries(self.sections[name]))
        if self.context is not None:
            out["context"] = self.context.record() | {"measure": self.context_measure,
                                                      "measure_passed": self.context_measure is not None
                                                      and self.context_measure <= self.context.tau}
        return out

    def records(self) -> pd.DataFrame:
        """Record-level figures in the input's row order (confidential: they single out records)."""
        table = pd.DataFrame({"fk": self.fk, "Fk": self.big_fk, "risk": self.risk})
        for name, measure in self._measures():
            for column, values in measure.columns(self.sections[name]).items():
                table[column] = values
        return table

    def _measures(self) -> list[tuple[str, type[FrequencyMeasure]]]:
        """The measures that ran, in their order."""
        return [(name, measure) for name, measure in MEASURES.items() if name in self.sections]


def _outlying(risk: np.ndarray) -> int:
    """Records with risk above ``median + 3·MAD`` and above 0.1, the count sdcMicro prints as
    "obs. with higher risk as the main part" (MAD scaled by 1.4826 as R's ``mad``)."""
    if not risk.size:
        return 0
    median = np.median(risk)
    mad = 1.4826 * np.median(np.abs(risk - median))
    return int(((risk > median + 3 * mad) & (risk > 0.1)).sum())


@gathered
@checked
def frequency_risk(
    frame: Table | pd.DataFrame,
    keys: Sequence[str],
    weight: str | None = None,
    household: str | None = None,
    sensitive: str | None = None,
    *,
    alpha: Fraction = 1.0,
    method: RiskMethod = "approx",
    household_method: HouseholdMethod = "product",
    threshold: Fraction = 0.1,
    k: Count = 3,
    max_global_risk: Share = 0.01,
    suda: bool = True,
    dis_fraction: Share = 0.01,
    sampling_fraction: SamplingFraction | None = None,
    population: Count | None = None,
    population_file: Table | pd.DataFrame | PopulationFile | None = None,
    bootstrap: Replicates = 1000,
    seed: Seed = 0,
    context: ReleaseContext | None = None,
    check_keys: bool = True,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> FrequencyRisk:
    """Frequency risk of the categorical ``keys`` of ``frame`` (docs/method/frequency-risk.md).

    Parameters
    ----------
    frame, keys:
        The microdata, one row per record, and its categorical key variables (quasi-identifiers).
    weight, household, sensitive:
        The sampling weight (without it the file is taken as the population: risk ``1/f_k``),
        the household (cluster) identifier (adds the household risk) and the sensitive variable
        (adds its l-diversity).
    alpha:
        Weight of a combination with missing keys in the frequencies of those it matches
        (sdcMicro's ``alpha``, default 1: a missing value matches any value).
    method, household_method:
        Individual risk ``approx`` (sdcMicro's default) or ``exact``; household risk ``product``
        (``1 − Π(1 − r)``) or ``inclusion-exclusion`` (same probability, Boole's form).
    threshold, k:
        The verdict: no individual risk above ``threshold``, no key cell of fewer than ``k``
        records (the counts for 2, 3 and 5 are always given).
    max_global_risk:
        Target re-identification rate ξ for μ-Argus's threshold ``r*``.
    suda, dis_fraction:
        Compute SUDA and DIS-SUDA scores; the sampling fraction of the DIS-SUDA calibration.
    sampling_fraction, population:
        The release is a simple random sample with this sampling fraction, or of a population
        of this size (at most one): adds the population-uniqueness models and makes the
        journalist and marketer risks those of the superpopulation model.
    population_file:
        The intruder's file when it is the population: exact journalist and marketer risks
        (``attack.PopulationFile``: a Parquet file read in chunks, only its key columns).
    bootstrap, seed:
        Replicates of the population-uniqueness interval (0: none) and their seed.
    context:
        Release context (``attack.release_context``): its τ replaces ``threshold``, its attacker
        model's measure enters the verdict.
    check_keys:
        Refuse a key missing in every row (it would match every value and lower the counts) and
        warn of a key with one value; off for keys the tool derives itself.
    options:
        Options of measures added as modules of ``attack.risk.measures`` (measure name -> its
        options), recorded under ``settings["options"]``; the built-in measures take the keywords.
    """
    keywords = {"alpha": alpha, "method": method, "household_method": household_method,
                "threshold": context.tau if context is not None else threshold, "k": k, "max_global_risk": max_global_risk,
                "suda": suda, "dis_fraction": dis_fraction, "sampling_fraction": sampling_fraction,
                "population": population, "population_file": population_file, "bootstrap": bootstrap, "seed": seed}
    _check(list(keys), weight, household, sensitive)
    cells = _cells(frame, list(keys), weight, household, sensitive, keywords, context, check_keys)
    chosen = _measure_options(keywords, options or {})
    core = {"alpha": alpha, "method": method if cells.weights is not None else "population",
            "threshold": cells.threshold, "k": k, "max_global_risk": max_global_risk}
    sections, settings = _measured(cells, chosen, core, list(keywords), options)
    return FrequencyRisk(cells.keys, weight, household, sensitive, settings, cells.fk, cells.big_fk, cells.risk,
                         sections, context)


def _measured(cells: Cells, chosen: Mapping[str, Any], core: Mapping[str, Any], order: list[str],
              options: Mapping[str, Mapping[str, Any]] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run every measure in its order with its options: the sections of those that apply, and
    the settings (the core's and the measures') in the order of ``frequency_risk``'s keywords,
    then those of measures added later, then the ``options`` as given."""
    settings, sections = dict(core), {}
    for name, measure in MEASURES.items():
        settings.update(measure.settings(chosen[name], cells))
        section = measure.compute(chosen[name], cells)
        if section is not None:
            sections[name] = section
    ordered = {**{name: settings[name] for name in order if name in settings}, **settings}
    if options:
        ordered["options"] = {name: dict(given) for name, given in options.items()}
    return sections, ordered


def _check(keys: list[str], weight: str | None, household: str | None, sensitive: str | None) -> None:
    """Refuse key and role columns that cannot hold whatever the file (each setting's range is
    the rule in ``frequency_risk``'s signature)."""
    if len(set(keys)) != len(keys):
        raise InputError("a key variable is listed twice")
    for role, column in (("weight", weight), ("household", household), ("sensitive", sensitive)):
        if column is not None and column in keys:
            raise InputError(f"the {role} variable {column!r} cannot also be a key")


def _cells(frame: Table | pd.DataFrame, keys: list[str], weight: str | None, household: str | None,
           sensitive: str | None, keywords: Mapping[str, Any], context: ReleaseContext | None,
           check_keys: bool) -> Cells:
    """The core every measure reads: key codes, weights, frequencies, individual risk and the
    households' numbers."""
    table = as_table(frame)
    require_columns(table, keys)
    codes = key_codes(table, keys, informative=check_keys)
    weights = _weights(table, weight)
    fk, big_fk = key_frequencies(codes, weights, keywords["alpha"])
    risk = individual_risk(fk, None if weights is None else big_fk, keywords["method"])
    ids = None
    if household is not None:
        require_columns(table, [household])
        ids = category_codes(table.frame, household, warn=False)[0]
        if (ids < 0).any():
            raise InputError("the household identifier is missing", file=table.source,
                             column=household, row=int(np.flatnonzero(ids < 0)[0]) + 1)
    return Cells(table, tuple(keys), codes, weights, fk, big_fk, risk, keywords["method"], keywords["threshold"],
                 household, ids, sensitive, context)


def _measure_options(keywords: Mapping[str, Any], given: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Each measure's options: the keywords named like its fields, then its entry of ``given``."""
    for name in given:
        MEASURES.get(name, field="options")
    chosen = {}
    for name, measure in MEASURES.items():
        accepted = inspect.signature(measure.options).parameters
        picked = {option: value for option, value in keywords.items() if option in accepted}
        try:
            chosen[name] = measure.options(**{**picked, **given.get(name, {})})
        except (TypeError, ValueError) as exc:
            raise InputError(f"options of the frequency-risk measure {name}: {exc}", field="options") from None
    return chosen


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
