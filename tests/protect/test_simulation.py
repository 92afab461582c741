"""Latin hypercube sampling with Iman–Conover rank-correlation restoration
(attack.protect.simulation)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference_data import SDCMICRO
from scipy.stats import spearmanr

from attack import InputError
from attack.protect.catalogue import protect
from attack.protect.simulation import (
    kernel_resampling,
    latin_hypercube,
    silverman_bandwidth,
)

TARRAGONA = SDCMICRO / "Tarragona.csv"


def test_marginals_kept_and_rank_correlations_restored() -> None:
    frame = pd.read_csv(TARRAGONA)
    columns = list(frame.columns[:5])
    out = latin_hypercube(frame, columns, seed=3)
    for column in columns:  # F⁻¹(i/(n+1)) with n synthetic records: the original order statistics
        assert np.array_equal(np.sort(out[column].to_numpy()), np.sort(frame[column].to_numpy()))
    before = spearmanr(frame[columns]).statistic
    after = spearmanr(out[columns]).statistic
    assert np.abs(after - before).max() < 0.06
    # without the restoration the columns would be independent permutations
    rng = np.random.default_rng(0)
    shuffled = frame[columns].apply(lambda c: rng.permutation(c.to_numpy()))
    assert np.abs(spearmanr(shuffled).statistic - before).max() > 0.3
    # records are synthetic: few keep their original row's values
    assert (out[columns].to_numpy() == frame[columns].to_numpy()).all(axis=1).mean() < 0.01


def test_seeded_and_within_groups() -> None:
    frame = pd.read_csv(TARRAGONA)
    frame["group"] = np.arange(len(frame)) % 2
    columns = list(frame.columns[:3])
    a = protect(frame, "lhs", columns=columns, by=["group"], seed=5).release
    b = protect(frame, "lhs", columns=columns, by=["group"], seed=5).release
    c = protect(frame, "lhs", columns=columns, by=["group"], seed=6).release
    assert a.equals(b) and not a.equals(c)
    for g in (0, 1):  # each group keeps its own marginals
        assert np.array_equal(np.sort(a.loc[a.group == g, columns[0]]), np.sort(frame.loc[frame.group == g, columns[0]]))


def test_bad_input() -> None:
    with pytest.raises(InputError):
        latin_hypercube(pd.DataFrame({"a": [1.0, 2.0]}), ["a"])
    with pytest.raises(InputError, match="constant"):
        latin_hypercube(pd.DataFrame({"a": np.arange(10.0), "b": np.ones(10)}), ["a", "b"])


def test_silverman_bandwidth_by_hand() -> None:
    x = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 100])
    sd = np.std(x, ddof=1)
    iqr = np.percentile(x, 75) - np.percentile(x, 25)  # 7.75 - 3.25 = 4.5
    assert silverman_bandwidth(x) == pytest.approx(0.9 * min(sd, iqr / 1.349) / 10**0.2)
    assert iqr / 1.349 < sd


@pytest.mark.parametrize(("variant", "expected_corr"), [("correlation", 0.5), ("univariate", None)])
def test_kernel_resampling_keeps_moments(variant, expected_corr) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(40_000)
    frame = pd.DataFrame({"a": a, "b": 0.5 * a + np.sqrt(0.75) * rng.standard_normal(40_000), "id": 1})
    out = kernel_resampling(frame, ["a", "b"], factor=2.0, variant=variant, seed=1)
    assert out[["a", "b"]].mean().to_numpy() == pytest.approx(frame[["a", "b"]].mean().to_numpy(), abs=0.03)
    assert out[["a", "b"]].std().to_numpy() == pytest.approx(frame[["a", "b"]].std().to_numpy(), rel=0.03)
    corr = out[["a", "b"]].corr().iloc[0, 1]
    h = 2.0 * silverman_bandwidth(frame["a"].to_numpy())
    if expected_corr is not None:
        assert corr == pytest.approx(0.5, abs=0.02)
    else:  # independent kernels dilute the covariance by 1 + h²/σ²
        assert corr == pytest.approx(0.5 / (1 + h**2), abs=0.02)
        assert corr < 0.49
    assert (out["id"] == 1).all()
    assert not np.isin(out["a"].to_numpy(), frame["a"].to_numpy()).any()  # no original value survives
    again = kernel_resampling(frame, ["a", "b"], factor=2.0, variant=variant, seed=1)
    assert again.equals(out)


def test_kernel_resampling_via_catalogue_and_errors() -> None:
    frame = pd.read_csv(TARRAGONA)
    done = protect(frame, "kernel-resampling", ["factor=1.5"], columns=list(frame.columns[:3]), seed=2)
    assert done.log["params"] == {"factor": 1.5, "variant": "correlation", "adaptive": True}
    with pytest.raises(InputError):
        kernel_resampling(frame, list(frame.columns[:2]), factor=0)
    with pytest.raises(InputError):
        kernel_resampling(frame, list(frame.columns[:2]), variant="other")


def test_adaptive_bandwidth_keeps_non_negative_variables_non_negative() -> None:
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"costs": rng.lognormal(2, 1.2, 5_000), "growth": rng.normal(0, 1, 5_000)})
    plain = kernel_resampling(frame, ["costs", "growth"], factor=2.1, variant="univariate", seed=3, adaptive=False)
    adapted = kernel_resampling(frame, ["costs", "growth"], factor=2.1, variant="univariate", seed=3)
    negative = plain["costs"].to_numpy() < 0
    assert negative.sum() > 50  # symmetric kernels push small values below 0
    assert (adapted["costs"] >= 0).all()
    # records that stayed non-negative keep their value; variables that may be negative are untouched
    np.testing.assert_array_equal(adapted["costs"].to_numpy()[~negative], plain["costs"].to_numpy()[~negative])
    np.testing.assert_array_equal(adapted["growth"].to_numpy(), plain["growth"].to_numpy())
    # the records adapted are few and small, so the mean moves little
    assert adapted["costs"].mean() == pytest.approx(frame["costs"].mean(), rel=0.05)
