"""Tests for the synthetic population and intruder databases (docs/method/validation.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.datasets.population import (
    EXTERNAL_PROFILES,
    NACE_CLASSES,
    POPULATION_COLUMNS,
    SIZE_LABELS,
    incompatibility_profile,
    make_external,
    make_population,
    size_class,
    worst_case_external,
)
from attack.errors import InputError

TABLE_35_2 = np.array([5294, 4119, 3906, 1758, 1085, 756]) / 16918
TABLE_35_1 = np.array([2920, 2994, 1379, 486, 788, 4199, 1987, 1488, 677]) / 16918
MONEY = ["turnover", "personnel_costs", "material_costs", "energy_costs", "goods_for_resale",
         "rd_expenditure", "investment", "depreciation"]


@pytest.fixture(scope="module")
def population() -> pd.DataFrame:
    return make_population()


@pytest.fixture(scope="module")
def markus(population: pd.DataFrame) -> pd.DataFrame:
    return make_external(population, "markus")


@pytest.fixture(scope="module")
def ust(population: pd.DataFrame) -> pd.DataFrame:
    return make_external(population, "ust")


def _joined(external: pd.DataFrame, population: pd.DataFrame) -> pd.DataFrame:
    return external.merge(population, on="unit_id", suffixes=("_ext", ""), validate="one_to_one")


# --- population -----------------------------------------------------------------------------------


def test_population_is_deterministic_per_seed() -> None:
    first = make_population(3000, seed=7)
    pd.testing.assert_frame_equal(first, make_population(3000, seed=7))
    other = make_population(3000, seed=8)
    assert not first.equals(other)
    assert (first["turnover"] != other["turnover"]).mean() > 0.9


def test_population_layout(population: pd.DataFrame) -> None:
    assert tuple(population.columns) == POPULATION_COLUMNS
    assert len(population) == 17000
    assert population["unit_id"].is_unique
    assert population["unit_id"].iloc[0] == "U0000001"
    assert population["unit_id"].iloc[-1] == "U0017000"
    assert not population.isna().any().any()
    assert population["employees"].dtype == np.int64
    assert population["employees"].min() >= 20
    assert set(population["east_west"]) == {"E", "W"}
    assert set(population["legal_form"]) == {
        "GmbH", "AG", "GmbH & Co. KG", "KG", "OHG", "eG", "Einzelunternehmen"}
    for column in MONEY:
        assert population[column].dtype == np.float64
        assert (population[column] >= 0).all()
        tenths = population[column].to_numpy() * 10
        np.testing.assert_allclose(tenths, np.round(tenths), atol=1e-6)


def test_rows_are_not_sorted_by_size(population: pd.DataFrame) -> None:
    rank = np.arange(len(population))
    assert abs(np.corrcoef(rank, np.log(population["employees"]))[0, 1]) < 0.05


def test_size_class_shares_match_table_35_2(population: pd.DataFrame) -> None:
    labels = size_class(population["employees"])
    shares = np.array([np.mean(labels == label) for label in SIZE_LABELS])
    np.testing.assert_allclose(shares, TABLE_35_2, atol=0.015)


def test_bbr9_shares_match_table_35_1(population: pd.DataFrame) -> None:
    shares = population["bbr9"].value_counts(normalize=True).reindex([str(i) for i in range(1, 10)])
    np.testing.assert_allclose(shares.to_numpy(), TABLE_35_1, atol=0.005)


def test_east_share_depends_on_region_type(population: pd.DataFrame) -> None:
    east = population["east_west"] == "E"
    assert 0.12 <= east.mean() <= 0.18
    by_type = east.groupby(population["bbr9"]).mean()
    assert by_type["9"] > 2 * by_type["2"]


def test_nace_hierarchy(population: pd.DataFrame) -> None:
    assert 150 <= len(NACE_CLASSES) <= 250
    assert len(set(NACE_CLASSES)) == len(NACE_CLASSES)
    assert population["nace"].isin(NACE_CLASSES).all()
    assert population["nace"].str.fullmatch(r"\d{4}").all()
    divisions = population["nace"].str[:2].value_counts()
    assert 26 <= len(divisions) <= 28
    assert set(divisions.index) <= {f"{d:02d}" for d in range(10, 38)}
    for sparse in ("10", "14", "30", "37"):
        assert 10 <= divisions[sparse] <= 250
    assert divisions.max() > 1500
    assert population["nace"].str[:3].nunique() > 80


def test_large_firms_are_more_often_ag(population: pd.DataFrame) -> None:
    labels = size_class(population["employees"])
    ag = population["legal_form"] == "AG"
    assert ag[labels == ">=1000"].mean() > 5 * ag[labels == "20-49"].mean()


def test_heavy_upper_tail(population: pd.DataFrame) -> None:
    employees = population["employees"]
    assert (employees > 10_000).sum() >= 5
    assert employees.max() > 50_000


def test_structural_zero_shares(population: pd.DataFrame) -> None:
    assert abs((population["goods_for_resale"] == 0).mean() - 0.40) < 0.03
    assert abs((population["rd_expenditure"] == 0).mean() - 0.65) < 0.03
    assert abs((population["investment"] == 0).mean() - 0.15) < 0.03
    for column in ("turnover", "personnel_costs", "material_costs", "energy_costs", "depreciation"):
        assert (population[column] > 0).all()
    labels = size_class(population["employees"])
    rd_positive = population["rd_expenditure"] > 0
    assert rd_positive[labels == ">=1000"].mean() > rd_positive[labels == "20-49"].mean() + 0.3


def test_turnover_block_correlations(population: pd.DataFrame) -> None:
    logs = np.log(population[["employees", "turnover", "personnel_costs", "material_costs",
                              "energy_costs"]])
    corr = logs.corr()
    assert corr.loc["turnover", "employees"] >= 0.9
    assert corr.loc["turnover", "material_costs"] >= 0.9
    assert corr.loc["turnover", "personnel_costs"] >= 0.9
    assert corr.loc["turnover", "energy_costs"] < corr.loc["turnover", "material_costs"]


def test_size_class_labels() -> None:
    employees = [1, 19, 20, 49, 50, 99, 100, 249, 250, 499, 500, 999, 1000, 250_000]
    expected = ["1-19", "1-19", "20-49", "20-49", "50-99", "50-99", "100-249", "100-249",
                "250-499", "250-499", "500-999", "500-999", ">=1000", ">=1000"]
    assert size_class(np.array(employees)).tolist() == expected


def test_invalid_population_size() -> None:
    with pytest.raises(InputError):
        make_population(0)


# --- external files -------------------------------------------------------------------------------


def test_external_layout(population: pd.DataFrame, markus: pd.DataFrame, ust: pd.DataFrame) -> None:
    keys = ["ext_id", "unit_id", "nace", "bbr9", "east_west", "legal_form", "turnover"]
    assert list(markus.columns) == keys + ["employees"]
    assert list(ust.columns) == keys
    for external in (markus, ust):
        assert external["ext_id"].is_unique and external["unit_id"].is_unique
        assert external["unit_id"].isin(population["unit_id"]).all()
        assert external["nace"].isin(NACE_CLASSES).all()
        assert external["bbr9"].isin([str(i) for i in range(1, 10)]).all()
        assert not external.isna().any().any()
        assert (external["turnover"] > 0).all()
        assert sorted(external["ext_id"]) == [f"E{i:07d}" for i in range(1, len(external) + 1)]
    assert markus["employees"].dtype == np.int64 and markus["employees"].min() >= 1


def test_external_is_deterministic_per_seed(population: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(make_external(population, "ust", seed=5),
                                  make_external(population, "ust", seed=5))
    other = make_external(population, "ust", seed=6)
    assert not make_external(population, "ust", seed=5).equals(other)


def test_external_ids_and_rows_are_shuffled(population: pd.DataFrame, markus: pd.DataFrame) -> None:
    unit_rank = markus["unit_id"].str[1:].astype(int).to_numpy()
    ext_rank = markus["ext_id"].str[1:].astype(int).to_numpy()
    assert abs(np.corrcoef(ext_rank, unit_rank)[0, 1]) < 0.05
    assert abs(np.corrcoef(np.arange(len(markus)), unit_rank)[0, 1]) < 0.05
    assert abs(np.corrcoef(np.arange(len(markus)), ext_rank)[0, 1]) < 0.05


def test_sample_size_profiles(population: pd.DataFrame, markus: pd.DataFrame,
                              ust: pd.DataFrame) -> None:
    labels = pd.Series(size_class(population["employees"]), index=population["unit_id"])
    for external, profile in ((markus, "markus"), (ust, "ust")):
        assert 0.52 <= len(external) / len(population) <= 0.58
        counts = labels[external["unit_id"]].value_counts()
        rates = (counts / labels.value_counts())[list(SIZE_LABELS)]
        np.testing.assert_allclose(rates, EXTERNAL_PROFILES[profile].sample_rate, atol=0.05)
    ust_rates = labels[ust["unit_id"]].value_counts() / labels.value_counts()
    assert ust_rates["20-49"] > ust_rates[">=1000"]


def test_markus_profile_hits_targets(population: pd.DataFrame, markus: pd.DataFrame) -> None:
    profile = incompatibility_profile(markus, population)
    assert set(profile) == {"nace_division_differs", "nace_class_differs", "bbr9_differs",
                            "turnover_off_by_more_than_10pct", "employees_off_by_more_than_10pct"}
    assert abs(profile["nace_division_differs"] - 0.24) < 0.02
    assert abs(profile["nace_class_differs"] - 0.34) < 0.03
    assert 0.01 <= profile["bbr9_differs"] < 0.025
    assert abs(profile["turnover_off_by_more_than_10pct"] - 0.50) < 0.03
    assert abs(profile["employees_off_by_more_than_10pct"] - 0.74) < 0.03


def test_ust_profile_follows_table_36_4(population: pd.DataFrame, ust: pd.DataFrame) -> None:
    profile = incompatibility_profile(ust, population)
    assert "employees_off_by_more_than_10pct" not in profile
    assert abs(profile["nace_division_differs"] - 0.25) < 0.02
    assert abs(profile["nace_class_differs"] - 0.439) < 0.03
    assert profile["bbr9_differs"] < 0.02
    pairs = _joined(ust, population)
    error = np.abs(pairs["turnover_ext"] - pairs["turnover"]) / pairs["turnover"]
    shares = [np.mean(error < bound) for bound in (0.01, 0.05, 0.10, 0.25, 0.50)]
    np.testing.assert_allclose(shares, [0.382, 0.705, 0.812, 0.904, 0.938], atol=0.03)


def test_recoded_divisions_are_mostly_nearby(population: pd.DataFrame,
                                             markus: pd.DataFrame) -> None:
    pairs = _joined(markus, population)
    new, old = pairs["nace_ext"].str[:2].astype(int), pairs["nace"].str[:2].astype(int)
    moved = new != old
    assert (np.abs(new - old)[moved] <= 2).mean() > 0.7


def test_other_keys_are_kept_or_changed_rarely(population: pd.DataFrame,
                                               markus: pd.DataFrame) -> None:
    pairs = _joined(markus, population)
    assert (pairs["east_west_ext"] == pairs["east_west"]).all()
    assert 0.015 <= (pairs["legal_form_ext"] != pairs["legal_form"]).mean() <= 0.045


def test_unknown_profile_is_rejected(population: pd.DataFrame) -> None:
    with pytest.raises(InputError):
        make_external(population, "internet")


def test_worst_case_external(population: pd.DataFrame) -> None:
    worst = worst_case_external(population)
    assert list(worst.columns) == ["ext_id", "unit_id", "nace", "bbr9", "east_west", "legal_form",
                                   "employees", "turnover"]
    assert (worst["ext_id"] == worst["unit_id"]).all()
    assert len(worst) == len(population) and worst["unit_id"].is_unique
    assert not worst["unit_id"].equals(population["unit_id"])
    restored = worst.set_index("unit_id").loc[population["unit_id"]].reset_index()
    pd.testing.assert_frame_equal(restored[worst.columns[1:]], population[worst.columns[1:]])
    pd.testing.assert_frame_equal(worst, worst_case_external(population))
    assert incompatibility_profile(worst, population) == {
        "nace_division_differs": 0.0, "nace_class_differs": 0.0, "bbr9_differs": 0.0,
        "turnover_off_by_more_than_10pct": 0.0, "employees_off_by_more_than_10pct": 0.0}
