"""Tests for attack.readers: file formats, column selection and validation of ids and numbers."""

from __future__ import annotations

import importlib.util
import logging
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


def test_sas7bdat_is_read_and_decoded(tmp_path) -> None:
    """A SAS file written here with pyreadstat (part of the test extra): text columns come back
    decoded, never as bytes; no file of the machine is needed."""
    import pyreadstat

    path = tmp_path / "small.sas7bdat"
    pyreadstat.write_sas7bdat(pd.DataFrame({"code": ["01", "02", "10"], "employees": [3.0, 12.0, 250.0],
                                            "name": ["Müller", "Ab", "Cd"]}), str(path))
    expected = pd.read_sas(path, format="sas7bdat")
    table = read_table(path)
    assert list(table.columns) == list(expected.columns)
    assert len(table) == len(expected)
    for column in table.columns:
        assert not table[column].map(lambda v: isinstance(v, bytes)).any()
    assert table["name"].tolist() == ["Müller", "Ab", "Cd"] and table["code"].tolist() == ["01", "02", "10"]
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


# Files as statistical offices have them: CSV dialects and encodings, Excel and OpenDocument
# workbooks, missing-value codes; what was detected is returned with the table.

#: One small table in the plain notation; the tests write it in other dialects.
ROWS = [
    ("007", "0111", "Müller GmbH", "1234.5", "12"),
    ("008", "2511", "Groß & Söhne", "12.25", "3"),
    ("010", "05", "Weiß; Partner", "-0.5", ""),
]
HEADER = ("id", "nace", "name", "turnover", "employees")


def write(path, rows=ROWS, *, sep=",", encoding="utf-8", decimal=".", thousands=None, bom=False):
    def cell(text, j):
        if j == 3 and text:
            whole, _, frac = text.partition(".")
            if thousands and len(whole.lstrip("-")) > 3:
                sign, digits = ("-", whole[1:]) if whole.startswith("-") else ("", whole)
                whole = sign + f"{int(digits):,}".replace(",", thousands)
            text = whole + (decimal + frac if frac else "")
        return f'"{text}"' if sep in text or '"' in text else text

    lines = [sep.join(HEADER)] + [sep.join(cell(t, j) for j, t in enumerate(r)) for r in rows]
    data = ("\r\n".join(lines) + "\r\n").encode(encoding)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def check_values(frame: pd.DataFrame) -> None:
    assert list(code_column(frame, "id")) == ["007", "008", "010"]
    assert list(code_column(frame, "nace")) == ["0111", "2511", "05"]
    assert list(frame["name"]) == ["Müller GmbH", "Groß & Söhne", "Weiß; Partner"]
    np.testing.assert_array_equal(numeric_column(frame, "turnover"), [1234.5, 12.25, -0.5])
    np.testing.assert_array_equal(numeric_column(frame, "employees"), [12.0, 3.0, np.nan])


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (dict(), dict(encoding="utf-8", sep=",", decimal=".")),
        (dict(bom=True), dict(encoding="utf-8-sig", sep=",", decimal=".")),
        (dict(sep=";", encoding="cp1252", decimal=",", thousands="."),
         dict(encoding="cp1252", sep=";", decimal=",", thousands=".")),
        (dict(sep="\t", encoding="latin-1"), dict(encoding="cp1252", sep="\t", decimal=".")),
        (dict(sep="|", encoding="utf-16"), dict(encoding="utf-16", sep="|", decimal=".")),
        (dict(sep=";", decimal=","), dict(encoding="utf-8", sep=";", decimal=",")),
    ],
)
def test_dialects_and_encodings_are_detected(tmp_path, options, expected) -> None:
    path = write(tmp_path / "data.csv", **options)
    table = read(path)
    check_values(table.frame)
    for key, value in expected.items():
        assert getattr(table.info, key) == value, key
    assert table.source == str(path)
    assert table.info.rows == 3 and table.info.columns == 5
    assert table.info.to_dict()["format"] == "csv"


def test_detection_is_logged(tmp_path, caplog) -> None:
    path = write(tmp_path / "de.csv", sep=";", encoding="cp1252", decimal=",", thousands=".")
    with caplog.at_level(logging.INFO, logger="attack.io"):
        read(path)
    text = caplog.text
    assert "encoding cp1252" in text and "separator ';'" in text and "'decimal': ','" in text


def test_everything_detected_can_be_set(tmp_path) -> None:
    # "1.500" is a decimal point or a grouped thousand: detection says ".", the user ","
    path = tmp_path / "a.txt"
    path.write_text("id;x\n1;1.500\n2;2.250\n3;7\n", encoding="utf-8")
    assert read(path).info.decimal == "."
    np.testing.assert_array_equal(numeric_column(read_table(path), "x"), [1.5, 2.25, 7.0])
    given = read(path, options=ReadOptions(decimal=","))
    assert given.info.decimal == "," and given.info.thousands == "."
    np.testing.assert_array_equal(numeric_column(given.frame, "x"), [1500.0, 2250.0, 7.0])
    # separator and encoding overridden: the comma is then part of the value
    one = read(path, options=ReadOptions(sep="|", encoding="latin-1"))
    assert list(one.frame.columns) == ["id;x"] and one.info.encoding == "latin-1"


