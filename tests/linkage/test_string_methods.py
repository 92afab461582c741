"""Damerau–Levenshtein and token-set distances of string keys, by hand."""

import numpy as np
import pytest

from attack.linkage.distances import string_distances


@pytest.mark.parametrize("a, b, levenshtein, damerau", [
    ("MARTHA", "MARHTA", 2 / 6, 1 / 6),   # one transposition of adjacent letters
    ("CA", "ABC", 3 / 3, 2 / 3),          # unrestricted Damerau: CA -> AC -> ABC (OSA would need 3)
    ("SMITH", "SMITH", 0.0, 0.0),
])
def test_damerau_counts_a_transposition_once(a, b, levenshtein, damerau):
    assert string_distances([a], [b], "levenshtein")[0, 0] == pytest.approx(levenshtein)
    assert string_distances([a], [b], "damerau")[0, 0] == pytest.approx(damerau)


def test_token_set_distance():
    # a shared token set: order does not matter, a subset agrees fully
    assert string_distances(["12 main street"], ["main street 12"], "token_set")[0, 0] == 0.0
    assert string_distances(["main street"], ["main street 12"], "token_set")[0, 0] == 0.0
    # common "john"; sorted "john smith" vs "john smyth": Indel similarity 2*9/20 = 0.9 is the largest
    assert string_distances(["smith john"], ["john smyth"], "token_set")[0, 0] == pytest.approx(0.1)
    pairs = string_distances(["a b", "x"], ["b a", "y"], "token_set", pairs=True)
    np.testing.assert_allclose(pairs, [0.0, 1.0])
