"""The column model: whether a column holds numbers or codes, decided by one rule everywhere.

Every command (``link``, ``run``, ``synth``, ``protect``, ``utility``, ``truth``) asks this module
what a column is, so a column gets the same treatment in all of them:

* Text read from a file (CSV, Excel, OpenDocument) becomes a **number** column when every
  present value is a number in the file's notation (decimal separator, thousands separator) and
  no value is a digit string with a leading zero; otherwise it stays text, i.e. **codes**. So
  NACE ``0111`` or region ``05`` are codes wherever they are read, and ``12,5`` in a German file
  is the number 12.5.
* Typed files (Parquet, Stata, SAS, SPSS) and frames built in memory keep their types: a
  numeric dtype is a number, text, categories and booleans are codes.
* Columns declared as codes (``--code``, a categorical key, a blocking or cell variable) are
  codes whatever they hold. A number column used as a code is turned into codes without ``.0``
  (``2511.0`` → ``"2511"``) and reported in a notice (``attack.DataNotice``, one line per run
  for all such columns, ``attack.io.notices``) that says how to declare it.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from attack.errors import InputError
from attack.io.notices import NUMBER_AS_CODE, PLAUSIBILITY, UNSHARED, notice, shown_name
from attack.io.table import Table, frame_of, source_name

#: The roles a column can have; ``identifier`` and ``text`` are what ``describe_column``
#: reports about codes that look like unit ids or free text (names, addresses).
ROLES = ("number", "code", "text", "identifier")

#: Text read as missing in every text file (besides declared codes): empty fields, the usual
#: spellings of "not available", and the single dot with which SAS and Stata write a missing value.
DEFAULT_NA = (
    "", ".", "NA", "N/A", "n/a", "na", "NaN", "nan", "-NaN", "-nan", "NULL", "null", "None",
    "#N/A", "#N/A N/A", "#NA", "<NA>", "-1.#IND", "-1.#QNAN", "1.#IND", "1.#QNAN",
)

#: Longest piece of a bad value quoted in a message.
QUOTE_LIMIT = 60

_LEADING_ZERO = r"^[+-]?0[0-9]"
#: A number in any of the usual notations (decimal point or comma, grouped thousands).
_NUMBER_LIKE = r"[+-]?(?:[0-9]|[.,][0-9])[0-9.,]*(?:[eE][+-]?[0-9]+)?"


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A value for a message: its ``repr``, cut to about ``limit`` characters with the length."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(str(value)):,} characters)"


def number_pattern(decimal: str = ".", thousands: str | None = None) -> str:
    """Regular expression of a number written with ``decimal`` and optional ``thousands``
    grouping (``1.234.567,5`` for ``decimal=","``, ``thousands="."``); exponents allowed."""
    d = "\\" + decimal
    whole = r"[0-9]+"
    if thousands:
        t = "\\" + thousands
        whole = rf"(?:[0-9]{{1,3}}(?:{t}[0-9]{{3}})+|[0-9]+)"
    return rf"^[+-]?(?:{whole}(?:{d}[0-9]*)?|{d}[0-9]+)(?:[eE][+-]?[0-9]+)?$"


@dataclass(frozen=True)
class TextColumn:
    """How one text column of a file was typed: its values and what the rule saw."""

    values: pd.Series
    role: str  #: "number" or "code"
    numbers: int  #: present values that are numbers in the file's notation
    present: int  #: values that are not missing
    leading_zeros: int  #: digit strings with a leading zero ("05", "0111")
    first_text_row: int | None  #: 0-based row of the first value that is not a number


def type_text(
    values: pa.ChunkedArray | pa.Array,
    *,
    decimal: str = ".",
    thousands: str | None = None,
    code: bool = False,
) -> TextColumn:
    """Apply the column rule to a column of trimmed text (nulls for missing values).

    A column of numbers becomes ``int64`` (``Int64`` with missing values) when every value is a
    whole number that fits, ``float64`` otherwise; any other column stays text.
    ``code`` keeps the column as text whatever it holds (a declared code).
    """
    present = len(values) - values.null_count
    leading = 0
    if any(_any(pc.starts_with(values, start)) for start in ("0", "-0", "+0")):
        leading = int(pc.sum(pc.match_substring_regex(values, _LEADING_ZERO)).as_py() or 0)
    floats = None if code or present == 0 or leading else _as_floats(values, decimal, thousands)
    if floats is None:
        numeric = pc.match_substring_regex(values, number_pattern(decimal, thousands))
        numbers = int(pc.sum(numeric).as_py() or 0)
        first_text = None
        if numbers < present:
            not_number = pc.and_(pc.invert(pc.fill_null(numeric, True)), pc.is_valid(values))
            first_text = int(pc.index(not_number, True).as_py())
        return TextColumn(values.to_pandas(), "code", numbers, present, leading, first_text)
    finite = pc.if_else(pc.is_finite(floats), floats, pa.scalar(0.0))
    if not _any(pc.not_equal(finite, pc.floor(finite))) and not _any(pc.is_inf(floats)):
        if (pc.max(pc.abs(floats)).as_py() or 0) < 2**53:  # whole numbers, exact as floats
            whole = pc.cast(floats, pa.int64())
        else:
            try:
                whole = pc.cast(_plain(values, decimal, thousands), pa.int64())
            except (pa.ArrowInvalid, OverflowError):  # beyond int64: keep exact digits as codes
                return TextColumn(values.to_pandas(), "code", present, present, 0, None)
        column = whole.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get) \
            if values.null_count else whole.to_pandas()
        return TextColumn(column, "number", present, present, 0, None)
    return TextColumn(floats.to_pandas(), "number", present, present, 0, None)


def _plain(values: pa.ChunkedArray, decimal: str, thousands: str | None) -> pa.ChunkedArray:
    """Numbers in the notation Arrow parses: no thousands separator, a decimal point."""
    if thousands and _any(pc.match_substring(values, thousands)):
        values = pc.replace_substring(values, thousands, "")
    if decimal != "." and _any(pc.match_substring(values, decimal)):
        values = pc.replace_substring(values, decimal, ".")
    return values


def _as_floats(values: pa.ChunkedArray, decimal: str, thousands: str | None) -> pa.ChunkedArray | None:
    """The column as float64 if every value is a number in the notation, else None. Values with
    a thousands separator must group digits by three (``1.5`` is no number when the decimal
    separator is a comma); Arrow's parser checks the rest."""
    if thousands:
        grouped = pc.filter(values, pc.fill_null(pc.match_substring(values, thousands), False))
        if len(grouped) and not pc.all(pc.match_substring_regex(grouped, number_pattern(decimal, thousands))).as_py():
            return None
    if decimal != "." and _any(pc.fill_null(pc.match_substring(values, "."), False)) and thousands != ".":
        return None
    try:
        return pc.cast(_plain(values, decimal, thousands), pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _any(mask: pa.Array | pa.ChunkedArray) -> bool:
    return bool(pc.any(mask).as_py())


def type_frame(frame: pd.DataFrame, *, decimal: str = ".", thousands: str | None = None,
               codes: Collection[str] = ()) -> pd.DataFrame:
    """A frame of text (as a CSV file holds it) typed by the column rule: what the readers do
    after reading a text file (with the default missing values). ``codes`` are kept as text."""
    out = {}
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_object_dtype(values.dtype) or pd.api.types.is_string_dtype(values.dtype):
            text = values.astype("string").str.strip()
            text = pa.array(text.mask(text.isin(DEFAULT_NA)), type=pa.string(), from_pandas=True)
            out[column] = type_text(text, decimal=decimal, thousands=thousands,
                                    code=column in codes).values.set_axis(frame.index)
        else:
            out[column] = values
    return pd.DataFrame(out, index=frame.index)


def is_number(frame: pd.DataFrame, column: str, codes: Collection[str] = ()) -> bool:
    """Whether ``column`` of ``frame`` holds numbers: a numeric (or datetime) dtype, not boolean,
    not declared as a code in ``codes``. Text columns are codes (the readers have already
    turned text columns of numbers into numbers)."""
    if column in codes:
        return False
    dtype = frame[column].dtype
    if pd.api.types.is_bool_dtype(dtype):
        return False
    return bool(pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype))