def test_header_not_split_says_how_to_set_the_separator(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("id;x\n1;5\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"header was not split.*--sep") as info:
        read_table(path, ["id"], ReadOptions(sep=","))
    assert info.value.column == "id"


def test_grouped_thousands_and_decimal_comma(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("id;x\n1;1.234.567,89\n2;-12,5\n3;0,25\n4;1e3\n", encoding="utf-8")
    frame = read_table(path)
    np.testing.assert_array_equal(numeric_column(frame, "x"), [1234567.89, -12.5, 0.25, 1000.0])


def test_point_in_a_comma_decimal_file_is_not_silently_a_thousands_separator(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("id;x\n1;12,5\n2;3,75\n3;1.5\n", encoding="utf-8")
    frame = read_table(path)
    with pytest.raises(InputError, match="expected a number with a decimal comma, found '1.5'") as info:
        numeric_column(frame, "x")
    assert info.value.row == 3


def test_leading_zeros_whole_numbers_and_large_integers(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("a,b,c,d\n05,5,12345678901234567,+7\n11,10,2,8\n", encoding="utf-8")
    frame = read_table(path)
    assert list(frame["a"]) == ["05", "11"]  # one leading zero makes the column codes
    assert frame["b"].dtype == np.int64 and list(frame["b"]) == [5, 10]
    assert list(code_column(frame, "c")) == ["12345678901234567", "2"]  # exact, not a float
    assert list(frame["d"]) == [7, 8]


def test_missing_value_codes(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("id,x,y,z\n1,-9,k.A.,.\n2,3.5,-9,4\n3,-8,7,NA\n", encoding="utf-8")
    plain = read_table(path)
    assert list(plain["x"]) == [-9.0, 3.5, -8.0]  # undeclared: values
    assert list(plain["y"]) == ["k.A.", "-9", "7"]
    np.testing.assert_array_equal(numeric_column(plain, "z"), [np.nan, 4.0, np.nan])  # "." and NA
    declared = read_table(path, options=ReadOptions.build(na=["-9", "-8", "k.A."]))
    np.testing.assert_array_equal(numeric_column(declared, "x"), [np.nan, 3.5, np.nan])
    np.testing.assert_array_equal(numeric_column(declared, "y"), [np.nan, np.nan, 7.0])
    per_column = read_table(path, options=ReadOptions.build(na={"x": [-9], "y": ["k.A."]}))
    np.testing.assert_array_equal(numeric_column(per_column, "x"), [np.nan, 3.5, -8.0])
    assert list(per_column["y"]) == [None, "-9", "7"] or per_column["y"].isna().iloc[0]


def test_missing_value_codes_in_typed_files(tmp_path) -> None:
    path = tmp_path / "a.parquet"
    pd.DataFrame({"x": [-9.0, 2.0, -8.0], "c": ["k.A.", "a", "b"]}).to_parquet(path)
    frame = read_table(path, options=ReadOptions.build(na=["-9", "k.A."]))
    np.testing.assert_array_equal(numeric_column(frame, "x"), [np.nan, 2.0, -8.0])
    assert list(code_column(frame, "c")) == [None, "a", "b"]


def test_declared_codes_stay_text(tmp_path) -> None:
    path = write(tmp_path / "a.csv")
    frame = read_table(path, options=ReadOptions(codes=("employees",)))
    assert list(frame["employees"][:2]) == ["12", "3"] and frame["employees"].isna().iloc[2]


def test_quoted_separators_and_newlines(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text('id;name;x\n1;"a;b";"1,5"\n2;"two\nlines";2\n', encoding="utf-8")
    frame = read_table(path)
    assert list(frame["name"]) == ["a;b", "two\nlines"]
    np.testing.assert_array_equal(numeric_column(frame, "x"), [1.5, 2.0])


# --------------------------------------------------------------------------------------------
# Workbooks


def workbook_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["007", "008", "010"], "nace": ["0111", "2511", "05"],
        "name": ["Müller GmbH", "Groß & Söhne", "Weiß; Partner"],
        "turnover": [1234.5, 12.25, -0.5], "employees": [12, 3, None],
    })


@pytest.mark.parametrize("suffix", [".xlsx", ".ods"])
def test_workbooks_by_sheet_name_or_index(tmp_path, suffix) -> None:
    path = tmp_path / f"data{suffix}"
    with pd.ExcelWriter(path, engine="openpyxl" if suffix == ".xlsx" else "odf") as writer:
        pd.DataFrame({"note": ["cover sheet"]}).to_excel(writer, sheet_name="about", index=False)
        workbook_frame().to_excel(writer, sheet_name="units", index=False)
    by_name = read(path, options=ReadOptions(sheet="units"))
    check_values(by_name.frame)
    assert by_name.info.sheet == "units" and by_name.info.format in ("excel", "ods")
    check_values(read_table(path, options=ReadOptions.build(sheet="1")))
    assert list(read_table(path).columns) == ["note"]  # the first sheet by default
    with pytest.raises(InputError, match=r"has no sheet 'x' \(sheets: about, units\)"):
        read_table(path, options=ReadOptions(sheet="x"))
    with pytest.raises(InputError, match="has no sheet number 5"):
        read_table(path, options=ReadOptions(sheet=5))


def test_workbook_codes_mixing_numbers_and_text(tmp_path) -> None:
    path = tmp_path / "mixed.xlsx"
    pd.DataFrame({"region": [5, "05", 11], "x": [1, 2, 3]}).to_excel(path, index=False)
    with pytest.raises(InputError, match=r"codes mixing numbers and text: row 1 holds the number 5, row 2 the text '05'") as info:
        read_table(path)
    assert info.value.column == "region" and info.value.row == 2
    assert list(read_table(path, ["x"])["x"]) == [1, 2, 3]  # only the columns read are checked
