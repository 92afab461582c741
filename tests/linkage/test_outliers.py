"""One value may not change a verdict silently (attack.linkage.outliers and the checks around
the linkage settings): a value that alone spans a key's range stops the run unless the user
winsorises, overflowing distances stop it, and degenerate settings are refused by field."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attack
from attack.errors import InputError
from attack.linkage.outliers import DOMINANCE, MIN_VALUES, dominant_rows
from attack.study.scenario import scenario_from_dict


def _brute_dominant(values: list[float]) -> set[int]:
    """The definition by enumeration: peel the value whose gap to its neighbour is at least
    DOMINANCE times the (non-zero) spread of the others, from either end."""
    rows = list(range(len(values)))
    out: set[int] = set()
    while len(rows) >= 3:
        rows.sort(key=lambda i: (values[i], i))
        top, bottom = rows[-1], rows[0]
        top_gap, top_rest = values[top] - values[rows[-2]], values[rows[-2]] - values[bottom]
        bottom_gap, bottom_rest = values[rows[1]] - values[bottom], values[top] - values[rows[1]]
        if top_gap >= bottom_gap and top_rest > 0 and top_gap >= DOMINANCE * top_rest:
            out.add(top)
            rows.pop()
        elif bottom_rest > 0 and bottom_gap >= DOMINANCE * bottom_rest:
            out.add(bottom)
            rows.pop(0)
        else:
            break
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=MIN_VALUES, max_size=40),
       st.lists(st.sampled_from([1e9, -1e9, 1e15, 3e7]), max_size=3))
def test_dominant_values_follow_the_definition(values, planted):
    data = values + planted
    found = set(dominant_rows(np.array(data, dtype=float)))
    assert found == _brute_dominant(data)


def test_a_skewed_register_has_no_dominant_value_and_a_planted_one_is_found() -> None:
    turnover = np.random.default_rng(1).lognormal(12, 2.5, 100_000)
    assert dominant_rows(turnover) == []
    turnover[4711] = 1e15
    assert dominant_rows(turnover) == [4711]
    assert dominant_rows(turnover[:MIN_VALUES - 1]) == []  # too few values to judge


def _files(n: int = 60):
    rng = np.random.default_rng(3)
    turnover = rng.lognormal(8, 1, n).round(1)
    employees = rng.integers(1, 200, n).astype(float)
    ids = [f"u{i}" for i in range(n)]
    release = pd.DataFrame({"unit_id": ids, "turnover": turnover * rng.uniform(0.9, 1.1, n), "employees": employees})
    external = pd.DataFrame({"unit_id": ids, "turnover": turnover, "employees": employees})
    return external, release


def _attack(external, release, **options):
    return attack.mass_attack(external, release, keys=["turnover:metric", "employees:metric"],
                              external_id="unit_id", release_id="unit_id", tau=0.5, **options)


def test_a_planted_value_stops_the_attack_naming_row_and_value_or_is_winsorised() -> None:
    external, release = _files()
    release.loc[17, "turnover"] = 1e15
    with pytest.raises(InputError, match=r"column 'turnover', row 18: the value 1e\+15 alone spans") as info:
        _attack(external, release)
    assert "--winsorise" in str(info.value)
    with pytest.raises(InputError, match="row 18"):
        _attack(external, release, standardise="sd")
    capped = _attack(external, release, winsorise=True)
    assert capped.figures["linkage"]["winsorise"] is True
    assert any("1 value(s) in" in note and "winsorised" in note for note in capped.figures["linkage"]["notes"])
    release.loc[17, "turnover"] = release["turnover"].drop(17).max()  # what winsorising sets it to
    assert capped.figures["n_correct"] == _attack(external, release).figures["n_correct"]


def test_unstandardised_keys_are_not_screened_and_overflowing_distances_stop() -> None:
    external, release = _files()
    release.loc[3, "turnover"] = 1e15
    assert _attack(external, release, standardise="none").figures["linkage"]["standardise"] == "none"
    external["turnover"] *= 1e200
    release["turnover"] = external["turnover"]
    with pytest.raises(InputError, match="column 'turnover'.*overflow"):
        _attack(external, release)


def test_degenerate_linkage_settings_are_refused_by_field() -> None:
    external, release = _files()
    with pytest.raises(InputError, match="every key has weight 0"):
        attack.mass_attack(external, release, keys=["turnover:metric:0", "employees:metric:0"],
                           external_id="unit_id", release_id="unit_id", tau=0.5)
    release["rid"] = release["unit_id"]
    for keys, blocks in ((["turnover:metric", "rid:nominal"], []), (["turnover:metric"], ["rid"])):
        external["rid"] = external["unit_id"]
        with pytest.raises(InputError, match="column 'rid'.*the release's id column"):
            attack.mass_attack(external, release, keys=keys, blocks=blocks, external_id="unit_id",
                               release_id="rid", tau=0.5)
    with pytest.raises(InputError, match="bins must be finite"):
        attack.Block("employees", bins=[10, float("nan")])


@pytest.mark.parametrize("table,value,field", [
    ("evaluation", {"tau": True}, "evaluation.tau"),
    ("evaluation", {"gamma": [0.1, False]}, "evaluation.gamma"),
    ("linkage", {"seed": -1}, "linkage.seed"),
])
def test_booleans_and_negative_seeds_are_not_numbers(table, value, field) -> None:
    raw = {"data": {"release": {"demo": "formal"}}, "linkage": {"keys": ["turnover:metric"]}}
    raw[table] = {**raw.get(table, {}), **value}
    with pytest.raises(InputError) as info:
        scenario_from_dict(raw)
    assert info.value.field == field


def test_codes_spelt_with_and_without_leading_zeros_are_refused() -> None:
    external, release = _files()
    external["nace"] = ["01", "10"] * 30
    release["nace"] = ["1", "10"] * 30
    with pytest.raises(InputError, match=r"column 'nace'.*the code '01' in .* is '1' in"):
        attack.mass_attack(external, release, keys=["turnover:metric"], blocks=["nace"],
                           external_id="unit_id", release_id="unit_id", tau=0.5)
