"""The census-shaped population: persons in whole households, the sample of whole households,
deterministic by seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import attack
from attack.datasets.census import CENSUS_KEYS, write_census


def test_persons_live_in_whole_households_and_the_sample_draws_whole_households(tmp_path):
    files = write_census(tmp_path / "p.parquet", 5_003, sample_path=tmp_path / "s.parquet",
                         sampling_fraction=0.1, seed=3)
    population = pd.read_parquet(tmp_path / "p.parquet")
    sample = pd.read_parquet(tmp_path / "s.parquet")
    assert len(population) == files.persons == 5_003
    assert population["household"].nunique() == files.households
    assert len(sample) == files.sample_persons and sample["household"].nunique() == files.sample_households
    assert set(CENSUS_KEYS) <= set(population.columns)
    members = population.groupby("household").size()
    shared = population.groupby("household")[["region", "citizenship", "household_size"]].nunique(dropna=False)
    assert (shared == 1).all().all()
    stated = population.groupby("household")["household_size"].first()
    assert (np.minimum(members, 6) == stated).all()                 # 6 = six or more
    assert (population.groupby("household")["position"].first() == "reference").all()
    drawn = population[population["household"].isin(sample["household"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(drawn, sample)                    # whole households, same records
    assert 0.05 < files.sample_households / files.households < 0.15
    assert population.loc[population["age"] < 15, "employment"].eq("under 15").all()


def test_the_files_depend_on_the_seed_only(tmp_path):
    write_census(tmp_path / "a.parquet", 2_000, seed=4)
    write_census(tmp_path / "b.parquet", 2_000, seed=4)
    write_census(tmp_path / "c.parquet", 2_000, seed=5)
    a, b, c = (pd.read_parquet(tmp_path / f"{x}.parquet") for x in "abc")
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    with pytest.raises(attack.InputError, match="at least one person"):
        write_census(tmp_path / "d.parquet", 0)
