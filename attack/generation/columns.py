"""Columns as synthesis sees them: numeric or categorical, with missing values and special codes.

A numeric column with missing values or special codes (such as −8 "not applicable") is split in
two, as synthpop does: a categorical **state** (``"value"``, ``"NA"`` or the code) synthesised
first, and the numbers, synthesised only for records whose state is ``"value"`` from the
original records that have a value. In a categorical column a missing value is a category of
its own. ``SynthColumn.restore`` puts the original dtype, categories and codes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

VALUE = "value"
MISSING = "NA"
#: Stands for a missing category while synthesising (restored to a missing value).
MISSING_CATEGORY = "\x00NA"


@dataclass(frozen=True)
class SynthColumn:
    """How one column of the original is synthesised and written back.

    ``kind`` is ``"numeric"`` or ``"categorical"``; ``codes`` the special codes of a numeric
    column found in the data; ``decimals`` the most decimal places of its observed values
    (smoothed values are rounded to them); ``integer`` whether it is written back as integers.
    """

    name: str
    kind: str
    dtype: np.dtype | pd.api.extensions.ExtensionDtype
    codes: tuple[float, ...] = ()
    has_missing: bool = False
    decimals: int = 0
    integer: bool = False

    @property
    def has_state(self) -> bool:
        return self.kind == "numeric" and (self.has_missing or bool(self.codes))

    def numbers(self, series: pd.Series) -> np.ndarray:
        """The values as floats, NaN for missing values and special codes."""
        x = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
        return np.where(np.isin(x, self.codes), np.nan, x) if self.codes else x

    def state(self, series: pd.Series) -> np.ndarray:
        """``"value"``, ``"NA"`` or the special code (as text) of every record."""
        x = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
        out = np.full(len(x), VALUE, dtype=object)
        out[np.isnan(x)] = MISSING
        for code in self.codes:
            out[x == code] = _code_label(code)
        return out

    def categories(self, series: pd.Series) -> np.ndarray:
        """The categories as objects, missing values as ``MISSING_CATEGORY``."""
        values = series.astype(object).to_numpy()
        return np.where(pd.isna(values), MISSING_CATEGORY, values)

    def restore(self, values: np.ndarray, state: np.ndarray | None = None) -> pd.Series:
        """The synthetic column in the original's dtype (codes and missing values put back)."""
        if self.kind == "categorical":
            out = pd.Series(np.where(values == MISSING_CATEGORY, np.array(None, dtype=object), values), name=self.name, dtype=object)
            return out if self.dtype == object else out.astype(self.dtype)
        x = np.asarray(values, dtype=float)
        if state is not None:
            x = x.copy()
            x[state == MISSING] = np.nan
            for code in self.codes:
                x[state == _code_label(code)] = code
        if self.integer and not np.isnan(x).any():
            return pd.Series(np.round(x), name=self.name).astype(self.dtype)
        if self.integer:
            return pd.Series(pd.array(np.round(x), dtype="Int64"), name=self.name)
        return pd.Series(x, name=self.name)


def _code_label(code: float) -> str:
    return f"{code:g}"


def describe(frame: pd.DataFrame, columns: Sequence[str], special_codes: Sequence[float] = ()) -> dict[str, SynthColumn]:
    """The ``SynthColumn`` of every column; numbers are numeric, everything else categorical."""
    out = {}
    for name in columns:
        series = frame[name]
        if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
            x = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
            codes = tuple(float(c) for c in special_codes if np.any(x == c))
            observed = x[~np.isnan(x) & ~np.isin(x, codes)]
            out[name] = SynthColumn(
                name, "numeric", series.dtype, codes, bool(np.isnan(x).any()), _decimals(observed),
                pd.api.types.is_integer_dtype(series.dtype),
            )
        else:
            out[name] = SynthColumn(name, "categorical", series.dtype, has_missing=bool(series.isna().any()))
    return out


def _decimals(x: np.ndarray, most: int = 8) -> int:
    """The most decimal places among the values (at most ``most``)."""
    for places in range(most + 1):
        if np.allclose(x, np.round(x, places), rtol=0, atol=10.0 ** -(most + 2)):
            return places
    return most


__all__ = ["MISSING", "MISSING_CATEGORY", "VALUE", "SynthColumn", "describe"]
