"""Ground truth from names and addresses: which original unit is each external record?

docs/method/ground-truth.md (Ronning et al. 2005, ch. 17): the rates of a simulated attack count
only *verifiable* external records, those whose true unit is known. Without a shared identifier
the data holder finds them by linking the external database (names, addresses) to the original.

Within each block (postcode prefix, city, …) every external record is scored against every
original record (in chunks, never the whole block at once when it is large):

* name: the larger of rapidfuzz's ``token_sort_ratio`` and the plain ratio of the cores written
  without spaces ("Schäfer Bau" = "Schaeferbau"), over 100, on the cores of
  ``parse_firm_name``;
* address, when both records have one: ``(1 − w)·name + w·address``;
* legal form: when both records carry one and they differ, ``form_penalty`` is subtracted (a
  quarter of it when one is the compound "… & Co. KG" of the other's "KG"; an eighth of it when
  only one of the two names a form).

A record's link is **accepted** only when its best score reaches ``accept``, beats its second
best candidate by more than ``margin`` and the unit's own best external record is this one, by
more than ``margin`` over the next: ties and near ties go to **review**, never to a link.
Every other record whose best score reaches ``review`` is listed for review; the rest are
"no match". Accepted links are one-to-one by construction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
from annotated_types import Gt, Le
from rapidfuzz import fuzz, process

from attack.errors import InputError
from attack.io.notices import gathered
from attack.io.readers import Table, as_table, id_column, read, require_columns, source_name
from attack.io.rules import Fraction, Share, checked
from attack.io.table import IN_MEMORY
from attack.linkage.blocking import Block, as_block
from attack.linkage.firm_names import normalise_address, parse_firm_name
from attack.report.notebook import one_line, result_html

ACCEPTED, REVIEW, NO_MATCH = "accepted", "review", "no match"
BELOW_ACCEPT = "score below accept"
NEAR_TIE = "another unit scores as high"
CLAIMED = "the unit fits another record as well or better"
NO_FORM = "(none)"
#: At most this many scores are held at once (external rows × original rows of one chunk).
CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class TruthSettings:
    """Thresholds and weights of one ground-truth linkage (see ``link_names``)."""

    accept: float = 0.92
    review: float = 0.80
    margin: float = 0.02
    address_weight: float = 0.3
    form_penalty: float = 0.2

    def __post_init__(self) -> None:
        # each value's own range is declared on link_names; here the one rule between two
        if not self.review < self.accept:
            raise InputError(f"thresholds must satisfy review < accept (got review={self.review}, accept={self.accept})",
                             field="review")


@dataclass(frozen=True)
class TruthResult:
    """The outcome of ``link_names``.

    ``table`` has one row per external record, in file order: ``external_id``; ``candidate_id``
    (its best-scoring original unit, for accepted and review rows, else None); ``unit_id`` (the
    ground truth: the candidate of accepted rows only); ``score`` (the best score the record
    reached, NaN when its block holds no original record); ``status`` ("accepted", "review" or
    "no match"); ``reason`` (why a review row was not accepted); ``legal_form`` (as read from
    the external name) and ``block`` (its block, None when a blocking value is missing).
    """

    table: pd.DataFrame
    external: pd.DataFrame
    settings: TruthSettings
    blocks: tuple[str, ...]
    files: dict[str, str]
    #: The name of the external file, for messages.
    source: str = IN_MEMORY

    def summary(self) -> dict[str, int]:
        counts = self.table["status"].value_counts()
        return {
            "n_external": int(len(self.table)),
            "accepted": int(counts.get(ACCEPTED, 0)),
            "review": int(counts.get(REVIEW, 0)),
            "no_match": int(counts.get(NO_MATCH, 0)),
        }

    def __repr__(self) -> str:
        counts = self.summary()
        return one_line("TruthResult", None, *(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()))

    def _repr_html_(self) -> str:
        counts = self.summary()
        return result_html("Ground truth by name linkage", None,
                           [f"{k.replace('_', ' ')} {v}" for k, v in counts.items()],
                           self.by_legal_form(), full=".by_legal_form()")

    def by_legal_form(self) -> pd.DataFrame:
        """Accepted, review and no-match counts per legal form of the external records."""
        return _counts(self.table, "legal_form")

    def by_block(self) -> pd.DataFrame:
        """Accepted, review and no-match counts per block (``(missing)`` for records in none)."""
        return _counts(self.table, "block")

    def to_dict(self) -> dict:
        """Aggregates only (no identifier, no name): what ``attack truth --json`` writes."""
        return {
            "files": dict(self.files),
            "settings": {**self.settings.__dict__, "blocks": list(self.blocks)},
            "counts": self.summary(),
            "by_legal_form": self.by_legal_form().to_dict("records"),
            "by_block": self.by_block().to_dict("records"),
        }

    def key(self, column: str = "unit_id") -> pd.DataFrame:
        """The external file with the ground-truth column added (accepted links only)."""
        if column in self.external.columns:
            raise InputError(
                "the external file already has this column; choose another name for the ground truth",
                file=self.source,
                column=column,
            )
        out = self.external.copy()
        out[column] = pd.Series(self.table["unit_id"].to_numpy(dtype=object), index=out.index, dtype=object)
        return out

    def review_band(self) -> pd.DataFrame:
        """The pairs for clerical review: ``external_id, candidate_id, score, reason``, best first.

        Confidential: it links external identities to original units."""
        rows = self.table[self.table["status"] == REVIEW]
        rows = rows.sort_values("score", ascending=False, kind="stable")
        return rows[["external_id", "candidate_id", "score", "reason"]].reset_index(drop=True)


def _counts(table: pd.DataFrame, by: str) -> pd.DataFrame:
    groups = table[by].fillna("(missing)") if by == "block" else table[by]
    counts = pd.crosstab(groups, table["status"]).reindex(columns=[ACCEPTED, REVIEW, NO_MATCH], fill_value=0)
    counts = counts.rename(columns={NO_MATCH: "no_match"})
    counts.insert(0, "n", counts.sum(axis=1))
    counts = counts.reset_index().rename(columns={by: by})
    counts.columns.name = None
    return counts.astype({c: int for c in ("n", ACCEPTED, REVIEW, "no_match")})


@gathered
@checked
def link_names(
    external: Table | pd.DataFrame | str | Path,
    external_id: str,
    original: Table | pd.DataFrame | str | Path,
    original_id: str,
    *,
    name: str,
    address: str | None = None,
    block: Sequence[Block | str] = (),
    accept: Annotated[float, Gt(0), Le(1)] = 0.92,
    review: Share = 0.80,
    margin: Fraction = 0.02,
    address_weight: Fraction = 0.3,
    form_penalty: Fraction = 0.2,
) -> TruthResult:
    """Link the external records to the original units by firm name (and address) within blocks.

    ``external`` and ``original`` are frames or file paths; ``name`` and ``address`` name the
    same column in both files; ``block`` takes ``attack.Block`` objects or their text
    spelling (``"plz:prefix=3"``). Scores, thresholds and the tie rule are explained in
    ``docs/method/ground-truth.md``. Raises ``InputError`` for thresholds outside
    ``0 < review < accept <= 1``, weights outside [0, 1], missing columns or missing/duplicate
    identifiers.
    """
    settings = TruthSettings(accept, review, margin, address_weight, form_penalty)
    blocks = tuple(as_block(b) for b in block)
    external = as_table(read(Path(external)) if isinstance(external, (str, Path)) else external)
    original = as_table(read(Path(original)) if isinstance(original, (str, Path)) else original)
    text_columns = [name] + ([address] if address else [])
    require_columns(external, [external_id, *text_columns, *(k.external_column for k in blocks)])
    require_columns(original, [original_id, *text_columns, *(k.name for k in blocks)])
    ext_ids = id_column(external, external_id)
    orig_ids = id_column(original, original_id)
    ext = _Texts.read(external.frame, name, address)
    orig = _Texts.read(original.frame, name, address)

    n_ext = len(external)
    best = np.full(n_ext, -1, dtype=np.int64)
    score = np.full(n_ext, np.nan)
    reason = np.full(n_ext, None, dtype=object)
    block_label = np.full(n_ext, None, dtype=object)
    for label, ext_rows, orig_rows in _blocks(external, original, blocks):
        block_label[ext_rows] = label
        if len(orig_rows) == 0:
            continue
        j, s, why = _best_in_block(ext, orig, ext_rows, orig_rows, settings)
        best[ext_rows], score[ext_rows], reason[ext_rows] = orig_rows[j], s, why

    status = np.full(n_ext, NO_MATCH, dtype=object)
    status[score >= review] = REVIEW
    status[(score >= accept) & (reason == None)] = ACCEPTED  # noqa: E711 (element-wise)
    reason[(status == REVIEW) & (reason == None)] = BELOW_ACCEPT  # noqa: E711
    reason[status != REVIEW] = None
    candidate = np.full(n_ext, None, dtype=object)
    linked = status != NO_MATCH
    candidate[linked] = orig_ids[best[linked]]
    table = pd.DataFrame(
        {
            "external_id": pd.Series(ext_ids, dtype=object),
            "candidate_id": pd.Series(candidate, dtype=object),  # object: keep None, not NaN
            "unit_id": pd.Series(np.where(status == ACCEPTED, candidate, np.array(None, dtype=object)), dtype=object),
            "score": score,
            "status": pd.Series(status, dtype=object),
            "reason": pd.Series(reason, dtype=object),
            "legal_form": pd.Series([f or NO_FORM for f in ext.forms], dtype=object),
            "block": pd.Series(block_label, dtype=object),
        }
    )
    files = {"external": Path(source_name(external)).name, "original": Path(source_name(original)).name}
    return TruthResult(table, external.frame, settings, tuple(k.label() for k in blocks), files, external.source)


@dataclass(frozen=True)
class _Texts:
    """The normalised texts of one file: name cores (also without spaces), legal forms, addresses."""

    cores: list[str]
    compact: list[str]
    forms: list[str | None]
    addresses: list[str] | None

    @classmethod
    def read(cls, frame: pd.DataFrame, name: str, address: str | None) -> _Texts:
        names = frame[name].to_numpy(dtype=object)
        parsed = {v: parse_firm_name(v) for v in pd.unique(names)}
        cores = [parsed[v].core for v in names]
        addresses = None
        if address:
            folded = {v: normalise_address(v) for v in pd.unique(frame[address].to_numpy(dtype=object))}
            addresses = [folded[v] for v in frame[address].to_numpy(dtype=object)]
        return cls(cores, [c.replace(" ", "") for c in cores], [parsed[v].legal_form for v in names], addresses)


def _similarity(a: list[str], b: list[str], a_compact: list[str], b_compact: list[str]) -> np.ndarray:
    """max(token_sort_ratio, ratio without spaces) / 100 of every pair; 0 when either is empty."""
    s = process.cdist(a, b, scorer=fuzz.token_sort_ratio, dtype=np.float64)
    np.maximum(s, process.cdist(a_compact, b_compact, scorer=fuzz.ratio, dtype=np.float64), out=s)
    s /= 100.0
    s[np.array([not t for t in a], dtype=bool), :] = 0.0
    s[:, np.array([not t for t in b], dtype=bool)] = 0.0
    return s


def _form_penalties(ext_forms: list, orig_forms: list, penalty: float) -> np.ndarray:
    """Penalty of every pair of legal forms: 0 when equal (or both unknown), ``penalty`` when
    they differ, a quarter of it for a compound "… & Co. X" against a plain "X", an eighth of it
    when only one record carries a form (so a record that names the form outranks one that
    does not)."""
    labels = sorted({f for f in (*ext_forms, *orig_forms) if f}, key=str)
    index = {f: i + 1 for i, f in enumerate(labels)}
    table = np.full((len(labels) + 1, len(labels) + 1), penalty)
    table[0, :] = table[:, 0] = penalty / 8
    np.fill_diagonal(table, 0.0)
    for f, i in index.items():
        for g, k in index.items():
            if f.endswith(f"& Co. {g}") or g.endswith(f"& Co. {f}"):
                table[i, k] = penalty / 4
    e = np.array([index.get(f, 0) for f in ext_forms])
    o = np.array([index.get(f, 0) for f in orig_forms])
    return table[e[:, None], o[None, :]]


def _scores(ext: _Texts, orig: _Texts, rows: np.ndarray, cols: np.ndarray, settings: TruthSettings) -> np.ndarray:
    """The score matrix of external ``rows`` × original ``cols``."""
    pick = lambda values, idx: [values[i] for i in idx]  # noqa: E731
    s = _similarity(pick(ext.cores, rows), pick(orig.cores, cols), pick(ext.compact, rows), pick(orig.compact, cols))
    if ext.addresses is not None:
        ea, oa = pick(ext.addresses, rows), pick(orig.addresses, cols)
        a = _similarity(ea, oa, [t.replace(" ", "") for t in ea], [t.replace(" ", "") for t in oa])
        both = np.array([bool(t) for t in ea])[:, None] & np.array([bool(t) for t in oa])[None, :]
        w = settings.address_weight
        s = np.where(both, (1.0 - w) * s + w * a, s)
    if settings.form_penalty:
        s -= _form_penalties(pick(ext.forms, rows), pick(orig.forms, cols), settings.form_penalty)
        np.maximum(s, 0.0, out=s)
    return s


def _best_in_block(ext: _Texts, orig: _Texts, ext_rows: np.ndarray, orig_rows: np.ndarray,
                   settings: TruthSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per external row of the block: its best original (block position; the first on ties), the
    score and why it cannot be accepted (None when nothing speaks against it)."""
    n, m = len(ext_rows), len(orig_rows)
    best_col = np.empty(n, dtype=np.int64)
    first = np.empty(n)
    second = np.zeros(n)
    col_first = np.full(m, -np.inf)
    col_second = np.zeros(m)
    col_row = np.full(m, -1, dtype=np.int64)
    step = max(1, CHUNK_CELLS // m)
    for lo in range(0, n, step):
        s = _scores(ext, orig, ext_rows[lo:lo + step], orig_rows, settings)
        rows = np.arange(len(s))
        best_col[lo:lo + len(s)] = j = s.argmax(axis=1)
        first[lo:lo + len(s)] = s[rows, j]
        if m > 1:
            second[lo:lo + len(s)] = np.partition(s, m - 2, axis=1)[:, m - 2]
        top = s.argmax(axis=0)
        c_first = s[top, np.arange(m)]
        c_second = np.partition(s, len(s) - 2, axis=0)[len(s) - 2] if len(s) > 1 else np.zeros(m)
        col_second = np.where(col_first >= c_first, np.maximum(col_second, c_first), np.maximum(col_first, c_second))
        col_row = np.where(col_first >= c_first, col_row, lo + top)
        col_first = np.maximum(col_first, c_first)
    why = np.full(n, None, dtype=object)
    why[first - second <= settings.margin] = NEAR_TIE
    claimed = (col_row[best_col] != np.arange(n)) | (col_first[best_col] - col_second[best_col] <= settings.margin)
    why[(why == None) & claimed] = CLAIMED  # noqa: E711 (element-wise)
    return best_col, first, why


def _blocks(external: Table, original: Table,
            block: tuple[Block, ...]) -> Iterator[tuple[str | None, np.ndarray, np.ndarray]]:
    """Yield ``(label, external rows, original rows)`` of every block with an external record.

    A record with a missing blocking value is in no block (label None) and so gets no candidate."""
    if not block:
        yield "(all)", np.arange(len(external)), np.arange(len(original))
        return
    ext_keys = list(zip(*(k.classes(external, k.external_column) for k in block), strict=True))
    orig_keys = list(zip(*(k.classes(original, k.name) for k in block), strict=True))
    groups: dict[tuple, tuple[list[int], list[int]]] = {}
    for side, keys in ((0, ext_keys), (1, orig_keys)):
        for row, key in enumerate(keys):
            if any(v is None for v in key):
                continue
            groups.setdefault(key, ([], []))[side].append(row)
    for key, (ext_rows, orig_rows) in groups.items():
        if ext_rows:
            label = " | ".join(str(v) for v in key)
            yield label, np.array(ext_rows, dtype=np.int64), np.array(orig_rows, dtype=np.int64)


__all__ = ["TruthResult", "TruthSettings", "link_names"]