def number_columns(frame: pd.DataFrame, codes: Collection[str] = (),
                   columns: Iterable[str] | None = None) -> list[str]:
    """The columns (of ``columns``, default all) that hold numbers by ``is_number``."""
    return [c for c in (frame.columns if columns is None else columns) if is_number(frame, c, codes)]


def numeric_column(data: Table | pd.DataFrame, column: str, *, required: bool = False) -> np.ndarray:
    """Column as float64, missing values as NaN.

    Raises ``InputError`` naming the file (of a table), the first row that is not a number or
    is infinite, and, with ``required``, when every value is missing (a key that carries no
    information).
    """
    name, values = source_name(data), frame_of(data)[column]
    if pd.api.types.is_bool_dtype(values.dtype):
        out = values.astype(float).to_numpy()
    elif pd.api.types.is_numeric_dtype(values.dtype):
        out = values.astype("float64").to_numpy(na_value=np.nan)
    else:
        text = values.astype("string").str.strip()
        converted = pd.to_numeric(text, errors="coerce")
        bad = (converted.isna() & values.notna() & (text != "")).to_numpy()
        if bad.any():
            expected = "a number"
            comma = text.str.fullmatch(number_pattern(",", ".")).fillna(True).to_numpy()
            odd = ~comma & values.notna().to_numpy()
            if not odd.any():  # every value reads with a decimal comma
                expected = ("a number with a decimal point (declare the file's decimal comma: "
                            "command line --decimal ','; scenario data entry decimal = ',')")
            elif odd.sum() < bad.sum():  # most values use a decimal comma: name the odd one
                bad, expected = odd, "a number with a decimal comma"
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"expected {expected}, found {quote(values.iloc[row])}",
                file=name, column=column, row=row + 1,
            )
        out = converted.astype("float64").to_numpy(na_value=np.nan)
    infinite = np.flatnonzero(np.isinf(out))
    if infinite.size:
        row = int(infinite[0])
        raise InputError(
            f"infinite value {quote(values.iloc[row])} (or a number beyond ±1.8e308); expected a "
            "finite number or a missing value",
            file=name, column=column, row=row + 1,
        )
    if required:
        key_information(name, column, np.isnan(out), len(np.unique(out[~np.isnan(out)])))
    return out


