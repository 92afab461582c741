"""Every exported callable refuses a bad parameter value by name (scikit-learn's common test).

The rules are data: a public function's annotations (``Annotated[int, Ge(1)]``, ``Literal[...]``,
read by ``attack.io.rules.rules_of``) and a settings class's pydantic fields. This test walks
``attack.__all__``, makes values each rule forbids (below a lower bound, above an upper one, not one
of the choices, text where a number belongs) and expects an ``InputError`` whose ``field`` names the
parameter. A numeric parameter without a rule must be listed in ``FREE`` with the reason it may take
any value of its type, so a new parameter cannot slip through unchecked.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import types
import typing
from typing import Annotated, Any

import annotated_types as at
import pytest
from pydantic import BaseModel

import attack
from attack.errors import InputError
from attack.io.rules import rules_of

PUBLIC = {name: getattr(attack, name) for name in attack.__all__}
FUNCTIONS = sorted(n for n, o in PUBLIC.items() if inspect.isfunction(inspect.unwrap(o)))
MODELS = sorted(n for n, o in PUBLIC.items() if inspect.isclass(o) and issubclass(o, BaseModel)
                and not inspect.isabstract(o))

#: Numeric parameters whose every value of their type is meaningful, and why (none today: even a
#: seed has its rule, NumPy's generators refuse a negative one).
FREE: dict[str, str] = {}
#: Exported functions that pass a parameter on to the function declaring its rule.
DELEGATES = {"protect": "attack.protect.catalogue:protect"}
#: Values that satisfy a required field of a settings class, for the fields a rule does not give.
EXAMPLES = {"keys": ["turnover:metric"], "any": ["nace", "bbr9"], "release": [{"name": "a", "epsilon": 1.0}]}
_NUMERIC = ("int", "float", "int | None", "float | None")


def _members(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return tuple(a for a in typing.get_args(annotation) if a is not type(None))
    return (annotation,)


def _is_optional(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and \
        type(None) in typing.get_args(annotation)


def bad_values(annotation: Any, *, text: bool = True) -> list[Any]:
    """Values the rule of ``annotation`` forbids; with ``text``, a number written as text too (a
    function's check is strict; a settings document may hold ``"3"`` for 3, as a TOML file can)."""
    out: list[Any] = []
    for member in _members(annotation):
        origin = typing.get_origin(member)
        if origin is typing.Literal:
            out.append("not-one-of-the-choices")
        elif origin is typing.Annotated:
            base, *rules = typing.get_args(member)
            numeric = base in (int, float) or any(b in (int, float) for b in _members(base))
            for rule in rules:
                if isinstance(rule, at.Ge):
                    out.append(rule.ge - 1)
                elif isinstance(rule, at.Gt):
                    out.append(rule.gt)
                elif isinstance(rule, at.Le):
                    out.append(rule.le + 1)
                elif isinstance(rule, at.Lt):
                    out.append(rule.lt)
                elif isinstance(rule, at.MinLen) and rule.min_length > 0:
                    out.append(())
            if numeric and text:
                out.append("3")  # text is not read as a number
    return out


def good_value(annotation: Any) -> Any:
    """A value the rule of ``annotation`` allows (None where None is)."""
    if _is_optional(annotation):
        return None
    (member,) = _members(annotation)[:1]
    if typing.get_origin(member) is typing.Literal:
        return typing.get_args(member)[0]
    base, *rules = typing.get_args(member)
    lower = next((r.ge for r in rules if isinstance(r, at.Ge)), None)
    above = next((r.gt for r in rules if isinstance(r, at.Gt)), None)
    below = next((getattr(r, "lt", getattr(r, "le", None)) for r in rules
                  if isinstance(r, (at.Lt, at.Le))), None)
    if lower is not None:
        return lower
    if above is not None:
        return (above + below) / 2 if below is not None else above + 1
    return below - 1 if below is not None else base()


def _rules(name: str) -> dict[str, Any]:
    """The rules of an exported function's parameters, its own or its delegate's."""
    rules = dict(rules_of(PUBLIC[name]))
    if name in DELEGATES:
        module, function = DELEGATES[name].split(":")
        delegate = rules_of(getattr(importlib.import_module(module), function))
        rules.update({p: delegate[p] for p in inspect.signature(PUBLIC[name]).parameters if p in delegate})
    return rules


def _function_cases() -> list[tuple[str, str, Any]]:
    return [(name, parameter, bad) for name in FUNCTIONS
            for parameter, annotation in _rules(name).items()
            for bad in bad_values(annotation)]


def _field_annotation(field: Any) -> Any:
    return Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation


def _model_cases() -> list[tuple[str, str, Any]]:
    return [(name, field_name, bad) for name in MODELS
            for field_name, field in PUBLIC[name].model_fields.items()
            for bad in bad_values(_field_annotation(field), text=False)]


def test_every_numeric_parameter_declares_its_rule():
    unruled = [f"{name}({parameter.name}: {parameter.annotation})"
               for name in FUNCTIONS
               for parameter in inspect.signature(PUBLIC[name]).parameters.values()
               if parameter.annotation in _NUMERIC and parameter.name not in FREE
               and parameter.name not in _rules(name)]
    assert unruled == []


def test_every_exported_class_is_a_settings_model_or_a_frozen_result():
    loose = [name for name, o in PUBLIC.items() if inspect.isclass(o)
             and not issubclass(o, (BaseModel, Exception, Warning))
             and not (dataclasses.is_dataclass(o) and o.__dataclass_params__.frozen)]  # type: ignore[attr-defined]
    assert loose == []


@pytest.mark.parametrize(("name", "parameter", "bad"), _function_cases())
def test_a_function_refuses_a_bad_value_by_name(name, parameter, bad):
    function = PUBLIC[name]
    rules = _rules(name)
    arguments = {p.name: good_value(rules[p.name]) if p.name in rules else object()
                 for p in inspect.signature(function).parameters.values()
                 if p.default is inspect.Parameter.empty and p.kind is not p.VAR_POSITIONAL
                 and p.kind is not p.VAR_KEYWORD}
    arguments[parameter] = bad
    with pytest.raises(InputError) as caught:
        function(**arguments)
    assert caught.value.field == parameter


@pytest.mark.parametrize(("name", "field", "bad"), _model_cases())
def test_a_settings_class_refuses_a_bad_value_by_name(name, field, bad):
    model = PUBLIC[name]
    required = {n: EXAMPLES[n] if n in EXAMPLES else good_value(_field_annotation(f))
                for n, f in model.model_fields.items() if f.is_required() and n != field}
    if field != "name" and getattr(model.model_fields.get("name"), "annotation", None) is str:
        required["name"] = "x"  # a key's or a block's column
    with pytest.raises(InputError) as caught:
        model(**required, **{field: bad})
    assert caught.value.field == field


def test_the_walk_finds_rules_to_check():
    """The walk is not blind: it sees the rules of dozens of functions and settings classes (154
    function and 81 settings cases when it was written)."""
    assert len(_function_cases()) >= 150 and len(_model_cases()) >= 80
    assert {"frequency_risk", "ml_utility", "synthesize", "protect"} <= {name for name, _, _ in _function_cases()}
