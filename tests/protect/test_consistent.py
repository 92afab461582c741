"""Panel-consistent protection on hand-computed fixtures (docs/method/structure.md)."""

from __future__ import annotations

import pandas as pd
import pytest

from attack.errors import InputError
from attack.protect.catalogue import protect
from attack.protect.consistent import panel_microaggregation, panel_noise, panel_rank_swap

PANEL = pd.DataFrame({"id": ["a", "b", "a", "b", "c", "c"], "wave": [1, 1, 2, 2, 1, 2],
                      "x": [10.0, 20.0, 12.0, 22.0, 100.0, 110.0], "y": [1.0, 2.0, 1.0, 3.0, 4.0, 5.0]})


def test_one_factor_per_unit_and_variable_for_all_waves():
    out = panel_noise(PANEL, ["x", "y"], unit="id", s=0.1, seed=7)
    ratio = (out[["x", "y"]] / PANEL[["x", "y"]]).assign(id=PANEL["id"])
    spread = ratio.groupby("id").agg(lambda v: v.max() - v.min())
    assert (spread.to_numpy() < 1e-12).all()
    assert ratio.groupby("id")["x"].first().nunique() == 3  # units differ
    fresh = panel_noise(PANEL, ["x", "y"], unit="id", s=0.1, per_wave=True, seed=7)
    assert (fresh["x"] / PANEL["x"]).groupby(PANEL["id"]).agg(lambda v: v.max() - v.min()).min() > 0
    again = panel_noise(PANEL, ["x", "y"], unit="id", s=0.1, seed=7)
    pd.testing.assert_frame_equal(out, again)


SIX = pd.DataFrame({"id": list("abcdef") * 2, "wave": [1] * 6 + [2] * 6,
                    "x": [10.0, 20, 30, 100, 110, 120, 12, 22, 32, 101, 111, 121]})


def test_same_groups_in_every_wave():
    # three units a, b, c form the low group, d, e, f the high one; the same groups in both waves:
    # wave 1 means (10 + 20 + 30)/3 = 20 and 110, wave 2 (12 + 22 + 32)/3 = 22 and 111
    out = panel_microaggregation(SIX, ["x"], unit="id", wave="wave", k=3)
    assert out["x"].tolist() == pytest.approx([20.0] * 3 + [110.0] * 3 + [22.0] * 3 + [111.0] * 3)
    # three units, k = 3: one group; its mean in each wave over the members present
    out = panel_microaggregation(PANEL, ["x"], unit="id", wave="wave", k=3)
    assert out["x"].tolist() == pytest.approx([130 / 3, 130 / 3, 48.0, 48.0, 130 / 3, 48.0])


def test_small_groups_in_a_wave_are_reported():
    exits = SIX[~((SIX["id"] == "b") & (SIX["wave"] == 2))]
    with pytest.warns(UserWarning, match="2 rows lie in a wave where their group has fewer than 3"):
        out = panel_microaggregation(exits, ["x"], unit="id", wave="wave", k=3)
    assert out["x"].tolist()[6:8] == pytest.approx([22.0, 22.0])  # (12 + 32)/2: a and c in wave 2
    with pytest.raises(InputError, match="group size k must be an integer >= 3"):
        panel_microaggregation(SIX, ["x"], unit="id", wave="wave", k=2)


def test_registered_in_the_catalogue():
    result = protect(PANEL, "panel-noise", {"unit": "id", "s": 0.05}, columns=["x"], seed=1)
    assert result.log["changed_values"] == {"x": 6}
    ratio = result.release["x"] / PANEL["x"]
    assert (ratio.groupby(PANEL["id"]).agg(lambda v: v.max() - v.min()) < 1e-12).all()
    with pytest.raises(InputError):
        panel_noise(PANEL, ["x"], unit="nope", s=0.1)


def test_rank_swap_keeps_partners_across_waves():
    # four units over two waves; means of x: a 11, b 21, c 105, d 106. With p = 25 the window is one
    # rank, so the ranks pair 0–1 and 2–3: a with b, c with d, in both waves
    four = pd.concat([PANEL, pd.DataFrame({"id": ["d", "d"], "wave": [1, 2], "x": [101.0, 111.0],
                                           "y": [4.0, 5.0]})], ignore_index=True)
    out = panel_rank_swap(four, ["x"], unit="id", wave="wave", p=25, seed=3)
    assert out["x"].tolist() == [20.0, 10.0, 22.0, 12.0, 101.0, 111.0, 100.0, 110.0]
    exits = four[~((four["id"] == "b") & (four["wave"] == 2))].reset_index(drop=True)
    with pytest.warns(UserWarning, match="1 values keep their own"):
        out = panel_rank_swap(exits, ["x"], unit="id", wave="wave", p=25, seed=3)
    assert out["x"].tolist()[:3] == [20.0, 10.0, 12.0]  # a keeps 12 in wave 2: b is absent there
