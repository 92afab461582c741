"""Latin hypercube sampling with Iman–Conover rank-correlation restoration
(attack.protect.simulation)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA
from scipy.stats import spearmanr

from attack import InputError
from attack.protect.catalogue import protect
from attack.protect.simulation import latin_hypercube

TARRAGONA = SHARED_DATA / "sdcmicro" / "Tarragona.csv"


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
