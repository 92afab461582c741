"""Tests for attack.truth: ground truth by name and address linkage (docs/method/risk.md).

Expected scores are computed here directly with rapidfuzz on hand-normalised strings, not by
the functions under test.
"""

from __future__ import annotations

import csv
import json
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from attack.cli import main
from attack.errors import InputError
from attack.linkage.blocking import Block
from attack.linkage.firm_names import normalise_address, normalise_name
from attack.linkage.truth import link_names


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Müller GmbH & Co. KG", "mueller"),
        ("Meier-Bau AG", "meier bau"),
        ("MÜLLER gmbh & co kg", "mueller"),
        ("Schulze e. K.", "schulze"),
        ("Schulze e.K.", "schulze"),
        ("Krause UG (haftungsbeschränkt)", "krause"),
        ("Großhandel Weiß OHG", "grosshandel weiss"),
        ("Café Élan  Ltd.", "cafe elan"),
        ("Bau KGaA", "bau"),
        ("AG", "ag"),  # nothing but a legal form: kept rather than emptied
        (None, ""),
    ],
)
def test_normalise_name(raw, expected) -> None:
    assert normalise_name(raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Hauptstraße 5", "hauptstr 5"),
        ("Hauptstrasse 5", "hauptstr 5"),
        ("Hauptstr. 5", "hauptstr 5"),
        ("  Große   Straße 12a ", "grosse str 12a"),
        ("Königsallee 1", "koenigsallee 1"),
    ],
)
def test_normalise_address(raw, expected) -> None:
    assert normalise_address(raw) == expected


ORIGINAL = pd.DataFrame(
    {
        "uid": ["o1", "o2", "o3", "o4", "o5", "o6"],
        "firm": [
            "Müller GmbH & Co. KG",   # exact target of e1
            "Schreinerei Hoffmann",   # fuzzy-but-accepted target of e2
            "Bäckerei Schmitt",       # review-band target of e3
            "Meier-Bau AG",           # in Köln; a same-named firm e5 sits in Bonn
            "Weber Logistik GmbH",    # two external records e6, e7 for this firm
            "Zimmermann Elektro",     # nobody links here
        ],
        "city": ["Köln", "Köln", "Köln", "Köln", "Bonn", "Bonn"],
    }
)
EXTERNAL = pd.DataFrame(
    {
        "eid": ["e1", "e2", "e3", "e4", "e5", "e6", "e7"],
        "firm": [
            "MUELLER GmbH & Co KG",
            "Schreinerei Hofmann",
            "Baeckerei Schmitt & Söhne",
            "Fischer Versicherungen",
            "Meier-Bau AG",
            "Weber Logistik GmbH",
            "Weber Logistic",  # would be accepted, but o5 is taken by the exact e6
        ],
        "city": ["Köln", "Köln", "Köln", "Köln", "Bonn", "Bonn", "Bonn"],
    }
)


def ratio(a: str, b: str) -> float:
    return fuzz.token_sort_ratio(a, b) / 100


def similarity(a: str, b: str) -> float:
    """The name score: the larger of token_sort_ratio and the ratio without spaces."""
    return max(fuzz.token_sort_ratio(a, b), fuzz.ratio(a.replace(" ", ""), b.replace(" ", ""))) / 100


def test_hand_scores_fall_in_the_intended_bands() -> None:
    """Guard for the fixture: the pairs really are exact, accepted, review and unrelated."""
    assert ratio("mueller", "mueller") == 1.0
    assert 0.92 <= ratio("schreinerei hofmann", "schreinerei hoffmann") < 1.0
    assert 0.80 <= ratio("baeckerei schmitt soehne", "baeckerei schmitt") < 0.92
    assert ratio("fischer versicherungen", "mueller") < 0.80
    assert 0.92 <= ratio("weber logistic", "weber logistik") < 1.0


