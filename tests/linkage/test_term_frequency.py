"""Term-frequency adjustment: exact agreement on a rare value weighs more, by hand."""

import math

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.linkage.fellegi_sunter import EMResult, FellegiSunterModel, comparisons
from attack.linkage.keys import Metric, String, parse_key
from attack.linkage.settings import Linkage
from attack.linkage.term_frequency import value_shares


def _model(key):
    ext = pd.DataFrame({"name": ["Smith", "Kowalczyk", "Smith", None]})
    rel = pd.DataFrame({"name": ["smith", "SMITH", "Smith", "Kowalczyk", "Jones"]})
    comps = comparisons(ext, rel, [key])
    u = (np.array([0.2, 0.2, 0.1, 0.5]),)        # exact, two similar levels, different
    m = (np.array([0.9, 0.05, 0.03, 0.02]),)
    return FellegiSunterModel(comps, u, EMResult(m, 0.25, 1, True), 10, 20, 20)


def test_shares_count_release_values():
    np.testing.assert_allclose(value_shares(np.array([0, 0, 1, -1, 0]), 3), [0.75, 0.25, 0.0])


def test_rare_agreement_weighs_more_by_hand():
    plain = _model(String("name")).weights
    adjusted = _model(String("name", tf=True)).weights
    rows, cols = np.array([0, 1, 0, 3]), np.array([0, 3, 4, 0])
    w_plain = plain.weight(rows, cols, pairs=True)
    w_tf = adjusted.weight(rows, cols, pairs=True)
    # without: log2(m0/u0) = log2(4.5) for both exact agreements
    assert w_plain[:2] == pytest.approx([math.log2(4.5)] * 2)
    # with: "smith" is 3 of the 5 release names, "kowalczyk" 1 of 5
    assert w_tf[0] == pytest.approx(math.log2(0.9 / (3 / 5)))
    assert w_tf[1] == pytest.approx(math.log2(0.9 / (1 / 5)))
    # other levels and missing values are not adjusted
    assert w_tf[2] == w_plain[2] and w_tf[3] == w_plain[3] == 0.0
    # the matrix form agrees with the pairs, and top covers the rarest value
    matrix = adjusted.weight(np.arange(4), np.arange(5))
    assert matrix[rows, cols] == pytest.approx(w_tf)
    assert adjusted.top == pytest.approx(math.log2(0.9 / (1 / 5)))


def test_tf_is_an_opt_in_key_option():
    assert parse_key("name:string:normalise:tf").tf
    assert parse_key("sex:nominal:tf").to_text() == "sex:nominal:1:tf"
    with pytest.raises(InputError, match="unknown field 'tf'"):  # tf is an option of string and nominal keys
        Metric("x", tf=True)
    with pytest.raises(InputError, match="fellegi-sunter"):
        Linkage(keys=(String("name", tf=True),))
