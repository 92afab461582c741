"""A protection method called from Python obeys the rules its ``Param`` declarations state.

The catalogue validates a user's parameters against a schema built from the declarations
before it calls a method. ``validated`` puts the same schema in front of the public function,
so that ``local_suppression(data, keys, k=0)`` fails as ``protect(data, "local-suppression",
{"k": 0})`` does: an ``InputError`` naming the parameter. The rule lives in the declaration
only; the function's body no longer checks it.

It goes above ``@protection_method``: the catalogue keeps the undecorated function (its values
are already validated), and the module's name is the checked one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from attack.io.readers import Table, frame_of
from attack.protect.registry import METHODS, Method

__all__ = ["validated"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _method_of(function: Callable[..., Any]) -> Method:
    for method in METHODS.values():
        if method.function is function:
            return method
    raise TypeError(f"{function.__name__} is not a declared protection method; "
                    "put @validated above @protection_method")


def validated(function: _F) -> _F:
    """``function`` with its declared parameters validated on every call, each passed on as the
    schema reads it (a number as ``int`` or ``float``, a list as ``list``, a matrix file as a
    frame)."""
    method = _method_of(function)
    signature = inspect.signature(function)
    names = [name for name in method.params if name in signature.parameters]

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        # imported here: the catalogue imports the method modules, which import this one
        from attack.protect.catalogue import parse_params

        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        typed = parse_params(method, {name: bound.arguments[name] for name in names})
        for name in names:
            value = typed[name]
            bound.arguments[name] = frame_of(value) if isinstance(value, Table) else value
        return function(*bound.args, **bound.kwargs)

    return cast(_F, checked)
