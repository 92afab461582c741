"""Keys and weights that cannot mean what they seem, through every command that takes them: a
key missing in every row is refused (exit 2, named), a key with one value is warned of by name,
implausible sampling weights are warned of by name (a sum beyond the largest number refused)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main

N = 30


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A file with a sound key, a key missing throughout, a constant key and weights."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"id": np.arange(N), "sex": rng.integers(1, 3, N), "age": rng.integers(1, 5, N),
                          "empty": [np.nan] * N, "const": ["x"] * N, "w": rng.uniform(5, 50, N),
                          "turnover": rng.uniform(10, 100, N).round(1)})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


#: Commands taking the key KEY (in the file ``f``), writing to ``out``.
KEYED = {
    "risk": lambda f, key, out: ["risk", "--data", f, "--key", "sex", "--key", key, "--json", out],
    "local-suppression": lambda f, key, out: ["protect", "--method", "local-suppression", "--input", f,
                                              "--out", out.with_suffix(".csv"), "--columns", f"sex,{key}"],
    "risk-suppression": lambda f, key, out: ["protect", "--method", "risk-suppression", "--input", f, "--out",
                                             out.with_suffix(".csv"), "--columns", f"sex,{key}", "--param", "threshold=0.2"],
    "link nominal": lambda f, key, out: ["link", "--external", f, "--release", f, "--external-id", "id",
                                         "--release-id", "id", "--key", "sex:nominal", "--key", f"{key}:nominal",
                                         "--json", out],
    "synth": lambda f, key, out: ["synth", "--original", f, "--synthetic", f, "--key", "sex", "--key", key,
                                  "--target", "turnover", "--n-attacks", "10", "--json", out,
                                  *(["--exclude", "empty"] if key != "empty" else [])],
}


@pytest.mark.parametrize("command", list(KEYED))
def test_a_key_missing_in_every_row_is_refused_by_name(data, tmp_path, command):
    out = tmp_path / "out.json"
    code, output = run(*KEYED[command](data, "empty", out))
    assert code == 2, output
    assert "Traceback" not in output and "column 'empty': every value is missing" in output
    assert not out.exists() and not out.with_suffix(".csv").exists()


@pytest.mark.parametrize("command", list(KEYED))
def test_a_key_with_one_value_is_warned_of_by_name(data, tmp_path, command):
    code, output = run(*KEYED[command](data, "const", tmp_path / "out.json"))
    assert code in (0, 1), output
    assert f"attack: notice: file {data.name}, key column 'const' has one value in every row" in output
    code, output = run(*KEYED[command](data, "age", tmp_path / "again.json"))
    assert "has one value" not in output  # a key with several values is not


#: Commands taking the weight column ``w``.
WEIGHTED = {"risk": lambda f: ["risk", "--data", f, "--key", "sex", "--weight", "w"],
            "utility": lambda f: ["utility", "--original", f, "--release", f, "--weight", "w"]}
#: Implausible weights and what the warning says.
WEIGHTS = {"all below 1": (lambda w: w / 100, "every weight is below 1"),
           "some below 1": (lambda w: np.where(np.arange(N) < 3, 0.5, w), "3 weight(s) below 1"),
           "one of 1e9": (lambda w: np.where(np.arange(N) == 4, 1e9, w), "row 5: weight 1e+09 is more than")}


@pytest.mark.parametrize("command", list(WEIGHTED))
@pytest.mark.parametrize("case", list(WEIGHTS))
def test_implausible_weights_are_warned_of_by_name(data, command, case):
    change, says = WEIGHTS[case]
    frame = pd.read_csv(data)
    frame["w"] = change(frame["w"].to_numpy())
    frame.to_csv(data, index=False)
    code, output = run(*WEIGHTED[command](data))
    assert code in (0, 1), output
    assert "weight column 'w'" in output and says in output


@pytest.mark.parametrize("command", list(WEIGHTED))
def test_plausible_weights_pass_without_a_word_and_an_overflowing_sum_is_refused(data, command):
    code, output = run(*WEIGHTED[command](data))
    assert code in (0, 1) and "weight column" not in output, output
    frame = pd.read_csv(data)
    frame.loc[:1, "w"] = 1.7e308
    frame.to_csv(data, index=False)
    code, output = run(*WEIGHTED[command](data))
    assert code == 2 and "row 1: weight 1.7e+308 is more than 1e+12" in output, output
    frame.loc[:1, "w"] = 1e308  # one such weight alone: the same (its weighted values would overflow)
    frame.loc[1, "w"] = 20.0
    frame.to_csv(data, index=False)
    code, output = run(*WEIGHTED[command](data))
    assert code == 2 and "row 1: weight 1e+308 is more than 1e+12" in output, output
