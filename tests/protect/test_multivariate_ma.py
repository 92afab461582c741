"""sdcMicro's pca and rmd microaggregation (attack.protect.multivariate_ma)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference_data import SDCMICRO

from attack import InputError
from attack.protect.catalogue import protect
from attack.protect.multivariate_ma import (
    first_component_scores,
    pca_microaggregation,
    rmd_microaggregation,
)


def _groups(frame: pd.DataFrame, columns) -> np.ndarray:
    return np.unique(frame[columns].to_numpy(), axis=0, return_inverse=True)[1].ravel()


def test_pca_on_one_column_is_sorted_consecutive_groups() -> None:
    frame = pd.DataFrame({"v": [5.0, 1, 4, 2, 3, 6, 7]})
    out = pca_microaggregation(frame, ["v"], k=3)
    # sorted 1 2 3 | 4 5 6 7: the remainder joins the last group
    assert out["v"].tolist() == [5.5, 2, 5.5, 2, 2, 5.5, 5.5]


def test_pca_orders_along_the_principal_axis() -> None:
    t = np.array([0.0, 3, 1, 5, 2, 4])
    frame = pd.DataFrame({"a": t, "b": 10 - 2 * t + np.array([0.01, -0.01, 0.02, 0.0, -0.02, 0.01])})
    scores = first_component_scores((frame.to_numpy() - frame.mean().to_numpy()) / frame.std().to_numpy())
    assert list(np.argsort(scores)) in (list(np.argsort(t)), list(np.argsort(-t)))
    out = pca_microaggregation(frame, ["a", "b"], k=3)
    assert sorted(out["a"].unique()) == [1.0, 4.0]  # {0, 1, 2} and {3, 4, 5}


def test_rmd_hand_case() -> None:
    """One step (⌊7/3⌋ − 1 = 1): the robust outlier 50 with its two nearest, 10.2 and 10.1;
    the other four records form the last group."""
    frame = pd.DataFrame({"v": [0.0, 0.1, 0.2, 10.0, 10.1, 10.2, 50.0]})
    out = rmd_microaggregation(frame, ["v"], k=3)
    top = (50 + 10.2 + 10.1) / 3
    rest = (0 + 0.1 + 0.2 + 10) / 4
    assert out["v"].tolist() == pytest.approx([rest, rest, rest, rest, top, top, top])


@pytest.mark.parametrize("method", ["pca-ma", "rmd-ma"])
def test_group_sizes_and_means_on_tarragona(method) -> None:
    frame = pd.read_csv(SDCMICRO / "Tarragona.csv")
    columns = list(frame.columns[:4])
    done = protect(frame, method, ["k=3"], columns=columns)
    sizes = np.bincount(_groups(done.release, columns))
    assert sizes.min() >= 3 and sizes.max() <= 5
    assert done.release[columns].mean().to_numpy() == pytest.approx(frame[columns].mean().to_numpy())
    again = protect(frame, method, ["k=3"], columns=columns)
    assert again.release.equals(done.release)


def test_too_few_records() -> None:
    with pytest.raises(InputError):
        pca_microaggregation(pd.DataFrame({"v": [1.0, 2.0]}), ["v"], k=3)
