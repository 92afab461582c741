"""Dates of birth and other dates as linkage keys: parts, day–month transposition, year distance.

A date is read as its three parts year, month, day (docs/method/linkage.md, "Comparing dates").
Accepted spellings: ``YYYY-MM-DD``, ``YYYYMMDD``, ``DD.MM.YYYY``, ``YYYY-MM``, ``YYYY`` (a time
after an ISO date is ignored); a part written ``00`` (or ``0000`` for the year) is unknown.
Parts are compared as written, so a typing error such as ``19450493`` stays comparable (its day
93 agrees with no day); a value of any other shape is refused (``InputError`` naming file,
column and row).

Distance (the distance intruder). With ``c`` per part 0 (equal), 1 (different) or ½ (unknown
on either side), ``δ(a, b) = c_year + c_month + c_day`` and ``δᵀ`` the same with b's day and
month swapped::

    d(a, b) = min(δ(a, b), δᵀ(a, b) + ½) / 3        in [0, 1]

so an exact transposition costs 1/6, one wrong part 1/3. Fellegi–Sunter levels: exact (all
parts known and equal) / day and month transposed (year equal) / two parts agree / years at
most ``DATE_NEAR_YEARS`` apart / different.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attack.errors import InputError

__all__ = ["DATE_LEVELS", "DATE_NEAR_YEARS", "date_distance", "date_levels", "date_parts"]

#: Years apart up to which two dates reach the "near years" level.
DATE_NEAR_YEARS = 1
DATE_LEVELS: tuple[str, ...] = ("exact", "day-month transposed", "two parts agree",
                                f"years within {DATE_NEAR_YEARS}", "different")
_SHAPES = (
    r"(?P<y1>\d{4})-(?P<m1>\d{2})-(?P<d1>\d{2})(?:[ T].*)?",
    r"(?P<y2>\d{4})(?P<m2>\d{2})(?P<d2>\d{2})",
    r"(?P<d3>\d{2})\.(?P<m3>\d{2})\.(?P<y3>\d{4})",
    r"(?P<y4>\d{4})-(?P<m4>\d{2})",
    r"(?P<y5>\d{4})",
)
_PATTERN = "^(?:" + "|".join(_SHAPES) + ")$"


def date_parts(values: np.ndarray, *, file: str | None = None, column: str | None = None) -> np.ndarray:
    """Year, month and day of every value (int32, shape (n, 3), −1 where unknown or missing)."""
    text = pd.Series(values, dtype=object).astype("string").str.strip()
    found = text.str.extract(_PATTERN)
    bad = np.flatnonzero((text.notna() & found.isna().all(axis=1)).to_numpy())
    if bad.size:
        raise InputError(f"{values[bad[0]]!r} is not a date; expected YYYY-MM-DD, YYYYMMDD, DD.MM.YYYY, "
                         "YYYY-MM or YYYY", file=file, column=column, row=int(bad[0]) + 1)
    out = np.full((len(text), 3), -1, dtype=np.int32)
    for p, part in enumerate("ymd"):
        columns = [c for c in found.columns if c[0] == part]
        merged = found[columns].bfill(axis=1).iloc[:, 0]
        number = pd.to_numeric(merged, errors="coerce").fillna(0).to_numpy(dtype=np.int32)
        out[:, p] = np.where(number > 0, number, -1)
    return out


def _agreement(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per part: equal (both known), unknown (either side)."""
    unknown = (a < 0) | (b < 0)
    return (a == b) & ~unknown, unknown


def _swapped(b: np.ndarray) -> np.ndarray:
    return b[..., [0, 2, 1]]


def date_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``d(a, b)`` of the module docstring for broadcastable part arrays (..., 3); NaN where a
    date is missing altogether."""
    equal, unknown = _agreement(a, b)
    straight = (~equal & ~unknown).sum(axis=-1) + 0.5 * unknown.sum(axis=-1)
    equal_t, unknown_t = _agreement(a, _swapped(b))
    crossed = (~equal_t & ~unknown_t).sum(axis=-1) + 0.5 * unknown_t.sum(axis=-1) + 0.5
    out = np.minimum(straight, crossed) / 3.0
    out[np.broadcast_to((a < 0).all(axis=-1) | (b < 0).all(axis=-1), out.shape)] = np.nan
    return out


def date_levels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Fellegi–Sunter levels (int8, index into ``DATE_LEVELS``; −1 where a date is missing)."""
    equal, _ = _agreement(a, b)
    agree = equal.sum(axis=-1)
    crossed, _ = _agreement(a, _swapped(b))
    years = np.abs(a[..., 0] - b[..., 0])
    out = np.full(agree.shape, 4, dtype=np.int8)
    out[(years <= DATE_NEAR_YEARS) & (a[..., 0] >= 0) & (b[..., 0] >= 0)] = 3
    out[agree >= 2] = 2
    out[crossed.all(axis=-1)] = 1
    out[agree == 3] = 0
    out[np.broadcast_to((a < 0).all(axis=-1) | (b < 0).all(axis=-1), out.shape)] = -1
    return out
