"""Panel-consistent protection of long panel files (one row per unit and wave;
docs/method/structure.md, docs/method/protection.md).

Noise drawn afresh in every wave averages out for an intruder who combines a unit's waves; the
panel-consistent variants keep what a unit gets from wave to wave:

* ``panel-noise``: multiplicative noise ``1 + s·Z``, one factor per unit and variable for all
  waves (``per_wave=true``: a factor per row, the independent variant it is compared with);
* ``panel-microaggregation``: Höhne's panel microaggregation, groups of ``k`` units formed once
  (units ordered by the sum of their standardised values averaged over the waves) and the same in
  every wave; each wave's values are replaced by the mean of the group's members present in it;
* ``panel-rank-swap``: rank swapping whose partners are chosen once, on the units' means over the
  waves, and kept: in every wave a unit takes its partner's value of that wave.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.protect.microaggregation import (
    GROUP_SIZE,
    HANDBOOK_MIN_K,
    _check_size,
    _consecutive_groups,
)
from attack.protect.noise import _positive_factors, _released, checked_numeric, seeded_streams
from attack.protect.registry import REQUIRED, Param, protection_method
from attack.protect.swapping import swap_partners, swap_window
from attack.protect.validated import validated

_UNIT = Param("str", REQUIRED, help="unit id column: the rows of one unit share it across waves")


def _units(data: pd.DataFrame, unit: str, columns: Sequence[str]) -> tuple[np.ndarray, int]:
    """Unit code of every row (units in sorted order) and the number of units."""
    if unit not in data.columns:
        raise InputError("unit column is missing", column=unit)
    if unit in columns:
        raise InputError("the unit column cannot also be protected", column=unit)
    ids = data[unit]
    if ids.isna().any():
        raise InputError("unit id is missing", column=unit, row=int(np.flatnonzero(ids.isna().to_numpy())[0]) + 1)
    codes, uniques = pd.factorize(ids.astype(str), sort=True)
    return codes.astype(np.int64), len(uniques)


@validated
@protection_method("panel-noise", family="noise",
                   summary="multiplicative noise 1 + s·Z, one factor per unit and variable for all waves",
                   params={"unit": _UNIT, "s": Param("float", REQUIRED, gt=0, help="standard deviation of the factor"),
                           "per_wave": Param("bool", False, help="a factor per row: independent noise in every wave")})
def panel_noise(data: pd.DataFrame, columns: Sequence[str], unit: str, s: float, per_wave: bool = False,
                seed: int = 0) -> pd.DataFrame:
    """``X · W`` with ``W = 1 + s·Z`` (redrawn while ``W ≤ 0``), one ``W`` per unit and variable
    for all its waves, or with ``per_wave`` one per row and variable (module docstring)."""
    names, x = checked_numeric(data, columns, "panel noise")
    codes, n_units = _units(data, unit, names)
    (rng,) = seeded_streams(seed, 1)
    n = x.shape[0] if per_wave else n_units
    factors = _positive_factors(np.ones(n * len(names)), s, rng).reshape(n, len(names))
    return _released(data, names, x * (factors if per_wave else factors[codes]))


@protection_method("panel-microaggregation", family="microaggregation",
                   summary="Höhne's panel microaggregation: groups of k units, the same in every wave",
                   params={"unit": _UNIT, "wave": Param("str", REQUIRED, help="wave column"),
                           "k": GROUP_SIZE}, seeded=False)
def panel_microaggregation(data: pd.DataFrame, columns: Sequence[str], unit: str, wave: str,
                           k: int = 3) -> pd.DataFrame:
    """Groups of ``k`` units formed once and kept across waves (module docstring); the remainder
    of fewer than ``k`` units joins the last group. Warns when in some wave a group has fewer than
    ``k`` members present (entries and exits), whose values are then less protected."""
    k = _check_size(k, "k", HANDBOOK_MIN_K)
    names, x = checked_numeric(data, columns, "panel microaggregation")
    codes, n_units = _units(data, unit, names)
    if wave not in data.columns:
        raise InputError("wave column is missing", column=wave)
    with np.errstate(invalid="ignore"):
        z = (x - np.nanmean(x, axis=0)) / np.where(np.nanstd(x, axis=0) > 0, np.nanstd(x, axis=0), 1.0)
    score = np.nansum(z, axis=1)
    per_unit = np.bincount(codes, weights=score, minlength=n_units) / np.maximum(np.bincount(codes, minlength=n_units), 1)
    order = np.argsort(per_unit, kind="stable")
    group_of_unit = np.empty(n_units, dtype=np.int64)
    group_of_unit[order] = _consecutive_groups(n_units, k)
    group = group_of_unit[codes]
    waves, _ = pd.factorize(data[wave].astype(str))
    cell = pd.MultiIndex.from_arrays([group, waves])
    frame = pd.DataFrame(x, columns=names)
    means = frame.groupby([group, waves]).transform("mean").to_numpy()
    small = pd.Series(np.ones(len(frame)), index=cell).groupby(level=[0, 1]).transform("size").to_numpy() < k
    if small.any():
        warnings.warn(f"{int(small.sum())} rows lie in a wave where their group has fewer than {k} members present "
                      "(entries and exits); their values are means over fewer units", stacklevel=2)
    return _released(data, names, np.where(np.isnan(x), np.nan, means))


@validated
@protection_method("panel-rank-swap", family="swapping",
                   summary="rank swapping with partners chosen once and kept in every wave",
                   params={"unit": _UNIT, "wave": Param("str", REQUIRED, help="wave column"),
                           "p": Param("float", REQUIRED, help="rank window, percent of the units", gt=0, le=100)})
def panel_rank_swap(data: pd.DataFrame, columns: Sequence[str], unit: str, wave: str, p: float,
                    seed: int = 0) -> pd.DataFrame:
    """Per column: units ranked by their mean over the waves (ties by a seeded random key), paired
    by ``swap_partners`` within ``p`` percent of the ranks, once; in every wave a unit's value is
    its partner's value of that wave. A unit whose partner is absent in a wave (entries and exits)
    or has no value keeps its own there; a warning counts those rows."""
    names, x = checked_numeric(data, columns, "panel rank swapping")
    codes, n_units = _units(data, unit, names)
    if wave not in data.columns:
        raise InputError("wave column is missing", column=wave)
    waves, _ = pd.factorize(data[wave].astype(str))
    row_of = pd.Series(np.arange(len(data)), index=pd.MultiIndex.from_arrays([codes, waves]))
    if not row_of.index.is_unique:
        raise InputError("a unit appears twice in one wave; a panel file has one row per unit and wave", column=unit)
    out = x.copy()
    kept = 0
    for j, rng in enumerate(seeded_streams(seed, len(names))):
        present = ~np.isnan(x[:, j])
        total = np.bincount(codes[present], weights=x[present, j], minlength=n_units)
        count = np.bincount(codes[present], minlength=n_units)
        ranked_units = np.flatnonzero(count > 0)
        mean = total[ranked_units] / count[ranked_units]
        n = ranked_units.size
        ranked = ranked_units[np.lexsort((rng.random(n), mean))]
        partner_rank = swap_partners(n, swap_window(p, n), rng.random(n))
        partner = np.full(n_units, -1, dtype=np.int64)
        swapped = partner_rank >= 0
        partner[ranked[swapped]] = ranked[partner_rank[swapped]]
        rows = np.flatnonzero(present & (partner[codes] >= 0))
        source = row_of.reindex(pd.MultiIndex.from_arrays([partner[codes[rows]], waves[rows]])).to_numpy()
        usable = ~np.isnan(source)
        usable[usable] = ~np.isnan(x[source[usable].astype(np.int64), j])
        out[rows[usable], j] = x[source[usable].astype(np.int64), j]
        kept += int((~usable).sum())
    if kept:
        warnings.warn(f"{kept} values keep their own value: the unit's partner is absent or has no value in that "
                      "wave (entries and exits)", stacklevel=2)
    return _released(data, names, out)
