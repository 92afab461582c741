"""Targets and their usefulness: what a correct link discloses, per kind of variable
(docs/method/risk.md, "Usefulness by type of target").

A target is written ``NAME[:TYPE[:OPTION...]]`` (``income``, ``nace:categorical:prefix=2``,
``dob:date:days=30``, ``class:ordinal:order=low|mid|high:within=1``). A released value of a
correctly linked unit is *useful* to the intruder when

* numeric: its relative deviation from the true value is below γ (the handbook's rule,
  unchanged; zero tolerance for a true zero);
* categorical: it equals the true code (at ``prefix=N``: the first N characters agree, a level
  of a hierarchical code);
* ordinal: its rank in the order (``order=a|b|c``, else the sorted values) lies within
  ``within`` ranks of the true one (default 0: the same class);
* string: it equals the true text after normalisation (Unicode compatibility form without
  accents, case folded, white space collapsed);
* date: it lies within ``days`` days of the true date (default 0); a release coarsened to the
  month or the year is compared at that level.

The share of useful values and P_γ = h · u generalise unchanged: for a non-numeric target the
usefulness does not depend on γ. A comparison is never silently degenerate: a numeric target
whose released values live on another scale than the original (``1915`` against
``19151111``, thousands of euros against euros) is compared on the released scale when the
released values are the original truncated or rounded to a power of ten (the mapping is
recorded), and a categorical target whose codes
were recoded is compared at the code prefix that maps them; otherwise the run stops with an
``InputError`` naming the file, the column and an example pair.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.columns import code_column, is_number, numeric_column, quote, require_number_columns
from attack.io.table import Table, frame_of, source_name
from attack.risk.thresholds import TARGET_TYPES, Gamma

#: Options each target type takes, with what their values must be.
TARGET_OPTIONS: dict[str, tuple[str, ...]] = {
    "numeric": (), "categorical": ("prefix",), "ordinal": ("order", "within"), "string": (), "date": ("days",),
}
#: Share of a unit's released values that must follow a mapping (truncation, code prefix) for it
#: to be taken as the release's scale.
MAPPING_SHARE = 0.9
#: A numeric target is on another scale when the median |log10(released / original)| of the
#: units' own pairs reaches this (a factor of ten).
SCALE_GAP = 1.0
#: Fewest pairs of a unit's released and original value on which a scale is judged (below, the
#: values are compared as they are).
SCALE_PAIRS = 20


@dataclass(frozen=True)
class Target:
    """One target as declared: its column, its type (None: from the column) and options."""

    name: str
    kind: str | None = None
    options: tuple[tuple[str, str], ...] = ()

    def option(self, key: str, default: str | None = None) -> str | None:
        return dict(self.options).get(key, default)

    def label(self) -> str:
        parts = [self.name, *([self.kind] if self.kind else []), *(f"{k}={v}" for k, v in self.options)]
        return ":".join(parts)


def parse_target(text: str) -> Target:
    """``NAME[:TYPE[:OPTION...]]`` as a ``Target``; an ``InputError`` names what is wrong."""
    name, *rest = str(text).split(":")
    if not name:
        raise InputError(f"target {text!r} has no column name", field="targets")
    if not rest:
        return Target(name)
    kind, *raw = rest
    if kind not in TARGET_TYPES:
        raise InputError(f"target {text!r}: unknown type {kind!r}; expected one of {', '.join(TARGET_TYPES)}",
                         field="targets")
    options = []
    for item in raw:
        key, eq, value = item.partition("=")
        if not eq or key not in TARGET_OPTIONS[kind]:
            allowed = ", ".join(f"{k}=..." for k in TARGET_OPTIONS[kind]) or "none"
            raise InputError(f"target {text!r}: option {item!r} is not one of a {kind} target's ({allowed})",
                             field="targets")
        if key in ("prefix", "within", "days") and not (value.isdigit() and (key != "prefix" or int(value) > 0)):
            raise InputError(f"target {text!r}: {key} must be a whole number"
                             + (" above 0" if key == "prefix" else " (0 or more)"), field="targets")
        if key == "order" and len(set(value.split("|"))) != len(value.split("|")):
            raise InputError(f"target {text!r}: the order lists a class twice", field="targets")
        options.append((key, value))
    return Target(name, kind, tuple(options))


@dataclass(frozen=True)
class TargetComparison:
    """How one target is compared: its resolved type and, when the release is on a coarser
    scale than the original, the mapping applied to the original (None: compared as is)."""

    target: Target
    kind: str
    scale: str | None = None
    _digits: int = 0  #: numeric truncation to 10^digits, or the categorical prefix length
    _rounded: bool = False  #: numeric: rounded (not truncated) to 10^digits
    _recoding: Mapping[str, str] | None = field(default=None, compare=False, hash=False)  #: original → released code

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"type": self.kind}
        out.update(dict(self.target.options))
        if self.scale is not None:
            out["compared_on"] = self.scale
        return out


def resolve(target: Target, release: Table | pd.DataFrame, truth: Table | pd.DataFrame,
            released_rows: np.ndarray, truth_rows: np.ndarray,
            recoding: Mapping[str, str] | None = None) -> TargetComparison:
    """The comparison of ``target``, its type taken from the column when not declared (a number
    column in either file is numeric, and a text value in it an error naming the row; anything
    else categorical), checked on the units' own
    pairs (``released_rows[i]`` and ``truth_rows[i]`` hold the same unit) for a degenerate
    scale. A ``recoding`` (original code → released code, from the protection log of ``attack
    protect``) compares the released codes with the original's recoded the same way."""
    if recoding is not None:
        return TargetComparison(target, "categorical", "the original recoded as the protection log records",
                                _recoding=recoding)
    kind = target.kind
    if kind is None:
        for frame in (release, truth):
            require_number_columns(frame, [target.name])
        either = any(is_number(frame_of(f), target.name) for f in (release, truth))
        kind = "numeric" if either else "categorical"
    if kind == "numeric":
        return _numeric_scale(target, release, truth, released_rows, truth_rows)
    if kind == "categorical" and target.option("prefix") is None:
        return _code_scale(target, release, truth, released_rows, truth_rows)
    if kind == "date":
        released = _date_parts(release, target.name)[released_rows]
        level = _coarsest(released)
        if level < 3:
            return TargetComparison(target, kind, f"the released {('year', 'month')[level - 1]}", level)
        return TargetComparison(target, kind, None, 3)
    return TargetComparison(target, kind)


