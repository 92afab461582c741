"""A census-shaped population of persons in households, written straight to Parquet in chunks
(docs/method/population-uniqueness.md, "A population file at census scale").

``write_census`` writes ``persons`` records of persons living in private households, with eight
categorical keys an intruder finds in a census file: the district (``region``, 400 five-digit
codes under the 16 Länder prefixes, of unequal sizes), ``sex``, ``age`` (0–99 years),
``marital_status``, ``citizenship``, ``household_size`` (6 = six or more), ``position`` in the
household and ``employment``, plus the ``household`` number. The shapes follow the German
census and microcensus of 2022 in broad strokes (41 % one-person households, about two persons
per household, married couples of similar age, children 18–42 years younger than the
reference person, employment and marital status by age); they are not fitted to any table, and
the file is not a census: it is for scale and for the structure of the risks (many small key
classes, households sharing region, citizenship and size).

Optionally a sample of whole households (each household drawn with ``sampling_fraction``, as a
microcensus draws dwellings) goes to a second file with the same columns. Each chunk of
households draws from its own generator seeded by ``(seed, chunk)``, so the files depend only on
``persons``, ``sampling_fraction`` and ``seed``; memory stays that of one chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from attack.errors import InputError

__all__ = ["CENSUS_KEYS", "CensusFiles", "write_census"]

CENSUS_KEYS: tuple[str, ...] = ("region", "sex", "age", "marital_status", "citizenship", "household_size",
                                "position", "employment")
_HOUSEHOLDS_PER_CHUNK = 1 << 21
# Districts per Land (01 Schleswig-Holstein … 16 Thuringia): 400 in all.
_DISTRICTS = (15, 1, 45, 2, 53, 26, 36, 44, 96, 6, 1, 18, 8, 13, 14, 22)
_HOUSEHOLD_SIZES = np.array([0.411, 0.332, 0.119, 0.098, 0.028, 0.012])   # 1, 2, 3, 4, 5, 6+
_SEX = ("female", "male")
_MARITAL = ("single", "married", "widowed", "divorced")
_CITIZENSHIP = ("German", "EU", "other")
_POSITION = ("reference", "partner", "child", "other")
_EMPLOYMENT = ("under 15", "employed", "unemployed", "inactive", "retired")


@dataclass(frozen=True)
class CensusFiles:
    """What ``write_census`` wrote: persons and households of the population and of the sample
    (0 without a sample file)."""

    persons: int
    households: int
    sample_persons: int
    sample_households: int


def _regions() -> tuple[list[str], np.ndarray]:
    """The 400 district codes and their shares of households (log-normal sizes, fixed)."""
    codes = [f"{land + 1:02d}{d + 1:03d}" for land, count in enumerate(_DISTRICTS) for d in range(count)]
    sizes = np.random.default_rng(2022).lognormal(0.0, 0.55, len(codes))
    for city in ("02001", "11001", "09001"):                  # the city states and a large city
        sizes[codes.index(city)] = 12.0 if city != "09001" else 5.0
    return codes, sizes / sizes.sum()


def _adult_age(rng: np.random.Generator, n: int, older: bool) -> np.ndarray:
    """Ages 18–99 of reference persons (one-person households: ``older``)."""
    ages = np.arange(18, 100)
    weight = np.exp(-0.5 * ((ages - (62 if older else 48)) / 19.0) ** 2) * np.where(ages > 85, np.exp(-(ages - 85) / 4), 1)
    return rng.choice(ages, n, p=weight / weight.sum())


def _chunk(rng: np.random.Generator, households: int, first: int, remaining: int, regions: np.ndarray,
           fraction: float) -> tuple[dict[str, np.ndarray], int, np.ndarray]:
    """Persons of up to ``households`` households (no more than ``remaining`` persons): their
    columns as codes, the number of households and which persons are in the sample."""
    size = rng.choice(6, households, p=_HOUSEHOLD_SIZES) + 1
    size[size == 6] += rng.poisson(0.3, int((size == 6).sum()))      # 6+: a few larger
    ends = np.cumsum(size)
    kept = int(np.searchsorted(ends, remaining, side="right"))
    if kept < households and (kept == 0 or ends[kept - 1] < remaining):
        size[kept] = remaining - (ends[kept - 1] if kept else 0)     # the last household, cut to fit
        kept += 1
    size = size[:kept]
    region = rng.choice(regions.size, kept, p=regions)
    citizenship = rng.choice(3, kept, p=[0.87, 0.05, 0.08])
    drawn = rng.random(kept) < fraction
    ref_age = _adult_age(rng, kept, older=False)
    single = size == 1
    ref_age[single] = _adult_age(rng, int(single.sum()), older=True)
    ref_sex = rng.integers(0, 2, kept)

    house = np.repeat(np.arange(kept), size)
    start = np.repeat(np.cumsum(size) - size, size)
    slot = np.arange(house.size) - start                           # 0: reference person
    n = house.size
    u = rng.random(n)
    position = np.where(slot == 0, 0, np.where(slot == 1, np.where(u < 0.8, 1, 2), np.where(u < 0.9, 2, 3)))
    base = ref_age[house]
    age = np.where(position == 0, base, 0)
    age = np.where(position == 1, np.clip(base + np.rint(rng.normal(-2, 4, n)), 18, 99), age)
    child = np.clip(base - rng.integers(18, 43, n), 0, 99)
    age = np.where(position == 2, child, age)
    age = np.where(position == 3, rng.integers(0, 100, n), age).astype(np.int8)
    sex = np.where(position == 1, np.where(rng.random(n) < 0.97, 1 - ref_sex[house], ref_sex[house]),
                   np.where(position == 0, ref_sex[house], rng.integers(0, 2, n)))
    couple = np.zeros(kept, bool)
    couple[house[position == 1]] = True
    married = couple[house] & (position < 2) & (rng.random(n) < 0.85)
    v = rng.random(n)
    alone = np.where(age < 18, 0, np.where(age < 35, np.where(v < 0.8, 0, np.where(v < 0.97, 1, 3)),
                     np.where(age < 65, np.where(v < 0.35, 0, np.where(v < 0.7, 3, np.where(v < 0.95, 1, 2))),
                              np.where(v < 0.1, 0, np.where(v < 0.55, 2, np.where(v < 0.85, 3, 1))))))
    marital = np.where(married, 1, alone)
    w = rng.random(n)
    work = np.where(age < 15, 0, np.where(age < 65, np.where(w < 0.76, 1, np.where(w < 0.80, 2, 3)),
                                           np.where(w < 0.08, 1, 4)))
    columns = {"household": (first + house).astype(np.int64), "region": region[house], "sex": sex,
               "age": age, "marital_status": marital, "citizenship": citizenship[house],
               "household_size": np.minimum(size, 6)[house].astype(np.int8), "position": position,
               "employment": work}
    return columns, kept, drawn[house]


def _table(columns: dict[str, np.ndarray], rows: np.ndarray | None, regions: list[str]) -> pa.Table:
    """Arrow table of the persons (all, or those of ``rows``): the text keys dictionary-encoded."""
    labels = {"region": regions, "sex": _SEX, "marital_status": _MARITAL, "citizenship": _CITIZENSHIP,
              "position": _POSITION, "employment": _EMPLOYMENT}
    arrays = {}
    for name, values in columns.items():
        values = values if rows is None else values[rows]
        if name in labels:
            arrays[name] = pa.DictionaryArray.from_arrays(pa.array(values.astype(np.int16)),
                                                          pa.array(list(labels[name]), pa.string()))
        else:
            arrays[name] = pa.array(values)
    return pa.table(arrays)


def write_census(path: str | Path, persons: int, *, sample_path: str | Path | None = None,
                 sampling_fraction: float = 0.01, seed: int = 0) -> CensusFiles:
    """Write a census-shaped population of ``persons`` persons to the Parquet file ``path`` and,
    with ``sample_path``, a sample of whole households (module docstring)."""
    import pyarrow.parquet as pq

    if persons < 1:
        raise InputError(f"the population needs at least one person, got {persons}")
    if not 0.0 < sampling_fraction <= 1.0:
        raise InputError(f"the sampling fraction must lie in (0, 1], got {sampling_fraction}")
    codes, shares = _regions()
    schema = _table(_chunk(np.random.default_rng([seed, 0]), 1, 0, 1, shares, 0.0)[0], None, codes).schema
    writers = [pq.ParquetWriter(str(p), schema) for p in (path, sample_path) if p is not None]
    households = sample_persons = sample_households = written = chunk = 0
    try:
        while written < persons:
            rng = np.random.default_rng([seed, chunk])
            columns, kept, drawn = _chunk(rng, _HOUSEHOLDS_PER_CHUNK, households, persons - written, shares,
                                          sampling_fraction)
            writers[0].write_table(_table(columns, None, codes), row_group_size=1 << 20)
            if len(writers) > 1:
                writers[1].write_table(_table(columns, np.flatnonzero(drawn), codes), row_group_size=1 << 20)
                sample_persons += int(drawn.sum())
                sample_households += int(np.unique(columns["household"][drawn]).size)
            written += columns["household"].size
            households += kept
            chunk += 1
    finally:
        for writer in writers:
            writer.close()
    return CensusFiles(written, households, sample_persons, sample_households)