def key_information(name: str, column: str, missing: np.ndarray, distinct: int) -> None:
    """Refuse a key column whose every value is missing (a missing value matches every value, so
    such a key would silently lower the counts), and warn, once per file and column, of a key
    with one value in every row that has one (it tells no unit from another)."""
    if len(missing) and bool(missing.all()):
        raise InputError("every value is missing, so the column carries no information as a key (a missing "
                         "value matches every value: it would lower the counts); drop the key or give its "
                         "values", file=name, column=column)
    if len(missing) > 1 and distinct == 1:
        share = f" ({int(missing.sum())} missing)" if missing.any() else ""
        notice(PLAUSIBILITY, name, f"key column {column!r} has one value in every row{share}; it tells no unit "
               "from another (is it the right column?)")


def code_column(data: Table | pd.DataFrame, column: str, *, required: bool = False,
                warn: bool = True) -> np.ndarray:
    """Column as an object array of strings (codes), missing values as None.

    Whole numbers (as Stata and Parquet, or the readers, store codes) are written without
    ``.0``. A number column used as codes is noted (``warn``; one ``attack.DataNotice`` per run
    names them all) with how to declare it, since commands that do not use it as a code treat
    it as a number.
    With ``required``, a column whose values are all missing is an error.
    """
    name, frame = source_name(data), frame_of(data)
    values = frame[column]
    if warn and is_number(frame, column):
        _warn_number_as_code(name, column)
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.dropna()
        if np.isfinite(finite).all() and (finite == np.round(finite)).all() and (finite.abs() < 2.0**63).all():
            values = values.astype("Int64")  # whole numbers that fit a 64-bit integer read as codes 4, not 4.0
    text = values.astype("string").str.strip()
    out = text.to_numpy(dtype=object, na_value=None)
    out[(text == "").fillna(False).to_numpy(dtype=bool)] = None
    if required:
        absent = np.array([v is None for v in out], dtype=bool)
        key_information(name, column, absent, len(set(out[~absent])) if len(out) else 0)
    return out


def _warn_number_as_code(name: str, column: str) -> None:
    notice(NUMBER_AS_CODE, name, column)


def id_column(
    data: Table | pd.DataFrame, column: str, *, allow_missing: bool = False, unique: bool = True
) -> np.ndarray:
    """Unit identifiers as strings, unique among the rows that have one unless not ``unique``
    (several external records of one unit).

    A missing id is an error unless ``allow_missing`` (an external record whose unit is unknown
    is simply not verifiable).
    """
    name, ids = source_name(data), code_column(data, column, warn=False)
    missing = np.flatnonzero(pd.isna(ids))
    if missing.size and not allow_missing:
        raise InputError(
            "identifier is missing", file=name, column=column, row=int(missing[0]) + 1
        )
    duplicated = pd.Series(ids).duplicated().to_numpy() & ~pd.isna(ids)
    if unique and duplicated.any():
        row = int(np.flatnonzero(duplicated)[0])
        raise InputError(
            f"duplicate identifier {quote(ids[row])}; identifiers must be unique",
            file=name, column=column, row=row + 1,
        )
    return ids


