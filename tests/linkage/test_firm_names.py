"""German firm names as databases spell them (docs/method/ground-truth.md): one test per family of
variants, the six pairs a new user reported, twins of one owner, and the generated register."""

from __future__ import annotations

import pandas as pd
import pytest

from attack.datasets.firms import FORMS, firm_register, respell
from attack.linkage.blocking import Block
from attack.linkage.firm_names import FirmName, fold, normalise_address, parse_firm_name
from attack.linkage.truth import link_names

LEGAL_FORM_SPELLINGS = {
    "GmbH": ["GmbH", "G.m.b.H.", "G m b H", "gmbh", "GMBH", "Gesellschaft mit beschränkter Haftung",
             "Gesellschaft mit beschraenkter Haftung", "Ges.m.b.H.", "GesmbH", "Gesellschaft mbH", "mbH"],
    "AG": ["AG", "A.G.", "Aktiengesellschaft"],
    "KG": ["KG", "K.G.", "K. G.", "Kommanditgesellschaft"],
    "OHG": ["OHG", "oHG", "o.H.G.", "Offene Handelsgesellschaft"],
    "GmbH & Co. KG": ["GmbH & Co. KG", "GmbH & Co KG", "GmbH u. Co. KG", "GmbH und Co. KG", "GmbH&Co.KG",
                      "G.m.b.H. & Co. K.G.", "GmbH & Cie. KG"],
    "AG & Co. KG": ["AG & Co. KG", "AG u. Co. KG"],
    "GmbH & Co. KGaA": ["GmbH & Co. KGaA"],
    "e.K.": ["e.K.", "e. K.", "eK", "e.Kfm.", "eingetragener Kaufmann", "eingetragene Kauffrau"],
    "UG (haftungsbeschränkt)": ["UG (haftungsbeschränkt)", "UG (haftungsbeschr.)", "UG (hb)", "UG",
                                "Unternehmergesellschaft (haftungsbeschränkt)"],
    "GbR": ["GbR", "G.b.R.", "Gesellschaft bürgerlichen Rechts", "Gesellschaft des bürgerlichen Rechts"],
    "e.V.": ["e.V.", "e. V.", "eV", "eingetragener Verein"],
    "KGaA": ["KGaA", "KG a.A.", "Kommanditgesellschaft auf Aktien"],
    "SE": ["SE", "Societas Europaea"],
    "eG": ["eG", "e.G.", "eingetragene Genossenschaft"],
    "OG": ["OG"],
}


@pytest.mark.parametrize("form, spelling", [(f, s) for f, ss in LEGAL_FORM_SPELLINGS.items() for s in ss])
def test_every_spelling_of_a_legal_form(form, spelling) -> None:
    assert parse_firm_name(f"Schäfer Bau {spelling}") == FirmName("schaefer bau", form)


@pytest.mark.parametrize("a, b", [("Müller", "Mueller"), ("Weiß", "Weiss"), ("Groß Öl", "GROSS OEL"),
                                  ("Bäckerei Schön", "Baeckerei Schoen"), ("Jürgen", "JUERGEN")])
def test_umlauts_and_their_transliterations(a, b) -> None:
    assert parse_firm_name(a).core == parse_firm_name(b).core


@pytest.mark.parametrize("a, b", [
    ("Meier & Söhne KG", "Meier und Söhne KG"),
    ("Meier & Söhne KG", "Meier u. Söhne KG"),
    ("Gebr. Schulz OHG", "Gebrüder Schulz OHG"),
    ("Dr. Hahn Zahntechnik GmbH", "Hahn Zahntechnik GmbH"),
    ("Dipl.-Ing. Hahn GmbH", "Hahn GmbH"),
    ("St. Georg Apotheke", "Sankt Georg Apotheke"),
    ("Meier  -  Bau,  GmbH", "meier bau gmbh"),
    ("Intl. Spedition Koch AG", "International Spedition Koch AG"),
])
def test_connectors_titles_abbreviations_punctuation_and_case(a, b) -> None:
    assert parse_firm_name(a) == parse_firm_name(b)


def test_legal_form_elsewhere_in_the_name_and_ambiguous_short_words() -> None:
    assert parse_firm_name("Müller GmbH Niederlassung Köln") == FirmName("mueller niederlassung koeln", "GmbH")
    assert parse_firm_name("SE Elektro Schmidt") == FirmName("se elektro schmidt", None)  # "SE" only at the end
    assert parse_firm_name("Müller & Co. KG") == FirmName("mueller co", "KG")  # "& Co." without a partner form
    assert parse_firm_name("AG") == FirmName("ag", None)  # nothing but a form: kept, not emptied
    assert parse_firm_name(None) == FirmName("", None)


def test_fold_joins_single_letters_but_not_connectors() -> None:
    assert fold("G.m.b.H. u. Co. K.G.") == ["gmbh", "u", "co", "kg"]
    assert fold("A. B. C. Logistik") == ["abc", "logistik"]


