"""A protection method called from Python obeys the rules its ``Param`` declarations state.

The catalogue validates a user's parameters against the schema built from the declarations
(``attack.protect.params``) before it calls a method. ``validated`` puts the same schema in front
of the public function, so that ``local_suppression(data, keys, k=0)`` fails as
``protect(data, "local-suppression", {"k": 0})`` does: an ``InputError`` naming the parameter.
The rule lives in the declaration only; the function's body does not check it again.

It goes above ``@protection_method``: the catalogue keeps the undecorated function (its values
are validated already), and the module's name is the checked one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from attack.io.readers import Table, frame_of
from attack.protect.params import parse_params
from attack.protect.registry import METHODS, Method

__all__ = ["validated"]

_F = TypeVar("_F", bound=Callable[..., Any])


def declaration(function: Callable[..., Any]) -> Method:
    """The declared method whose function is ``function`` (looked up when it is first called,
    once every declaration has run)."""
    for _, method in METHODS.items():
        if method.function is function:
            return method
    raise TypeError(f"{function.__name__} is not a declared protection method; "
                    "put @validated above @protection_method")


def validated(function: _F) -> _F:
    """``function`` with its declared parameters validated on every call, each passed on as the
    schema reads it (a number as ``int`` or ``float``, a list as ``list``, a matrix file as a
    frame)."""
    signature = inspect.signature(function)
    method = functools.cache(lambda: declaration(function))

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        spec = method()
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        names = [name for name in spec.params if name in bound.arguments]
        typed = parse_params(spec, {name: bound.arguments[name] for name in names})
        for name in names:
            value = typed[name]
            bound.arguments[name] = frame_of(value) if isinstance(value, Table) else value
        return function(*bound.args, **bound.kwargs)

    return cast(_F, checked)