def mixed_number_column(frame: pd.DataFrame, column: str) -> int | None:
    """For a text column whose values are mostly numbers (at least half of the present ones,
    and more than one), the 0-based row of the first value that is not a number; else None.

    Such a column usually changes type part-way (an undeclared missing code like ``k.A.``, a
    number in another notation), so a command that would pick numeric columns by itself must
    not silently skip it."""
    values = frame[column]
    if is_number(frame, column) or pd.api.types.is_bool_dtype(values.dtype):
        return None
    text = values.astype("string").str.strip().replace("", pd.NA)
    present = text.notna()
    numbers = text.str.fullmatch(_NUMBER_LIKE).fillna(False)
    n_present, n_numbers = int(present.sum()), int(numbers.sum())
    if n_numbers < 2 or n_numbers * 2 < n_present or n_numbers == n_present:
        return None
    return int(np.flatnonzero((present & ~numbers).to_numpy())[0])


def require_number_columns(data: Table | pd.DataFrame, columns: Iterable[str]) -> None:
    """Raise ``InputError`` for the first of ``columns`` that is mostly numbers but holds
    text too (see ``mixed_number_column``), naming the row and how to fix it."""
    name, frame = source_name(data), frame_of(data)
    for column in columns:
        row = mixed_number_column(frame, column)
        if row is not None:
            raise InputError(
                f"the column holds numbers but also {quote(frame[column].iloc[row])}, so it is "
                "neither numbers nor codes; declare that value missing (--na) or correct it",
                file=name, column=column, row=row + 1,
            )


def warn_unshared(original: Table | pd.DataFrame, other: Table | pd.DataFrame, role: str,
                  columns: Iterable[str] | None = None) -> list[str]:
    """Note (``attack.DataNotice``) which of ``columns`` (default: all columns of ``original``)
    the ``role`` file lacks and which of its columns the original lacks, naming both files, since
    a command then works on the shared columns only. Returns the missing columns."""
    names = source_name(original), source_name(other)
    original, other = frame_of(original), frame_of(other)
    wanted = list(original.columns if columns is None else columns)
    missing = [c for c in wanted if c not in other.columns]
    extra = [c for c in other.columns if c not in original.columns]
    shown = [shown_name(n) for n in names]
    if missing:
        notice(UNSHARED, names[1], f"the {role} file {shown[1]} lacks {len(missing)} column(s) of the "
               f"original {shown[0]}: {', '.join(map(str, missing))}; they are left out")
    if extra:
        notice(UNSHARED, names[1], f"the {role} file {shown[1]} has {len(extra)} column(s) the "
               f"original {shown[0]} lacks: {', '.join(map(str, extra))}; they are ignored")
    return missing


@dataclass(frozen=True)
class ColumnSummary:
    """What ``attack inspect`` shows about one column."""

    name: str
    role: str
    dtype: str
    missing_share: float
    distinct: int
    leading_zero_codes: int
    examples: tuple[str, ...]
    notes: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "name": self.name, "role": self.role, "dtype": self.dtype,
            "missing_share": round(self.missing_share, 6), "distinct": self.distinct,
            "leading_zero_codes": self.leading_zero_codes, "examples": list(self.examples),
            "notes": list(self.notes),
        }


def describe_column(frame: pd.DataFrame, column: str, codes: Collection[str] = ()) -> ColumnSummary:
    """Role, missing share, distinct values, leading-zero codes and warnings of a column.

    ``identifier`` is reported for codes or whole numbers that are present and unique in every
    row, ``text`` for codes with more distinct values than half the rows (names, addresses);
    both only from ten rows on."""
    reading = _ColumnReading.of(frame, column, codes)
    values, n = reading.values, len(reading.values)
    role = reading.role()
    shown = values[reading.present] if reading.text is None else reading.text.dropna()
    examples = tuple(quote(v, 30).strip("'\"") if isinstance(v, str) else _shown(v)
                     for v in shown.drop_duplicates().head(3))
    return ColumnSummary(column, role, str(values.dtype), 1 - reading.n_present / n if n else 0.0,
                         reading.distinct, reading.leading, examples, reading.notes(frame, column, role))