def test_link_names_statuses_blocking_and_one_to_one() -> None:
    result = link_names(EXTERNAL, "eid", ORIGINAL, "uid", name="firm", block=[Block("city")])
    t = result.table.set_index("external_id")
    assert t["status"].to_dict() == {
        "e1": "accepted",
        "e2": "accepted",
        "e3": "review",
        "e4": "no match",
        "e5": "no match",  # Meier-Bau AG in Köln is not compared with the one in Bonn
        "e6": "accepted",
        "e7": "review",  # o5 fits the exact e6 better
    }
    assert t["unit_id"].to_dict() == {
        "e1": "o1", "e2": "o2", "e3": None, "e4": None, "e5": None, "e6": "o5", "e7": None,
    }
    assert t.loc["e3", "candidate_id"] == "o3"
    assert t.loc["e3", "score"] == pytest.approx(similarity("baeckerei schmitt soehne", "baeckerei schmitt"))
    assert t.loc["e2", "score"] == pytest.approx(similarity("schreinerei hofmann", "schreinerei hoffmann"))
    # o5 names its legal form, e7 does not: an eighth of the form penalty
    assert t.loc["e7", "score"] == pytest.approx(similarity("weber logistic", "weber logistik") - 0.2 / 8)
    assert t.loc["e4", "score"] == pytest.approx(similarity("fischer versicherungen", "schreinerei hoffmann"))
    assert result.summary() == {"n_external": 7, "accepted": 3, "review": 2, "no_match": 2}
    key = result.key()
    assert list(key.columns) == ["eid", "firm", "city", "unit_id"]
    assert key["unit_id"].tolist() == ["o1", "o2", None, None, None, "o5", None]
    band = result.review_band()
    assert band.to_dict("records") == [
        {"external_id": "e7", "candidate_id": "o5", "score": pytest.approx(t.loc["e7", "score"]),
         "reason": "the unit fits another record as well or better"},
        {"external_id": "e3", "candidate_id": "o3", "score": pytest.approx(t.loc["e3", "score"]),
         "reason": "score below accept"},
    ]


def test_without_blocking_the_same_named_firm_elsewhere_matches() -> None:
    result = link_names(EXTERNAL, "eid", ORIGINAL, "uid", name="firm")
    assert result.table.set_index("external_id").loc["e5", "unit_id"] == "o4"


def test_postcode_prefix_blocking() -> None:
    ext = pd.DataFrame({"id": ["a", "b"], "n": ["Meier AG", "Meier AG"], "plz": ["50667", "53111"]})
    orig = pd.DataFrame({"id": ["x"], "n": ["Meier AG"], "plz": ["50999"]})
    result = link_names(ext, "id", orig, "id", name="n", block=[Block("plz", prefix=2)])
    assert result.table["unit_id"].tolist() == ["x", None]
    assert pd.isna(result.table["score"].iloc[1])  # its block holds no original record


def test_two_records_for_one_unit_go_to_review() -> None:
    ext = pd.DataFrame({"id": ["a", "b"], "n": ["Weber", "Weber"]})
    orig = pd.DataFrame({"id": ["x"], "n": ["Weber KG"]})
    result = link_names(ext, "id", orig, "id", name="n")
    assert result.table["status"].tolist() == ["review", "review"]
    assert result.table["candidate_id"].tolist() == ["x", "x"]
    assert set(result.table["reason"]) == {"the unit fits another record as well or better"}


def test_two_units_for_one_record_go_to_review() -> None:
    ext = pd.DataFrame({"id": ["a"], "n": ["Weber Bau"]})
    orig = pd.DataFrame({"id": ["x", "y"], "n": ["Weber Bau GmbH", "Weber Bau KG"]})
    result = link_names(ext, "id", orig, "id", name="n")
    assert result.table[["candidate_id", "status", "reason"]].values.tolist() == [
        ["x", "review", "another unit scores as high"]]  # the first of the tied units is shown


