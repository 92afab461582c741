"""Information reduction: recoding, coarsening, top/bottom coding, deleting (docs/method/protection.md).

Codes are handled as text throughout (``"0111"`` stays ``"0111"``; numbers stored as floats lose
their ``.0``, see ``attack.readers.code_column``); hierarchical codes (WZ93 / NACE) are digit
strings whose ancestors are their prefixes. Every function returns a new frame, input untouched,
row order and index kept; missing codes stay missing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import code_column
from attack.protect.mapping_file import read_mapping
from attack.protect.noise import checked_numeric, column_list
from attack.protect.registry import REQUIRED, Param, protection_method
from attack.protect.validated import validated

__all__ = [
    "EHS_SUF",
    "KSE_SUF",
    "OTHER",
    "REMOVE",
    "Recoding",
    "bottom_code",
    "branch_categories",
    "coarsen",
    "coarsen_by_count",
    "drop_columns",
    "drop_units",
    "east_west",
    "read_mapping",
    "recode",
    "round_values",
    "size_classes",
    "top_code",
]

OTHER = "other"
"""Released code of a suppressed class (e.g. KSE divisions 19 and 23)."""
REMOVE = "remove"
"""Merge target whose units are removed from the release (e.g. KSE division 37)."""

KSE_SUF: dict[str, str] = {
    "10": "C", "11": "C", "14": "C", "15": "DA", "16": "DA", "17": "DB", "18": "DB",
    "20": "20", "21": "DE", "22": "DE", "24": "DG", "25": "DH", "26": "DI", "27": "27",
    "28": "28", "29": "DK", "30": "DL", "31": "DL", "32": "32", "33": "33", "34": "DM",
    "35": "DM", "36": "36", "19": OTHER, "23": OTHER, "37": REMOVE,
}
"""KSE SUF industry merges by WZ93 division (handbook Table 35.23; docs/method/protection.md)."""

EHS_SUF: dict[str, str] = {
    code: code for code in ("521", "522", "523", "5241", "5242", "5243", "5244", "5245",
                            "5246", "5247", "5248", "525", "526", "527")
}
"""EHS SUF industry depth: retail groups, 524 at class level (handbook Table 37.26)."""

PRESETS = {"kse_suf": KSE_SUF, "ehs_suf": EHS_SUF}

BRANCH_BOUNDS = (1, 2, 3, 4, 5, 6, 11, 51, 101)
"""Lower bounds of the branch-count categories 1–9 (handbook Table 37.4)."""


@dataclass(frozen=True)
class Recoding:
    """A coarsened frame with its code map, the removed rows and any cells still too small."""

    data: pd.DataFrame
    mapping: dict[str, str]
    dropped: tuple[int, ...] = ()
    small_cells: tuple[tuple[str, ...], ...] = ()

    def to_dict(self) -> dict:
        """The map and counts, JSON-ready (``dropped`` are 0-based row positions of the input)."""
        return {
            "mapping": dict(sorted(self.mapping.items())),
            "dropped": list(self.dropped),
            "small_cells": [list(cell) for cell in self.small_cells],
        }


def _longest_prefix(code: str, merges: Mapping[str, str]) -> str | None:
    """Key of ``merges`` that is the longest prefix of ``code`` (None if there is none)."""
    for length in range(len(code), 0, -1):
        if code[:length] in merges:
            return code[:length]
    return None


def _map_codes(
    data: pd.DataFrame, column: str, target: Callable[[str], str | None], failure: str
) -> tuple[np.ndarray, dict[str, str]]:
    """Released code per row (None stays None) and the map, applying ``target`` once per
    distinct code; a code it maps to None is an error naming its first row."""
    codes = pd.Series(code_column(data, column), dtype=object)
    number, uniques = pd.factorize(codes, use_na_sentinel=True)
    mapping: dict[str, str] = {}
    for k, code in enumerate(uniques):
        out = target(code)
        if out is None:
            raise InputError(f"code {code!r} {failure}", column=column,
                             row=int(np.argmax(number == k)) + 1)
        mapping[code] = out
    released = np.array([*mapping.values(), None], dtype=object)[number]
    return released, mapping


def _text_map(mapping: Mapping, what: str) -> dict[str, str]:
    out = {}
    for key, value in mapping.items():
        k, v = str(key).strip(), str(value).strip()
        if not k or not v:
            raise InputError(f"{what}: empty code in {key!r} → {value!r}")
        out[k] = v
    return out


def _check_level(level: int, what: str = "level") -> int:
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 1:
        raise InputError(f"{what} must be a positive integer (code length), got {level!r}")
    return int(level)


@validated
@protection_method(
    "coarsen", family="reduction", column_mode="each", numeric=False, seeded=False,
    summary="hierarchical codes to a prefix length, explicit merges or a preset",
    params={"level": Param("int", None, help="keep this many leading characters", ge=1),
            "merges": Param("mapping", None, help="CSV with columns from,to"),
            "preset": Param("str", None, tuple(PRESETS), "Part XI industry map")})
def coarsen(
    data: pd.DataFrame, column: str, level: int | None = None,
    merges: Mapping[str, str] | None = None, preset: str | None = None,
) -> Recoding:
    """Coarsen a hierarchical code (docs/method/protection.md).

    ``merges`` maps fine codes or prefixes to released codes; each code takes the target of its
    longest matching prefix. The target ``OTHER`` is an ordinary released code (suppressed
    class); ``REMOVE`` drops the unit (listed in ``dropped``). Codes no merge matches are
    truncated to ``level`` characters when ``level`` is given and are an error otherwise (a fine
    code must never slip through). ``preset`` is ``"kse_suf"`` (Table 35.23, by division) or
    ``"ehs_suf"`` (Table 37.26) and replaces ``merges``.
    """
    (column,) = column_list(data, [column])
    if preset is not None:
        if merges is not None or level is not None:
            raise InputError("give a preset or merges/level, not both")
        merges = PRESETS[preset]
    if merges is None and level is None:
        raise InputError("coarsening needs a level, merges or a preset")
    rules = _text_map(merges or {}, "coarsening merges")

    def target(code: str) -> str | None:
        key = _longest_prefix(code, rules)
        if key is not None:
            return rules[key]
        return None if level is None else code[:level]

    released, mapping = _map_codes(data, column, target, "matches no merge rule")
    drop = released == REMOVE
    result = data.copy()
    result[column] = pd.Series(released, index=data.index, dtype="str")
    return Recoding(data=result[~drop], mapping=mapping,
                    dropped=tuple(int(i) for i in np.flatnonzero(drop)))


def coarsen_by_count(
    data: pd.DataFrame, column: str, n_min: int, by: str | Sequence[str] | None = None,
    levels: Sequence[int] = (5, 4, 3, 2),
) -> Recoding:
    """Variable-depth coarsening until every cell has at least ``n_min`` units
    (docs/method/protection.md [Proposal]).

    Codes start truncated to ``levels[0]`` characters (the finest level allowed). A cell is a
    released code × the ``by`` values. While some cell has fewer than ``n_min`` units, the
    deepest such codes are replaced by their parent (the next shorter level) — together with
    every other released code under that parent, so that a released code never hides a finer
    sibling (otherwise the parent class would just rename the small cell). The code map is the
    same in every ``by`` cell. Cells still too small at the coarsest level are reported in
    ``small_cells`` (code first, then the ``by`` values), not suppressed.
    """
    (column,) = column_list(data, [column])
    if isinstance(n_min, bool) or not isinstance(n_min, (int, np.integer)) or n_min < 1:
        raise InputError(f"n_min must be a positive integer, got {n_min!r}")
    depths = [_check_level(level, "each level") for level in levels]
    if not depths or any(a <= b for a, b in itertools.pairwise(depths)):
        raise InputError(f"levels must be strictly decreasing code lengths, got {levels!r}")
    groups = [] if by is None else column_list(data, by)
    if column in groups:
        raise InputError("the coarsened column cannot also be a cell variable", column=column)

    codes = code_column(data, column)
    present = np.flatnonzero(pd.notna(pd.Series(codes, dtype=object)).to_numpy())
    cells = [data[g].iloc[present].to_numpy(dtype=object) for g in groups]
    released, mapping, small = _CountCoarsening(codes[present].astype(str), cells, depths, n_min).run()
    result = data.copy()
    values = np.full(len(data), None, dtype=object)
    values[present] = released
    result[column] = pd.Series(values, index=data.index, dtype="str")
    small_cells = tuple(tuple(str(part) for part in (key if isinstance(key, tuple) else (key,)))
                        for key in small.index)
    return Recoding(data=result, mapping=mapping, small_cells=small_cells)


@dataclass(frozen=True)
class _CountCoarsening:
    """The codes present (as text), their ``by`` cell values, the allowed code lengths (longest
    first) and the smallest cell size of ``coarsen_by_count``."""

    codes: np.ndarray
    cells: list[np.ndarray]
    depths: list[int]
    n_min: int

    def parent(self, code: str) -> str | None:
        shorter = [d for d in self.depths if d < len(code)]
        return code[:shorter[0]] if shorter else None

    def run(self) -> tuple[np.ndarray, dict[str, str], pd.Series]:
        """Released codes, the code map and the cells still too small: the deepest codes of
        small cells move to their parent, with every released code under it, until no small
        cell can move."""
        fine, inverse = np.unique(self.codes, return_inverse=True)
        mapping = {code: code[:self.depths[0]] for code in fine.tolist()}
        while True:
            released = np.array([mapping[c] for c in fine.tolist()], dtype=object)[inverse]
            small = self.small(released)
            movable = [c for c in {key[0] if isinstance(key, tuple) else key for key in small.index}
                       if self.parent(c) is not None]
            if not movable:
                return released, mapping, small
            deepest = max(len(c) for c in movable)
            parents = {self.parent(c) for c in movable if len(c) == deepest}
            for code, out in mapping.items():
                for p in parents:
                    if p is not None and out.startswith(p):
                        mapping[code] = p

    def small(self, released: np.ndarray) -> pd.Series:
        """Sizes of the cells (released code × ``by`` values) with fewer than ``n_min`` units."""
        counts = pd.DataFrame({"code": released, **{f"by{i}": v for i, v in enumerate(self.cells)}})
        sizes = counts.groupby(list(counts.columns), dropna=False, sort=True).size()
        return sizes[sizes < self.n_min]


@validated
@protection_method(
    "recode", family="reduction", column_mode="each", numeric=False, seeded=False,
    summary="categories through a mapping file with columns from,to",
    params={"mapping": Param("mapping", REQUIRED, help="CSV with columns from,to"),
            "default": Param("str", None, help="code for values not in the mapping (default: keep)")})
def recode(
    data: pd.DataFrame, column: str, mapping: Mapping[str, str], default: str | None = None
) -> pd.DataFrame:
    """Replace each code by ``mapping[code]`` (codes compared as text; docs/method/protection.md).

    Codes not in the map become ``default``; without a default they are an error naming the row.
    The column becomes text.
    """
    (column,) = column_list(data, [column])
    rules = _text_map(mapping, "recode map")
    out, _ = _map_codes(data, column, lambda code: rules.get(code, default),
                        "is not in the recode map and no default is given")
    result = data.copy()
    result[column] = pd.Series(out, index=data.index, dtype="str")
    return result


def east_west(
    data: pd.DataFrame, column: str, east_codes: Sequence[str], east: str = "East",
    west: str = "West",
) -> pd.DataFrame:
    """Region → East/West (docs/method/protection.md): a code starting with one of ``east_codes`` (e.g.
    Land keys 11–16, Berlin counted East) is ``east``, any other code ``west``."""
    prefixes = {str(code).strip(): east for code in east_codes}
    if not prefixes:
        raise InputError("east_west needs at least one East code")
    codes = pd.unique(code_column(data, column_list(data, [column])[0]))
    eastern = {c: east for c in codes if c is not None and _longest_prefix(c, prefixes)}
    return recode(data, column, eastern, default=west)


def size_classes(
    data: pd.DataFrame, column: str, bounds: Sequence[float], labels: Sequence[int] | None = None
) -> pd.DataFrame:
    """Metric values into classes: class k holds ``bounds[k] <= x < bounds[k+1]``, the last is
    open upwards (docs/method/protection.md). Labels default to 1, 2, …; values below ``bounds[0]`` are
    an error. The column becomes a nullable integer."""
    names, x = checked_numeric(data, [column], "size classes")
    edges = np.asarray(bounds, dtype="float64")
    if edges.size == 0 or not np.isfinite(edges).all() or (np.diff(edges) <= 0).any():
        raise InputError(f"class bounds must be finite and strictly increasing, got {bounds!r}")
    names_out = np.arange(1, edges.size + 1) if labels is None else np.asarray(labels)
    if names_out.size != edges.size:
        raise InputError(f"{edges.size} class bounds but {names_out.size} labels")
    values = x[:, 0]
    below = np.flatnonzero(values < edges[0])
    if below.size:
        raise InputError(f"value {values[below[0]]} is below the lowest class bound {edges[0]}",
                         column=names[0], row=int(below[0]) + 1)
    present = ~np.isnan(values)
    classes = pd.array([pd.NA] * len(values), dtype="Int64")
    classes[present] = names_out[np.searchsorted(edges, values[present], side="right") - 1]
    result = data.copy()
    result[names[0]] = pd.Series(classes, index=data.index)
    return result


def branch_categories(data: pd.DataFrame, column: str) -> pd.DataFrame:
    """Number of branches → categories 1–9: 1…5 as is, 6–10 → 6, 11–50 → 7, 51–100 → 8,
    more than 100 → 9 (handbook Table 37.4; worked example 12 (docs/reference/worked-examples.md)). Counts below 1 are an error."""
    return size_classes(data, column, BRANCH_BOUNDS)


def round_values(data: pd.DataFrame, columns: Sequence[str], base: float) -> pd.DataFrame:
    """Round to multiples of ``base`` (e.g. 1000), halves away from zero (docs/method/protection.md)."""
    if isinstance(base, bool) or not isinstance(base, (int, float, np.number)) \
            or not (math.isfinite(base) and base > 0):
        raise InputError(f"rounding base must be a positive number, got {base!r}")
    names, x = checked_numeric(data, columns, "rounding")
    rounded = np.sign(x) * np.floor(np.abs(x) / base + 0.5) * base
    result = data.copy()
    for j, name in enumerate(names):
        result[name] = rounded[:, j]
    return result


def _tail_code(
    data: pd.DataFrame, column: str, cut: float | None, quantile: float | None,
    count: int | None, replace: str, top: bool,
) -> pd.DataFrame:
    """Top (``top``) or bottom coding of one column; see ``top_code``."""
    names, x = checked_numeric(data, [column], "top/bottom coding")
    if sum(arg is not None for arg in (cut, quantile, count)) != 1:
        raise InputError("give exactly one of cut, quantile and the number of extreme units")
    values = x[:, 0]
    present = values[~np.isnan(values)]
    sign = 1.0 if top else -1.0                    # bottom coding = top coding of −x
    if cut is not None:
        threshold = float(cut)
    elif quantile is not None:
        threshold = float(np.quantile(present, quantile)) if present.size else 0.0
    else:
        if not count < present.size:
            raise InputError(f"number of extreme units must be in 1…{present.size - 1}, "
                             f"got {count!r}")
        threshold = sign * float(np.sort(sign * present)[::-1][count])
    extreme = sign * values > sign * threshold
    out = values.copy()
    if extreme.any():
        out[extreme] = threshold if replace == "censor" else values[extreme].mean()
    result = data.copy()
    result[names[0]] = out
    return result


@validated
@protection_method(
    "top-code", family="reduction", column_mode="each", seeded=False,
    summary="cap large values or replace them by their mean",
    params={"cut": Param("float", None, help="cut-off"),
            "quantile": Param("float", None, help="cut-off as a quantile of the present values", gt=0, lt=1),
            "largest": Param("int", None, help="number of largest units", ge=1),
            "replace": Param("str", "censor", ("censor", "mean"))})
def top_code(
    data: pd.DataFrame, column: str, cut: float | None = None, quantile: float | None = None,
    largest: int | None = None, replace: str = "censor",
) -> pd.DataFrame:
    """Top coding (docs/method/protection.md): values above the cut-off ``c`` become ``c`` (``censor``)
    or the mean of all values above ``c`` (``mean``, keeps the column mean).

    The cut-off is ``cut``, the ``quantile`` of the present values (numpy's linear rule), or —
    with ``largest = k`` — the (k+1)-th largest value, so the ``k`` largest are coded (fewer if
    they tie with it). Missing values stay missing; the column becomes float.
    """
    return _tail_code(data, column, cut, quantile, largest, replace, top=True)


@validated
@protection_method(
    "bottom-code", family="reduction", column_mode="each", seeded=False,
    summary="raise small values or replace them by their mean",
    params={"cut": Param("float", None, help="cut-off"),
            "quantile": Param("float", None, help="cut-off as a quantile of the present values", gt=0, lt=1),
            "smallest": Param("int", None, help="number of smallest units", ge=1),
            "replace": Param("str", "censor", ("censor", "mean"))})
def bottom_code(
    data: pd.DataFrame, column: str, cut: float | None = None, quantile: float | None = None,
    smallest: int | None = None, replace: str = "censor",
) -> pd.DataFrame:
    """Bottom coding, the mirror of ``top_code``: values below the cut-off are coded."""
    return _tail_code(data, column, cut, quantile, smallest, replace, top=False)


@protection_method("drop", family="reduction", numeric=False, seeded=False,
                   summary="delete the listed variables")
def drop_columns(data: pd.DataFrame, columns: str | Sequence[str]) -> pd.DataFrame:
    """Delete variables (docs/method/protection.md); an unknown column is an error."""
    return data.drop(columns=column_list(data, columns))


def drop_units(data: pd.DataFrame, which: str | Sequence[bool] | pd.Series) -> pd.DataFrame:
    """Delete units (docs/method/protection.md): rows where the boolean mask is true, or rows matching a
    ``DataFrame.query`` expression (e.g. ``"employees >= 250"``). Index and order are kept."""
    if isinstance(which, str):
        try:
            mask = data.eval(which)
        except Exception as error:                  # pandas raises many types for bad queries
            raise InputError(f"cannot evaluate unit filter {which!r}: {error}") from None
    else:
        mask = which
    mask = pd.Series(mask.to_numpy() if isinstance(mask, pd.Series) else np.asarray(mask))
    if len(mask) != len(data) or not pd.api.types.is_bool_dtype(mask):
        raise InputError(f"unit filter must give one true/false value per row ({len(data)})")
    return data[~mask.to_numpy(dtype=bool)]


@validated
@protection_method(
    "drop-units", family="reduction", column_mode="none", numeric=False, seeded=False,
    summary="delete the units matching a filter, e.g. \"employees >= 250\"",
    params={"which": Param("str", REQUIRED, help="pandas filter expression")})
def drop_units_where(data: pd.DataFrame, which: str) -> pd.DataFrame:
    """Delete the units matching a pandas filter such as ``employees >= 250`` (docs/method/protection.md).
    Columns whose values are all numbers are compared as numbers, also when the file
    was read as text (CSV); the kept rows are returned unchanged."""
    view = data.copy()
    for column in view.columns:
        converted = pd.to_numeric(view[column], errors="coerce")
        if converted.notna().sum() == view[column].notna().sum():
            view[column] = converted
    kept = drop_units(view, which)
    return data.loc[kept.index]