@dataclass(frozen=True)
class _ColumnReading:
    """A column read once for its summary: its values, whether it holds numbers, the numbers as
    floats (None for codes and dates), the codes as text (None for numbers), which values are
    present, how many, how many distinct, how many codes have a leading zero, and whether every
    number is whole."""

    values: pd.Series
    number: bool
    floats: np.ndarray | None
    text: pd.Series | None
    present: pd.Series
    n_present: int
    distinct: int
    leading: int
    whole: bool

    @classmethod
    def of(cls, frame: pd.DataFrame, column: str, codes: Collection[str]) -> _ColumnReading:
        values = frame[column]
        number = is_number(frame, column, codes)
        floats, text = None, None
        if not number:
            text = pd.Series(code_column(frame, column, warn=False), dtype=object)
        elif not pd.api.types.is_datetime64_any_dtype(values.dtype):
            floats = values.astype("float64").to_numpy(na_value=np.nan)
        present = values.notna() if text is None else text.notna()
        distinct = int(values[present].nunique()) if text is None else int(text.dropna().nunique())
        leading = 0 if text is None else int(text.dropna().str.match(_LEADING_ZERO).sum())
        whole = floats is not None and bool(np.all(np.isnan(floats) | (floats == np.round(floats))))
        return cls(values, number, floats, text, present, int(present.sum()), distinct, leading, whole)

    def role(self) -> str:
        """``identifier``, ``text``, ``number`` or ``code`` (``describe_column``)."""
        n = len(self.values)
        if self.n_present == n and self.distinct == n and n >= 10 and (not self.number or self.whole):
            return "identifier"
        if not self.number and self.distinct * 2 > n and n >= 10:
            return "text"
        return "number" if self.number else "code"

    def notes(self, frame: pd.DataFrame, column: str, role: str) -> tuple[str, ...]:
        """The warnings about the column, in the order ``attack inspect`` shows them."""
        notes = list(self._number_notes(column, role))
        if self.n_present == 0:
            notes.append("every value is missing")
        mixed = None if self.number else mixed_number_column(frame, column)
        if mixed is not None:
            notes.append(f"mostly numbers, but row {mixed + 1} holds {quote(self.values.iloc[mixed])}: "
                         "declare it missing (--na) or correct it")
        if self.leading:
            notes.append(f"{self.leading} codes with a leading zero (kept as text)")
        return tuple(notes)

    def _number_notes(self, column: str, role: str) -> list[str]:
        """An infinite value, and whole numbers of one width that may be codes."""
        if self.floats is None:
            return []
        notes = []
        infinite = np.flatnonzero(np.isinf(self.floats))
        if infinite.size:
            notes.append(f"infinite value in row {infinite[0] + 1}: every command will refuse it")
        finite = self.floats[np.isfinite(self.floats)]
        if role == "number" and self.whole and finite.size > 1:
            widths = {len(str(abs(int(v)))) for v in np.unique(finite)}
            if len(widths) == 1 and widths.pop() >= 2 and (finite >= 0).all():
                notes.append("whole numbers of one width: if these are codes (NACE, region), "
                             f"declare them (--code {column})")
        return notes


def _shown(value: object) -> str:
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        return str(int(value)) if value == round(value) else f"{value:.10g}"
    return str(value)


#: A weight this many times the median weight is implausible (one record standing for the rest).
MAX_WEIGHT_RATIO = 1e4
#: No sampling weight can exceed this: a weight is the number of population units a record
#: stands for, and no population has more units (a larger value is a data error, and weighted
#: sums of the values would overflow).
MAX_WEIGHT = 1e12


def weight_plausibility(name: str, column: str, weights: np.ndarray) -> None:
    """Refuse a sampling weight above ``MAX_WEIGHT`` (so weighted sums stay finite), and warn,
    naming file and column, of weights that cannot be inverse inclusion probabilities:
    all or some below 1, or one more than ``MAX_WEIGHT_RATIO`` times the median."""
    present = weights[np.isfinite(weights)]
    if not present.size:
        return
    if float(present.max()) > MAX_WEIGHT:
        row = int(np.flatnonzero(weights == present.max())[0]) + 1
        raise InputError(f"weight {float(present.max()):g} is more than {MAX_WEIGHT:g}, more units than any "
                         "population has; expected a sampling weight (the number of units a record stands for)",
                         file=name, column=column, row=row)
    below = int((present < 1).sum())
    if below == present.size:
        notice(PLAUSIBILITY, name, f"weight column {column!r}: every weight is below 1 (largest "
               f"{float(present.max()):g}); sampling weights are inverse inclusion probabilities, at least 1 — "
               "are these the probabilities themselves?")
    elif below:
        notice(PLAUSIBILITY, name, f"weight column {column!r}: {below} weight(s) below 1; a sampling weight "
               "(inverse inclusion probability) is at least 1")
    median = float(np.median(present))
    if median > 0 and float(present.max()) > MAX_WEIGHT_RATIO * median:
        row = int(np.flatnonzero(weights == present.max())[0]) + 1
        notice(PLAUSIBILITY, name, f"weight column {column!r}, row {row}: weight {float(present.max()):g} is more "
               f"than {MAX_WEIGHT_RATIO:g} times the median {median:g}; one record would stand for the others "
               "(is it a data error?)")
