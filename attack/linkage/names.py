"""Preparing the values of a string key: name normalisation and phonetic codes.

``normalise_name`` folds what does not tell two people apart: case, diacritics (``ü`` → ``u``,
``ß`` → ``ss``), punctuation (every character that is neither a letter nor a digit becomes a
space) and runs of spaces, so ``"  Müller-Lüdenscheidt "`` and ``"muller ludenscheidt"`` agree.
``prepare`` applies a key's ``normalise`` and ``encoding`` options to a column before any string
comparison, in the distance intruder and in the Fellegi–Sunter comparison levels alike
(docs/method/linkage.md, "Comparing names").
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd

from attack.linkage.phonetic import ENCODINGS

__all__ = ["normalise_name", "prepare"]

_NOT_WORD = re.compile(r"[^0-9a-z]+")


def normalise_name(value: object) -> str | None:
    """Lower-case ASCII letters and digits separated by single spaces; None when missing."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    text = unicodedata.normalize("NFKD", str(value).lower().replace("ß", "ss"))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _NOT_WORD.sub(" ", text).strip()


def prepare(values: np.ndarray, *, normalise: bool = False, encoding: str | None = None) -> np.ndarray:
    """``values`` (object array, None/NaN missing) normalised and/or phonetically encoded; a value
    that leaves nothing to compare (only punctuation, no letter to encode) becomes missing."""
    if not normalise and encoding is None:
        return values
    present = ~pd.isna(values)
    out = np.full(values.shape, None, dtype=object)
    prepared: list[str | None] = [str(v) for v in values[present]]
    if normalise:
        prepared = [normalise_name(v) or None for v in prepared]
    if encoding is not None:
        prepared = [None if v is None else ENCODINGS[encoding](v) for v in prepared]
    out[present] = prepared
    return out
