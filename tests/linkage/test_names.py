"""Name normalisation and the preparation of string-key values."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from attack.linkage.names import normalise_name, prepare


def test_normalise_name():
    assert normalise_name("  Müller-Lüdenscheidt ") == "muller ludenscheidt"
    assert normalise_name("O'BRIEN,  Seán") == "o brien sean"
    assert normalise_name("Weiß") == "weiss"
    assert normalise_name(None) is None and normalise_name(float("nan")) is None


def test_prepare_normalises_and_encodes():
    values = np.array(["Müller", None, "--", "Mueller"], dtype=object)
    assert list(prepare(values)) == list(values)
    assert list(prepare(values, normalise=True)) == ["muller", None, None, "mueller"]
    assert list(prepare(values, encoding="cologne")) == ["657", None, None, "657"]
    assert list(prepare(values, normalise=True, encoding="soundex")) == ["M460", None, None, "M460"]


@given(st.text(max_size=20))
def test_normalise_is_idempotent(text):
    once = normalise_name(text)
    assert normalise_name(once) == once
    assert once == once.strip() and "  " not in once


def test_string_key_options_reach_both_intruders():
    import pandas as pd

    from attack.linkage.distances import build_distance_model
    from attack.linkage.fellegi_sunter import comparisons
    from attack.linkage.keys import String, parse_key

    ext = pd.DataFrame({"n": ["Müller-Lüdenscheidt", "Meier"]})
    rel = pd.DataFrame({"n": ["muller ludenscheidt", "Mayr"]})
    key = parse_key("n:string:damerau:normalise:skip")
    assert (key.string_method, key.normalise, key.to_text()) == ("damerau", True, "n:string:1:damerau:normalise:skip")
    plain = build_distance_model(ext, rel, [String("n")], standardise="none")
    folded = build_distance_model(ext, rel, [key], standardise="none")
    assert plain.cost(np.arange(2), np.arange(2))[0, 0] > 0
    assert folded.cost(np.arange(2), np.arange(2))[0, 0] == 0.0
    sounds = parse_key("n:string:cologne")
    assert build_distance_model(ext, rel, [sounds], standardise="none").cost(np.arange(2), np.arange(2))[1, 1] == 0.0
    levels = comparisons(ext, rel, [key])[0].levels(np.arange(2), np.arange(2), pairs=False)
    assert levels[0, 0] == 0 and levels[1, 1] > 0
    assert comparisons(ext, rel, [sounds])[0].levels(np.arange(2), np.arange(2), pairs=False)[1, 1] == 0
