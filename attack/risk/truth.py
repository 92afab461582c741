"""Ground truth from names and addresses: which original unit is each external record?

docs/method/risk.md and §2.1 (handbook Ch. 17, ``seeds/002_17cfde6cf5ee24c1.txt:L2547``): the rates of
a simulated attack count only *verifiable* external records, those whose true original unit is
known. The provider finds them by linking the external database (which carries names and
addresses) to the original file. This module does that linkage with ``rapidfuzz``:

* names are normalised (case, umlauts and accents, punctuation, legal-form suffixes such as
  "GmbH & Co. KG"), addresses likewise ("Straße"/"Str." → "str");
* only records in the same block (postcode prefix, city, ...) are compared;
* the score of a pair is ``token_sort_ratio / 100`` of the normalised names, or
  ``(1 − w)·name + w·address`` when an address column is given (name alone when either
  address is missing);
* pairs are taken one-to-one by descending score (greedy; ties by external row, then original
  row). A pair scoring at least ``accept`` is accepted and gives the external record its unit id;
  a pair in ``[review, accept)`` is listed for clerical review and is **not** accepted: the tool
  does not guess. Everything else is "no match".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process

from attack.errors import InputError
from attack.io.readers import id_column, require_columns, source_name
from attack.linkage.blocking import Classifier

ACCEPTED, REVIEW, NO_MATCH = "accepted", "review", "no match"

#: Legal-form suffixes, as token sequences after punctuation became spaces; longest first so
#: that "gmbh & co. kg" goes as a whole before "gmbh" or "kg" alone.
LEGAL_FORMS = (
    "gmbh & co. kg",
    "gmbh & co kg",
    "ug (haftungsbeschränkt)",
    "e.k.",
    "e. k.",
    "gmbh",
    "kgaa",
    "ohg",
    "mbh",
    "ltd",
    "inc",
    "ag",
    "kg",
    "eg",
    "se",
    "co",
)

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_NON_WORD = re.compile(r"[^0-9a-z]+")


def _fold(text) -> str:
    """Casefold, spell out umlauts and ß, strip other accents, punctuation to single spaces."""
    if text is None or (isinstance(text, float) and np.isnan(text)) or text is pd.NA:
        return ""
    text = unicodedata.normalize("NFC", str(text)).casefold().translate(_UMLAUTS)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", text).strip()


def _legal_form_pattern() -> re.Pattern:
    forms = sorted({_fold(f) for f in LEGAL_FORMS}, key=lambda f: (-len(f.split()), -len(f), f))
    alternatives = "|".join(r"\s+".join(map(re.escape, f.split())) for f in forms)
    return re.compile(rf"(?<!\S)(?:{alternatives})(?!\S)")


_LEGAL_FORM = _legal_form_pattern()


def normalise_name(text) -> str:
    """A firm name reduced to what identifies it: ``"Müller GmbH & Co. KG"`` → ``"mueller"``.

    Casefolded, ä/ö/ü/ß → ae/oe/ue/ss, other accents stripped, punctuation to spaces, legal-form
    suffixes (:data:`LEGAL_FORMS`) removed as whole words wherever they stand, whitespace
    collapsed. A name that consists of nothing but legal forms is kept (folded) rather than
    emptied. Missing values give ``""``.
    """
    folded = _fold(text)
    stripped = " ".join(_LEGAL_FORM.sub(" ", folded).split())
    return stripped or folded


_STREET = re.compile(r"strasse\b")


def normalise_address(text) -> str:
    """A street address folded like a name, with "straße"/"strasse"/"str." written "str":
    ``"Hauptstraße 5"`` → ``"hauptstr 5"``. Missing values give ``""``."""
    return " ".join(_STREET.sub("str", _fold(text)).split())


@dataclass
class TruthResult:
    """The outcome of :func:`link_names`.

    ``table`` has one row per external record, in file order: ``external_id``; ``candidate_id``
    (the original unit it was paired with, for accepted and review rows, else None); ``unit_id``
    (the ground truth: the candidate for accepted rows only, else None); ``score`` (of the
    pair; for "no match" rows the best score the record reached in its block, NaN when its
    block holds no original record); ``status`` ("accepted", "review" or "no match").
    """

    table: pd.DataFrame
    external: pd.DataFrame
    accept: float
    review: float

    def summary(self) -> dict[str, int]:
        counts = self.table["status"].value_counts()
        return {
            "n_external": int(len(self.table)),
            "accepted": int(counts.get(ACCEPTED, 0)),
            "review": int(counts.get(REVIEW, 0)),
            "no_match": int(counts.get(NO_MATCH, 0)),
        }

    def key(self, column: str = "unit_id") -> pd.DataFrame:
        """The external file with the ground-truth column added (accepted links only)."""
        if column in self.external.columns:
            raise InputError(
                "the external file already has this column; choose another name for the ground truth",
                file=source_name(self.external),
                column=column,
            )
        out = self.external.copy()
        out[column] = pd.Series(self.table["unit_id"].to_numpy(dtype=object), index=out.index, dtype=object)
        return out

    def review_band(self) -> pd.DataFrame:
        """The pairs for clerical review: ``external_id, candidate_id, score``, best first.

        Confidential: it links external identities to original units."""
        rows = self.table[self.table["status"] == REVIEW]
        rows = rows.sort_values("score", ascending=False, kind="stable")
        return rows[["external_id", "candidate_id", "score"]].reset_index(drop=True)


def link_names(
    external: pd.DataFrame,
    external_id: str,
    original: pd.DataFrame,
    original_id: str,
    *,
    name: str,
    address: str | None = None,
    block: Sequence[Classifier] = (),
    accept: float = 0.92,
    review: float = 0.80,
    address_weight: float = 0.3,
) -> TruthResult:
    """Link the external records to the original units by name (and address) within blocks.

    ``name`` and ``address`` name the same column in both files; a blocking classifier reads
    ``external_name`` in the external file when set. Raises :class:`InputError` for thresholds
    outside ``0 < review < accept <= 1``, a weight outside [0, 1], missing columns or
    missing/duplicate identifiers.
    """
    _check_thresholds(accept, review, address_weight)
    block = tuple(block)
    text_columns = [name] + ([address] if address else [])
    require_columns(external, [external_id, *text_columns, *(k.external_column for k in block)])
    require_columns(original, [original_id, *text_columns, *(k.name for k in block)])
    ext_ids = id_column(external, external_id)
    orig_ids = id_column(original, original_id)

    ext_names = [normalise_name(v) for v in external[name].to_numpy(dtype=object)]
    orig_names = [normalise_name(v) for v in original[name].to_numpy(dtype=object)]
    if address:
        ext_addr = [normalise_address(v) for v in external[address].to_numpy(dtype=object)]
        orig_addr = [normalise_address(v) for v in original[address].to_numpy(dtype=object)]

    n_ext = len(external)
    partner = np.full(n_ext, -1, dtype=np.int64)
    score = np.full(n_ext, np.nan)
    taken = np.zeros(len(original), dtype=bool)
    for ext_rows, orig_rows in _blocks(external, original, block):
        s = _cdist([ext_names[i] for i in ext_rows], [orig_names[j] for j in orig_rows])
        if address:
            a = _cdist([ext_addr[i] for i in ext_rows], [orig_addr[j] for j in orig_rows])
            both = (
                np.array([bool(ext_addr[i]) for i in ext_rows])[:, None]
                & np.array([bool(orig_addr[j]) for j in orig_rows])[None, :]
            )
            s = np.where(both, (1.0 - address_weight) * s + address_weight * a, s)
        score[ext_rows] = s.max(axis=1)  # best reached; replaced by the partner's score below
        r, c = np.nonzero(s >= review)
        pair_score = s[r, c]
        # Descending score, ties by external row, then original row (global file positions).
        order = np.lexsort((orig_rows[c], ext_rows[r], -pair_score))
        for k in order:
            i, j = ext_rows[r[k]], orig_rows[c[k]]
            if partner[i] < 0 and not taken[j]:
                partner[i], taken[j], score[i] = j, True, pair_score[k]

    paired = partner >= 0
    status = np.full(n_ext, NO_MATCH, dtype=object)
    status[paired & (score >= review)] = REVIEW
    status[paired & (score >= accept)] = ACCEPTED
    candidate = np.full(n_ext, None, dtype=object)
    candidate[paired] = orig_ids[partner[paired]]
    unit = np.where(status == ACCEPTED, candidate, None)
    table = pd.DataFrame(
        {
            "external_id": pd.Series(ext_ids, dtype=object),
            "candidate_id": pd.Series(candidate, dtype=object),  # object: keep None, not NaN
            "unit_id": pd.Series(unit, dtype=object),
            "score": score,
            "status": pd.Series(status, dtype=object),
        }
    )
    return TruthResult(table=table, external=external, accept=accept, review=review)


def _check_thresholds(accept: float, review: float, address_weight: float) -> None:
    if not (0.0 < review < accept <= 1.0):
        raise InputError(
            f"thresholds must satisfy 0 < review < accept <= 1 (got review={review}, accept={accept})"
        )
    if not (0.0 <= address_weight <= 1.0):
        raise InputError(f"the address weight must lie in [0, 1] (got {address_weight})")


def _cdist(queries: list[str], choices: list[str]) -> np.ndarray:
    """token_sort_ratio / 100 of every pair; 0 when either text is empty."""
    s = process.cdist(queries, choices, scorer=fuzz.token_sort_ratio, dtype=np.float64) / 100.0
    empty_q = np.array([not q for q in queries])
    empty_c = np.array([not c for c in choices])
    s[empty_q, :] = 0.0
    s[:, empty_c] = 0.0
    return s


def _blocks(external: pd.DataFrame, original: pd.DataFrame, block: tuple[Classifier, ...]):
    """Yield ``(external rows, original rows)`` of every block present in both files.

    A record with a missing blocking value is in no block and so gets no candidate."""
    if not block:
        if len(external) and len(original):
            yield np.arange(len(external)), np.arange(len(original))
        return
    ext_keys = list(zip(*(k.classes(external, k.external_column) for k in block)))
    orig_keys = list(zip(*(k.classes(original, k.name) for k in block)))
    groups: dict[tuple, tuple[list[int], list[int]]] = {}
    for side, keys in ((0, ext_keys), (1, orig_keys)):
        for row, key in enumerate(keys):
            if any(v is None for v in key):
                continue
            groups.setdefault(key, ([], []))[side].append(row)
    for ext_rows, orig_rows in groups.values():
        if ext_rows and orig_rows:
            yield np.array(ext_rows, dtype=np.int64), np.array(orig_rows, dtype=np.int64)


__all__ = [
    "LEGAL_FORMS",
    "TruthResult",
    "link_names",
    "normalise_address",
    "normalise_name",
]