def _example(release: Table | pd.DataFrame, column: str, unit_pairs: tuple[object, object], why: str) -> InputError:
    released, true = unit_pairs
    return InputError(
        f"target {column!r}: {why} (a unit's released value {quote(released)} against its original "
        f"{quote(true)}); a comparison here would be meaningless. Declare the target's type "
        f"(e.g. {column}:date or {column}:categorical:prefix=N), protect it on the original's scale, "
        "or leave it out of the targets",
        file=source_name(release), column=column)


def _numeric_scale(target: Target, release: Table | pd.DataFrame, truth: Table | pd.DataFrame,
                   released_rows: np.ndarray, truth_rows: np.ndarray) -> TargetComparison:
    released = numeric_column(release, target.name)[released_rows]
    true = numeric_column(truth, target.name)[truth_rows]
    both = np.isfinite(released) & np.isfinite(true) & (released != 0) & (true != 0)
    if both.sum() < SCALE_PAIRS:
        return TargetComparison(target, "numeric")
    r, t = released[both], true[both]
    gap = float(np.median(np.log10(np.abs(r) / np.abs(t))))
    if abs(gap) < SCALE_GAP:
        return TargetComparison(target, "numeric")
    digits = int(round(-gap))
    if digits > 0 and np.mean(np.trunc(t / 10.0**digits) == r) >= MAPPING_SHARE:
        return TargetComparison(target, "numeric", f"the original truncated to 10^{digits} (the released scale)", digits)
    if digits > 0 and np.mean(np.round(t / 10.0**digits) == r) >= MAPPING_SHARE:
        return TargetComparison(target, "numeric", f"the original rounded to 10^{digits} (the released scale)",
                                digits, _rounded=True)
    i = int(np.argmax(both))
    raise _example(release, target.name, (_plain(released[i]), _plain(true[i])),
                   f"the released values live on another scale than the original (median ratio "
                   f"10^{gap:.1f}, no truncation maps one onto the other)")


