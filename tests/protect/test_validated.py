"""Every declared parameter of every protection method refuses the values its declaration rules
out: below ``ge``, at ``gt``, above ``le``, at ``lt``, outside the choices, of the wrong type.
Both ways in are tried: the catalogue (``protect``) and, for methods whose public function is
``@validated``, the function called from Python. Each must fail with an ``InputError`` that
names the parameter."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pandas as pd
import pytest

from attack.errors import InputError
from attack.protect.catalogue import METHODS, protect
from attack.protect.registry import REQUIRED, Method, Param

#: Methods whose public function checks its own parameters by hand, with the declaration's named
#: constant (the group sizes of microaggregation, ``_check_size``; the rank window of
#: ``swap_window``, shared with ``panel-rank-swap``), or is declared by another package
#: (synthesis): the catalogue way in is tried for them, the direct call is not.
HAND_CHECKED = {"separate-ma", "mdav", "grouped-ma", "random-ma", "punctual-ma", "pca-ma", "rmd-ma",
                "panel-microaggregation", "rank-swap", "synthesis"}

#: A value of the wrong type for each kind of parameter.
WRONG_TYPE: dict[str, Any] = {"int": "many", "float": "much", "str": 5, "bool": "maybe", "list": 5,
                              "ints": ["x"], "numbers": ["x"], "mapping": 5, "matrix": 5}


def bad_values(param: Param) -> list[Any]:
    """Values the declaration of ``param`` refuses, generated from it."""
    step = 1 if param.kind == "int" else 0.5
    values: list[Any] = []
    if param.ge is not None:
        values.append(param.ge - step)
    if param.gt is not None:
        values.append(param.gt)
    if param.le is not None:
        values.append(param.le + step)
    if param.lt is not None:
        values.append(param.lt)
    if param.choices:
        values.append("no-such-choice")
    return [*values, WRONG_TYPE[param.kind]]


def good_value(param: Param) -> Any:
    """A value the declaration of a required parameter accepts."""
    if param.choices:
        return param.choices[0]
    if param.kind in ("int", "float"):
        low = param.ge if param.ge is not None else param.gt
        high = param.le if param.le is not None else param.lt
        if low is not None and high is not None:
            return (low + high) / 2
        return 1 if low is None else low + 1
    return {"str": "x", "bool": False, "list": ["x"], "ints": [1], "numbers": [1.0], "mapping": {"1": "1"}}[param.kind]


def methods() -> list[Method]:
    return [method for _, method in METHODS.items()]


def cases() -> list[tuple[str, str, Any]]:
    return [(method.name, name, bad) for method in methods() for name, param in method.params.items()
            for bad in bad_values(param)]


def _required(method: Method, name: str) -> dict[str, Any]:
    return {other: good_value(p) for other, p in method.params.items() if p.default is REQUIRED and other != name}


def _public(method: Method) -> Any:
    return getattr(importlib.import_module(method.function.__module__), method.function.__name__)


DATA = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [2.0, 1.0, 4.0, 3.0]})


@pytest.mark.parametrize(("method", "name", "bad"), cases())
def test_a_declared_rule_refuses_its_bad_value_in_the_catalogue(method: str, name: str, bad: Any) -> None:
    spec = METHODS[method]
    columns = [] if spec.column_mode == "none" else ["x"]
    with pytest.raises(InputError, match=rf"parameter {name}\b"):
        protect(DATA, method, {**_required(spec, name), name: bad}, columns=columns)


def direct_cases() -> list[tuple[str, str, Any]]:
    """The cases of the validated functions, for the parameters the function takes (``correct``
    of the noise methods is the catalogue's step after the function)."""
    return [(method, name, bad) for method, name, bad in cases() if method not in HAND_CHECKED
            and name in inspect.signature(_public(METHODS[method])).parameters]


@pytest.mark.parametrize(("method", "name", "bad"), direct_cases())
def test_a_declared_rule_refuses_its_bad_value_in_a_direct_call(method: str, name: str, bad: Any) -> None:
    spec = METHODS[method]
    columns = {"list": (["x"],), "each": ("x",), "none": ()}[spec.column_mode]
    seed = {"seed": 0} if spec.seeded else {}
    with pytest.raises(InputError, match=rf"parameter {name}\b"):
        _public(spec)(DATA, *columns, **_required(spec, name), **{name: bad}, **seed)


def test_every_method_with_parameters_is_validated_or_checks_by_hand() -> None:
    """A new method's public function is ``@validated`` unless it is listed in ``HAND_CHECKED``."""
    with_params = {method.name for method in methods() if method.params}
    validated = {method.name for method in methods() if _public(method) is not method.function}
    assert validated == with_params - HAND_CHECKED
    assert HAND_CHECKED <= with_params


def test_every_number_with_a_bound_and_every_choice_is_tried() -> None:
    tried = {(method, name) for method, name, _ in cases()}
    assert tried == {(m.name, n) for m in methods() for n in m.params}
    assert len(cases()) > len(tried)  # the bounds and choices add values beside the wrong types
