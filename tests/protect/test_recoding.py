"""Information reduction (docs/method/protection.md; worked example 12 (docs/reference/worked-examples.md): Tables 35.23, 37.4, 37.26)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.protect.recoding import (
    OTHER,
    bottom_code,
    branch_categories,
    coarsen,
    coarsen_by_count,
    drop_columns,
    drop_units,
    east_west,
    read_mapping,
    recode,
    round_values,
    size_classes,
    top_code,
)

# Table 35.23 written out row by row: released code → divisions.
TABLE_35_23 = {
    "C": ["10", "11", "14"], "DA": ["15", "16"], "DB": ["17", "18"], "20": ["20"],
    "DE": ["21", "22"], "DG": ["24"], "DH": ["25"], "DI": ["26"], "27": ["27"], "28": ["28"],
    "DK": ["29"], "DL": ["30", "31"], "32": ["32"], "33": ["33"], "DM": ["34", "35"],
    "36": ["36"], OTHER: ["19", "23"],
}


def test_kse_preset_maps_every_division() -> None:
    divisions = [(code, d) for code, ds in TABLE_35_23.items() for d in ds]
    data = pd.DataFrame({
        "id": range(len(divisions) + 2),
        "wz": [f"{d}{i % 10}{(3 * i) % 10}" for i, (_, d) in enumerate(divisions)] + ["3710", "37"],
    })
    result = coarsen(data, "wz", preset="kse_suf")
    assert result.data["wz"].tolist() == [code for code, _ in divisions]
    assert result.data["id"].tolist() == list(range(len(divisions)))
    assert result.dropped == (len(divisions), len(divisions) + 1)
    assert len(data) == len(divisions) + 2                     # input untouched
    assert result.mapping["3710"] == "remove"
    assert result.to_dict()["dropped"] == [len(divisions), len(divisions) + 1]
    assert sorted(set(result.data["wz"])) == sorted(TABLE_35_23)
    with pytest.raises(InputError) as info:
        coarsen(pd.DataFrame({"wz": ["1511", "4511"]}), "wz", preset="kse_suf")
    assert (info.value.column, info.value.row) == ("wz", 2)


def test_ehs_preset_table_37_26() -> None:
    data = pd.DataFrame({"wz": ["52111", "5212", "5221", "5231", "52411", "5242", "5248",
                                "5250", "5262", "5271", None]})
    result = coarsen(data, "wz", preset="ehs_suf")
    assert result.data["wz"].tolist()[:-1] == ["521", "521", "522", "523", "5241", "5242",
                                                "5248", "525", "526", "527"]
    assert pd.isna(result.data["wz"].iloc[-1])
    with pytest.raises(InputError, match="'5111'"):
        coarsen(pd.DataFrame({"wz": ["5111"]}), "wz", preset="ehs_suf")


def test_coarsen_level_and_merges_keep_text() -> None:
    data = pd.DataFrame({"wz": ["0111", "01123", "1511", "1512", "2875", None]})
    assert coarsen(data, "wz", level=2).data["wz"].tolist()[:5] == ["01", "01", "15", "15", "28"]
    merged = coarsen(data, "wz", level=3, merges={"15": "DA", "1512": "special"})
    assert merged.data["wz"].tolist()[:5] == ["011", "011", "DA", "special", "287"]
    numeric = pd.DataFrame({"wz": [1511.0, 2875.0]})             # codes stored as floats
    assert coarsen(numeric, "wz", level=2).data["wz"].tolist() == ["15", "28"]
    for kwargs in ({}, {"level": 0}, {"preset": "nope"}, {"preset": "kse_suf", "level": 2}):
        with pytest.raises(InputError):
            coarsen(data, "wz", **kwargs)


def test_coarsen_by_count_hand_made() -> None:
    # 521x: 5211 ×6 (3 E, 3 W), 5212 ×1 (E); 522x: 5221 ×4 E + 4 W, 5222 ×4 E + 4 W; 53: 5311 ×1 W
    codes = ["5211"] * 6 + ["5212"] + ["5221"] * 8 + ["5222"] * 8 + ["5311"]
    region = ["E", "E", "E", "W", "W", "W", "E"] + ["E", "W"] * 8 + ["W"]
    data = pd.DataFrame({"wz": codes, "region": region})
    result = coarsen_by_count(data, "wz", n_min=3, by="region", levels=(4, 3, 2))
    assert result.mapping == {"5211": "521", "5212": "521", "5221": "5221", "5222": "5222",
                              "5311": "53"}
    # 5311 reaches the coarsest level alone: reported, not hidden
    assert result.small_cells == (("53", "W"),)
    cells = result.data.groupby(["wz", "region"]).size()
    assert (cells.drop(("53", "W")) >= 3).all()
    # without the lone 53 unit every cell reaches n_min
    clean = coarsen_by_count(data.iloc[:-1], "wz", n_min=3, by="region", levels=(4, 3, 2))
    assert clean.small_cells == ()
    assert (clean.data.groupby(["wz", "region"]).size() >= 3).all()
    # a stricter n_min fails the 522 classes too; 521 stays too small, so division 52 results
    strict = coarsen_by_count(data.iloc[:-1], "wz", n_min=5, by="region", levels=(4, 3, 2))
    assert set(strict.mapping.values()) == {"52"}
    assert strict.small_cells == ()
    # without cell variables the counts are pooled
    pooled = coarsen_by_count(data.iloc[:-1], "wz", n_min=7, levels=(4, 3, 2))
    assert pooled.mapping == {"5211": "521", "5212": "521", "5221": "5221", "5222": "5222"}


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2"]), st.sampled_from(["1", "2", "3"]),
                          st.sampled_from(["1", "2"])), min_size=1, max_size=60),
       st.integers(1, 6))
def test_coarsen_by_count_properties(parts: list[tuple[str, str, str]], n_min: int) -> None:
    codes = ["5" + a + b + c for a, b, c in parts]
    result = coarsen_by_count(pd.DataFrame({"wz": codes}), "wz", n_min=n_min, levels=(4, 3, 2))
    released = set(result.mapping.values())
    assert all(not b.startswith(a) for a in released for b in released if a != b)  # no nesting
    assert all(code.startswith(out) for code, out in result.mapping.items())
    sizes = result.data["wz"].value_counts()
    assert set(result.small_cells) == {(c,) for c in sizes[sizes < n_min].index}
    assert all(len(c[0]) == 2 for c in result.small_cells)


def test_branch_categories_table_37_4() -> None:
    counts = [1, 2, 3, 4, 5, 6, 10, 11, 50, 51, 100, 101, 5000, np.nan]
    out = branch_categories(pd.DataFrame({"branches": counts}), "branches")["branches"]
    assert out.tolist()[:-1] == [1, 2, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9, 9]
    assert out.isna().tolist()[-1]
    with pytest.raises(InputError) as info:
        branch_categories(pd.DataFrame({"branches": [3, 0]}), "branches")
    assert info.value.row == 2


def test_size_classes_and_rounding() -> None:
    data = pd.DataFrame({"employees": [0, 9, 10, 49, 50, 250], "turnover": [1499, -1500, 2500,
                                                                            499, 0, 1e6]})
    classes = size_classes(data, "employees", [0, 10, 50, 250], labels=[1, 2, 3, 4])
    assert classes["employees"].tolist() == [1, 1, 2, 2, 3, 4]
    rounded = round_values(data, ["turnover"], 1000)
    assert rounded["turnover"].tolist() == [1000, -2000, 3000, 0, 0, 1e6]
    with pytest.raises(InputError):
        round_values(data, ["turnover"], 0)


def test_top_code_mean_replacement_preserves_mean() -> None:
    x = [1.0, 5.0, 7.0, 12.0, 40.0, 100.0, np.nan]
    data = pd.DataFrame({"x": x})
    out = top_code(data, "x", cut=10, replace="mean")["x"]
    assert out.tolist()[:6] == pytest.approx([1.0, 5.0, 7.0] + [152 / 3] * 3, abs=1e-12)
    assert out.mean() == pytest.approx(np.nanmean(x), abs=1e-12)
    assert np.isnan(out.iloc[6])
    largest = top_code(data, "x", largest=2, replace="mean")["x"]
    assert largest.tolist()[:6] == [1.0, 5.0, 7.0, 12.0, 70.0, 70.0]
    bottom = bottom_code(data, "x", smallest=2, replace="mean")["x"]
    assert bottom.tolist()[:6] == [3.0, 3.0, 7.0, 12.0, 40.0, 100.0]
    assert bottom.mean() == pytest.approx(np.nanmean(x), abs=1e-12)


def test_censoring_caps() -> None:
    data = pd.DataFrame({"x": np.arange(1.0, 101.0)})
    top = top_code(data, "x", cut=90)["x"]
    assert top.max() == 90 and (top == 90).sum() == 11 and top.tolist()[:89] == list(range(1, 90))
    q = top_code(data, "x", quantile=0.9)["x"]
    assert q.max() == pytest.approx(np.quantile(np.arange(1.0, 101.0), 0.9))
    assert top_code(data, "x", largest=5)["x"].max() == 95
    low = bottom_code(data, "x", cut=10)["x"]
    assert low.min() == 10 and (low == 10).sum() == 10
    for kwargs in ({}, {"cut": 5, "quantile": 0.5}, {"largest": 0}, {"largest": 100},
                   {"quantile": 1.0}, {"cut": 5, "replace": "median"}):
        with pytest.raises(InputError):
            top_code(data, "x", **kwargs)


def test_recode_east_west_and_mapping_file(tmp_path: Path) -> None:
    data = pd.DataFrame({"land": ["01", "11", "12000", "09", None], "legal": [1, 2, 3, 9, 1]})
    ew = east_west(data, "land", ["11", "12", "13", "14", "15", "16"])
    assert ew["land"].tolist()[:4] == ["West", "East", "East", "West"]
    assert pd.isna(ew["land"].iloc[4])

    path = tmp_path / "legal.csv"
    path.write_text("from,to\n1,partnership\n2,corporation\n3,cooperative\n", encoding="utf-8")
    mapping = read_mapping(path)
    assert mapping == {"1": "partnership", "2": "corporation", "3": "cooperative"}
    with pytest.raises(InputError) as info:
        recode(data, "legal", mapping)
    assert (info.value.column, info.value.row) == ("legal", 4)
    out = recode(data, "legal", mapping, default="other")
    assert out["legal"].tolist() == ["partnership", "corporation", "cooperative", "other",
                                     "partnership"]
    text = pd.DataFrame({"wz": ["0111", "111"]})
    assert recode(text, "wz", {"0111": "A"}, default="x")["wz"].tolist() == ["A", "x"]


@pytest.mark.parametrize(("content", "row", "column"), [
    ("from,to\n1,a\n2,\n", 2, "to"),
    ("from,to\n1,a\n2,b\n1,c\n", 3, "from"),
    ("from,to\n,a\n", 1, "from"),
])
def test_mapping_file_errors_name_the_row(tmp_path: Path, content: str, row: int,
                                          column: str) -> None:
    path = tmp_path / "map.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_mapping(path)
    assert (info.value.file, info.value.row, info.value.column) == (str(path), row, column)


def test_mapping_file_structure_errors(tmp_path: Path) -> None:
    path = tmp_path / "map.csv"
    path.write_text("code,label\n1,a\n", encoding="utf-8")
    with pytest.raises(InputError, match="'from' and 'to'") as info:
        read_mapping(path)
    assert info.value.file == str(path)
    with pytest.raises(InputError) as info:
        read_mapping(tmp_path / "absent.csv")
    assert info.value.file == str(tmp_path / "absent.csv")
    path.write_text(" from , to \n0111,01\n", encoding="utf-8")
    assert read_mapping(path) == {"0111": "01"}


def test_drop_columns_and_units() -> None:
    data = pd.DataFrame({"id": [1, 2, 3, 4], "employees": [10, 300, 40, 250],
                         "owners": [1, 2, 1, 1]})
    assert list(drop_columns(data, ["owners"]).columns) == ["id", "employees"]
    with pytest.raises(InputError) as info:
        drop_columns(data, ["nope"])
    assert info.value.column == "nope"
    kept = drop_units(data, "employees >= 250")
    assert kept["id"].tolist() == [1, 3] and kept.index.tolist() == [0, 2]
    assert drop_units(data, [False, False, True, False])["id"].tolist() == [1, 2, 4]
    assert drop_units(data, data["id"] == 1)["id"].tolist() == [2, 3, 4]
    for bad in ("employees >>> 3", "employees + 1", [True, False]):
        with pytest.raises(InputError):
            drop_units(data, bad)
    assert len(data) == 4
