"""Generated files with structure (attack.datasets.structured)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attack.datasets.population import make_population
from attack.datasets.structured import make_establishments, make_households, make_panel


def test_panel_waves_growth_entries_exits():
    panel = make_panel(1000, 4, seed=2, growth=0.02, growth_sd=0.1, exit_rate=0.05, entry_rate=0.05)
    sizes = panel.groupby("wave").size()
    assert sizes.index.tolist() == [1, 2, 3, 4] and sizes[1] == 1000
    assert not panel.duplicated(["unit_id", "wave"]).any()
    first, second = (set(panel.loc[panel["wave"] == w, "unit_id"]) for w in (1, 2))
    assert 20 < len(first - second) < 80  # about 5 % exit
    assert len(second - first) == 50  # 5 % enter
    stayers = panel[panel["unit_id"].isin(first & second)].pivot(index="unit_id", columns="wave", values="turnover")
    growth = np.log(stayers[2] / stayers[1])
    assert abs(growth.mean() - 0.02) < 0.02 and 0.08 < growth.std() < 0.16
    pd.testing.assert_frame_equal(panel, make_panel(1000, 4, seed=2, growth=0.02, growth_sd=0.1, exit_rate=0.05,
                                                    entry_rate=0.05))


def test_establishments_add_up_to_their_enterprise():
    population = make_population(300, seed=1)
    establishments = make_establishments(population, seed=1)
    assert establishments["establishment_id"].is_unique
    assert set(establishments["enterprise_id"]) == set(population["unit_id"])
    total = establishments.groupby("enterprise_id")["turnover"].sum()
    assert np.allclose(total.to_numpy(), population.set_index("unit_id").loc[total.index, "turnover"], rtol=1e-3,
                       atol=0.5)
    assert establishments.groupby("enterprise_id").size().max() > 1


def test_households_sizes_and_members():
    persons = make_households(3000, seed=1)
    sizes = persons.groupby("household_id").size()
    assert (sizes == persons.groupby("household_id")["size"].first()).all()
    assert abs((sizes == 1).mean() - 1745 / 6000) < 0.03
    assert persons.loc[persons["age"] < 16, "income"].isna().all()
    assert persons.groupby("household_id")["region"].nunique().max() == 1