def _plain(value: float) -> object:
    return int(value) if float(value).is_integer() else float(value)


def _code_scale(target: Target, release: Table | pd.DataFrame, truth: Table | pd.DataFrame,
                released_rows: np.ndarray, truth_rows: np.ndarray) -> TargetComparison:
    released = code_column(release, target.name, warn=False)[released_rows]
    true = code_column(truth, target.name, warn=False)[truth_rows]
    present = np.array([a is not None and b is not None for a, b in zip(released, true, strict=True)], dtype=bool)
    if present.sum() < SCALE_PAIRS:
        return TargetComparison(target, "categorical")
    r, t = released[present], true[present]
    known = set(code_column(truth, target.name, warn=False)) - {None}
    if np.mean([v in known for v in r]) >= 0.5:
        return TargetComparison(target, "categorical")
    for digits in range(1, max(len(v) for v in t)):
        if np.mean([a == b[:digits] for a, b in zip(r, t, strict=True)]) >= MAPPING_SHARE:
            return TargetComparison(target, "categorical", f"the original's first {digits} characters "
                              "(the released level of the code)", digits)
    raise _example(release, target.name, (r[0], t[0]), "the released codes are not the original's "
                   "(recoded classes) and no code prefix maps one onto the other")


def usefulness(comparison: TargetComparison, release: Table | pd.DataFrame, truth: Table | pd.DataFrame,
               released_rows: np.ndarray, truth_rows: np.ndarray, gammas: Sequence[Gamma],
               zero_tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Per γ and pair, whether the released value is useful, and per pair whether it is
    evaluated (the true value is present)."""
    column, kind = comparison.target.name, comparison.kind
    if kind == "numeric":
        released = numeric_column(release, column)[released_rows]
        true = numeric_column(truth, column)[truth_rows]
        evaluated = ~np.isnan(true)
        if comparison.scale is not None:
            mapped = (np.round if comparison._rounded else np.trunc)(true / 10.0**comparison._digits)
            same = mapped == released
            return np.repeat(same[None, :], len(gammas), axis=0), evaluated
        with np.errstate(divide="ignore", invalid="ignore"):
            deviation = np.abs(released - true) / np.abs(true)
        zero_ok = np.abs(released) <= zero_tolerance
        useful = np.array([np.where(true == 0, zero_ok, deviation < g.for_variable(column)) for g in gammas])
        return useful & ~np.isnan(released) & evaluated, evaluated
    if kind == "date":
        released_d = _date_parts(release, column)[released_rows]
        true_d = _date_parts(truth, column)[truth_rows]
        evaluated = ~np.isnan(true_d[:, 0])
        level = comparison._digits
        if level < 3:
            same = np.all(released_d[:, :level] == true_d[:, :level], axis=1)
        else:
            days = float(comparison.target.option("days", "0") or 0)
            same = np.abs(_day_number(released_d) - _day_number(true_d)) <= days
        return np.repeat(same[None, :], len(gammas), axis=0), evaluated
    released_c = code_column(release, column, warn=False)[released_rows]
    true_c = code_column(truth, column, warn=False)[truth_rows]
    evaluated = np.array([v is not None for v in true_c], dtype=bool)
    if comparison._recoding is not None:
        recode = comparison._recoding
        true_c = np.array([None if v is None else recode.get(v, v) for v in true_c], dtype=object)
    if kind == "ordinal":
        same = _ordinal_close(comparison.target, release, truth, released_c, true_c)
    else:
        norm = _normalised if kind == "string" else _codes_at(comparison, comparison.target)
        same = np.array([a is not None and b is not None and norm(a) == norm(b)
                         for a, b in zip(released_c, true_c, strict=True)], dtype=bool)
    return np.repeat(same[None, :], len(gammas), axis=0), evaluated


def recodings(log: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """Per column, the code map ``attack protect`` applied (original → released code), from its
    protection log (``details.COLUMN.mapping``; recoding and coarsening record one)."""
    details = log.get("details")
    out: dict[str, dict[str, str]] = {}
    if isinstance(details, Mapping):
        for column, entry in details.items():
            mapping = entry.get("mapping") if isinstance(entry, Mapping) else None
            if isinstance(mapping, Mapping) and mapping:
                out[str(column)] = {str(k): str(v) for k, v in mapping.items()}
    return out


def _codes_at(comparison: TargetComparison, target: Target) -> Callable[[str], str]:
    """A code as compared: its first N characters at a declared or mapped prefix, else whole."""
    digits = int(target.option("prefix") or 0) or comparison._digits
    return (lambda v: v[:digits]) if digits else (lambda v: v)


def _normalised(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", plain.casefold()).strip()


def _ordinal_close(target: Target, release: Table | pd.DataFrame, truth: Table | pd.DataFrame,
                   released: np.ndarray, true: np.ndarray) -> np.ndarray:
    order = target.option("order")
    if order is not None:
        classes = order.split("|")
    else:
        values = {v for v in [*code_column(truth, target.name, warn=False),
                              *code_column(release, target.name, warn=False)] if v is not None}
        try:
            classes = sorted(values, key=float)
        except ValueError:
            raise InputError(f"ordinal target {target.name!r} holds text; give its order "
                             f"({target.name}:ordinal:order=A|B|C)", field="targets", column=target.name) from None
    rank = {c: i for i, c in enumerate(classes)}
    for frame, given in ((release, released), (truth, true)):
        stray = [v for v in given if v is not None and v not in rank]
        if stray:
            raise InputError(f"value {quote(stray[0])} is not in the declared order {order!r}",
                             file=source_name(frame), column=target.name)
    within = int(target.option("within", "0") or 0)
    return np.array([a is not None and b is not None and abs(rank[a] - rank[b]) <= within
                     for a, b in zip(released, true, strict=True)], dtype=bool)


def _date_parts(data: Table | pd.DataFrame, column: str) -> np.ndarray:
    """(year, month, day) per row as floats, NaN where a part is absent: whole numbers are read
    as YYYYMMDD, YYYYMM or YYYY, text as an ISO date (YYYY-MM-DD, YYYY-MM, YYYY) or any date
    pandas reads."""
    frame = frame_of(data)
    text = pd.Series(code_column(data, column, warn=False), dtype="object")
    out = np.full((len(frame), 3), np.nan)
    for i, value in enumerate(text):
        if value is None:
            continue
        digits = value.replace("-", "").replace("/", "") if re.fullmatch(r"\d{4}([-/]\d{2}){0,2}", value) else value
        if re.fullmatch(r"\d{8}", digits):
            out[i] = int(digits[:4]), int(digits[4:6]), int(digits[6:])
        elif re.fullmatch(r"\d{6}", digits):
            out[i, :2] = int(digits[:4]), int(digits[4:])
        elif re.fullmatch(r"\d{4}", digits):
            out[i, 0] = int(digits)
        else:
            stamp = pd.to_datetime(value, errors="coerce")
            if pd.isna(stamp):
                raise InputError(f"expected a date (YYYY-MM-DD, YYYYMMDD, YYYY-MM or YYYY), found {quote(value)}",
                                 file=source_name(data), column=column, row=i + 1)
            out[i] = stamp.year, stamp.month, stamp.day
    return out


def _coarsest(parts: np.ndarray) -> int:
    """The level every present value carries: 1 year, 2 month, 3 day."""
    present = ~np.isnan(parts[:, 0])
    if not present.any():
        return 3
    return int(min(np.sum(~np.isnan(parts[present]), axis=1)))


def _day_number(parts: np.ndarray) -> np.ndarray:
    out = np.full(len(parts), np.nan)
    ok = ~np.isnan(parts).any(axis=1)
    if ok.any():
        stamps = pd.to_datetime(pd.DataFrame({"year": parts[ok, 0], "month": parts[ok, 1], "day": parts[ok, 2]}),
                                errors="coerce")
        out[ok] = (stamps - pd.Timestamp("1970-01-01")).dt.days.to_numpy(dtype=float, na_value=np.nan)
    return out


__all__ = ["Target", "TargetComparison", "parse_target", "recodings", "resolve", "usefulness"]
