"""The bootstrap interval of the population uniques covers the truth: a population drawn once
from a Chinese restaurant process (Pitman's model), 200 simple random samples of it, the
interval of each (100 replicates) holds the population's true number of uniques in at least
90 % of them."""

import numpy as np

from attack.risk.population_interval import pitman_uniques_draws
from attack.risk.population_uniqueness import population_uniqueness


def _pitman_population(units: int, theta: float, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Class label of each unit, seated one by one (Chinese restaurant process)."""
    labels = np.empty(units, dtype=np.int64)
    sizes = np.zeros(units)
    classes = 0
    for t in range(units):
        if rng.random() * (theta + t) < theta + alpha * classes:
            labels[t], classes = classes, classes + 1
        else:
            weights = sizes[:classes] - alpha
            labels[t] = int(np.searchsorted(np.cumsum(weights), rng.random() * weights.sum(), side="right"))
        sizes[labels[t]] += 1
    return labels


def test_the_interval_covers_the_true_population_uniques():
    rng = np.random.default_rng(46)
    population = _pitman_population(5000, 20.0, 0.7, rng)
    truth = int((np.bincount(population) == 1).sum())
    covered = estimated = 0
    for draw in range(200):
        sample = rng.choice(population, size=500, replace=False)
        result = population_uniqueness(np.unique(sample, return_counts=True)[1], population=5000,
                                       replicates=100, seed=draw)
        if result.interval is None:
            continue
        estimated += 1
        covered += result.interval.lower <= truth <= result.interval.upper
    assert estimated >= 195
    assert covered >= 0.9 * 200


def test_the_interval_is_seeded_and_ordered():
    sizes = np.array([1] * 300 + [2] * 60 + [3] * 20 + [5] * 8 + [12] * 2)
    a = population_uniqueness(sizes, sampling_fraction=0.05, replicates=300, seed=3).interval
    b = population_uniqueness(sizes, sampling_fraction=0.05, replicates=300, seed=3).interval
    assert a == b and a is not None
    assert a.lower <= a.median <= a.upper


def test_without_parameter_uncertainty_the_draws_follow_the_chain():
    """α = 0 (a Dirichlet process): the expected number of new classes among units n+1..N is
    Σ θ/(θ + t), and with θ small against n few of them stay alone."""
    draws = pitman_uniques_draws(5.0, 0.0, np.full((2, 2), np.inf), 1000, 10, 0, 2000, 400,
                                 np.random.default_rng(0))
    expected_new = sum(5.0 / (5.0 + t) for t in range(1000, 2000))
    assert draws.mean() <= expected_new + 0.5
    assert draws.mean() > 0.5 * expected_new - 0.5
