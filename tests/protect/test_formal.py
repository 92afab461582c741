"""FORMAL release (docs/method/protection.md); microaggregation is tested in test_microaggregation.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.protect.formal import formal_release


@pytest.fixture
def original() -> pd.DataFrame:
    return pd.DataFrame({
        "unit_id": [f"U{i:07d}" for i in range(1, 21)],
        "name": [f"Firm {i}" for i in range(1, 21)],
        "nace": ["1511", "2875"] * 10,
        "turnover": np.linspace(100.0, 2000.0, 20),
    })


# --- FORMAL ---------------------------------------------------------------------------------------


def test_formal_drops_identifiers_and_shuffles(original: pd.DataFrame) -> None:
    release = formal_release(original, seed=11, identifiers=["name"])
    assert list(release.columns) == ["unit_id", "nace", "turnover"]
    assert release.index.equals(pd.RangeIndex(len(original)))
    assert not release["unit_id"].equals(original["unit_id"])
    restored = release.set_index("unit_id").loc[original["unit_id"]].reset_index()
    pd.testing.assert_frame_equal(restored, original.drop(columns="name"))
    assert "name" in original.columns


def test_formal_is_seeded(original: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(formal_release(original, 4), formal_release(original, 4))
    assert not formal_release(original, 4).equals(formal_release(original, 5))


def test_formal_rejects_unknown_identifier(original: pd.DataFrame) -> None:
    with pytest.raises(InputError):
        formal_release(original, 1, identifiers=["address"])
