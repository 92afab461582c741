"""Phonetic encodings of names: American Soundex and Kölner Phonetik (Cologne phonetics).

Both map a name to a code that names of similar sound share, so that a blocking key or a key
compares sounds instead of spellings (docs/method/linkage.md, "Phonetic encodings"). Letters
with diacritics are folded first (``ü`` → ``u``, ``ß`` → ``ss`` for Soundex, ``s`` for Kölner
Phonetik); every character that is not a letter is dropped, so ``"Müller-Lüdenscheidt"`` is
encoded as ``MULLERLUDENSCHEIDT``. A name without letters has no code (None).

* Soundex (Russell & Odell, US patents 1,261,167 of 1918 and 1,435,663 of 1922, in the form
  Knuth, *The Art of Computer Programming*, vol. 3, §6 gives): keep the first letter; code
  the others ``BFPV`` 1, ``CGJKQSXZ`` 2, ``DT`` 3, ``L`` 4, ``MN`` 5, ``R`` 6; letters of one
  code next to each other, or separated only by ``H`` or ``W``, count once, also with the first
  letter; vowels and ``Y`` separate; keep three digits, padded with zeros.
* Kölner Phonetik (Postel 1969): every letter gets a digit from its neighbours (``_cologne_digit``),
  runs of one digit are merged, and every 0 except a leading one is dropped. The code has no
  fixed length.
"""

from __future__ import annotations

import unicodedata

__all__ = ["ENCODINGS", "cologne", "fold", "soundex"]

_SOUNDEX = {**dict.fromkeys("BFPV", "1"), **dict.fromkeys("CGJKQSXZ", "2"), **dict.fromkeys("DT", "3"),
            "L": "4", "M": "5", "N": "5", "R": "6"}


def fold(value: str, sharp_s: str = "SS") -> str:
    """Upper-case ASCII letters of ``value``: diacritics removed, ``ß`` as ``sharp_s``, every
    other character dropped."""
    text = value.upper().replace("ß", sharp_s).replace("ẞ", sharp_s)
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if "A" <= c <= "Z")


def soundex(value: str | None) -> str | None:
    """The four-character American Soundex code, e.g. ``soundex("Robert") == "R163"``."""
    if value is None:
        return None
    letters = fold(value)
    if not letters:
        return None
    digits = []
    last = _SOUNDEX.get(letters[0], "")
    for letter in letters[1:]:
        if letter in "HW":  # transparent: the codes on both sides may merge
            continue
        code = _SOUNDEX.get(letter, "")  # vowels and Y: no code, but they separate
        if code and code != last:
            digits.append(code)
        last = code
    return (letters[0] + "".join(digits) + "000")[:4]


#: The Kölner Phonetik digit of every letter whose digit does not depend on its neighbours.
_COLOGNE = {**dict.fromkeys("AEIJOUY", "0"), "H": "", "B": "1", **dict.fromkeys("FVW", "3"),
            **dict.fromkeys("GKQ", "4"), "L": "5", **dict.fromkeys("MN", "6"), "R": "7",
            **dict.fromkeys("SZ", "8")}


def _cologne_p(before: str, after: str, first: bool) -> str:
    return "3" if after == "H" else "1"


def _cologne_dt(before: str, after: str, first: bool) -> str:
    return "8" if after in ("C", "S", "Z") else "2"


def _cologne_c(before: str, after: str, first: bool) -> str:
    if first:
        return "4" if after and after in "AHKLOQRUX" else "8"
    return "4" if after and after in "AHKOQUX" and before not in ("S", "Z") else "8"


def _cologne_x(before: str, after: str, first: bool) -> str:
    return "8" if before in ("C", "K", "Q") else "48"


#: The digit rule of every letter that depends on its neighbours: rule(before, after, first).
_COLOGNE_BY_CONTEXT = {"P": _cologne_p, "D": _cologne_dt, "T": _cologne_dt, "C": _cologne_c, "X": _cologne_x}


def _cologne_digit(before: str, letter: str, after: str, first: bool) -> str:
    """The digit of ``letter`` between ``before`` and ``after`` ("" at the ends); "" for ``H``."""
    by_context = _COLOGNE_BY_CONTEXT.get(letter)
    return by_context(before, after, first) if by_context else _COLOGNE[letter]


def cologne(value: str | None) -> str | None:
    """The Kölner Phonetik code, e.g. ``cologne("Müller-Lüdenscheidt") == "65752682"``."""
    if value is None:
        return None
    letters = fold(value, sharp_s="S")
    if not letters:
        return None
    raw = "".join(
        _cologne_digit(letters[i - 1] if i else "", letter, letters[i + 1] if i + 1 < len(letters) else "", i == 0)
        for i, letter in enumerate(letters)
    )
    merged = [d for i, d in enumerate(raw) if i == 0 or d != raw[i - 1]]
    return merged[0] + "".join(d for d in merged[1:] if d != "0") if merged else None


#: The encodings by the name keys and blocks use for them.
ENCODINGS = {"soundex": soundex, "cologne": cologne}
