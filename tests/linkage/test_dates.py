"""Date keys: parts, distance with day–month transposition, Fellegi–Sunter levels, bad dates."""

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.io.table import Table
from attack.linkage.dates import date_distance, date_levels, date_parts
from attack.linkage.distances import build_distance_model
from attack.linkage.fellegi_sunter import comparisons
from attack.linkage.keys import Date


def _parts(*values):
    return date_parts(np.array(values, dtype=object))


def test_spellings_and_unknown_parts():
    parts = _parts("1956-04-09", "19560409", "09.04.1956", "1956-04-09T10:00", "1956-04", "1956", "00.04.1956", None)
    assert parts.tolist() == [[1956, 4, 9]] * 4 + [[1956, 4, -1], [1956, -1, -1], [1956, 4, -1], [-1, -1, -1]]
    assert _parts("19450493").tolist() == [[1945, 4, 93]]  # a typo stays comparable


@pytest.mark.parametrize("a, b, distance, level", [
    ("1956-04-09", "1956-04-09", 0.0, 0),
    ("1956-04-09", "1956-09-04", 0.5 / 3, 1),     # transposed: δᵀ = 0, plus ½
    ("1956-04-09", "1956-04-19", 1 / 3, 2),       # one wrong part
    ("1956-04-09", "1956-04", 0.5 / 3, 2),        # unknown day counts ½
    ("1956-04-09", "1957-12-30", 1.0, 3),         # years one apart, nothing else
    ("1956-04-09", "1966-12-30", 1.0, 4),
    ("1956-04-09", "1966-09-04", 1.5 / 3, 4),     # transposed with a wrong year: δᵀ + ½ = 1.5
])
def test_distance_and_levels_by_hand(a, b, distance, level):
    pa, pb = _parts(a), _parts(b)
    assert date_distance(pa, pb)[0] == pytest.approx(distance)
    assert date_levels(pa, pb)[0] == level


def test_missing_date_and_both_intruders():
    ext = pd.DataFrame({"dob": ["1956-04-09", None, "1970-01-02"]})
    rel = pd.DataFrame({"dob": ["1956-09-04", "1970-01-02"]})
    model = build_distance_model(ext, rel, [Date("dob")], standardise="none")
    cost = model.cost(np.arange(3), np.arange(2))
    assert cost[0, 0] == pytest.approx(1 / 6) and cost[2, 1] == 0.0
    assert cost[1].tolist() == [1.0, 1.0]  # missing: the largest distance over A × B
    levels = comparisons(ext, rel, [Date("dob")])[0].levels(np.arange(3), np.arange(2), pairs=False)
    assert levels.tolist() == [[1, 4], [-1, -1], [4, 0]]


def test_a_bad_date_names_file_column_and_row():
    ext = Table(pd.DataFrame({"dob": ["1956-04-09", "9 April 1956"]}), "intruder.csv")
    with pytest.raises(InputError) as error:
        build_distance_model(ext, ext, [Date("dob")])
    assert (error.value.column, error.value.row) == ("dob", 2) and "not a date" in error.value.message
