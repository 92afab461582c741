"""Key classes of a release counted in the intruder's population file, in chunks
(docs/method/population-uniqueness.md, "A population file at census scale").

The release's key classes are found in the release alone: each key's values are coded 0
(missing), 1, 2, … in the release, and the codes are packed into one integer per record. A
population file is then read chunk by chunk, only its key columns: each chunk's values are
given the release's codes (a Parquet column's dictionary is coded once per chunk, its indices
taken through it), a record with a value the release does not hold is in no released class and
is skipped, and the others are counted by their packed key. The counts are integers, so the
result does not depend on the chunk size; a population held in memory is one chunk.

A missing value is one more value (as ARX treats a suppressed value), values match as pandas
compares them (the same values ``attack.read`` gives for the file).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from attack.errors import InputError
from attack.io.readers import ReadOptions, Table, as_table, require_columns

__all__ = ["CHUNK_ROWS", "PopulationFile", "release_classes", "population_class_sizes"]

CHUNK_ROWS = 1 << 22
_PACK_LIMIT = 2.0**62


@dataclass(frozen=True)
class PopulationFile:
    """The intruder's population file as a Parquet file read in chunks of ``chunk_rows`` records,
    only the key columns (``options``: the declared missing-value codes, as ``attack.read``)."""

    path: Path
    chunk_rows: int = CHUNK_ROWS
    options: ReadOptions | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))
        if self.path.suffix.lower() not in (".parquet", ".pq"):
            raise InputError("a population file read in chunks must be Parquet (.parquet, .pq)", file=str(self.path))
        if self.chunk_rows < 1:
            raise InputError(f"the chunk size must be at least 1 record, got {self.chunk_rows}")

    def chunks(self, keys: Sequence[str]) -> Iterator[list[tuple[pd.Series, np.ndarray]]]:
        """Per chunk and key: the values of the column's dictionary and each record's index
        into them (-1: missing)."""
        import pyarrow.parquet as pq

        name = str(self.path)
        if not self.path.is_file():
            raise InputError("file not found", file=name)
        try:
            names = pq.read_schema(self.path).names
            for key in keys:
                if key not in names:
                    raise InputError(f"has no column {key!r}", file=name, column=key)
            handle = pq.ParquetFile(self.path, read_dictionary=list(keys))
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot be read as parquet: {exc}", file=name) from exc
        options = self.options or ReadOptions()
        try:
            for batch in handle.iter_batches(batch_size=self.chunk_rows, columns=list(keys)):
                yield [_dictionary(batch.column(j), key, options) for j, key in enumerate(keys)]
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot be read as parquet: {exc}", file=name) from exc


def _dictionary(column: pa.Array, key: str, options: ReadOptions) -> tuple[pd.Series, np.ndarray]:
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    values = column.dictionary.to_pandas()
    na = options.na_for(key)
    if na:
        from attack.io.readers import _typed_missing

        values = _typed_missing(pd.DataFrame({key: values}), options)[key]
    indices = column.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return values, indices


@dataclass(frozen=True)
class _Classes:
    """The release's key classes: per key the release's distinct values (code = position + 1),
    the packing plan and each class's packed key (sorted)."""

    values: tuple[pd.Index, ...]
    plan: tuple[tuple[int, np.ndarray | None], ...]
    packed: np.ndarray
    sizes: np.ndarray
    inverse: np.ndarray

    def lookup(self, codes: list[np.ndarray]) -> np.ndarray:
        """Class number of each row of ``codes`` (one array per key; -1: a value the release
        does not hold), -1 for a row in no released class."""
        packed = _pack(codes, self.plan)
        where = np.searchsorted(self.packed, packed)
        where[where == self.packed.size] = 0
        hit = (packed >= 0) & (self.packed[where] == packed) if self.packed.size else np.zeros(packed.size, bool)
        return np.where(hit, where, -1)


