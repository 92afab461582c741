"""attack.io.rules: a parameter's rule lives in its annotation; @checked refuses a value outside it
with an InputError naming the parameter, and passes the caller's own value through unchanged."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
import pytest
from annotated_types import Ge, Gt, Lt

from attack.errors import InputError
from attack.io.rules import checked, rules_of


@checked
def _toy(data: object, replicates: Annotated[int, Ge(1)] = 10,
         level: Annotated[float, Gt(0), Lt(1)] = 0.95, method: Literal["a", "b"] = "a",
         share: Annotated[float, Gt(0)] | None = None, free: float = 0.0) -> tuple[object, ...]:
    return data, replicates, level, method, share, free


def test_rules_are_read_from_the_annotations():
    assert set(rules_of(_toy)) == {"replicates", "level", "method", "share"}


def test_good_values_pass_unchanged():
    frame = object()
    assert _toy(frame, np.int64(3), 0.5, "b", None, 7) == (frame, np.int64(3), 0.5, "b", None, 7)
    assert _toy(frame, replicates=1, share=2) == (frame, 1, 0.95, "a", 2, 0.0)  # an int is a float


@pytest.mark.parametrize(("keywords", "field", "words"), [
    ({"replicates": 0}, "replicates", "greater than or equal to 1"),
    ({"replicates": 2.5}, "replicates", "whole number"),
    ({"replicates": "3"}, "replicates", "whole number"),   # text is not read as a number
    ({"replicates": True}, "replicates", "whole number"),  # nor is a boolean
    ({"level": 1.0}, "level", "less than 1"),
    ({"level": float("nan")}, "level", "got nan"),
    ({"method": "c"}, "method", "'a' or 'b'"),
    ({"share": 0}, "share", "greater than 0"),
])
def test_a_value_outside_its_rule_is_refused_by_name(keywords, field, words):
    with pytest.raises(InputError) as caught:
        _toy(None, **keywords)
    assert caught.value.field == field
    assert words in caught.value.message
