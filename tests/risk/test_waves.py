"""The panel intruder after 1, 2, … waves (docs/method/structure.md): the done-when check on a
generated panel, and the hand-computed fixture of tests/linkage/test_panel.py end to end."""

from __future__ import annotations

import pandas as pd
import pytest

from attack.datasets.structured import make_panel
from attack.protect.consistent import panel_noise
from attack.risk.mass import mass_attack

TAU = 0.5


@pytest.fixture(scope="module")
def panel():
    # 2,000 units over 5 waves, common growth (a unit's own growth 1 %), no entries or exits
    return make_panel(2000, 5, seed=1, growth_sd=0.01, exit_rate=0.0, entry_rate=0.0)


def _rates(panel, release, trajectory=False):
    result = mass_attack(panel, release, keys=["turnover:metric", "employees:metric"], blocks=["nace:prefix=2"],
                         external_id="unit_id", release_id="unit_id", tau=TAU, targets=["turnover"], wave="wave",
                         trajectory=trajectory)
    return [w["reidentification_rate"] for w in result.figures["panel"]["by_wave"]], result


def test_independent_noise_averages_out_panel_consistent_noise_does_not(panel):
    independent = panel_noise(panel, ["turnover", "employees"], unit="unit_id", s=0.1, per_wave=True, seed=3)
    consistent = panel_noise(panel, ["turnover", "employees"], unit="unit_id", s=0.1, seed=3)
    rates, result = _rates(panel, independent)
    assert rates[-1] > rates[0]
    assert rates[0] < TAU <= rates[-1]
    assert result.figures["reidentification_rate"] == rates[-1]  # the headline is the attack after all waves
    held, _ = _rates(panel, consistent)
    assert held[-1] < TAU
    # one factor per unit keeps its growth path: the trajectory intruder sees through it
    traced, _ = _rates(panel, consistent, trajectory=True)
    assert traced[-1] > 0.95


def test_hand_computed_panel_end_to_end():
    # tests/linkage/test_panel.py: wave 1 alone links A and B the wrong way round, both waves right
    external = pd.DataFrame({"id": ["A", "A", "B", "B", "C"], "wave": [1, 2, 1, 2, 2], "x": [10, 20, 11, 30, 50.0]})
    release = pd.DataFrame({"id": ["B", "A", "B", "A", "C"], "wave": [1, 1, 2, 2, 2], "x": [10.1, 11.2, 29, 21, 52.0]})
    result = mass_attack(external, release, keys=["x:metric"], external_id="id", release_id="id", tau=TAU,
                         standardise="none", wave="wave", targets=["x"])
    by_wave = result.figures["panel"]["by_wave"]
    assert [(w["waves"], w["n_verifiable"], w["n_correct"]) for w in by_wave] == [(1, 2, 0), (2, 3, 3)]
    assert result.figures["linkage"]["keys"][0]["name"] == "x@1"
