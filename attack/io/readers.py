"""Reading microdata files and validating their columns up front.

Supported formats by file suffix: CSV (``.csv``, ``.txt``), Parquet (``.parquet``, ``.pq``),
Stata (``.dta``), SAS (``.sas7bdat``) and SPSS (``.sav``, needs the optional ``pyreadstat``).
CSV columns are read as text so that codes keep their leading zeros ("0111"); numeric columns
are converted where a key or target needs them, and the first offending row is named.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from attack.errors import InputError

_CSV = {".csv", ".txt"}
_PARQUET = {".parquet", ".pq"}


def read_table(path: str | Path, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a data file, keeping only ``columns`` (all when None).

    Raises :class:`InputError` for a missing or empty file, an unknown format or a missing column.
    """
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise InputError("file not found", file=name)
    if path.stat().st_size == 0:
        raise InputError("file is empty", file=name)
    suffix = path.suffix.lower()
    wanted = None if columns is None else list(dict.fromkeys(columns))
    try:
        if suffix in _CSV:
            header = pd.read_csv(path, nrows=0, dtype=str)
            _check_columns(header.columns, wanted, name)
            frame = pd.read_csv(path, usecols=wanted, dtype=str, keep_default_na=True)
        elif suffix in _PARQUET:
            import pyarrow.parquet as pq

            _check_columns(pq.read_schema(path).names, wanted, name)
            frame = pd.read_parquet(path, columns=wanted)
        elif suffix == ".dta":
            frame = pd.read_stata(path, columns=None if wanted is None else _present(path, wanted))
        elif suffix == ".sas7bdat":
            frame = pd.read_sas(path, format="sas7bdat")
            frame = _decode_bytes(frame)
        elif suffix == ".sav":
            try:
                frame = pd.read_spss(path, usecols=wanted)
            except ImportError as exc:
                raise InputError(
                    "reading SPSS files needs the optional reader: pip install 'attack[spss]'",
                    file=name,
                ) from exc
        else:
            raise InputError(
                f"unknown file format {suffix!r}; expected .csv, .parquet, .dta, .sas7bdat or .sav",
                file=name,
            )
    except InputError:
        raise
    except pd.errors.EmptyDataError as exc:
        raise InputError("file is empty", file=name) from exc
    except (ValueError, OSError, UnicodeDecodeError, struct.error) as exc:
        raise InputError(f"cannot be read: {exc}", file=name) from exc
    _check_columns(frame.columns, wanted, name)
    if wanted is not None:
        frame = frame[wanted]
    if len(frame) == 0:
        raise InputError("file has no data rows", file=name)
    frame.attrs["source"] = name
    frame.attrs["typed"] = suffix not in _CSV  # CSV columns are text until a key or target needs them
    return frame.reset_index(drop=True)


def _present(path: Path, wanted: list[str]) -> list[str]:
    """Check ``wanted`` against a Stata file's variables without reading its data."""
    with pd.read_stata(path, iterator=True) as reader:
        names = list(reader.variable_labels())
    _check_columns(names, wanted, str(path))
    return wanted


def require_columns(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    """Raise :class:`InputError` naming the file and the first of ``columns`` it lacks."""
    _check_columns(frame.columns, list(dict.fromkeys(columns)), source_name(frame))


def _check_columns(available: Sequence[str], wanted: Sequence[str] | None, name: str) -> None:
    if wanted is None:
        return
    have = set(map(str, available))
    for column in wanted:
        if column not in have:
            shown = ", ".join(sorted(have)[:20])
            raise InputError(f"column is missing (the file has: {shown})", file=name, column=column)


def _decode_bytes(frame: pd.DataFrame) -> pd.DataFrame:
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].map(
                lambda v: v.decode("utf-8", "replace") if isinstance(v, bytes) else v
            )
    return frame


def source_name(frame: pd.DataFrame) -> str:
    """The file a frame was read from, or ``"<data>"`` for frames built in memory."""
    return str(frame.attrs.get("source", "<data>"))


def numeric_column(frame: pd.DataFrame, column: str) -> np.ndarray:
    """Column as float64, missing values as NaN; names the first row that is not a number."""
    values = frame[column]
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.astype(float).to_numpy()
    if pd.api.types.is_numeric_dtype(values.dtype):
        return values.astype("float64").to_numpy(na_value=np.nan)
    converted = pd.to_numeric(values.astype("string").str.strip(), errors="coerce")
    bad = converted.isna() & values.notna() & (values.astype("string").str.strip() != "")
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"expected a number, found {values.iloc[row]!r}",
            file=source_name(frame),
            column=column,
            row=row + 1,
        )
    return converted.astype("float64").to_numpy(na_value=np.nan)


def code_column(frame: pd.DataFrame, column: str) -> np.ndarray:
    """Column as an object array of strings (codes), missing values as None.

    Integer-valued floats (as Stata and Parquet may store codes) are written without ``.0``.
    """
    values = frame[column]
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.dropna()
        if (finite == np.round(finite)).all():
            values = values.astype("Int64")
    text = values.astype("string").str.strip()
    out = text.to_numpy(dtype=object, na_value=None)
    out[(text == "").fillna(False).to_numpy(dtype=bool)] = None
    return out


def id_column(frame: pd.DataFrame, column: str, *, allow_missing: bool = False) -> np.ndarray:
    """Unit identifiers as strings, unique among the rows that have one.

    A missing id is an error unless ``allow_missing`` (an external record whose unit is unknown
    is simply not verifiable).
    """
    ids = code_column(frame, column)
    missing = np.flatnonzero(pd.isna(ids))
    if missing.size and not allow_missing:
        raise InputError(
            "identifier is missing", file=source_name(frame), column=column, row=int(missing[0]) + 1
        )
    duplicated = pd.Series(ids).duplicated().to_numpy() & ~pd.isna(ids)
    if duplicated.any():
        row = int(np.flatnonzero(duplicated)[0])
        raise InputError(
            f"duplicate identifier {ids[row]!r}; identifiers must be unique",
            file=source_name(frame),
            column=column,
            row=row + 1,
        )
    return ids
