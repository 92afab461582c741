"""The column model: one rule for numbers and codes, and the checks of number columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import DataNotice, InputError
from attack.io.columns import (
    code_column,
    describe_column,
    is_number,
    numeric_column,
    quote,
    type_frame,
    type_text,
    warn_unshared,
)
from attack.io.notices import gathering
from attack.io.table import Table
from attack.risk.evaluation import default_targets


def typed(values, **notation):
    return type_text(pa.array(values, type=pa.string()), **notation)


def test_the_rule() -> None:
    assert typed(["1", "2", None]).role == "number"
    assert typed(["05", "11"]).role == "code"  # one leading zero: codes
    assert typed(["0", "0.5", "-0.25"]).role == "number"  # a zero before the point is no code
    assert typed(["1", "x"]).role == "code"
    assert typed([None, None]).role == "code"  # nothing to decide from: text
    assert typed(["12,5"], decimal=",", thousands=".").role == "number"
    assert typed(["12,5"]).role == "code"
    assert typed(["1", "2"], code=True).role == "code"
    column = typed(["1", "x", "3"])
    assert (column.numbers, column.present, column.first_text_row) == (2, 3, 1)


def test_types_of_number_columns() -> None:
    assert typed(["1", "-2"]).values.dtype == np.int64
    assert str(typed(["1", None]).values.dtype) == "Int64"
    assert typed(["1", "2.5"]).values.dtype == np.float64
    assert list(typed(["99999999999999999999", "1"]).values) == ["99999999999999999999", "1"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.decimals(min_value=-10**9, max_value=10**9, places=3, allow_nan=False,
                            allow_infinity=False), min_size=1, max_size=20))
def test_german_notation_reads_back_exactly(values) -> None:
    def german(d):
        sign = "-" if d < 0 else ""
        whole, _, frac = f"{abs(d):f}".partition(".")
        grouped = f"{int(whole):,}".replace(",", ".")
        return sign + grouped + ("," + frac if frac else "")

    column = typed([german(v) for v in values], decimal=",", thousands=".")
    assert column.role == "number"
    np.testing.assert_array_equal(np.asarray(column.values, dtype=float),
                                  [float(v) for v in values])


def test_is_number_follows_types_and_declarations() -> None:
    frame = pd.DataFrame({"n": [1.5, 2.0], "i": [1, 2], "t": ["1", "2"], "b": [True, False],
                          "d": pd.to_datetime(["2020-01-01", "2021-01-01"])})
    assert [c for c in frame if is_number(frame, c)] == ["n", "i", "d"]
    assert not is_number(frame, "i", codes=["i"])


def test_type_frame_is_what_the_csv_reader_does() -> None:
    frame = type_frame(pd.DataFrame({"a": ["1", " 2 ", "nan"], "z": ["01", "02", "01"],
                                     "t": ["x", "1", "2"]}))
    assert str(frame["a"].dtype) == "Int64" and frame["a"].isna().iloc[2]
    assert list(frame["z"]) == ["01", "02", "01"]
    assert list(frame["t"]) == ["x", "1", "2"]


def test_infinite_values_are_refused_with_file_column_row() -> None:
    for values in ([1.0, np.inf], ["1", "-inf"], ["1", "Infinity"]):
        table = Table(pd.DataFrame({"x": values}), "rel.csv")
        with pytest.raises(InputError, match="infinite value") as info:
            numeric_column(table, "x")
        assert (info.value.file, info.value.column, info.value.row) == ("rel.csv", "x", 2)


def test_a_key_without_values_is_refused() -> None:
    frame = pd.DataFrame({"x": [np.nan, np.nan], "c": [None, " "]})
    assert np.isnan(numeric_column(frame, "x")).all()
    with pytest.raises(InputError, match="every value is missing"):
        numeric_column(frame, "x", required=True)
    with pytest.raises(InputError, match="every value is missing"):
        code_column(frame, "c", required=True)


def test_long_bad_values_are_quoted_short() -> None:
    huge = "9" * 5_000_000 + "x"
    assert quote("abc") == "'abc'"
    shown = quote(huge)
    assert len(shown) < 100 and "5,000,001 characters" in shown
    frame = pd.DataFrame({"x": ["1", huge]})
    with pytest.raises(InputError) as info:
        numeric_column(frame, "x")
    assert len(str(info.value)) < 200 and info.value.row == 2


def test_number_used_as_code_is_noted_once_per_run() -> None:
    frame = Table(pd.DataFrame({"nace": [2511.0, 1511.0]}), "warned-once.csv")
    with pytest.warns(DataNotice) as caught, gathering():
        assert list(code_column(frame, "nace")) == ["2511", "1511"]
        code_column(frame, "nace")
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert "1 numeric column used as codes: nace (file warned-once.csv)" in messages[0]
    assert "--code nace" in messages[0]


def test_default_targets_refuse_a_column_that_changes_type() -> None:
    release = type_frame(pd.DataFrame({"id": ["1", "2", "3"], "x": ["1.5", "k.A.", "3"],
                                       "name": ["a", "b", "c"]}))
    with pytest.raises(InputError, match="holds numbers but also 'k.A.'") as info:
        default_targets(release, release, ["id"])
    assert (info.value.column, info.value.row) == ("x", 2)
    assert default_targets(release, release, ["id", "x"]) == []


def test_unshared_columns_are_named() -> None:
    original = Table(pd.DataFrame({"a": [1], "b": [2], "c": [3]}), "orig.csv")
    synthetic = Table(pd.DataFrame({"a": [1], "d": [4]}), "syn.csv")
    with pytest.warns(DataNotice) as caught, gathering():
        assert warn_unshared(original, synthetic, "synthetic") == ["b", "c"]
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "syn.csv lacks 2 column(s) of the original orig.csv: b, c" in text
    assert "has 1 column(s) the original orig.csv lacks: d" in text


def test_describe_column() -> None:
    n = 12
    frame = type_frame(pd.DataFrame({
        "id": [f"{i:03d}" for i in range(n)],
        "nace": ["2511", "1511"] * (n // 2),
        "region": ["05", "11", None] * (n // 3),
        "x": ["1.5", "2"] * (n // 2),
        "mixed": ["1", "2", "3", "k.A."] * (n // 4),
    }))
    roles = {c: describe_column(frame, c).role for c in frame}
    assert roles == {"id": "identifier", "nace": "number", "region": "code", "x": "number",
                     "mixed": "code"}
    region = describe_column(frame, "region")
    assert region.missing_share == pytest.approx(1 / 3) and region.distinct == 2
    assert region.leading_zero_codes == 4
    assert any("--code nace" in note for note in describe_column(frame, "nace").notes)
    assert describe_column(frame, "nace", codes=["nace"]).role == "code"
    assert any("row 4 holds 'k.A.'" in note for note in describe_column(frame, "mixed").notes)
