"""The panel intruder's view of long files: one row per unit for the first w waves
(docs/method/structure.md).

A panel file in long format holds one row per unit and wave. The intruder who sees a panel
release knows which rows are one unit (a panel release carries a panel identifier; the release
id column stands in for it and is never shown to the matcher) and combines them:

* levels: every key of every wave is a key of its own (``turnover@2021``); summed over the waves,
  the distances of independently perturbed values average their noise out;
* entries and exits: units are blocked by the waves they are present in (``waves present``);
  a wave in which a unit is absent gets one constant in both files, so it adds nothing to a
  distance inside its block;
* trajectories (``trajectory``): the growth ``ln(x_t / x_{t−1})`` of every metric key between
  consecutive waves is a key too (``turnover~2021``); a perturbation that keeps a unit's factor
  from wave to wave keeps these.

Other columns (blocking keys, targets, cells) take their value at the unit's last wave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import Table, as_table, code_column, numeric_column, source_name
from attack.linkage.blocking import Block
from attack.linkage.keys import Metric, Nominal, Ordinal
from attack.linkage.settings import Linkage, parse_cluster

#: The blocking column of the waves a unit is present in.
PRESENCE = "waves present"


@dataclass(frozen=True)
class PanelSide:
    """One long file: its table, unit id and wave columns (their values read once)."""

    table: Table
    unit: str
    wave: str

    @cached_property
    def waves(self) -> np.ndarray:
        """The wave of every row as text; a missing wave is an error."""
        waves = code_column(self.table, self.wave, warn=False)
        missing = np.flatnonzero(pd.isna(waves))
        if missing.size:
            raise InputError("wave is missing; every row of a panel file names its wave", file=source_name(self.table),
                             column=self.wave, row=int(missing[0]) + 1)
        return pd.Series(waves, dtype=object).astype(str).to_numpy(dtype=object)

    @cached_property
    def units(self) -> np.ndarray:
        """The unit id of every row."""
        return code_column(self.table, self.unit, warn=False)


@dataclass(frozen=True)
class WaveView:
    """The unit-level files of the first ``waves`` and the linkage that reads them."""

    waves: tuple[str, ...]
    external: pd.DataFrame
    release: pd.DataFrame
    original: pd.DataFrame | None
    linkage: Linkage


def panel_waves(sides: Sequence[PanelSide]) -> list[str]:
    """The waves present in every file, in natural order (numbers by value); an error when a unit
    appears twice in one wave or no wave is shared."""
    found = []
    for side in sides:
        waves, ids = side.waves, side.units
        if pd.isna(ids).any():
            raise InputError("unit id is missing; every row of a panel file names its unit", file=source_name(side.table),
                             column=side.unit, row=int(np.flatnonzero(pd.isna(ids))[0]) + 1)
        twice = pd.DataFrame({"u": ids, "w": waves}).duplicated().to_numpy() & ~pd.isna(ids)
        if twice.any():
            row = int(np.flatnonzero(twice)[0])
            raise InputError(f"unit {ids[row]!r} appears twice in wave {waves[row]!r}; a panel file has one row "
                             "per unit and wave", file=source_name(side.table), column=side.unit, row=row + 1)
        found.append(set(waves))
    shared = set.intersection(*found)
    if not shared:
        raise InputError("the files share no wave", file=source_name(sides[0].table), column=sides[0].wave)
    return sorted(shared, key=_natural)


@dataclass(frozen=True)
class _PanelKeys:
    """What a panel view needs of a linkage: its keys' names in both files, its blocks' names
    in both files, the metric keys and the keys whose growth is a key too."""

    names: tuple[str, ...]
    external_names: tuple[str, ...]
    blocks: tuple[str, ...]
    external_blocks: tuple[str, ...]
    metric: tuple[str, ...]
    growth: frozenset[str]

    @classmethod
    def of(cls, linkage: Linkage) -> _PanelKeys:
        """The panel keys of ``linkage``; an error for a key a panel cannot carry by wave."""
        keys = list(linkage.keys)
        bad = [k.name for k in keys if len(k.columns) != 1 or not isinstance(k, Metric | Nominal | Ordinal)]
        if bad:
            raise InputError(f"a panel key is metric, nominal or ordinal, one column each; {bad[0]!r} is not",
                             field="keys")
        metric = tuple(k.name for k in keys if isinstance(k, Metric))
        return cls(names=tuple(k.name for k in keys), external_names=tuple(k.external_column for k in keys),
                   blocks=tuple(b.name for b in linkage.blocks),
                   external_blocks=tuple(b.external_column for b in linkage.blocks),
                   metric=metric, growth=frozenset(metric) if linkage.trajectory else frozenset())


def wave_view(external: PanelSide, release: PanelSide, original: PanelSide | None, linkage: Linkage,
              waves: Sequence[str], columns: Sequence[str] = ()) -> WaveView:
    """The unit-level view after ``waves`` (module docstring); ``columns`` are further release and
    original columns carried at their last wave (targets, cells)."""
    plan = _PanelKeys.of(linkage)
    fills = _fills(external, release, plan.external_names, plan.names, plan.metric, waves)
    metric, growth = set(plan.metric), set(plan.growth)
    ext = _units(external, waves, dict(zip(plan.external_names, plan.names, strict=True)),
                 dict(zip(plan.external_blocks, plan.blocks, strict=True)), fills, metric, growth)
    rel = _units(release, waves, dict(zip(plan.names, plan.names, strict=True)),
                 {c: c for c in [*plan.blocks, *columns]}, fills, metric, growth)
    orig = None if original is None else _units(original, waves, {}, {c: c for c in columns}, fills, set(), set())
    return WaveView(tuple(waves), ext, rel, orig, _wave_linkage(linkage, waves, plan.metric))


def _wave_linkage(linkage: Linkage, waves: Sequence[str], metric: Sequence[str]) -> Linkage:
    """The linkage of the unit-level files: a key per key and wave (``key@wave``), with
    ``trajectory`` a growth key per metric key and later wave (``key~wave``), and the blocks
    plus the block of the waves present."""
    keys = list(linkage.keys)
    wave_keys = [k.model_copy(update={"name": f"{k.name}@{t}", "external_name": None}) for t in waves for k in keys]
    if linkage.trajectory:
        wave_keys += [Metric(name=f"{c}~{t}", weight=k.weight) for t in waves[1:] for k in keys for c in [k.name]
                      if c in metric]
    block = [b.model_copy(update={"external_name": None}) for b in linkage.blocks] + [Block(name=PRESENCE)]
    spec = linkage.model_copy(update={"keys": wave_keys, "block": block, "wave": None, "trajectory": False})
    return Linkage(**{f: getattr(spec, f) for f in Linkage.model_fields})


def wave_column(linkage: Linkage) -> tuple[str, str]:
    """The external and release wave columns of ``linkage.wave``."""
    assert linkage.wave is not None
    return parse_cluster(linkage.wave)


def _natural(label: str) -> tuple[int, float, str]:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def _fills(external: PanelSide, release: PanelSide, ext_names: Sequence[str], names: Sequence[str],
           metric: Sequence[str], waves: Sequence[str]) -> dict[tuple[str, str], float | str]:
    """The constant an absent wave gets, per key and wave: the mean of the present values of both
    files (inside a key's range, so the range the standardisation uses is unchanged), or a code."""
    fills: dict[tuple[str, str], float | str] = {}
    for ext_name, name in zip(ext_names, names, strict=True):
        if name not in metric:
            fills.update({(name, t): "(absent)" for t in waves})
            continue
        values = np.concatenate([numeric_column(external.table, ext_name), numeric_column(release.table, name)])
        labels = np.concatenate([external.waves, release.waves])
        for t in waves:
            present = values[(labels == t) & ~np.isnan(values)]
            fills[name, t] = float(present.mean()) if present.size else 0.0
    return fills


def _units(side: PanelSide, waves: Sequence[str], keys: dict[str, str], carried: dict[str, str],
           fills: dict[tuple[str, str], float | str], metric: set[str], growth: set[str]) -> pd.DataFrame:
    """One row per unit present in any of ``waves``: unit id, ``waves present``, ``key@wave`` for
    each key (``keys``: file column → name), ``key~wave`` growth for the ``growth`` keys and the
    ``carried`` columns (file column → name) at the unit's last wave."""
    frame = as_table(side.table).frame
    wave_no = pd.Index(list(waves)).get_indexer(side.waves)
    keep = wave_no >= 0
    wave_no = wave_no[keep].astype(np.int64)
    unit_of, units = pd.factorize(pd.Series(side.units[keep], dtype=object).astype(str), sort=True)
    units = np.asarray(units, dtype=object)
    out = pd.DataFrame({side.unit: units})
    present = np.zeros((units.size, len(waves)), dtype=bool)
    present[unit_of, wave_no] = True
    masks, pattern = np.unique(present @ (1 << np.arange(len(waves))), return_inverse=True)
    labels = np.array(["|".join(t for i, t in enumerate(waves) if m >> i & 1) for m in masks], dtype=object)
    out[PRESENCE] = labels[pattern.ravel()]
    rows = np.flatnonzero(keep)
    for column, name in keys.items():
        is_metric = name in metric
        raw = numeric_column(side.table, column)[rows] if is_metric else code_column(side.table, column, warn=False)[rows]
        grid = np.empty((units.size, len(waves)), dtype=float if is_metric else object)
        for t, label in enumerate(waves):
            grid[:, t] = fills[name, label]
        grid[unit_of, wave_no] = raw
        for t, label in enumerate(waves):
            out[f"{name}@{label}"] = grid[:, t]
        if name in growth:
            with np.errstate(divide="ignore", invalid="ignore"):
                logs = np.where(present & (grid > 0), np.log(np.where(grid > 0, grid, 1.0)), np.nan)
            for t in range(1, len(waves)):
                both = present[:, t] & present[:, t - 1]
                out[f"{name}~{waves[t]}"] = np.where(both, logs[:, t] - logs[:, t - 1], 0.0)
    last = np.full(units.size, -1, dtype=np.int64)
    order = np.lexsort((wave_no, unit_of))
    last[unit_of[order]] = rows[order]  # the latest wave's row of each unit wins
    for column, name in carried.items():
        if column not in out.columns:
            out[name] = frame[column].to_numpy()[last]
    return out