@pytest.mark.parametrize("a, b", [("Hauptstraße 5", "Hauptstr. 5"), ("Hauptstrasse 5 a", "Hauptstr. 5a"),
                                  ("Große Straße 12", "Grosse Str. 12")])
def test_street_spellings(a, b) -> None:
    assert normalise_address(a) == normalise_address(b)


SIX_PAIRS = [
    ("Müller GmbH", "Müller G.m.b.H."),
    ("Schäfer Bau GmbH & Co. KG", "Schaefer Bau GmbH u. Co KG"),
    ("Weiß Elektrotechnik AG", "Weiss Elektrotechnik Aktiengesellschaft"),
    ("Groß Logistik e.K.", "Gross Logistik eK"),
    ("Bäckerei Schön KG", "Baeckerei Schoen K.G."),
    ("Hoffmann Maschinenbau GmbH", "Hoffmann Maschinenbau Gesellschaft mit beschränkter Haftung"),
]


def test_the_six_reported_pairs_are_accepted() -> None:
    original = pd.DataFrame({"uid": [f"o{i}" for i in range(6)], "firm": [a for a, _ in SIX_PAIRS]})
    external = pd.DataFrame({"eid": [f"e{i}" for i in range(6)], "firm": [b for _, b in SIX_PAIRS]})
    table = link_names(external, "eid", original, "uid", name="firm").table
    assert table["status"].tolist() == ["accepted"] * 6
    assert table["unit_id"].tolist() == [f"o{i}" for i in range(6)]
    assert table["score"].tolist() == [1.0] * 6


TWINS = pd.DataFrame({
    "uid": ["gmbh", "kg", "bau", "elektro", "ug"],
    "firm": ["Müller Bau GmbH", "Müller Bau GmbH & Co. KG", "Schmitt Bau GmbH", "Schmitt Elektro GmbH",
             "Krause Holzbau UG (haftungsbeschränkt)"],
    "street": ["Hauptstraße 5", "Hauptstraße 5", "Ringstraße 1", "Ringstraße 1", "Am Markt 3"],
})


@pytest.mark.parametrize("name, street, expected", [
    ("Mueller Bau G.m.b.H.", "Hauptstr. 5", "gmbh"),
    ("MUELLER BAU GMBH U. CO. KG", "Hauptstr. 5", "kg"),
    ("Müller Bau KG", "Hauptstr. 5", "kg"),  # the compound's last part: nearer to "GmbH & Co. KG" than "GmbH"
    ("Schmitt Bau Gesellschaft mit beschränkter Haftung", "Ringstr. 1", "bau"),
    ("Schmitt Elektro GmbH", "Ringstrasse 1", "elektro"),
    ("Krause Holzbau UG (hb)", None, "ug"),
])
def test_twins_of_one_owner_are_never_swapped(name, street, expected) -> None:
    external = pd.DataFrame({"eid": ["e"], "firm": [name], "street": [street]})
    table = link_names(external, "eid", TWINS, "uid", name="firm", address="street").table
    assert table["unit_id"].tolist() == [expected]


def test_a_twin_without_a_legal_form_goes_to_review() -> None:
    external = pd.DataFrame({"eid": ["e"], "firm": ["Müller Bau"]})
    table = link_names(external, "eid", TWINS, "uid", name="firm").table
    assert table["status"].tolist() == ["review"]
    assert table["unit_id"].tolist() == [None]


def test_both_twins_in_the_external_file_each_find_their_own() -> None:
    external = pd.DataFrame({"eid": ["a", "b", "c", "d"],
                             "firm": ["Müller Bau KG", "Mueller Bau GmbH", "Schmitt Elektro GmbH", "Schmitt Bau GmbH"]})
    table = link_names(external, "eid", TWINS, "uid", name="firm").table
    assert table["unit_id"].tolist() == ["kg", "gmbh", "elektro", "bau"]


def test_generated_register_spellings_parse_to_their_form() -> None:
    for form, (_, spellings) in FORMS.items():
        for spelling in spellings:
            assert parse_firm_name(f"Koch Optik {spelling}").legal_form == (form or None), spelling


def test_generated_register_is_linked_with_high_recall_and_no_wrong_link() -> None:
    """A small version of benchmarks/bench_truth.py: precision and recall on respelt names."""
    register = firm_register(3000, seed=5)
    respelt = respell(register, seed=6)
    result = link_names(respelt.external, "record_id", register, "unit_id", name="name", address="street",
                        block=[Block("plz", prefix=3)])
    table = result.table.set_index("external_id")
    truth = respelt.truth.reindex(table.index)
    accepted = table["status"] == "accepted"
    right = accepted & (table["unit_id"] == truth)
    assert (accepted & ~right).sum() <= 0.005 * accepted.sum()
    assert right.sum() >= 0.95 * truth.notna().sum()
    assert set(result.by_legal_form()["legal_form"]) >= {"GmbH", "GmbH & Co. KG", "e.K.", "(none)"}
