"""The panel intruder's view of long files on hand-computed fixtures (docs/method/structure.md)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from attack.errors import InputError
from attack.io.readers import as_table
from attack.linkage.link import link
from attack.linkage.panel import PRESENCE, PanelSide, panel_waves, wave_view
from attack.linkage.settings import Linkage

# Units A and B in waves 1 and 2, unit C in wave 2 only. One key x, unstandardised, squared.
#   external A: 10, 20   B: 11, 30   C: –, 50
#   release  A: 11.2, 21   B: 10.1, 29   C: –, 52
# Wave 1 alone: A–A 1.44, A–B 0.01, B–A 0.04, B–B 0.81: Procedure II takes A–B, then B–A, both false.
# Waves 1 and 2: A–A 1.44 + 1 = 2.44, A–B 0.01 + 81, B–A 0.04 + 81, B–B 0.81 + 1 = 1.81: both right.
# C is present in wave 2 only, a block of its own.
EXTERNAL = pd.DataFrame({"id": ["A", "A", "B", "B", "C"], "wave": [1, 2, 1, 2, 2], "x": [10, 20, 11, 30, 50.0]})
RELEASE = pd.DataFrame({"id": ["B", "A", "B", "A", "C"], "wave": [1, 1, 2, 2, 2], "x": [10.1, 11.2, 29, 21, 52.0]})
SPEC = Linkage(keys=["x:metric"], standardise="none", wave="wave")


def _view(waves, spec=SPEC):
    sides = PanelSide(as_table(EXTERNAL), "id", "wave"), PanelSide(as_table(RELEASE), "id", "wave")
    return wave_view(*sides, None, spec, waves)


def _links(waves):
    view = _view(waves)
    links = link(view.external, view.release, view.linkage)
    return dict(zip(view.external["id"], view.release["id"].to_numpy()[links.release_row], strict=True))


def test_waves_shared_in_natural_order():
    sides = [PanelSide(as_table(EXTERNAL), "id", "wave"), PanelSide(as_table(RELEASE), "id", "wave")]
    assert panel_waves(sides) == ["1", "2"]


def test_one_wave_links_wrong_two_waves_right():
    assert _links(["1"]) == {"A": "B", "B": "A"}
    assert _links(["1", "2"]) == {"A": "A", "B": "B", "C": "C"}


def test_wave_view_columns():
    view = _view(["1", "2"])
    ext = view.external.set_index("id")
    assert ext[PRESENCE].to_dict() == {"A": "1|2", "B": "1|2", "C": "2"}
    # C is absent in wave 1: both files get the mean of the present wave-1 values (10, 11, 10.1, 11.2)
    assert ext.loc["C", "x@1"] == pytest.approx((10 + 11 + 10.1 + 11.2) / 4)
    assert view.release.set_index("id").loc["C", "x@1"] == pytest.approx((10 + 11 + 10.1 + 11.2) / 4)
    assert [k.name for k in view.linkage.keys] == ["x@1", "x@2"]
    assert view.linkage.blocking_entries() == [PRESENCE]


def test_growth_rates_as_keys():
    view = _view(["1", "2"], SPEC.model_copy(update={"trajectory": True}))
    ext = view.external.set_index("id")
    assert ext.loc["A", "x~2"] == pytest.approx(math.log(20 / 10))
    assert ext.loc["C", "x~2"] == 0.0  # no wave 1: a constant
    assert [k.name for k in view.linkage.keys] == ["x@1", "x@2", "x~2"]


def test_bad_panels():
    twice = EXTERNAL.assign(wave=[1, 1, 1, 2, 2])
    with pytest.raises(InputError) as caught:
        panel_waves([PanelSide(as_table(twice), "id", "wave")])
    assert (caught.value.column, caught.value.row) == ("id", 2)
    with pytest.raises(InputError, match="no wave"):
        panel_waves([PanelSide(as_table(EXTERNAL), "id", "wave"),
                     PanelSide(as_table(RELEASE.assign(wave=[9, 9, 8, 8, 8])), "id", "wave")])
    with pytest.raises(InputError, match="growth between waves"):
        Linkage(keys=["x:metric"], trajectory=True)
    with pytest.raises(InputError, match="not combined"):
        Linkage(keys=["x:metric"], wave="wave", cluster="hid")
