"""Tests for attack.readers: file formats, column selection and validation of ids and numbers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.io.readers import (
    ReadOptions,
    code_column,
    id_column,
    numeric_column,
    read,
    read_table,
    require_columns,
    source_name,
)

HAS_PYREADSTAT = importlib.util.find_spec("pyreadstat") is not None


def frame() -> pd.DataFrame:
    """Codes with leading zeros, float-stored codes, integers and floats."""
    return pd.DataFrame(
        {
            "id": ["007", "008", "010"],
            "code": ["0111", "0112", "1511"],
            "nace": [1511.0, 151.0, np.nan],
            "turnover": [120, 0, 35000],
            "share": [0.25, 1.5, np.nan],
        }
    )


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# CSV


def test_csv_keeps_leading_zeros(tmp_path) -> None:
    path = write_csv(tmp_path / "a.csv", "id,nace,turnover\n007,0111,12\n008,0112,13.5\n")
    table = read_table(path)
    assert list(table["nace"]) == ["0111", "0112"]
    assert list(table["id"]) == ["007", "008"]
    assert list(code_column(table, "nace")) == ["0111", "0112"]
    assert list(id_column(table, "id")) == ["007", "008"]
    np.testing.assert_array_equal(numeric_column(table, "turnover"), [12.0, 13.5])
    assert read(path).source == str(path)
    assert source_name(read(path)) == str(path)


def test_csv_reads_only_requested_columns_in_order(tmp_path) -> None:
    path = write_csv(tmp_path / "a.txt", "a,b,c\n1,2,3\n4,5,6\n")
    table = read_table(path, ["c", "a", "c"])
    assert list(table.columns) == ["c", "a"]
    assert list(table["c"]) == [3, 6]  # a column of whole numbers is read as integers
    assert list(read_table(path).columns) == ["a", "b", "c"]


def test_csv_missing_column_names_file_and_column(tmp_path) -> None:
    path = write_csv(tmp_path / "a.csv", "a,b\n1,2\n")
    with pytest.raises(InputError) as info:
        read_table(path, ["a", "zz"])
    assert info.value.file == str(path)
    assert info.value.column == "zz"
    assert "column is missing" in str(info.value)
    assert "a, b" in str(info.value)  # lists what the file has


def test_csv_blank_values_are_missing(tmp_path) -> None:
    path = write_csv(tmp_path / "a.csv", "id,code,x\nu1,,\nu2,15, 7 \n")
    table = read_table(path)
    assert list(code_column(table, "code")) == [None, "15"]
    values = numeric_column(table, "x")
    assert np.isnan(values[0]) and values[1] == 7.0


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "file is empty"), (b"\n\n", "file is empty"), (b"a,b\n", "no data rows")],
)
def test_empty_files(tmp_path, content, message) -> None:
    path = tmp_path / "e.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        read_table(path)
    assert info.value.file == str(path)


def test_missing_file(tmp_path) -> None:
    with pytest.raises(InputError, match="file not found") as info:
        read_table(tmp_path / "nothere.csv", ["a"])
    assert info.value.file == str(tmp_path / "nothere.csv")


def test_non_utf8_csv_given_as_utf8_names_the_line(tmp_path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("name,x\nA,1\nM\xfcller,1\n".encode("latin-1"))
    assert list(read_table(path)["name"]) == ["A", "Müller"]  # detected
    with pytest.raises(InputError, match=r"line 3 cannot be decoded as utf-8 \(byte 0xfc\).*--encoding") as info:
        read_table(path, options=ReadOptions(encoding="utf-8"))
    assert info.value.file == str(path)


@pytest.mark.parametrize("suffix", [".xls", ".json", ""])
def test_unknown_suffix(tmp_path, suffix) -> None:
    path = tmp_path / f"data{suffix}"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="unknown file format") as info:
        read_table(path)
    assert repr(suffix or "(no suffix)") in str(info.value)
    assert info.value.file == str(path)


# --------------------------------------------------------------------------------------------
# Parquet and Stata


@pytest.mark.parametrize("suffix", [".parquet", ".pq", ".dta"])
def test_binary_round_trip_reads_only_requested_columns(tmp_path, suffix) -> None:
    path = tmp_path / f"data{suffix}"
    original = frame()
    if suffix == ".dta":
        original.to_stata(path, write_index=False)
    else:
        original.to_parquet(path, index=False)
    table = read_table(path, ["turnover", "code", "nace", "id"])
    assert list(table.columns) == ["turnover", "code", "nace", "id"]
    assert list(table["code"]) == ["0111", "0112", "1511"]
    assert list(id_column(table, "id")) == ["007", "008", "010"]
    np.testing.assert_array_equal(numeric_column(table, "turnover"), [120.0, 0.0, 35000.0])
    # codes stored as floats come back without ".0"
    assert list(code_column(table, "nace")) == ["1511", "151", None]
    assert read(path).source == str(path)
    everything = read_table(path)
    assert list(everything.columns) == ["id", "code", "nace", "turnover", "share"]
    np.testing.assert_array_equal(numeric_column(everything, "share"), [0.25, 1.5, np.nan])


@pytest.mark.parametrize("suffix", [".parquet", ".dta"])
def test_binary_missing_column(tmp_path, suffix) -> None:
    path = tmp_path / f"data{suffix}"
    if suffix == ".dta":
        frame().to_stata(path, write_index=False)
    else:
        frame().to_parquet(path, index=False)
    with pytest.raises(InputError, match="column is missing") as info:
        read_table(path, ["id", "employees"])
    assert info.value.column == "employees"
    assert info.value.file == str(path)


@pytest.mark.parametrize("suffix", [".parquet", ".dta", ".sas7bdat"])
def test_corrupt_binary_file_is_an_input_error(tmp_path, suffix) -> None:
    path = tmp_path / f"broken{suffix}"
    path.write_bytes(b"this is not a data file")
    for columns in (None, ["a"]):
        with pytest.raises(InputError, match="cannot be read|is not a parquet file") as info:
            read_table(path, columns)
        assert info.value.file == str(path)


def test_parquet_without_rows(tmp_path) -> None:
    path = tmp_path / "none.parquet"
    pd.DataFrame({"a": pd.Series([], dtype="float64")}).to_parquet(path)
    with pytest.raises(InputError, match="no data rows"):
        read_table(path)


# --------------------------------------------------------------------------------------------
# SPSS and SAS


@pytest.mark.skipif(not HAS_PYREADSTAT, reason="pyreadstat is not installed (optional extra attack[spss])")
def test_spss_round_trip(tmp_path) -> None:
    import pyreadstat

    path = tmp_path / "data.sav"
    pyreadstat.write_sav(frame(), str(path))
    table = read_table(path, ["code", "turnover"])
    assert list(table.columns) == ["code", "turnover"]
    assert list(table["code"]) == ["0111", "0112", "1511"]
    np.testing.assert_array_equal(numeric_column(table, "turnover"), [120.0, 0.0, 35000.0])
    with pytest.raises(InputError) as info:
        read_table(path, ["code", "employees"])
    assert info.value.file == str(path)


@pytest.mark.skipif(HAS_PYREADSTAT, reason="pyreadstat is installed; the fallback message is not reachable")
def test_spss_without_pyreadstat_says_what_to_install(tmp_path) -> None:
    path = tmp_path / "data.sav"
    path.write_bytes(b"$FL2 not really spss")
    with pytest.raises(InputError, match=r"attack\[spss\]") as info:
        read_table(path)
    assert info.value.file == str(path)


def _small_sas7bdat() -> Path | None:
    """A small SAS file that already exists here (pandas' test data, when installed)."""
    folders = [Path(pd.__file__).parent / "tests" / "io" / "sas" / "data", Path(__file__).parent / "data"]
    for folder in folders:
        files = sorted(folder.glob("*.sas7bdat"), key=lambda p: p.stat().st_size) if folder.is_dir() else []
        if files and files[0].stat().st_size < 2_000_000:
            return files[0]
    return None


def test_sas7bdat_is_read_and_decoded() -> None:
    path = _small_sas7bdat()
    if path is None:
        pytest.skip(
            "no .sas7bdat file on this machine (pandas cannot write SAS files and its test data "
            "are not installed)"
        )
    expected = pd.read_sas(path, format="sas7bdat")
    table = read_table(path)
    assert list(table.columns) == list(expected.columns)
    assert len(table) == len(expected)
    for column in table.columns:
        assert not table[column].map(lambda v: isinstance(v, bytes)).any()
    first = str(expected.columns[0])
    assert list(read_table(path, [first]).columns) == [first]
    with pytest.raises(InputError, match="column is missing"):
        read_table(path, ["no such column"])


# --------------------------------------------------------------------------------------------
# numeric_column, code_column, id_column, require_columns


def test_numeric_column_names_the_first_bad_row(tmp_path) -> None:
    path = write_csv(tmp_path / "n.csv", "id,turnover\nu1,10\nu2,\nu3,12.5\nu4,\"1.200,50\"\nu5,abc\n")
    table = read(path)
    with pytest.raises(InputError) as info:
        numeric_column(table, "turnover")
    error = info.value
    assert (error.file, error.column, error.row) == (str(path), "turnover", 4)
    assert "'1.200,50'" in str(error)
    assert str(error).startswith(f"file {path}, column 'turnover', row 4: expected a number")


def test_numeric_column_conversions() -> None:
    table = pd.DataFrame(
        {
            "text": [" 12 ", "", None, "-3e2"],
            "ints": [1, 2, 3, 4],
            "nullable": pd.array([1, None, 3, 4], dtype="Int64"),
            "flags": [True, False, True, False],
        }
    )
    text = numeric_column(table, "text")
    assert text[0] == 12.0 and np.isnan(text[1]) and np.isnan(text[2]) and text[3] == -300.0
    assert numeric_column(table, "ints").dtype == np.float64
    nullable = numeric_column(table, "nullable")
    assert nullable[0] == 1.0 and np.isnan(nullable[1])
    np.testing.assert_array_equal(numeric_column(table, "flags"), [1.0, 0.0, 1.0, 0.0])


def test_numeric_column_in_memory_frame() -> None:
    with pytest.raises(InputError) as info:
        numeric_column(pd.DataFrame({"x": ["1", "x"]}), "x")
    assert info.value.file == "<data>"
    assert info.value.row == 2


def test_code_column_float_codes() -> None:
    table = pd.DataFrame({"whole": [1511.0, 15.0, np.nan], "fractional": [1.5, 2.0, np.nan]})
    assert list(code_column(table, "whole")) == ["1511", "15", None]
    assert list(code_column(table, "fractional")) == ["1.5", "2.0", None]
    assert list(code_column(pd.DataFrame({"i": [7, 42]}), "i")) == ["7", "42"]


def test_id_column_duplicates(tmp_path) -> None:
    path = write_csv(tmp_path / "ids.csv", "id\nu1\nu2\nu3\n u2\n")
    table = read(path)
    with pytest.raises(InputError, match="duplicate identifier 'u2'") as info:
        id_column(table, "id")
    assert (info.value.file, info.value.column, info.value.row) == (str(path), "id", 4)


def test_id_column_missing(tmp_path) -> None:
    path = write_csv(tmp_path / "ids.csv", "id,x\nu1,1\n,2\nu3,3\n,4\n")
    table = read(path)
    with pytest.raises(InputError, match="identifier is missing") as info:
        id_column(table, "id")
    assert (info.value.file, info.value.column, info.value.row) == (str(path), "id", 2)
    ids = id_column(table, "id", allow_missing=True)
    assert list(ids) == ["u1", None, "u3", None]  # two missing ids are not duplicates


def test_id_column_allow_missing_still_rejects_duplicates() -> None:
    table = pd.DataFrame({"id": ["a", None, "b", "a"]})
    with pytest.raises(InputError) as info:
        id_column(table, "id", allow_missing=True)
    assert info.value.row == 4


def test_id_column_float_ids() -> None:
    table = pd.DataFrame({"id": [1.0, 2.0, 10.0]})
    assert list(id_column(table, "id")) == ["1", "2", "10"]
    with pytest.raises(InputError, match="duplicate identifier '1'"):
        id_column(pd.DataFrame({"id": [1.0, 2.0, 1.0]}), "id")


def test_require_columns(tmp_path) -> None:
    path = write_csv(tmp_path / "r.csv", "id,a\n1,2\n")
    table = read(path)
    require_columns(table, ["id", "a", "id"])
    with pytest.raises(InputError) as info:
        require_columns(table, ["id", "b", "c"])
    assert (info.value.file, info.value.column) == (str(path), "b")
