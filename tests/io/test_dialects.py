"""Files as statistical offices have them: CSV dialects and encodings, Excel and OpenDocument
workbooks, missing-value codes; what was detected is returned with the table."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.io.readers import ReadOptions, code_column, numeric_column, read, read_table

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
