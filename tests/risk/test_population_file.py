"""Key classes counted in a population file in chunks: the same figures as in memory, whatever
the chunk size, and equal to a direct count by pandas."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import attack
from attack.cli import main
from attack.risk.population_file import PopulationFile, population_class_sizes, release_classes
from attack.risk.population_risk import population_risk

KEYS = ["region", "sex", "age", "status"]


def _population(n: int = 160, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 12, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan                      # an integer column with missing values
    status = pd.Series(rng.choice(["single", "married", "widowed", None], n, p=[0.4, 0.4, 0.15, 0.05]))
    return pd.DataFrame({"region": rng.choice(["01001", "01002", "09162", "11000"], n),
                         "sex": pd.Categorical(rng.choice(["f", "m"], n)),
                         "age": pd.array(age, dtype="Int64"), "status": status,
                         "other": rng.random(n), "hh": rng.integers(0, 150, n)})


def _sample(population: pd.DataFrame, size: int = 40, seed: int = 6) -> pd.DataFrame:
    rows = np.random.default_rng(seed).choice(len(population), size, replace=False)
    return population.iloc[np.sort(rows)].reset_index(drop=True)


def _direct(sample: pd.DataFrame, population: pd.DataFrame, keys: list[str]) -> list[tuple[int, int]]:
    """(f, F) of every release class, counted by pandas on the values as text (missing = a
    value), sorted."""
    def rows(frame: pd.DataFrame) -> pd.Series:
        text = frame[keys].astype(object).map(lambda v: "<missing>" if pd.isna(v) else repr(int(v))
                                              if isinstance(v, (int, float, np.integer)) else str(v))
        return text.apply(tuple, axis=1).value_counts()

    big_f = rows(population)
    return sorted((int(v), int(big_f[k])) for k, v in rows(sample).items())


@pytest.mark.parametrize("chunk", [1, 7, None])
def test_chunked_figures_equal_the_in_memory_ones(tmp_path, chunk):
    population = _population()
    sample = _sample(population)
    path = tmp_path / "population.parquet"
    population.to_parquet(path, row_group_size=30)
    chunked = PopulationFile(path, chunk_rows=chunk or len(population))
    f, big_f = population_class_sizes(sample, KEYS, chunked)
    assert sorted(zip(f.tolist(), big_f.tolist(), strict=True)) == _direct(sample, population, KEYS)
    in_memory = population_risk(sample, KEYS, population_file=population).to_dict()
    assert population_risk(sample, KEYS, population_file=chunked).to_dict() == in_memory
    assert in_memory["journalist_risk"]["basis"] == "population_file"
    risk = attack.frequency_risk(sample, KEYS, population_file=chunked, suda=False).to_dict()
    assert risk["marketer_risk"] == in_memory["marketer_risk"]


def test_values_the_release_lacks_are_skipped_and_string_columns_match(tmp_path):
    population = pd.DataFrame({"a": ["x", "y", "z", "x", None, "w"], "b": [1, 2, 3, 1, 2, 9]})
    sample = pd.DataFrame({"a": ["x", None], "b": [1, 2]})
    path = tmp_path / "p.parquet"
    population.to_parquet(path)
    f, big_f = population_class_sizes(sample, ["a", "b"], PopulationFile(path, chunk_rows=2))
    assert sorted(zip(f.tolist(), big_f.tolist(), strict=True)) == [(1, 1), (1, 2)]


def test_keys_of_many_values_are_made_dense_before_they_overflow(tmp_path):
    rng = np.random.default_rng(1)
    keys = [f"k{j}" for j in range(8)]
    population = pd.DataFrame({key: rng.integers(0, 10**6, 1_000) for key in keys})
    population = pd.concat([population, population.iloc[:200]], ignore_index=True)
    sample = population.iloc[rng.choice(len(population), 300, replace=False)].reset_index(drop=True)
    assert any(dense is not None for _, dense in release_classes(sample, keys).plan)   # 301^8 > 2^62
    path = tmp_path / "p.parquet"
    population.to_parquet(path)
    f, big_f = population_class_sizes(sample, keys, PopulationFile(path, chunk_rows=333))
    assert sorted(zip(f.tolist(), big_f.tolist(), strict=True)) == _direct(sample, population, keys)


def test_declared_missing_codes_are_missing_in_the_chunks(tmp_path):
    population = pd.DataFrame({"a": ["-9", "x", "-9", "x"]})
    sample = pd.DataFrame({"a": [None, "x"]})
    path = tmp_path / "p.parquet"
    population.to_parquet(path)
    f, big_f = population_class_sizes(sample, ["a"], PopulationFile(path, options=attack.ReadOptions(na=("-9",))))
    assert sorted(zip(f.tolist(), big_f.tolist(), strict=True)) == [(1, 2), (1, 2)]


def test_bad_population_files_are_refused_by_name(tmp_path):
    sample = pd.DataFrame({"a": ["x", "y"]})
    path = tmp_path / "p.parquet"
    pd.DataFrame({"b": ["x"]}).to_parquet(path)
    with pytest.raises(attack.InputError, match="has no column 'a'") as error:
        population_class_sizes(sample, ["a"], PopulationFile(path))
    assert "p.parquet" in str(error.value)
    pd.DataFrame({"a": ["x", "x"]}).to_parquet(path)
    with pytest.raises(attack.InputError, match="row 2: the population file holds fewer units"):
        population_class_sizes(sample, ["a"], PopulationFile(path))
    (tmp_path / "q.parquet").write_bytes(b"PAR1 not parquet")
    with pytest.raises(attack.InputError, match="cannot be read as parquet"):
        population_class_sizes(sample, ["a"], PopulationFile(tmp_path / "q.parquet"))
    with pytest.raises(attack.InputError, match="must be Parquet"):
        PopulationFile(tmp_path / "p.csv")


def test_attack_risk_reads_a_parquet_population_in_chunks(tmp_path):
    population = _population()
    sample = _sample(population)
    population.to_parquet(tmp_path / "population.parquet")
    sample.to_parquet(tmp_path / "sample.parquet")
    out = tmp_path / "risk.json"
    args = ["risk", "--data", str(tmp_path / "sample.parquet"), "--population-file", str(tmp_path / "population.parquet"),
            "--json", str(out), "--no-suda", "--quiet", "--household", "hh", *[a for k in KEYS for a in ("--key", k)]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output
    expected = population_risk(sample, KEYS, population_file=population,
                               households=pd.factorize(sample["hh"])[0]).to_dict()
    assert expected["household_journalist_risk"]["highest"] > 0
    document = json.loads(out.read_text())
    for model in ("prosecutor_risk", "journalist_risk", "marketer_risk", "household_journalist_risk"):
        assert document[model] == expected[model]


def test_household_journalist_risk_by_hand(tmp_path):
    # households {a, b} and {c}; in the population F(a) = 2, F(b) = 4, F(c) = 1
    sample = pd.DataFrame({"k": ["a", "b", "c"], "hh": [7, 7, 9]})
    population = pd.DataFrame({"k": ["a", "a", "b", "b", "b", "b", "c", "d"]})
    path = tmp_path / "p.parquet"
    population.to_parquet(path)
    risk = attack.frequency_risk(sample, ["k"], household="hh", threshold=0.7, suda=False,
                                 population_file=PopulationFile(path, chunk_rows=3)).to_dict()
    assert risk["household_journalist_risk"] == {"basis": "population_file", "highest": 1.0,
                                                 "records_at_risk": pytest.approx(1 / 3), "average": 0.75,
                                                 "lowest": 0.625, "threshold": 0.7}
    assert "household_journalist_risk" not in attack.frequency_risk(sample, ["k"], household="hh", suda=False).to_dict()
