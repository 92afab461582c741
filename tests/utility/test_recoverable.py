"""Corrections from what a release publishes (attack.utility.recoverable)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.protect.catalogue import protect
from attack.utility.recoverable import deattenuated_slopes, pram_estimate, recoverable

P = pd.DataFrame([[0.8, 0.2], [0.1, 0.9]], index=["a", "b"], columns=["a", "b"])


def test_pram_estimator_by_hand():
    # T = (60, 40) is released in expectation as Pᵀ T = (52, 48); the estimator returns T
    got = pram_estimate("v", {"a": 52, "b": 48}, P, original={"a": 60, "b": 40})
    assert got.estimate == pytest.approx((60, 40))
    # Var(T* | T) = 60·0.16 + 40·0.09 = 13.2 on each count; (Pᵀ)⁻¹ maps (1, −1) to (1, −1)/0.7
    assert got.se == pytest.approx((math.sqrt(13.2) / 0.7,) * 2)
    document = got.to_dict()
    assert document["tvd_released"] == pytest.approx(0.08) and document["tvd_estimate"] == 0


def test_pram_estimator_is_unbiased_and_its_variance_holds_by_simulation():
    rng = np.random.default_rng(0)
    categories = np.repeat([0, 1], [70, 30])
    stay = np.array([0.8, 0.9])  # P(a → a), P(b → b)
    estimates = []
    for _ in range(4000):
        keep = rng.random(categories.size) < stay[categories]
        released = np.where(keep, categories, 1 - categories)
        counts = np.bincount(released, minlength=2)
        estimates.append(pram_estimate("v", {"a": counts[0], "b": counts[1]}, P).estimate[0])
    assert np.mean(estimates) == pytest.approx(70, abs=0.2)
    expected_se = math.sqrt(70 * 0.16 + 30 * 0.09) / 0.7
    assert np.std(estimates) == pytest.approx(expected_se, rel=0.05)


def test_recoverable_reads_the_pram_log_of_attack_protect():
    original = pd.DataFrame({"g": ["a"] * 60 + ["b"] * 40})
    given = protect(original, "pram", {"matrix": P}, columns=["g"], seed=1)
    result = recoverable(original, given.release, given.log).to_dict()
    released = {r["category"]: r["released"] for r in result["frequencies"][0]["categories"]}
    estimate = {r["category"]: r["estimate"] for r in result["frequencies"][0]["categories"]}
    a = (0.9 * released["a"] - 0.1 * released["b"]) / 0.7
    assert estimate["a"] == pytest.approx(a) and sum(estimate.values()) == pytest.approx(100)
    invariant = protect(original, "pram", {"lam": 0.7}, columns=["g"], seed=1)
    same = recoverable(original, invariant.release, invariant.log).frequencies[0]
    assert same.estimate == pytest.approx(same.released)  # Pᵀθ = θ with θ the released shares


def test_deattenuated_slope_by_hand():
    x, y = np.array([1.0, 2, 3, 4]), np.array([2.0, 4, 6, 8])
    naive, corrected = deattenuated_slopes(x[:, None], y, np.array([[2 / 3]]))
    # S_xx = 5/3, S_xy = 10/3: naive 2; (5/3 − 2/3)⁻¹ · 10/3 = 10/3
    assert naive == pytest.approx([2.0]) and corrected == pytest.approx([10 / 3])


@pytest.mark.parametrize("kim", [False, True])
def test_regression_calibration_recovers_the_original_slopes(kim):
    rng = np.random.default_rng(2)
    n = 40_000
    frame = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n)})
    frame["x2"] += 0.5 * frame["x1"]
    frame["y"] = 2 * frame["x1"] - frame["x2"] + rng.normal(size=n)
    noised = protect(frame, "additive-noise", {"d": 0.5, "kim_correction": kim},
                     columns=["x1", "x2"], seed=3)
    slopes = recoverable(frame, noised.release, noised.log, target="y").slopes
    assert slopes.original == pytest.approx((2, -1), abs=0.02)
    assert slopes.corrected == pytest.approx(slopes.original, abs=0.05)
    attenuation = 1 / math.sqrt(1.5) if kim else 1 / 1.5
    assert slopes.naive == pytest.approx(np.multiply(slopes.original, attenuation), abs=0.05)


def test_what_cannot_be_recovered_is_said():
    frame = pd.DataFrame({"x": [1.0, 2, 3, 4], "y": [1.0, 3, 2, 4]})
    noised = protect(frame, "additive-noise", {"d": 0.1}, columns=["x", "y"])
    assert "consistent" in recoverable(frame, noised.release, noised.log, target="y").notes[0]
    assert recoverable(frame, frame, {"method": "mdav"}).notes
    with pytest.raises(InputError, match="not in its PRAM matrix"):
        pram_estimate("v", {"c": 3}, P)
