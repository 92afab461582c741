"""Population uniqueness equals ARX's (Pitman, Zayatz, SNB, Dankar's choice) on the golden
histograms of tests/arx_golden.py (their provenance is in its docstring), and models without
an estimate say so."""

import math

import numpy as np
import pytest
from arx_golden import GOLDEN_HISTOGRAMS, GOLDEN_LARGE

import attack
from attack.risk.population_models import ClassSizes, pitman, snb, zayatz
from attack.risk.population_uniqueness import population_uniqueness


def _sizes(histogram: dict[int, int]) -> np.ndarray:
    return np.repeat(np.array(list(histogram)), np.array(list(histogram.values())))


def _same(ours: float, arx: float) -> bool:
    if math.isnan(arx):
        return math.isnan(ours)
    return abs(ours - arx) <= 1e-6 * abs(arx)


def test_the_golden_set_covers_every_choice_and_failures():
    models = {row[-1] for row in GOLDEN_HISTOGRAMS}
    assert models == {"pitman", "zayatz", "snb"}
    assert any(math.isnan(row[3]) for row in GOLDEN_HISTOGRAMS) and any(math.isnan(row[5]) for row in GOLDEN_HISTOGRAMS)
    assert {row[0] for row in GOLDEN_HISTOGRAMS} == {0.01, 0.05, 0.1, 0.2, 0.5, 0.9}


@pytest.mark.parametrize("row", GOLDEN_HISTOGRAMS + GOLDEN_LARGE, ids=lambda r: f"pi{r[0]}-{len(r[1])}sizes-{r[-1]}")
def test_each_model_and_dankars_choice_equal_arx(row):
    fraction, histogram, population, arx_pitman, arx_zayatz, arx_snb, arx_dankar, arx_model = row
    sizes = _sizes(histogram)
    hist = ClassSizes.of(sizes)
    result = population_uniqueness(sizes, sampling_fraction=fraction, replicates=0)
    assert result.population == population
    assert _same(pitman(hist, population).uniques, arx_pitman)
    assert _same(zayatz(hist, population).uniques, arx_zayatz)
    assert _same(snb(hist, population).uniques, arx_snb)
    assert result.chosen == arx_model
    assert _same(result.uniques, arx_dankar)
    assert result.share == pytest.approx(arx_dankar / population, rel=1e-6)
    for estimate, arx in zip(result.estimates, (arx_pitman, arx_zayatz, arx_snb), strict=True):
        assert (estimate.uniques is None) == math.isnan(arx)          # never a silent 0
        assert (estimate.status == "estimated") == (not math.isnan(arx))


def test_a_model_without_estimate_is_reported_with_its_status_not_as_zero():
    result = population_uniqueness(_sizes({1: 50, 2: 30, 3: 10, 5: 4, 10: 2}), sampling_fraction=0.1, replicates=10)
    document = result.to_dict()
    assert document["models"]["snb"]["status"] == "not_converged" and document["models"]["snb"]["uniques"] is None
    assert document["models"]["pitman"]["status"] == "out_of_range"
    assert document["dankar"]["model"] == "zayatz"           # Dankar's fallback, as ARX
    assert document["interval"] is None and "Pitman" in document["interval_status"]


def test_no_sample_uniques_means_no_population_uniques():
    result = population_uniqueness(np.array([2, 3, 3, 5]), sampling_fraction=0.5)
    assert result.uniques == 0.0 and result.chosen == "dankar"
    assert all(e.status == "no_sample_uniques" for e in result.estimates)


def test_population_size_and_fraction_are_one_or_the_other():
    sizes = _sizes({1: 500, 2: 30, 3: 10, 5: 4, 10: 2})
    with pytest.raises(attack.InputError, match="either"):
        population_uniqueness(sizes)
    with pytest.raises(attack.InputError, match="smaller than the sample"):
        population_uniqueness(sizes, population=5)
    assert population_uniqueness(sizes, population=63000, replicates=0).population == 63000


@pytest.mark.parametrize(("setting", "value"), [
    ("sampling_fraction", 1.5), ("population", 0), ("replicates", -1), ("level", 1.0), ("seed", -1)])
def test_a_setting_outside_its_rule_is_refused_by_name(setting, value):
    with pytest.raises(attack.InputError) as caught:
        population_uniqueness(np.array([1, 1, 2]), **{"sampling_fraction": 0.5, setting: value})
    assert caught.value.field == setting
