"""Firm names and addresses as German registers and commercial databases spell them.

docs/method/ground-truth.md: before two names are compared, each is split into its *core* (what
identifies the firm) and its *legal form* (GmbH, AG, KG, …), both written one way:

* case folded; ä/ö/ü/ß written ae/oe/ue/ss, so "Schäfer" and "Schaefer" agree; other accents
  dropped; punctuation becomes a space;
* runs of single letters are joined, so "G.m.b.H.", "G m b H" and "GmbH" all read ``gmbh`` and
  "e. K." reads ``ek``;
* the legal form is recognised at the end of the name in every common spelling (short, dotted,
  spelled out: "Gesellschaft mit beschränkter Haftung"), including the compound forms
  "GmbH & Co. KG" with ``&``, ``u.`` or ``und``, and written as one canonical label
  (``LEGAL_FORMS``); a name without a trailing form gives up an unambiguous one standing
  elsewhere ("Müller GmbH Niederlassung Köln");
* in the core, ``&``/``und``/``u.`` are dropped, titles (Dr., Prof., Dipl.-Ing.) too, and common
  abbreviations are written out (Gebr. → gebrueder, St. → sankt, Intl. → international).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Canonical legal form → its spellings, as token sequences after folding and joining single
#: letters (so "G.m.b.H." is listed once, as ``gmbh``).
LEGAL_FORMS: dict[str, tuple[str, ...]] = {
    "GmbH": (
        "gmbh", "mbh", "gesmbh", "ges mbh", "gesellschaft mbh",
        "gesellschaft mit beschraenkter haftung", "gesellschaft mit beschr haftung", "sarl",
    ),
    "AG": ("ag", "aktiengesellschaft", "aktien gesellschaft", "sa"),
    "KG": ("kg", "kommanditgesellschaft"),
    "KGaA": ("kgaa", "kg aa", "kommanditgesellschaft auf aktien"),
    "OHG": ("ohg", "offene handelsgesellschaft"),
    "OG": ("og", "offene gesellschaft"),
    "e.K.": (
        "ek", "e kfm", "ekfm", "e kfr", "ekfr", "eingetragener kaufmann", "eingetragene kauffrau",
    ),
    "UG (haftungsbeschränkt)": (
        "ug haftungsbeschraenkt", "ug haftungsbeschr", "ug hb", "ug",
        "unternehmergesellschaft haftungsbeschraenkt", "unternehmergesellschaft",
    ),
    "GbR": (
        "gbr", "gesbr", "gesellschaft buergerlichen rechts", "gesellschaft des buergerlichen rechts",
        "gesellschaft nach buergerlichem recht",
    ),
    "e.V.": ("ev", "eingetragener verein"),
    "eG": ("eg", "eingetragene genossenschaft"),
    "SE": ("se", "societas europaea"),
    "PartG": ("partg", "partg mbb", "partnerschaftsgesellschaft", "partnerschaftsgesellschaft mbb"),
    "Ltd": ("ltd", "limited"),
    "Inc": ("inc", "incorporated"),
}

#: Forms that may form the first part of "<form> & Co. <form>".
_GENERAL_PARTNERS = ("GmbH", "AG", "UG (haftungsbeschränkt)", "SE", "Ltd")
#: Forms recognised only at the end of a name (short spellings that are also ordinary words).
_END_ONLY = frozenset({"sa", "og", "se", "eg", "ev", "ek", "ug", "ltd", "inc", "limited", "sarl"})
_CONNECTORS = frozenset({"u", "und", "and"})
_TITLES = frozenset({"dr", "prof", "dipl", "ing"})
_ABBREVIATIONS = {
    "gebr": "gebrueder",
    "st": "sankt",
    "intl": "international",
    "int": "international",
    "cie": "co",
    "comp": "co",
    "company": "co",
    "dt": "deutsche",
    "dtsch": "deutsche",
}
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_NON_WORD = re.compile(r"[^0-9a-z]+")
_STREET = re.compile(r"(?<=\w)strasse\b|\bstrasse\b|(?<=\w)str\b")


def fold(text: object) -> list[str]:
    """Tokens of ``text``: casefolded, umlauts spelled out, accents and punctuation gone, runs of
    single letters joined ("G.m.b.H." → ``["gmbh"]``). Missing values give no tokens."""
    if text is None or text is pd.NA or (isinstance(text, float) and np.isnan(text)):
        return []
    text = unicodedata.normalize("NFC", str(text)).casefold().translate(_UMLAUTS)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    tokens: list[str] = []
    run: list[str] = []
    for token in _NON_WORD.sub(" ", text).split():
        if len(token) == 1 and token.isalpha() and token not in _CONNECTORS:
            run.append(token)
            continue
        if run:
            tokens.append("".join(run))
            run = []
        tokens.append(token)
    if run:
        tokens.append("".join(run))
    return tokens


def _spellings() -> list[tuple[tuple[str, ...], str]]:
    """Every spelling as a token tuple with its canonical form, longest first."""
    pairs = [(tuple(s.split()), form) for form, spellings in LEGAL_FORMS.items() for s in spellings]
    return sorted(pairs, key=lambda p: (-len(p[0]), -sum(map(len, p[0]))))


_SPELLINGS = _spellings()
_BY_LAST_WORD: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _spelling, _form in _SPELLINGS:
    _BY_LAST_WORD.setdefault(_spelling[-1], []).append((_spelling, _form))


def _form_at_end(tokens: list[str]) -> tuple[str, int] | None:
    """The legal form spelled by the last tokens (leaving at least one word) and how many
    tokens it takes, if any; the longest spelling wins."""
    for spelling, form in _BY_LAST_WORD.get(tokens[-1], ()) if tokens else ():
        n = len(spelling)
        if n < len(tokens) and tuple(tokens[-n:]) == spelling:
            return form, n
    return None


@dataclass(frozen=True)
class FirmName:
    """A firm name split into its normalised ``core`` and canonical ``legal_form`` (None when
    the name carries none)."""

    core: str
    legal_form: str | None


def parse_firm_name(text: object) -> FirmName:
    """Split a firm name into core and legal form.

    >>> parse_firm_name("Schäfer Bau GmbH u. Co KG")
    FirmName(core='schaefer bau', legal_form='GmbH & Co. KG')
    >>> parse_firm_name("Hoffmann Maschinenbau Gesellschaft mit beschränkter Haftung")
    FirmName(core='hoffmann maschinenbau', legal_form='GmbH')
    """
    tokens = fold(text)
    form = None
    found = _form_at_end(tokens)
    if found:
        form, n = found
        tokens = tokens[:-n]
        form = _compound(tokens, form)
    else:
        form = _form_inside(tokens)
    core = [_ABBREVIATIONS.get(t, t) for t in tokens if t not in _CONNECTORS and t not in _TITLES]
    if not core:  # nothing but a legal form, titles or connectors: keep the name as it was
        return FirmName(" ".join(fold(text)), None)
    return FirmName(" ".join(core), form)


def _compound(tokens: list[str], last: str) -> str:
    """Turn "<general partner> & Co. <last>" into one form; ``tokens`` loses those words."""
    if last not in ("KG", "KGaA", "OHG") or len(tokens) < 3 or tokens[-1] not in ("co", "cie", "comp"):
        return last
    rest = tokens[:-1]
    while rest and rest[-1] in _CONNECTORS:
        rest = rest[:-1]
    partner = _form_at_end(rest)
    if partner is None or partner[0] not in _GENERAL_PARTNERS:
        return last
    del tokens[len(rest) - partner[1]:]
    return f"{partner[0]} & Co. {last}"


def _form_inside(tokens: list[str]) -> str | None:
    """An unambiguous one-word legal form standing inside the name, removed from ``tokens``."""
    for i in range(len(tokens) - 1, 0, -1):
        if tokens[i] in _END_ONLY:
            continue
        for spelling, form in _BY_LAST_WORD.get(tokens[i], ()):
            if len(spelling) == 1:
                del tokens[i]
                return form
    return None


def normalise_name(text: object) -> str:
    """The core of a firm name: ``"Müller GmbH & Co. KG"`` → ``"mueller"`` (see ``parse_firm_name``)."""
    return parse_firm_name(text).core


def normalise_address(text: object) -> str:
    """A street address folded like a name, "Straße"/"Strasse"/"Str." written ``str`` and a
    house number's letter joined to it: ``"Hauptstraße 5 a"`` → ``"hauptstr 5a"``."""
    tokens = fold(text)
    out: list[str] = []
    for token in tokens:
        if out and len(token) == 1 and token.isalpha() and out[-1].isdigit():
            out[-1] += token
            continue
        out.append(_STREET.sub("str", token))
    return " ".join(out)


__all__ = ["LEGAL_FORMS", "FirmName", "fold", "normalise_address", "normalise_name", "parse_firm_name"]
