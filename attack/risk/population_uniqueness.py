"""From the sample to the population: the number and share of population uniques by Pitman's,
Zayatz's and the SNB model, Dankar et al.'s choice among them as ARX makes it, and a
bootstrap interval (docs/method/population-uniqueness.md).

``population_uniqueness`` takes the class sizes of an unweighted sample and the population size
(or the sampling fraction) and returns a ``PopulationUniqueness``. A model that gives no
estimate (its solver does not converge, or its estimate falls outside [0, N]) is reported with
its status, never as 0, and Dankar's rule then falls back as ARX's does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import numpy as np
import pandas as pd
from annotated_types import Ge, Gt, Le

from attack.errors import InputError
from attack.io.rules import Count, Seed, Share, checked
from attack.report.notebook import fields_html, one_line, result_html
from attack.risk.population_interval import UniquesInterval, interval_of, pitman_uniques_draws
from attack.risk.population_models import (
    ClassSizes,
    ModelFit,
    pitman,
    pitman_information,
    population_size,
    snb,
    zayatz,
)

MODELS = ("pitman", "zayatz", "snb")
#: Dankar et al.'s threshold on the sampling fraction: Pitman's model at or below it.
DANKAR_FRACTION = 0.1

#: A sample's share of its population: more than none, at most all of it.
SamplingFraction = Annotated[float, Gt(0), Le(1)]
#: Bootstrap replicates of an interval (0: no interval).
Replicates = Annotated[int, Ge(0)]


@dataclass(frozen=True)
class UniquenessEstimate:
    """One model's estimate of the population uniques.

    Attributes
    ----------
    model:
        ``pitman``, ``zayatz`` or ``snb``.
    status:
        ``estimated``; ``not_converged`` (the solver found no root); ``out_of_range`` (the
        fitted model gives no number of uniques in [0, N]); ``no_sample_uniques`` (0 by
        definition, as ARX).
    uniques:
        Estimated number of population uniques (``None`` unless estimated or 0 by definition).
    share:
        ``uniques / N`` (ARX's "fraction of unique tuples").
    parameters:
        The fitted parameters (θ, α for Pitman; α, β and the classes K for SNB).
    """

    model: str
    status: str
    uniques: float | None
    share: float | None
    parameters: dict[str, float]

    def _repr_html_(self) -> str:
        return fields_html(f"Population uniques: {self.model}", self.to_dict())

    def to_dict(self) -> dict:
        return {"model": self.model, "status": self.status, "uniques": self.uniques, "share": self.share,
                "parameters": {k: _finite(v) for k, v in self.parameters.items()}}


@dataclass(frozen=True)
class PopulationUniqueness:
    """Population uniqueness of a sample's key classes.

    Attributes
    ----------
    records, classes, sample_uniques:
        Sample size n, key classes and classes of one record.
    population:
        Population size N (``round(n/π)`` when a sampling fraction was given, as ARX).
    estimates:
        Pitman's, Zayatz's and the SNB model's estimates.
    chosen:
        The model Dankar et al.'s rule selects (``none`` when no estimate is available,
        ``dankar`` when the sample has no uniques).
    uniques:
        The chosen model's number of population uniques (``None`` when none).
    interval:
        Bootstrap interval under Pitman's model (``None`` when not asked for or Pitman's model
        has no estimate; ``interval_status`` says which).
    """

    records: int
    classes: int
    sample_uniques: int
    population: int
    estimates: tuple[UniquenessEstimate, ...]
    chosen: str
    uniques: float | None
    interval: UniquesInterval | None
    interval_status: str

    @property
    def sampling_fraction(self) -> float:
        return self.records / self.population

    @property
    def share(self) -> float | None:
        return None if self.uniques is None else self.uniques / self.population

    def estimate(self, model: str) -> UniquenessEstimate:
        return next(e for e in self.estimates if e.model == model)

    def _facts(self) -> list[str]:
        chosen = "no estimate" if self.uniques is None else f"{self.uniques:.1f} population uniques ({self.chosen})"
        return [f"n = {self.records}", f"N = {self.population}", f"{self.sample_uniques} sample uniques", chosen]

    def __repr__(self) -> str:
        return one_line("PopulationUniqueness", None, *self._facts())

    def _repr_html_(self) -> str:
        table = pd.DataFrame([{"model": e.model, "status": e.status, "uniques": e.uniques, "share": e.share}
                              for e in self.estimates])
        return result_html("Population uniqueness", None, self._facts(), table)

    def to_dict(self) -> dict:
        return {"records": self.records, "population": self.population,
                "sampling_fraction": self.sampling_fraction, "classes": self.classes,
                "sample_uniques": self.sample_uniques,
                "models": {e.model: e.to_dict() for e in self.estimates},
                "dankar": {"model": self.chosen, "uniques": self.uniques, "share": self.share,
                           "rule": f"Pitman at sampling fraction <= {DANKAR_FRACTION:g} (else Zayatz); "
                                   "above it the smaller of Zayatz and SNB (Zayatz when SNB has none), as ARX"},
                "interval": None if self.interval is None else self.interval.to_dict(),
                "interval_status": self.interval_status}


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def resolve_population(records: int, sampling_fraction: float | None, population: int | None) -> int:
    """The population size from exactly one of a sampling fraction and a population size (each
    in the range its rule ``SamplingFraction`` or ``Count`` states)."""
    if (sampling_fraction is None) == (population is None):
        raise InputError("give either the sampling fraction or the population size")
    if sampling_fraction is not None:
        return population_size(records, sampling_fraction)
    assert population is not None
    if population < records:
        raise InputError(f"the population ({population}) is smaller than the sample ({records} records)")
    return int(population)


@checked
def population_uniqueness(class_sizes: np.ndarray, *, sampling_fraction: SamplingFraction | None = None,
                          population: Count | None = None, replicates: Replicates = 1000, level: Share = 0.95,
                          seed: Seed = 0) -> PopulationUniqueness:
    """Population uniques of a sample with the given key-class sizes (one entry per class).

    Parameters
    ----------
    class_sizes:
        Number of sample records in each key class.
    sampling_fraction, population:
        Exactly one: the sampling fraction π (the population is ``round(n/π)``, as ARX) or the
        population size N.
    replicates:
        Bootstrap replicates of the interval (0: no interval).
    level:
        Coverage of the interval.
    seed:
        Seed of the bootstrap.
    """
    sizes = np.asarray(class_sizes, dtype=np.int64)
    if sizes.size == 0 or (sizes < 1).any():
        raise InputError("population uniqueness needs a non-empty sample with classes of at least one record")
    hist = ClassSizes.of(sizes)
    n = hist.records
    big_n = resolve_population(n, sampling_fraction, population)
    c1 = hist.of_size(1)
    if c1 == 0:
        estimates = tuple(UniquenessEstimate(m, "no_sample_uniques", 0.0, 0.0, {}) for m in MODELS)
        return PopulationUniqueness(n, hist.classes, 0, big_n, estimates, "dankar", 0.0, None,
                                    "no sample uniques: no population uniques by every model")
    fits = {"pitman": pitman(hist, big_n), "zayatz": zayatz(hist, big_n), "snb": snb(hist, big_n)}
    estimates = tuple(_estimate(m, fits[m], big_n) for m in MODELS)
    chosen, uniques = _dankar({e.model: e.uniques for e in estimates}, n / big_n)
    interval, status = None, "not asked for"
    if replicates:
        fit = fits["pitman"]
        if estimates[0].uniques is None:
            status = "not available: Pitman's model has no estimate"
        else:
            theta, alpha = fit.parameters["theta"], fit.parameters["alpha"]
            draws = pitman_uniques_draws(theta, alpha, pitman_information(hist, theta, alpha), n, hist.classes,
                                         c1, big_n, replicates, np.random.default_rng(seed))
            interval, status = interval_of(draws, level, seed), "estimated"
    return PopulationUniqueness(n, hist.classes, c1, big_n, estimates, chosen, uniques, interval, status)


def _estimate(model: str, fit: ModelFit, population: int) -> UniquenessEstimate:
    """ARX counts an estimate that is NaN or 0 as unavailable (``isValid``)."""
    if not fit.converged:
        return UniquenessEstimate(model, "not_converged", None, None, fit.parameters)
    if not np.isfinite(fit.uniques) or fit.uniques == 0.0 or not 0.0 <= fit.uniques <= population:
        return UniquenessEstimate(model, "out_of_range", None, None, fit.parameters)
    return UniquenessEstimate(model, "estimated", fit.uniques, fit.uniques / population, fit.parameters)


def _dankar(uniques: dict[str, float | None], fraction: float) -> tuple[str, float | None]:
    """Dankar et al.'s decision rule as ARX's ``getNumUniqueTuplesDankar`` applies it."""
    pit, zay, snb_ = uniques["pitman"], uniques["zayatz"], uniques["snb"]
    if fraction <= DANKAR_FRACTION:
        if pit is not None:
            return "pitman", pit
        return ("zayatz", zay) if zay is not None else ("none", None)
    if snb_ is not None:
        if zay is not None and zay < snb_:
            return "zayatz", zay
        return "snb", snb_
    return ("zayatz", zay) if zay is not None else ("none", None)