def release_classes(frame: pd.DataFrame, keys: Sequence[str]) -> _Classes:
    """Key classes of the release ``frame``: sizes, and the class of each record."""
    values, codes = [], []
    for key in keys:
        column = frame[key]
        if isinstance(column.dtype, pd.CategoricalDtype):
            column = column.astype(object)
        found, uniques = pd.factorize(column, use_na_sentinel=True)
        values.append(pd.Index(uniques))
        codes.append(found.astype(np.int64) + 1)
    plan: list[tuple[int, np.ndarray | None]] = []
    packed = np.zeros(len(frame), dtype=np.int64)
    span = 1.0
    for key_values, key_codes in zip(values, codes, strict=True):
        radix = len(key_values) + 1
        if span * radix >= _PACK_LIMIT:   # make the packed keys dense before they overflow
            dense = np.unique(packed)
            plan.append((0, dense))
            packed = np.searchsorted(dense, packed)
            span = float(dense.size)
        plan.append((radix, None))
        packed = packed * radix + key_codes
        span *= radix
    unique, inverse, sizes = np.unique(packed, return_inverse=True, return_counts=True)
    return _Classes(tuple(values), tuple(plan), unique, sizes.astype(np.int64), inverse.reshape(-1))


def _pack(codes: list[np.ndarray], plan: tuple[tuple[int, np.ndarray | None], ...]) -> np.ndarray:
    """Pack per-key codes (-1: not a released value) by ``plan``; -1 for a row with any -1."""
    n = codes[0].size if codes else 0
    packed = np.zeros(n, dtype=np.int64)
    out = np.zeros(n, dtype=bool)
    j = 0
    for radix, dense in plan:
        if dense is not None:
            where = np.minimum(np.searchsorted(dense, packed), dense.size - 1)
            out |= dense[where] != packed
            packed = where
            continue
        out |= codes[j] < 0
        packed = packed * radix + codes[j]
        j += 1
    packed[out] = -1
    return packed


def _codes(index: pd.Index, values: pd.Series) -> np.ndarray:
    """Release codes of ``values``: 0 missing, position + 1 when the release holds the value,
    -1 otherwise."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(object)
    missing = values.isna().to_numpy()
    codes = index.get_indexer(values).astype(np.int64) + 1
    codes[(codes == 0) & ~missing] = -1
    codes[missing] = 0
    return codes


def population_class_sizes(table: Table | pd.DataFrame, keys: Sequence[str],
                           population: Table | pd.DataFrame | PopulationFile) -> tuple[np.ndarray, np.ndarray]:
    """Size of each of the release's key classes in the release and in the population (same
    order). Raises ``InputError`` when the population holds fewer units of a class than the
    release, naming the first such release record."""
    table = as_table(table)
    keys = list(keys)
    require_columns(table, keys)
    classes = release_classes(table.frame, keys)
    counts = np.zeros(classes.sizes.size, dtype=np.int64)
    for chunk in _chunks(population, keys, classes.values):
        found = classes.lookup(chunk)
        counts += np.bincount(found[found >= 0], minlength=counts.size)
    short = counts < classes.sizes
    if short.any():
        row = int(np.flatnonzero(short[classes.inverse])[0]) + 1
        raise InputError("the population file holds fewer units than the release in this record's key class "
                         "(the population must contain every released record)", file=table.source, row=row)
    return classes.sizes, counts


def _chunks(population: Table | pd.DataFrame | PopulationFile, keys: list[str],
            values: tuple[pd.Index, ...]) -> Iterator[list[np.ndarray]]:
    """The population's records as release codes per key, chunk by chunk (a population in
    memory is one chunk)."""
    if isinstance(population, PopulationFile):
        for chunk in population.chunks(keys):
            yield [np.append(_codes(index, dictionary), 0)[indices]
                   for index, (dictionary, indices) in zip(values, chunk, strict=True)]
        return
    pop = as_table(population)
    require_columns(pop, keys)
    yield [_codes(index, pop.frame[key]) for index, key in zip(values, keys, strict=True)]
