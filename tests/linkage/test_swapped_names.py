"""A key over given and family name that forgives swapping them, in both intruders."""

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.linkage.distances import build_distance_model
from attack.linkage.fellegi_sunter import comparisons
from attack.linkage.keys import Nominal, String, parse_key
from attack.linkage.settings import Linkage

EXT = pd.DataFrame({"given": ["Anna", "Meier", "Anna", None], "family": ["Meier", "Anna", None, None]})
REL = pd.DataFrame({"given": ["anna", "Jan"], "family": ["meier", "Kos"]})


def test_distance_takes_the_better_arrangement():
    key = parse_key("given:string:normalise:swap=family")
    assert key.swap_with == "family" and Linkage(keys=(key,)).release_columns() == ["given", "family"]
    cost = build_distance_model(EXT, REL, [key], standardise="none").cost(np.arange(4), np.arange(2))
    assert cost[0, 0] == 0.0 and cost[1, 0] == 0.0          # straight and swapped
    # straight: "anna"/"jan" 3 edits of 4, "meier"/"kos" 5 of 5; crossed: "anna"/"kos" 4 of 4,
    # "meier"/"jan" 5 of 5
    assert cost[0, 1] == pytest.approx(min(0.75 + 1.0, 1.0 + 1.0) / 2)
    assert cost[2, 0] == pytest.approx((0.0 + 1.0) / 2)     # a missing family name counts 1
    assert cost[3].tolist() == [1.0, 1.0]                   # no names: missing, the largest distance
    plain = build_distance_model(EXT, REL, [String("given", normalise=True)], standardise="none")
    assert plain.cost(np.arange(2), np.arange(1))[1, 0] == 1.0


def test_fellegi_sunter_levels():
    comp = comparisons(EXT, REL, [parse_key("given:string:swap=family")])[0]
    levels = comp.levels(np.arange(4), np.arange(2), pairs=False)
    assert levels[:, 0].tolist() == [0, 0, 3, -1] and levels[3, 1] == -1
    pairs = comp.levels(np.array([0, 1, 2, 3]), np.array([0, 0, 0, 1]), pairs=True)
    assert pairs.tolist() == [0, 0, 3, -1]


def test_swap_needs_a_string_key_and_another_column():
    with pytest.raises(InputError):
        Nominal("given", swap_with="family")
    with pytest.raises(InputError):
        String("given", swap_with="given")


def test_the_other_name_column_is_read_and_guarded():
    from attack.risk.mass import AttackInput, code_columns, run_attack
    from attack.risk.settings import Evaluation

    spec = Linkage(keys=(String("given", swap_with="family"),))
    assert code_columns(spec) == ["given", "family"]
    with pytest.raises(InputError, match="intruder does not know"):  # the release's id as the other name
        run_attack(AttackInput(EXT.assign(id=[1, 2, 3, 4]), "id", REL, "family"), spec, Evaluation.of())