def test_margin_decides_a_near_tie() -> None:
    ext = pd.DataFrame({"id": ["a"], "n": ["Schreinerei Hofmann"]})
    orig = pd.DataFrame({"id": ["x", "y"], "n": ["Schreinerei Hofmann", "Schreinerei Hoffmann"]})
    gap = 1.0 - similarity("schreinerei hofmann", "schreinerei hoffmann")
    assert link_names(ext, "id", orig, "id", name="n", margin=gap - 0.001).table["status"][0] == "accepted"
    assert link_names(ext, "id", orig, "id", name="n", margin=gap + 0.001).table["status"][0] == "review"


def test_address_changes_the_score() -> None:
    ext = pd.DataFrame({"id": ["a"], "n": ["Schmitt"], "str": ["Hauptstraße 5"]})
    orig = pd.DataFrame({"id": ["x"], "n": ["Schmidt"], "str": ["Hauptstr. 5"]})
    name_only = ratio("schmitt", "schmidt")
    plain = link_names(ext, "id", orig, "id", name="n")
    both = link_names(ext, "id", orig, "id", name="n", address="str", address_weight=0.5)
    assert plain.table["score"].iloc[0] == pytest.approx(name_only)
    assert both.table["score"].iloc[0] == pytest.approx(0.5 * name_only + 0.5)


@pytest.mark.parametrize("accept, review, field, text", [
    (0.8, 0.9, "review", "review < accept"), (0.9, 0.9, "review", "review < accept"),
    (1.2, 0.8, "accept", "less than or equal to 1"), (0.9, 0.0, "review", "greater than 0"),
    (0.9, -0.1, "review", "greater than 0")])
def test_thresholds_validated(accept, review, field, text) -> None:
    """0 < review < accept <= 1: each bound on its parameter, the order between them."""
    with pytest.raises(InputError, match=text) as caught:
        link_names(EXTERNAL, "eid", ORIGINAL, "uid", name="firm", accept=accept, review=review)
    assert caught.value.field == field


def test_missing_column_is_input_error() -> None:
    with pytest.raises(InputError, match="postcode"):
        link_names(EXTERNAL, "eid", ORIGINAL, "uid", name="firm", block=[Block("postcode")])


# --------------------------------------------------------------------------------------------
# CLI


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"external": tmp_path / "ext.csv", "original": tmp_path / "orig.csv"}
    EXTERNAL.to_csv(paths["external"], index=False)
    ORIGINAL.to_csv(paths["original"], index=False)
    return paths


def cli_args(files: dict[str, Path], *extra) -> list[str]:
    return [
        "truth", "--external", files["external"], "--external-id", "eid",
        "--original", files["original"], "--original-id", "uid", "--name", "firm", *extra,
    ]


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_writes_key_and_owner_only_review(tmp_path, files) -> None:
    out, rev = tmp_path / "o" / "key.csv", tmp_path / "o" / "review.csv"
    result = invoke(cli_args(files, "--block", "city", "--out", out, "--review-out", rev))
    assert result.exit_code == 0, result.output
    assert "accepted: 3" in result.stdout and "review: 2" in result.stdout
    assert "owner-only" in result.stderr
    with open(out, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["unit_id"] for r in rows] == ["o1", "o2", "", "", "", "o5", ""]
    assert rows[0]["firm"] == "MUELLER GmbH & Co KG"
    with open(rev, newline="", encoding="utf-8") as handle:
        band = list(csv.DictReader(handle))
    assert [(r["external_id"], r["candidate_id"]) for r in band] == [("e7", "o5"), ("e3", "o3")]
    assert stat.S_IMODE(rev.stat().st_mode) == 0o600


