"""attack risk with a sampling fraction or a population file: the JSON fields, the verdict's
exit codes and the refusals (exit 2, no partial file)."""

import json

from click.testing import CliRunner

from attack.cli import main


def _write(path, rows):
    path.write_text("a,b\n" + "".join(f"{a},{b}\n" for a, b in rows), encoding="utf-8")


def test_attack_risk_with_a_sampling_fraction_and_a_population_file(tmp_path):
    sample, register = tmp_path / "sample.csv", tmp_path / "register.csv"
    rows = [(i % 40, i % 7) for i in range(300)]
    _write(sample, rows)
    _write(register, rows * 3 + [(99, 9)])
    out = tmp_path / "risk.json"
    done = CliRunner().invoke(main, ["risk", "--data", str(sample), "--key", "a", "--key", "b", "--no-suda",
                                     "--sampling-fraction", "0.1", "--bootstrap", "50", "--json", str(out)])
    assert done.exit_code == 1, done.output          # 1/f above 0.1 for small classes
    document = json.loads(out.read_text())
    assert document["population_uniqueness"]["population"] == 3000
    assert document["journalist_risk"]["basis"] == "population_model"
    assert "Population uniques" in done.output and "Attacker models" in done.output
    done = CliRunner().invoke(main, ["risk", "--data", str(sample), "--key", "a", "--key", "b", "--no-suda",
                                     "--population-file", str(register), "--json", str(out), "--quiet"])
    document = json.loads(out.read_text())
    assert document["journalist_risk"]["basis"] == "population_file"
    assert "population_uniqueness" not in document
    # 280 classes, each three times as large in the register: Σ f/F = 280/3 over 300 records
    assert document["marketer_risk"]["average"] == 280 / 3 / 300
    assert document["journalist_risk"]["highest"] == 1 / 3


def test_a_register_without_the_released_records_is_refused(tmp_path):
    sample, register, out = tmp_path / "sample.csv", tmp_path / "register.csv", tmp_path / "risk.json"
    _write(sample, [(1, 1), (1, 1), (2, 2)])
    _write(register, [(1, 1), (2, 2)])
    done = CliRunner().invoke(main, ["risk", "--data", str(sample), "--key", "a", "--population-file", str(register),
                                     "--key", "b", "--json", str(out)])
    assert done.exit_code == 2 and "fewer units than the release" in done.output and "row 1" in done.output
    assert not out.exists()
    done = CliRunner().invoke(main, ["risk", "--data", str(sample), "--key", "a", "--sampling-fraction", "0.1",
                                     "--population", "100"])
    assert done.exit_code == 2 and "not both" in done.output


def test_key_classes_of_mixed_column_types_count_a_missing_value_as_a_value():
    import pandas as pd

    from attack.risk.population_risk import population_risk

    sample = pd.DataFrame({"a": pd.array([1, None, 1, 2, 2, 2], dtype="Int64"), "b": ["x", "y", "x", None, None, "z"],
                           "c": pd.Categorical(["p", "q", "p", "p", "p", "q"]), "d": [True, False, True, True, True, False]})
    prosecutor = population_risk(sample, ["a", "b", "c", "d"]).prosecutor
    assert prosecutor.average == 4 / 6 and prosecutor.lowest == 1 / 2 and prosecutor.highest == 1.0
