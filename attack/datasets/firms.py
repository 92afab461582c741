"""A generated firm register and an external file that spells its firms the way databases do.

Used to measure the ground-truth linkage of ``attack truth`` (docs/method/ground-truth.md): the
external file knows which unit each of its records really is, so precision and recall of the
accepted links can be counted. The register holds twins (one owner, two firms differing only in
legal form or in trade, at one address); the external file respells legal forms, umlauts, case,
"&"/"und", "Gebr."/"Gebrüder" and streets, drops titles and legal forms, adds typos, wrong
postcodes and firms that are not in the register.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

SURNAMES = (
    "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz",
    "Hoffmann", "Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf", "Schröder", "Neumann",
    "Schwarz", "Zimmermann", "Braun", "Krüger", "Hofmann", "Hartmann", "Lange", "Schmitt",
    "Werner", "Schmitz", "Krause", "Meier", "Lehmann", "Schmid", "Schulze", "Maier", "Köhler",
    "Herrmann", "König", "Walter", "Mayer", "Huber", "Kaiser", "Fuchs", "Peters", "Lang", "Scholz",
    "Möller", "Weiß", "Jung", "Hahn", "Schubert", "Vogel", "Friedrich", "Keller", "Günther",
    "Frank", "Berger", "Winkler", "Roth", "Beck", "Lorenz", "Baumann", "Franke", "Albrecht",
    "Schuster", "Simon", "Ludwig", "Böhm", "Winter", "Kraus", "Martin", "Schumacher", "Krämer",
    "Vogt", "Stein", "Jäger", "Otto", "Sommer", "Groß", "Seidel", "Heinrich", "Brandt", "Haas",
    "Schreiber", "Graf", "Schulte", "Dietrich", "Ziegler", "Kuhn", "Kühn", "Pohl", "Engel",
    "Horn", "Busch", "Bergmann", "Thomas", "Voigt", "Sauer", "Arnold", "Wolff", "Pfeiffer",
    "Große", "Schön", "Bäcker", "Gärtner", "Jürgens", "Nüßlein", "Öztürk", "Yılmaz", "Kowalski",
    "Nowak", "Lößl", "Rühl", "Stöckl", "Förster", "Bräuer", "Dörr", "Gröger", "Süß", "Fröhlich",
)
TRADES = (
    "Bau", "Elektrotechnik", "Logistik", "Maschinenbau", "Bäckerei", "Metallbau", "Sanitär",
    "Straßenbau", "Holzbau", "Druckerei", "Schlosserei", "Fleischerei", "Möbelhaus", "Autohaus",
    "Immobilien", "Versicherungsmakler", "Steuerberatung", "Software", "Consulting", "Transporte",
    "Getränkehandel", "Reisebüro", "Zahntechnik", "Bürobedarf", "Glaserei", "Malerbetrieb",
    "Dachdeckerei", "Gärtnerei", "Elektro", "Heizungsbau", "Kfz-Werkstatt", "Optik",
    "Brillenmode", "Feinmechanik", "Kunststofftechnik", "Verpackung", "Personalservice",
    "Gebäudereinigung", "Spedition", "Handelsgesellschaft",
)
STREETS = (
    "Hauptstraße", "Bahnhofstraße", "Gartenstraße", "Schulstraße", "Dorfstraße", "Bergstraße",
    "Lindenstraße", "Kirchstraße", "Waldstraße", "Ringstraße", "Mühlenweg", "Am Markt",
    "Industriestraße", "Gewerbepark", "Königsallee", "Goethestraße", "Schillerstraße",
    "Friedrichstraße", "Große Straße", "Kaiserstraße", "Rosenweg", "Birkenweg", "Am Hafen",
    "Mozartstraße", "Poststraße", "Marktplatz", "Feldstraße", "Wiesenweg", "Talstraße",
    "Neue Straße", "Ahornweg", "Brückenstraße", "Uferstraße", "Südring", "Nordring",
)
#: Legal forms of the register with their shares, and the spellings an external file uses.
FORMS = {
    "GmbH": (0.42, ("GmbH", "G.m.b.H.", "Gesellschaft mit beschränkter Haftung", "GmbH.", "Gmbh", "GMBH")),
    "GmbH & Co. KG": (0.12, ("GmbH & Co. KG", "GmbH u. Co. KG", "GmbH und Co. KG", "GmbH & Co KG",
                             "G.m.b.H. & Co. K.G.", "GmbH&Co.KG")),
    "e.K.": (0.10, ("e.K.", "eK", "e. K.", "e.Kfm.", "eingetragener Kaufmann")),
    "KG": (0.06, ("KG", "K.G.", "Kommanditgesellschaft")),
    "AG": (0.03, ("AG", "A.G.", "Aktiengesellschaft")),
    "OHG": (0.04, ("OHG", "oHG", "o.H.G.", "Offene Handelsgesellschaft")),
    "UG (haftungsbeschränkt)": (0.08, ("UG (haftungsbeschränkt)", "UG (haftungsbeschr.)", "UG", "UG (hb)")),
    "GbR": (0.06, ("GbR", "G.b.R.", "Gesellschaft bürgerlichen Rechts")),
    "": (0.09, ("",)),
}
_UMLAUTS = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}


@dataclass(frozen=True)
class RespeltFile:
    """An external file (``record_id, name, street, plz``) and, kept apart, the true unit of
    each record (``truth``: record id → unit id, None for firms not in the register)."""

    external: pd.DataFrame
    truth: pd.Series


def firm_register(n: int, *, seed: int = 0, twin_share: float = 0.04) -> pd.DataFrame:
    """``n`` firms: ``unit_id, name, legal_form, street, plz``; a ``twin_share`` of them are
    twins of another firm (same owner and address, other legal form or other trade)."""
    rng = np.random.default_rng(seed)
    n_twins = int(round(n * twin_share))
    base = _firms(rng, n - n_twins)
    parents = rng.choice(len(base), size=n_twins, replace=False)
    twins = base.iloc[parents].reset_index(drop=True)
    other_form = rng.random(n_twins) < 0.5
    forms = [f for f in FORMS if f]
    for i in range(n_twins):
        if other_form[i]:
            twins.loc[i, "legal_form"] = rng.choice([f for f in forms if f != twins.loc[i, "legal_form"]])
        else:
            core = twins.loc[i, "core"]
            twins.loc[i, "core"] = core.split(" ")[0] + " " + rng.choice(TRADES)
    register = pd.concat([base, twins], ignore_index=True)
    register = register.drop_duplicates(["core", "legal_form", "plz"]).reset_index(drop=True)
    register["name"] = [f"{c} {f}".strip() for c, f in zip(register["core"], register["legal_form"], strict=True)]
    register.insert(0, "unit_id", [f"U{i:07d}" for i in range(len(register))])
    return register[["unit_id", "name", "legal_form", "street", "plz"]]


def _firms(rng: np.random.Generator, n: int) -> pd.DataFrame:
    surname = rng.choice(SURNAMES, size=n)
    second = rng.choice(SURNAMES, size=n)
    trade = rng.choice(TRADES, size=n)
    pattern = rng.choice(6, size=n, p=[0.45, 0.2, 0.1, 0.1, 0.08, 0.07])
    cores = []
    for s, s2, t, p in zip(surname, second, trade, pattern, strict=True):
        cores.append((f"{s} {t}", f"{t} {s}", f"Gebr. {s}", f"{s} & Söhne", f"{s} & {s2}", f"Dr. {s} {t}")[p])
    labels = list(FORMS)
    share = np.array([FORMS[f][0] for f in labels])
    regions = rng.choice(np.arange(100, 1000), size=700, replace=False)
    plz = [f"{r:03d}{d:02d}" for r, d in zip(rng.choice(regions, size=n), rng.integers(0, 100, size=n), strict=True)]
    number = rng.integers(1, 160, size=n)
    letter = np.where(rng.random(n) < 0.1, rng.choice(list("abc"), size=n), "")
    street = [f"{s} {k}{x}" for s, k, x in zip(rng.choice(STREETS, size=n), number, letter, strict=True)]
    return pd.DataFrame({"core": cores, "legal_form": rng.choice(labels, size=n, p=share / share.sum()),
                         "street": street, "plz": plz})


def respell(register: pd.DataFrame, *, seed: int = 0, coverage: float = 0.9, outsiders: float = 0.05,
            postcode_error: float = 0.02, moved: float = 0.005, typo: float = 0.04) -> RespeltFile:
    """An external file covering a ``coverage`` share of the register's firms, respelt, plus
    ``outsiders`` (as a share of the covered firms) not in the register; shuffled."""
    rng = np.random.default_rng(seed)
    covered = register.sample(frac=coverage, random_state=int(rng.integers(2**31))).reset_index(drop=True)
    outside = firm_register(int(round(len(covered) * outsiders)), seed=int(rng.integers(2**31)), twin_share=0)
    rows = []
    for frame, known in ((covered, True), (outside, False)):
        for unit, name, form, street, plz in frame[["unit_id", "name", "legal_form", "street", "plz"]].itertuples(index=False):
            rows.append((unit if known else None, _respell_name(rng, name, form, typo),
                         _respell_street(rng, street), _respell_plz(rng, plz, postcode_error, moved)))
    order = rng.permutation(len(rows))
    rows = [rows[i] for i in order]
    ids = [f"R{i:07d}" for i in range(len(rows))]
    external = pd.DataFrame({"record_id": ids, "name": [r[1] for r in rows],
                             "street": [r[2] for r in rows], "plz": [r[3] for r in rows]})
    truth = pd.Series([r[0] for r in rows], index=ids, dtype=object, name="unit_id")
    return RespeltFile(external, truth)


def _respell_name(rng: np.random.Generator, name: str, form: str, typo: float) -> str:
    core = name[: len(name) - len(form)].strip() if form else name
    spelling = form
    if form:
        u = rng.random()
        spelling = "" if u < 0.05 else (rng.choice(FORMS[form][1]) if u < 0.75 else form)
    if core.startswith("Dr. ") and rng.random() < 0.5:
        core = core[4:]
    if "Gebr. " in core and rng.random() < 0.5:
        core = core.replace("Gebr. ", "Gebrüder ")
    if "& Söhne" in core and rng.random() < 0.5:
        core = core.replace("&", rng.choice(["und", "u."]))
    u = rng.random()
    if u < 0.3:
        core = "".join(_UMLAUTS.get(c, c) for c in core)
        spelling = "".join(_UMLAUTS.get(c, c) for c in spelling)
    elif u < 0.32:  # umlaut dots lost
        core = core.translate(str.maketrans("äöüÄÖÜß", "aouAOUs"))
    if rng.random() < typo:
        core = _typo(rng, core)
    text = f"{core} {spelling}".strip()
    u = rng.random()
    return text.upper() if u < 0.1 else (text.lower() if u < 0.13 else text)


def _typo(rng: np.random.Generator, text: str) -> str:
    """One letter deleted, doubled or replaced (never the first, which indexes often keep)."""
    positions = [i for i, c in enumerate(text) if c.isalpha() and i > 0]
    if not positions:
        return text
    i = int(rng.choice(positions))
    kind = rng.integers(3)
    if kind == 0:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + text[i] + text[i:]
    return text[:i] + rng.choice(list("aeinrst")) + text[i + 1:]


def _respell_street(rng: np.random.Generator, street: str) -> str | None:
    u = rng.random()
    if u < 0.05:
        return None
    if "straße" in street:
        street = street.replace("straße", str(rng.choice(["straße", "str.", "strasse", "Str."])))
    elif "Straße" in street:
        street = street.replace("Straße", str(rng.choice(["Straße", "Str.", "Strasse"])))
    if rng.random() < 0.1 and street[-1].isalpha() and street[-2].isdigit():
        street = street[:-1] + " " + street[-1]
    return street


def _respell_plz(rng: np.random.Generator, plz: str, error: float, moved: float) -> str:
    u = rng.random()
    if u < moved:
        return f"{rng.integers(1000, 100000):05d}"
    if u < moved + error:
        return plz[:4] + str((int(plz[4]) + int(rng.integers(1, 10))) % 10)
    return plz


__all__ = ["FORMS", "RespeltFile", "firm_register", "respell"]
