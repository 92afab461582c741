"""A parametric-bootstrap interval for the number of population uniques under Pitman's model
(docs/method/population-uniqueness.md, "Interval").

Under Pitman's model the population is a Chinese restaurant process with parameters θ, α and
the sample its first ``n`` units (the model is exchangeable), so given the sample the rest of
the population is the process continued from the sample's state: ``K`` classes of which ``S``
are singletons. Each further unit opens a new class with probability ``(θ + Kα)/(θ + t)``,
joins a singleton with ``S(1 − α)/(θ + t)``, else joins a larger class; only ``K`` and ``S``
matter for the uniques. A replicate draws θ*, α* from the normal approximation of their
maximum-likelihood estimate (covariance the inverse observed information) and runs the process
from ``n`` to ``N`` units in blocks of 2 % of the units seated so far (binomial counts per
block, the probabilities held within a block); its ``S`` at ``N`` is a draw of the population
uniques. All replicates run at once (numpy vectors), seeded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attack.report.notebook import fields_html

#: Units added per block, as a share of the units seated so far.
BLOCK_SHARE = 0.02


@dataclass(frozen=True)
class UniquesInterval:
    """Bootstrap interval for the number of population uniques.

    Attributes
    ----------
    model:
        The model whose fit generates the replicates (``pitman``).
    level:
        Coverage probability of the interval (e.g. 0.95).
    lower, upper:
        Quantiles ``(1 ± level)/2`` of the replicates' population uniques.
    median:
        Their median.
    replicates, seed:
        Number of replicates and the seed.
    """

    model: str
    level: float
    lower: float
    upper: float
    median: float
    replicates: int
    seed: int

    def _repr_html_(self) -> str:
        return fields_html("Population uniques: bootstrap interval", self.to_dict())

    def to_dict(self) -> dict:
        return {"model": self.model, "level": self.level, "lower": self.lower, "upper": self.upper,
                "median": self.median, "replicates": self.replicates, "seed": self.seed}


def pitman_uniques_draws(theta: float, alpha: float, information: np.ndarray, records: int, classes: int,
                         sample_uniques: int, population: int, replicates: int,
                         rng: np.random.Generator) -> np.ndarray:
    """Population uniques of ``replicates`` continuations of the sample under Pitman's model."""
    mean = np.array([theta, alpha], dtype=float)
    try:
        cov = np.linalg.inv(information)
        ok = bool(np.all(np.isfinite(cov)) and np.all(np.linalg.eigvalsh((cov + cov.T) / 2) >= 0))
    except np.linalg.LinAlgError:
        ok = False
    params = (rng.multivariate_normal(mean, (cov + cov.T) / 2, size=replicates, method="cholesky")
              if ok else np.tile(mean, (replicates, 1)))
    a = np.clip(params[:, 1], 0.0, 1.0 - 1e-9)
    t = np.maximum(params[:, 0], -a + 1e-9)
    k = np.full(replicates, float(classes))
    s = np.full(replicates, float(sample_uniques))
    seated = int(records)
    one_minus_a = 1.0 - a
    while seated < population:
        block = min(population - seated, max(1, int(np.ceil(BLOCK_SHARE * seated))))
        denominator = t + seated
        p_new = np.minimum((t + k * a) / denominator, 1.0)
        rest = np.minimum(s * one_minus_a / denominator / np.maximum(1.0 - p_new, 1e-300), 1.0)
        opened = rng.binomial(block, p_new)
        joined = np.minimum(rng.binomial(block - opened, rest), s)
        k += opened
        s += opened - joined
        seated += block
    return s


def interval_of(draws: np.ndarray, level: float, seed: int) -> UniquesInterval:
    lower, median, upper = np.quantile(draws, [(1 - level) / 2, 0.5, (1 + level) / 2])
    return UniquesInterval("pitman", level, float(lower), float(upper), float(median), int(draws.size), seed)
