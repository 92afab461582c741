"""Blocking: split both files into blocks whose records agree on the blocking keys.

docs/method/linkage.md (handbook §13.1.2): pairs that differ in a blocking variable are never compared.
A blocking key is a categorical column compared for equality, optionally on a coarser level
(a code prefix such as the NACE division ``nace:prefix=2``) or a metric column binned into
intervals ``[a, b)`` with break points applied identically to both files (``turnover:bins=...``).
Records with a missing blocking value fall in no block: an external record then gets no link.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import code_column, numeric_column, source_name
from attack.linkage.phonetic import ENCODINGS


@dataclass(frozen=True)
class Classifier:
    """A column turned into class labels: as is, by code prefix, by interval bins, or by the
    phonetic code of a name (``encoding``: ``"soundex"`` or ``"cologne"``).

    Used for blocking keys (docs/method/linkage.md) and for risk cells (docs/method/risk.md).
    ``external_name`` is the column in the external file when it differs.
    """

    name: str
    prefix: int | None = None
    bins: tuple[float, ...] | None = None
    external_name: str | None = None
    encoding: str | None = None

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.prefix, self.bins, self.encoding)) > 1:
            raise InputError(f"{self.name!r}: use one of a prefix, bins or a phonetic encoding")
        if self.encoding is not None and self.encoding not in ENCODINGS:
            raise InputError(f"{self.name!r}: unknown encoding {self.encoding!r}; expected one of {', '.join(ENCODINGS)}")
        if self.prefix is not None and self.prefix < 1:
            raise InputError(f"{self.name!r}: the prefix length must be at least 1")
        if self.bins is not None:
            if len(self.bins) == 0 or not np.isfinite(self.bins).all() or any(np.diff(self.bins) <= 0):
                raise InputError(f"{self.name!r}: bins must be strictly increasing finite break points")

    @property
    def external_column(self) -> str:
        return self.external_name or self.name

    def label(self) -> str:
        """The form users write: ``name``, ``name:prefix=2`` or ``name:bins=1,10``."""
        if self.prefix is not None:
            return f"{self.name}:prefix={self.prefix}"
        if self.bins is not None:
            return f"{self.name}:bins=" + ",".join(f"{b:g}" for b in self.bins)
        if self.encoding is not None:
            return f"{self.name}:{self.encoding}"
        return self.name

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

    def describe(self) -> dict:
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
    external: pd.DataFrame, release: pd.DataFrame, keys: Sequence[Classifier]
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
        key = tuple(labels[ext_rows[0]] for labels in ext_labels)
        blocks.append(BlockRows(key, ext_rows, rel_split[gid]))
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


def _same_coding(external: pd.DataFrame, release: pd.DataFrame, key: Classifier) -> None:
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
