"""Inference with the intruder's confidence: precision at low recall finds the copied records
that the overall rate hides."""

import numpy as np
import pandas as pd
import pytest

import attack
from attack.errors import InputError
from attack.synthetic_attacks.inference_confidence import (
    ConfidenceOptions,
    confident_inference,
    expected_calibration_error,
)
from attack.synthetic_attacks.space import prepare


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Two numeric keys and a four-class target that depends on them, noisily."""
    x = rng.normal(size=(n, 2))
    signal = (x[:, 0] > 0).astype(int) * 2 + (x[:, 1] > 0).astype(int)
    noisy = np.where(rng.random(n) < 0.5, signal, rng.integers(0, 4, n))
    return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "job": np.array(list("abcd"))[noisy]})


@pytest.fixture(scope="module")
def planted():
    """5,000 members, 5,000 holdout records, and a synthetic file of 5,000 fresh records of which
    2 % (100) are replaced by copies of members."""
    rng = np.random.default_rng(11)
    members, holdout, fresh = population(5000, rng), population(5000, rng), population(5000, rng)
    copied = rng.choice(5000, 100, replace=False)
    synthetic = fresh.copy()
    synthetic.iloc[rng.choice(5000, 100, replace=False)] = members.iloc[copied].to_numpy()
    synthetic[["x1", "x2"]] = synthetic[["x1", "x2"]].astype(float)
    return members, holdout, synthetic, fresh


def run(members, synthetic, holdout, **options):
    prep = prepare(members, ["x1", "x2", "job"])
    return confident_inference(members, synthetic, holdout, keys=["x1", "x2"], target="job", space=prep,
                               numeric=False, options=ConfidenceOptions(**options), seed=3)


def test_copies_of_2_percent_give_precision_at_1_percent_recall_while_the_overall_risk_stays_low(planted):
    members, holdout, synthetic, _ = planted
    found = run(members, synthetic, holdout)
    at_1 = found.at(0.01)
    assert at_1.guesses == 50
    assert at_1.main.k / at_1.guesses >= 0.9
    assert found.at(1.0).advantage.value < 0.05  # the precision-only view: looks safe
    assert found.at(0.01).advantage.value > 0.5  # the confident view: it is not
    assert not found.passed  # at the default recall of 10 %, 100 copies among 500 guesses still show
    assert found.declared_recall == 0.1
    assert 0 <= found.calibration_error < 0.1 and 0 <= found.baseline_calibration_error < 0.1


def test_without_copies_the_advantage_stays_near_zero_at_every_recall(planted):
    members, holdout, _, fresh = planted
    found = run(members, fresh, holdout, recall=0.2)
    for point in found.points:
        if point.recall >= 0.1:
            assert abs(point.advantage.value) < 0.1
    assert found.at(0.2).advantage.value < 0.05


def test_expected_calibration_error_by_hand():
    # bin [0.2, 0.3): confidence 0.25 twice, one right → |0.5 − 0.25| · 2/4; bin [0.9, 1]: 0.95 twice, both right
    ece = expected_calibration_error(np.array([0.25, 0.25, 0.95, 0.95]), np.array([1, 0, 1, 1]))
    assert ece == pytest.approx(0.5 * 0.25 + 0.5 * 0.05)


def test_points_on_fewer_than_three_guesses_are_suppressed(planted):
    members, holdout, synthetic, _ = planted
    found = run(members.iloc[:200], synthetic, holdout, recalls=[0.01, 0.5], n_targets=200)
    assert found.suppressed == (0.01,) and found.at(0.01) is None


def test_the_family_runs_in_attack_synthetic_with_a_holdout_and_decides(planted):
    members, holdout, synthetic, _ = planted
    result = attack.attack_synthetic(members.iloc[:400], synthetic.iloc[:400], holdout.iloc[:400],
                                     keys=["x1", "x2"], targets=["job"], n_attacks=20,
                                     options={"inference_confidence": {"recall": 0.5, "n_targets": 300}})
    section = result.to_dict()["inference_confidence"]
    assert section["declared_recall"] == 0.5
    check = [c for c in result.to_dict()["checks"] if c["family"] == "inference_confidence"]
    assert len(check) == 1 and check[0]["measure"] == "advantage at recall 0.5"
    assert section["targets"]["job"]["0.1"]["curve"][0]["recall"] == 0.01
    without = attack.attack_synthetic(members.iloc[:200], synthetic.iloc[:200], keys=["x1", "x2"],
                                      targets=["job"], n_attacks=10)
    assert "needs a holdout" in without.to_dict()["inference_confidence"]["skipped"]
    assert "Warning: no holdout was given" in without.to_markdown()  # and the report says so
    assert "Warning: no holdout was given" in without.to_html()
    with pytest.raises(InputError, match="options.inference_confidence.recall"):
        attack.attack_synthetic(members.iloc[:100], synthetic.iloc[:100], holdout.iloc[:100], keys=["x1", "x2"],
                                targets=["job"], n_attacks=20, options={"inference_confidence": {"recall": 2}})


def test_attack_synth_takes_the_declared_recall(planted, tmp_path):
    from click.testing import CliRunner

    from attack.cli import main

    members, holdout, synthetic, _ = planted
    for name, frame in (("o", members.iloc[:150]), ("s", synthetic.iloc[:150]), ("h", holdout.iloc[:150])):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, [
        "synth", "--original", str(tmp_path / "o.csv"), "--synthetic", str(tmp_path / "s.csv"),
        "--holdout", str(tmp_path / "h.csv"), "--key", "x1", "--key", "x2", "--target", "job",
        "--n-attacks", "10", "--recall", "0.5", "--json", str(out)])
    assert result.exit_code in (0, 1), result.output
    assert "## Inference with confidence" in result.output and "0.5 (declared)" in result.output
    import json

    assert json.loads(out.read_text())["inference_confidence"]["declared_recall"] == 0.5


def test_a_numeric_target_is_guessed_within_gamma_and_copies_come_first():
    rng = np.random.default_rng(1)

    def incomes(n):
        x = rng.normal(size=(n, 2))
        return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1],
                             "income": np.round(np.exp(5 + x[:, 0] + 0.3 * rng.normal(size=n)))})

    members, holdout, synthetic = incomes(2000), incomes(2000), incomes(2000)
    synthetic.iloc[:100] = members.iloc[:100].to_numpy()  # 5 % copies
    found = confident_inference(members, synthetic, holdout, keys=["x1", "x2"], target="income",
                                space=prepare(members, ["x1", "x2", "income"]), numeric=True, gamma=0.1)
    assert found.gamma == 0.1 and found.to_dict()["gamma"] == 0.1
    assert found.at(0.05).main.k >= 95  # the 100 most confident guesses are nearly all right (98 measured)
    assert found.at(0.05).baseline.k / 100 < 0.3
