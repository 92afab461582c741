"""``attack utility --ml`` and ``--protection-log``: the ML family, Markdown, JSON and errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from attack.cli import main


def _files(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    original = pd.DataFrame({"id": np.arange(n), "a": rng.normal(size=n), "b": rng.normal(size=n),
                             "g": rng.choice(["x", "y"], n)})
    original["y"] = 2 * original.a + original.b + rng.normal(scale=0.2, size=n)
    release = original.copy()
    release["y"] = rng.permutation(release["y"].to_numpy())
    paths = {"original": tmp_path / "o.csv", "release": tmp_path / "r.csv"}
    original.to_csv(paths["original"], index=False)
    release.to_csv(paths["release"], index=False)
    return paths


def test_ml_family_in_markdown_and_json(tmp_path):
    paths = _files(tmp_path)
    out = tmp_path / "u.json"
    result = CliRunner().invoke(main, [
        "utility", "--original", str(paths["original"]), "--release", str(paths["release"]),
        "--id", "id", "--ml", "y", "--ml-model", "linear", "--ml-repetitions", "2",
        "--ml-tolerance", "0.2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "## Machine learning: predicting y (regression)" in result.output
    assert "| linear |" in result.output and "| NO |" in result.output
    document = json.loads(out.read_text())
    assert document["families"]["ml_prediction"]["passed"] is False
    ml = document["ml"]
    assert ml["alignment"] == "id" and ml["models"][0]["tolerance"] == 0.2
    assert ml["features"] == {"numeric": ["a", "b"], "categorical": ["g"]}


def test_protection_log_adds_the_recoverable_section(tmp_path):
    paths = _files(tmp_path)
    released, log = tmp_path / "p.csv", tmp_path / "p.protection.json"
    runner = CliRunner()
    made = runner.invoke(main, ["protect", "--input", str(paths["original"]), "--output", str(released),
                                "--method", "pram", "--columns", "g", "--param", "lam=0.8"])
    assert made.exit_code == 0, made.output
    result = runner.invoke(main, ["utility", "--original", str(paths["original"]), "--release",
                                  str(released), "--variables", "a", "--protection-log", str(log)])
    assert result.exit_code == 0, result.output
    assert "## Recoverable (pram)" in result.output and "| x |" in result.output


def test_ml_options_without_a_target_and_bad_logs_are_usage_errors(tmp_path):
    paths = _files(tmp_path)
    base = ["utility", "--original", str(paths["original"]), "--release", str(paths["release"])]
    runner = CliRunner()
    result = runner.invoke(main, [*base, "--ml-model", "linear"])
    assert result.exit_code == 2 and "need --ml TARGET" in result.output
    result = runner.invoke(main, [*base, "--ml", "y", "--ml-tolerance", "forest=much"])
    assert result.exit_code == 2 and "[MODEL=]NUMBER" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(main, [*base, "--protection-log", str(bad)])
    assert result.exit_code == 2 and "protection log" in result.output


def test_holdout_tests_the_models_on_unseen_rows(tmp_path):
    paths = _files(tmp_path)
    holdout = pd.read_csv(paths["original"]).sample(60, random_state=1)
    holdout.to_csv(tmp_path / "h.csv", index=False)
    out = tmp_path / "u.json"
    args = ["utility", "--original", str(paths["original"]), "--release", str(paths["release"]),
            "--ml", "y", "--ml-model", "linear", "--ml-repetitions", "1", "--json", str(out)]
    result = CliRunner().invoke(main, [*args, "--holdout", str(tmp_path / "h.csv")])
    assert result.exit_code == 0, result.output
    assert "predict the 60 holdout rows" in result.output
    assert json.loads(out.read_text())["ml"]["test_rows"]["source"] == "holdout"
    refused = CliRunner().invoke(main, [*args[:5], "--holdout", str(tmp_path / "h.csv")])
    assert refused.exit_code == 2 and "needs --ml TARGET" in refused.output
