"""Prosecutor, journalist and marketer risks equal ARX's RiskModelSampleSummary (golden values
of tests/arx_golden.py), with and without the population file."""

import numpy as np
import pandas as pd
import pytest
from arx_golden import GOLDEN_ATTACKERS

import attack
from attack.risk.population_risk import population_risk


def _files(case):
    sample = [(str(i % 7), str(i // 7)) for i, (f, _) in enumerate(case) for _ in range(f)]
    population = [(str(i % 7), str(i // 7)) for i, (_, big_f) in enumerate(case) for _ in range(big_f)]
    population += [("x", "y")] * 5                      # a class the release does not hold
    return pd.DataFrame(sample, columns=["k1", "k2"]), pd.DataFrame(population, columns=["k1", "k2"])


@pytest.mark.parametrize("case, threshold, with_population, arx", GOLDEN_ATTACKERS)
def test_attackers_equal_arx(case, threshold, with_population, arx):
    sample, population = _files(case)
    result = population_risk(sample, ["k1", "k2"], threshold=threshold,
                             population_file=population if with_population else None)
    p, j, m = result.prosecutor, result.journalist, result.marketer
    ours = [p.highest, p.records_at_risk, p.average, j.highest, j.records_at_risk, j.average, m.average]
    assert ours == pytest.approx(arx, rel=1e-12)
    assert j.basis == ("population_file" if with_population else "sample")


def test_the_model_journalist_is_the_expected_inverse_population_size():
    sizes = [1] * 300 + [2] * 60 + [3] * 20                       # classes of 1, 2 and 3 records
    sample = pd.DataFrame({"k": [f"c{i}" for i, f in enumerate(sizes) for _ in range(f)]})
    result = population_risk(sample, ["k"], sampling_fraction=0.5, replicates=0)
    # p = f/F = 1/2, q = p/(1-p) = 1: q·log(1/p), q - q²·log(1/p), p/(f - 1 + p) (sdcMicro's approx)
    risk = {1: np.log(2), 2: 1 - np.log(2), 3: 0.5 / (3 - 0.5)}
    n = 300 + 120 + 60
    assert result.journalist.basis == "population_model"
    assert result.journalist.highest == pytest.approx(max(risk.values()))
    assert result.marketer.average == pytest.approx((300 * risk[1] + 60 * 2 * risk[2] + 20 * 3 * risk[3]) / n)
    assert result.journalist.records_at_risk == pytest.approx((300 + 120 + 60) / n)   # every risk above 0.1


def test_a_population_file_missing_released_records_is_refused():
    sample = pd.DataFrame({"k": ["a", "a", "b"]})
    with pytest.raises(attack.InputError, match="fewer units than the release"):
        population_risk(sample, ["k"], population_file=pd.DataFrame({"k": ["a", "b", "b"]}))