def test_cli_json_counts_per_legal_form_and_block(tmp_path, files) -> None:
    out, summary = tmp_path / "key.csv", tmp_path / "truth.json"
    result = invoke(cli_args(files, "--block", "city", "--out", out, "--json", summary))
    assert result.exit_code == 0, result.output
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert doc["counts"] == {"n_external": 7, "accepted": 3, "review": 2, "no_match": 2}
    forms = {r["legal_form"]: (r["n"], r["accepted"], r["review"], r["no_match"]) for r in doc["by_legal_form"]}
    assert forms == {"GmbH & Co. KG": (1, 1, 0, 0), "(none)": (4, 1, 2, 1), "AG": (1, 0, 0, 1), "GmbH": (1, 1, 0, 0)}
    blocks = {r["block"]: (r["n"], r["accepted"], r["review"], r["no_match"]) for r in doc["by_block"]}
    assert blocks == {"Köln": (4, 2, 1, 1), "Bonn": (3, 1, 1, 1)}
    assert doc["files"] == {"external": "ext.csv", "original": "orig.csv"}
    assert "MUELLER" not in summary.read_text(encoding="utf-8")  # aggregates only


def test_cli_missing_column_one_line_exit_2(tmp_path, files) -> None:
    out = tmp_path / "key.csv"
    result = invoke(cli_args(files, "--block", "plz:prefix=2", "--out", out))
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert "plz" in result.stderr and "Traceback" not in result.output
    assert not out.exists()


def test_cli_bad_thresholds_exit_2(tmp_path, files) -> None:
    result = invoke(cli_args(files, "--accept", "0.7", "--review", "0.8", "--out", tmp_path / "k.csv"))
    assert result.exit_code == 2
    assert result.stderr.startswith("attack: error:")


def test_public_api_takes_paths_and_block_spellings(files) -> None:
    import attack

    from_files = attack.link_names(files["external"], "eid", files["original"], "uid", name="firm",
                                   block=["city"])
    typed = attack.link_names(EXTERNAL, "eid", ORIGINAL, "uid", name="firm", block=[attack.Block("city")])
    plain = link_names(EXTERNAL, "eid", ORIGINAL, "uid", name="firm", block=[Block("city")])
    pd.testing.assert_frame_equal(from_files.table, plain.table)
    pd.testing.assert_frame_equal(typed.table, plain.table)
    assert from_files.to_dict()["files"] == {"external": "ext.csv", "original": "orig.csv"}


WORDS = ["Müller", "Mueller", "Bau", "Elektro", "Schmitt", "Schmidt", "GmbH", "KG", "G.m.b.H.", "& Co. KG", "AG"]


@settings(max_examples=60, deadline=None)
@given(
    ext=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1, max_size=7),
    orig=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1, max_size=7),
    chunk=st.integers(1, 12),
)
def test_decisions_follow_the_rule_and_do_not_depend_on_chunking(ext, orig, chunk) -> None:
    """Brute force over the full score matrix: accepted = score >= accept, clear best of its row
    and of its column by more than the margin; review = best >= review otherwise; one-to-one."""
    from attack.linkage import truth as module

    external = pd.DataFrame({"id": [f"e{i}" for i in range(len(ext))], "n": [" ".join(w) for w in ext]})
    original = pd.DataFrame({"id": [f"o{j}" for j in range(len(orig))], "n": [" ".join(w) for w in orig]})
    s = module._scores(module._Texts.read(external, "n", None), module._Texts.read(original, "n", None),
                       np.arange(len(ext)), np.arange(len(orig)), module.TruthSettings())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "CHUNK_CELLS", chunk)
        table = link_names(external, "id", original, "id", name="n").table
    for i in range(len(ext)):
        row = s[i]
        j = int(np.argmax(row))
        others_in_row = np.delete(row, j)
        others_in_col = np.delete(s[:, j], i)
        clear = (row[j] - (others_in_row.max() if len(others_in_row) else 0.0) > 0.02
                 and row[j] - (others_in_col.max() if len(others_in_col) else 0.0) > 0.02)
        expected = "accepted" if row[j] >= 0.92 and clear else "review" if row[j] >= 0.80 else "no match"
        assert table["status"][i] == expected
        assert table["score"][i] == pytest.approx(row[j])
        if expected != "no match":
            assert table["candidate_id"][i] == f"o{j}"
    accepted = table["unit_id"].dropna()
    assert accepted.is_unique
