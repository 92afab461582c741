"""Blocking: split both files into blocks whose records agree on the blocking keys.

docs/method/linkage.md (handbook §13.1.2): pairs that differ in a blocking variable are never compared.
A blocking key is a categorical column compared for equality, optionally on a coarser level
(a code prefix such as the NACE division ``nace:prefix=2``) or a metric column binned into
intervals ``[a, b)`` with break points applied identically to both files (``turnover:bins=...``).
Records with a missing blocking value fall in no block: an external record then gets no link.
``Block`` is a blocking key (also a risk cell), written ``nace``, ``nace:prefix=2``,
``employees:bins=20,50`` or ``surname:cologne``; ``AnyBlock`` offers alternatives (``a|b``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import ConfigDict, Field, field_validator, model_validator

from attack.errors import InputError
from attack.io.readers import code_column, numeric_column, source_name
from attack.io.strict import SettingsModel
from attack.linkage.column import ColumnSetting, build
from attack.linkage.phonetic import ENCODINGS


class Block(ColumnSetting):
    """A blocking key or a risk cell: the column as is, by code prefix, by interval bins, or (a
    name) by its phonetic code (``encoding``: ``"soundex"`` or ``"cologne"``).

    Used for blocking keys (docs/method/linkage.md) and for risk cells (docs/method/risk.md).
    ``external_name`` is the column in the external file when it differs.
    """

    prefix: int | None = Field(default=None, ge=1, description="Classes are the first N characters of the code.")
    bins: tuple[float, ...] | None = Field(default=None, min_length=1, description="Break points of the classes.")
    encoding: Literal["soundex", "cologne"] | None = Field(default=
        None, description="Classes are the Soundex or Kölner Phonetik codes of the names.")

    @model_validator(mode="after")
    def _one_rule(self) -> Block:
        if sum(x is not None for x in (self.prefix, self.bins, self.encoding)) > 1:
            raise ValueError("use one of a prefix, bins or an encoding")
        if self.bins is not None and not all(math.isfinite(b) for b in self.bins):
            raise ValueError("bins must be finite numbers (no nan or inf)")
        if self.bins is not None and any(b <= a for a, b in itertools.pairwise(self.bins)):
            raise ValueError("bins must be strictly increasing break points")
        return self

    def label(self) -> str:
        """The form users write: ``name``, ``name:prefix=2`` or ``name:bins=1,10``."""
        if self.prefix is not None:
            return f"{self.name}:prefix={self.prefix}"
        if self.bins is not None:
            return f"{self.name}:bins=" + ",".join(f"{b:g}" for b in self.bins)
        if self.encoding is not None:
            return f"{self.name}:{self.encoding}"
        return self.name

    def to_text(self) -> str:
        """The CLI spelling (the same as ``label``)."""
        return self.label()

    def to_data(self) -> str | dict:
        """The block as a scenario file writes it: its text spelling, or a table with a renamed
        external column."""
        if self.external_name is None:
            return self.label()
        return self.model_dump(mode="json", exclude_defaults=True)

    def classes(self, frame: pd.DataFrame, column: str | None = None) -> np.ndarray:
        """Class label of every row (object array, None for missing)."""
        column = column or self.name
        if self.bins is not None:
            values = numeric_column(frame, column)
            index = np.digitize(values, self.bins, right=False)
            names = np.array(interval_labels(self.bins), dtype=object)
            out = names[index]
            out[np.isnan(values)] = None
            return out
        codes = code_column(frame, column)
        if self.encoding is not None:
            encode = ENCODINGS[self.encoding]
            return np.array([None if pd.isna(c) else encode(c) for c in codes], dtype=object)
        if self.prefix is not None:
            out = codes.copy()
            present = ~pd.isna(codes)
            out[present] = [c[: self.prefix] for c in codes[present]]
            return out
        return codes

    def order(self, labels: Sequence[str]) -> list[str]:
        """Labels in their natural order: interval order for bins, sorted otherwise."""
        if self.bins is not None:
            rank = {name: i for i, name in enumerate(interval_labels(self.bins))}
            return sorted(labels, key=lambda v: rank.get(v, len(rank)))
        return sorted(labels)


class AnyBlock(SettingsModel):
    """Alternative blocking keys (``"surname:prefix=1|postcode"``): a pair is a candidate when it
    agrees on any of them; each alternative is one blocking pass (``attack.linkage.passes``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    any: tuple[Block, ...] = Field(min_length=2, description="The alternative blocking keys.")

    def __init__(self, *alternatives: Block | str | Mapping, **data: Any) -> None:
        if alternatives:
            data["any"] = tuple(as_block(a) for a in alternatives)
        super().__init__(**data)

    @field_validator("any", mode="before")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            return value
        try:
            return tuple(parse_block(v) if isinstance(v, str) else v for v in value)
        except InputError as exc:
            raise ValueError(exc.message) from None

    def to_text(self) -> str:
        """The CLI spelling: the alternatives separated by ``|``."""
        return "|".join(b.to_text() for b in self.any)

    def to_data(self) -> str | dict:
        """The entry as a scenario file writes it."""
        if all(b.external_name is None for b in self.any):
            return self.to_text()
        return {"any": [b.to_data() for b in self.any]}


def parse_block(text: str) -> Block:
    """A block from ``NAME``, ``NAME:prefix=N``, ``NAME:bins=B1,B2,...``, ``NAME:soundex`` or
    ``NAME:cologne``."""
    name, _, option = text.partition(":")
    if not name:
        raise InputError(f"{text!r}: a column name is needed")
    if not option:
        return Block(name=name)
    if option in ("soundex", "cologne"):
        return Block(name=name, encoding="soundex" if option == "soundex" else "cologne")
    if option.startswith("prefix="):
        try:
            prefix = int(option[len("prefix="):])
        except ValueError:
            raise InputError(f"{text!r}: expected whole numbers") from None
        return build(Block, {"name": name, "prefix": prefix}, repr(text))
    if option.startswith("bins="):
        try:
            bins = tuple(float(b) for b in option[len("bins="):].split(","))
        except ValueError as exc:
            raise InputError(f"{text!r}: bins must be numbers separated by commas") from exc
        return build(Block, {"name": name, "bins": bins}, repr(text))
    raise InputError(f"{text!r}: expected NAME, NAME:prefix=N, NAME:bins=B1,B2,..., NAME:soundex or NAME:cologne")


def parse_block_entry(text: str) -> Block | AnyBlock:
    """A blocking entry: one block, or alternatives separated by ``|`` (``"surname:prefix=1|plz"``)."""
    if "|" not in text:
        return parse_block(text)
    return AnyBlock(*(parse_block(part.strip()) for part in text.split("|")))


def blocking_entry(value: Block | AnyBlock | str | Mapping) -> Block | AnyBlock:
    """A blocking entry from its typed form, its text spelling or a scenario-file table
    (``{any = [...]}`` for alternatives)."""
    if isinstance(value, AnyBlock):
        return value
    if isinstance(value, str):
        return parse_block_entry(value)
    if isinstance(value, Mapping) and "any" in value:
        return build(AnyBlock, value, "block")
    return as_block(value)


def as_block(value: Block | str | Mapping) -> Block:
    """A block from a block, its text spelling or a scenario-file table."""
    if isinstance(value, Block):
        return value
    if isinstance(value, str):
        if "|" in value:
            raise InputError(f"{value!r}: alternatives (a|b) are blocking passes, not a cell or a single block")
        return parse_block(value)
    if isinstance(value, Mapping):
        return build(Block, value, "block")
    raise InputError(f"expected a block (attack.Block or text like 'nace:prefix=2'), got {value!r}")


def interval_labels(bins: Sequence[float]) -> list[str]:
    """Labels of the intervals (−inf, b0), [b0, b1), …, [bk, inf), closed on the left."""
    edges = [-np.inf, *bins, np.inf]
    return [f"[{_fmt(lo)}, {_fmt(hi)})" for lo, hi in zip(edges[:-1], edges[1:], strict=True)]


def _fmt(value: float) -> str:
    if np.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{value:g}"


@dataclass(frozen=True)
class BlockRows:
    """Row positions of one block in the external file and in the release, both ascending.

    ``pairs`` (multi-pass blocking, ``attack.linkage.passes``): a sparse boolean matrix over the
    block's rows (external × release) of the pairs that may be linked; None: every pair.
    """

    key: tuple
    external: np.ndarray
    release: np.ndarray
    pairs: Any = None

    @property
    def n_pairs(self) -> int:
        """Number of candidate pairs of the block."""
        return int(self.pairs.nnz) if self.pairs is not None else int(self.external.size * self.release.size)


@dataclass(frozen=True)
class Blocking:
    """The blocks of a linkage and what fell outside them (docs/method/linkage.md report)."""

    blocks: tuple[BlockRows, ...]
    external_without_block: np.ndarray
    #: Blocking passes whose candidate pairs are united (``attack.linkage.passes``).
    n_passes: int = 1

    @property
    def n_candidate_pairs(self) -> int:
        return int(sum(b.n_pairs for b in self.blocks))

    def to_dict(self) -> dict:
        sizes = [(int(b.external.size), int(b.release.size)) for b in self.blocks]
        largest = max(sizes, key=lambda s: s[0] * s[1], default=(0, 0))
        passes = {"n_passes": self.n_passes} if self.n_passes > 1 else {}
        return {
            **passes,
            "n_blocks": len(self.blocks),
            "n_external_without_block": int(self.external_without_block.size),
            "largest_block": list(largest),
            "n_candidate_pairs": self.n_candidate_pairs,
        }

    def __iter__(self) -> Iterator[BlockRows]:
        return iter(self.blocks)


def make_blocks(
    external: pd.DataFrame, release: pd.DataFrame, keys: Sequence[Block]
) -> Blocking:
    """Group both files by the blocking keys and pair the groups present on both sides.

    Without keys the whole files form one block. Raises ``InputError`` when blocking keys
    are given and no external record shares its block with any release record.
    """
    n_ext, n_rel = len(external), len(release)
    if not keys:
        return Blocking((BlockRows((), np.arange(n_ext), np.arange(n_rel)),), np.array([], dtype=np.int64))
    for key in keys:
        _same_coding(external, release, key)
    ext_labels = [k.classes(external, k.external_column) for k in keys]
    rel_labels = [k.classes(release, k.name) for k in keys]
    joint = pd.DataFrame(
        {str(i): np.concatenate([e, r]) for i, (e, r) in enumerate(zip(ext_labels, rel_labels, strict=True))}
    )
    group = joint.groupby(list(joint.columns), sort=True, dropna=True).ngroup().to_numpy()
    ext_group, rel_group = group[:n_ext], group[n_ext:]
    ext_order = np.argsort(ext_group, kind="stable")
    rel_order = np.argsort(rel_group, kind="stable")
    ext_ids, ext_start = np.unique(ext_group[ext_order], return_index=True)
    rel_ids, rel_start = np.unique(rel_group[rel_order], return_index=True)
    ext_split = dict(zip(ext_ids, np.split(ext_order, ext_start[1:]), strict=True))
    rel_split = dict(zip(rel_ids, np.split(rel_order, rel_start[1:]), strict=True))
    blocks = []
    for gid in sorted(set(ext_split) & set(rel_split)):
        if gid < 0:
            continue
        ext_rows = ext_split[gid]
        labels_of_block = tuple(labels[ext_rows[0]] for labels in ext_labels)
        blocks.append(BlockRows(labels_of_block, ext_rows, rel_split[gid]))
    covered = np.zeros(n_ext, dtype=bool)
    for block in blocks:
        covered[block.external] = True
    if not blocks:
        shown = ", ".join(k.label() for k in keys)
        example = tuple(labels[0] for labels in ext_labels)
        raise InputError(
            f"no external record shares its block ({shown}) with any release record, e.g. "
            f"external block {example!r}; check that both files use the same coding",
            file=source_name(external),
        )
    return Blocking(tuple(blocks), np.flatnonzero(~covered))


def _same_coding(external: pd.DataFrame, release: pd.DataFrame, key: Block) -> None:
    """Refuse a code blocking key spelt two ways in the two files (``01`` here, ``1`` there): the
    units would silently fall into different blocks and never be compared."""
    if key.bins is not None or key.encoding is not None:
        return
    ext = {c for c in pd.unique(code_column(external, key.external_column)) if isinstance(c, str)}
    rel = {c for c in pd.unique(code_column(release, key.name)) if isinstance(c, str)}
    unpadded = {c.lstrip("0"): c for c in rel - ext}
    for code in sorted(ext - rel):
        other = unpadded.get(code.lstrip("0"))
        if other is not None:
            raise InputError(
                f"the code {code!r} in {source_name(external)} is {other!r} in {source_name(release)}: the files "
                "spell codes with and without leading zeros, so their units would fall into different blocks; "
                "write the codes alike in both files (and read them as codes: --code)",
                column=key.name)
