"""Where protection methods declare themselves: each method's module puts ``@protection_method``
on its function, naming the method, its family and its parameters (kind, default, bounds, help).

``METHODS`` is the registry of this kind (``attack.io.plugins.Registry``, the one mechanism of
every plug-in): reading it imports every module of ``attack.protect`` once, so a new method is
one module with its declaration. The catalogue (``attack.protect.catalogue``) validates a user's
parameters against these declarations before the function is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from attack.io.plugins import Registry

__all__ = ["METHODS", "REQUIRED", "ColumnMode", "Method", "Param", "ParamKind", "protection_method"]

ParamKind = Literal["int", "float", "str", "bool", "list", "mapping", "matrix", "ints", "numbers"]
"""How a parameter is read: a number, text or flag; a list from ``a|b`` (groups ``a|b;c|d``); a
``mapping`` (CSV file with columns from,to) or ``matrix`` (CSV transition matrix); ``ints`` and
``numbers``, lists from ``a|b`` whose every item is a whole number or a finite number."""

ColumnMode = Literal["list", "each", "none"]

REQUIRED: Any = object()
"""Default of a parameter the user must give."""


@dataclass(frozen=True)
class Param:
    """One parameter of a protection method.

    ``ge``/``gt`` and ``le``/``lt`` are its bounds (inclusive/exclusive); the catalogue refuses a
    value outside them before the method runs, and ``description`` states them after ``help``.
    """

    kind: ParamKind
    default: Any = None
    choices: tuple[str, ...] = ()
    help: str = ""
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None

    def __post_init__(self) -> None:
        if (self.ge, self.gt, self.le, self.lt) != (None,) * 4 and self.kind not in ("int", "float"):
            raise TypeError(f"only int and float parameters take bounds, not {self.kind}")
        if self.ge is not None and self.gt is not None or self.le is not None and self.lt is not None:
            raise TypeError("give one lower and one upper bound at most")

    @property
    def bounds(self) -> str:
        """The bounds in words, e.g. ``>= 2`` or ``> 0 and <= 100`` (empty without bounds)."""
        parts = [f"{sign} {value:g}" for sign, value in
                 ((">=", self.ge), (">", self.gt), ("<=", self.le), ("<", self.lt)) if value is not None]
        return " and ".join(parts)

    @property
    def description(self) -> str:
        """``help`` followed by the bounds, e.g. ``group size (>= 2)``."""
        if not self.bounds:
            return self.help
        return f"{self.help} ({self.bounds})" if self.help else self.bounds


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per declaration
class Method:
    """A declared protection method.

    ``function`` is called as ``function(data, <columns>, **params[, seed=...])`` where the
    columns are passed as one list (``column_mode="list"``), one at a time (``"each"``) or not at
    all (``"none"``); ``numeric`` methods get their columns converted to numbers first, and
    ``seeded`` ones receive the seed.
    """

    name: str
    function: Callable[..., Any]
    family: str
    summary: str
    params: Mapping[str, Param] = field(default_factory=dict)
    column_mode: ColumnMode = "list"
    numeric: bool = True
    seeded: bool = True


METHODS: Registry[Method] = Registry("protection method", "attack.protect")
"""Every declared method by command-line name, in the order of declaration."""

_F = TypeVar("_F", bound=Callable[..., Any])


def protection_method(
    name: str,
    *,
    family: str,
    summary: str,
    params: Mapping[str, Param] | None = None,
    column_mode: ColumnMode = "list",
    numeric: bool = True,
    seeded: bool = True,
) -> Callable[[_F], _F]:
    """Declare the decorated function as the protection method ``name`` (see ``Method``).

    The function itself is returned unchanged; a name declared twice is an error.
    """

    def declare(function: _F) -> _F:
        try:
            METHODS.add(name, Method(name, function, family, summary, dict(params or {}), column_mode,
                                     numeric, seeded))
        except TypeError:
            raise ValueError(f"protection method {name!r} is declared twice") from None
        return function

    return declare
