"""Parameter rules declared once, in the signature, and checked by one decorator.

A public function states what each parameter may hold in its annotation, as pydantic does for a
settings field: ``replicates: Annotated[int, Ge(1)]``, ``level: Annotated[float, Gt(0), Lt(1)]``,
``method: Literal["approx", "exact"]``. ``@checked`` reads those annotations once and, on every
call, validates the arguments that carry a rule before the body runs; a value outside its rule is an
``InputError`` that names the parameter (``field``), so a Python caller and the command line hear the
same sentence. The value the body receives is the caller's own (nothing is converted), and a
number is never read from ``True``/``False`` or from text: the check is strict.

``rules_of(function)`` gives the declared rules, so that one test can walk the public API and feed
each parameter a value its rule forbids (scikit-learn's constraints as data).
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ParamSpec, TypeVar

import numpy as np
from annotated_types import Ge, Gt, Le, Lt
from pydantic import ConfigDict, TypeAdapter, ValidationError

from attack.errors import from_validation

P = ParamSpec("P")
R = TypeVar("R")

_CONFIG = ConfigDict(strict=True, arbitrary_types_allowed=True)

#: The rules most parameters share, by what they mean.
Seed = Annotated[int, Ge(0)]           # NumPy's generators take a non-negative integer
Count = Annotated[int, Ge(1)]          # a number of rows, repetitions, trees, …
Tally = Annotated[int, Ge(0)]          # a number of cases counted, none included
Share = Annotated[float, Gt(0), Lt(1)]  # a share strictly between none and all
Fraction = Annotated[float, Ge(0), Le(1)]  # a proportion or weight in [0, 1]


def declares_rule(annotation: Any) -> bool:
    """Whether an annotation states a rule: an ``Annotated[...]`` with constraints or a
    ``Literal[...]`` of choices, alone or inside ``X | None``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated or origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(declares_rule(a) for a in typing.get_args(annotation) if a is not type(None))
    return False


def _resolved(annotation: Any, namespace: Mapping[str, Any]) -> Any:
    """A parameter's annotation as an object; a postponed one (text) is evaluated in the
    function's module, and one naming what is imported for type checking alone states no rule."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, dict(namespace))  # noqa: S307 - the package's own annotation text
    except NameError:  # a name imported for type checking only: it states no rule
        return None


def rules_of(function: Callable[..., Any]) -> Mapping[str, Any]:
    """The parameters of ``function`` that carry a rule, and their annotations."""
    target = inspect.unwrap(function)
    namespace = getattr(target, "__globals__", {})
    rules = {}
    for name, parameter in inspect.signature(target).parameters.items():
        annotation = _resolved(parameter.annotation, namespace)
        if declares_rule(annotation):
            rules[name] = annotation
    return rules


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python number it holds (``np.int64(3)`` passes an ``int`` rule)."""
    return value.item() if isinstance(value, np.generic) else value


def checked(function: Callable[P, R]) -> Callable[P, R]:
    """Validate the arguments of ``function`` that carry a rule (see the module's docstring)."""
    signature = inspect.signature(function)
    built: list[dict[str, TypeAdapter[Any]]] = []  # the adapters, made on the first call

    def check(arguments: Mapping[str, Any]) -> None:
        if not built:
            built.append({name: TypeAdapter(hint, config=_CONFIG) for name, hint in rules_of(function).items()})
        for name, adapter in built[0].items():
            if name in arguments:
                try:
                    adapter.validate_python(_plain(arguments[name]))
                except ValidationError as exc:
                    raise from_validation(exc, prefix=name) from None

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        check(signature.bind_partial(*args, **kwargs).arguments)
        return function(*args, **kwargs)

    return wrapper
