"""One way to register a plug-in: keys, protection methods, synthetic-data attacks,
frequency-risk measures and UI pages are each kept in a ``Registry``.

A plug-in is one module inside its kind's package that registers itself when imported (a
decorator, or a class statement for keys). The registry imports every module of that package
the first time it is read, so adding a module is the only edit a new plug-in needs
(``docs/contributing/``, one recipe per kind)::

    MEASURES: Registry[Measure] = Registry("frequency-risk measure", "attack.risk.measures")

    @MEASURES.register("individual")
    class Individual: ...

    MEASURES.get("individual"), MEASURES.names()
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from attack.errors import InputError, did_you_mean

T = TypeVar("T")
P = TypeVar("P")

__all__ = ["Registry"]


class Registry(Generic[T]):
    """Named plug-ins of one kind, discovered from the modules of one package.

    ``kind`` names the plug-in in messages ("protection method"); ``package`` is the dotted
    package whose modules are imported (once, on first read) so that their registrations run;
    ``order`` sorts ``items()`` (default: registration order).
    """

    def __init__(self, kind: str, package: str, *, order: Callable[[str, T], object] | None = None) -> None:
        self.kind = kind
        self.package = package
        self._order = order
        self._entries: dict[str, T] = {}
        self._discovered = False

    def register(self, name: str) -> Callable[[P], P]:
        """Decorator: register the decorated object under ``name`` (a second object under a
        taken name is a programming error, a ``TypeError``)."""

        def add(obj: P) -> P:
            self.add(name, obj)  # type: ignore[arg-type]  # P is T at every call site
            return obj

        return add

    def add(self, name: str, obj: T) -> None:
        """Register ``obj`` under ``name``; the same object again is a no-op (a module reloaded)."""
        known = self._entries.get(name)
        if known is not None and known is not obj and not _same_definition(known, obj):
            raise TypeError(f"{self.kind} {name!r} is registered twice: {_qualname(known)} and {_qualname(obj)}")
        self._entries[name] = obj

    def remove(self, name: str) -> None:
        """Forget ``name`` (tests that register a toy plug-in clean up with this)."""
        self._entries.pop(name, None)

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        package = importlib.import_module(self.package)
        for info in pkgutil.iter_modules(getattr(package, "__path__", [])):
            if not info.name.startswith("_"):
                importlib.import_module(f"{self.package}.{info.name}")

    def items(self) -> list[tuple[str, T]]:
        """Every registered ``(name, plug-in)``, in the registry's order."""
        self._discover()
        pairs = list(self._entries.items())
        if self._order is not None:
            order = self._order
            pairs.sort(key=lambda pair: order(pair[0], pair[1]))  # type: ignore[arg-type,return-value]
        return pairs

    def names(self) -> list[str]:
        return [name for name, _ in self.items()]

    def values(self) -> list[T]:
        return [obj for _, obj in self.items()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        self._discover()
        return name in self._entries

    def __len__(self) -> int:
        self._discover()
        return len(self._entries)

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def get(self, name: str, *, field: str | None = None) -> T:
        """The plug-in called ``name``; an unknown name is an ``InputError`` listing the known
        ones and the closest spelling."""
        self._discover()
        if name in self._entries:
            return self._entries[name]
        raise InputError(f"unknown {self.kind} {name!r}{did_you_mean(name, self._entries)}; "
                         f"known: {', '.join(self.names())}", field=field)


def _same_definition(known: object, obj: object) -> bool:
    """Whether two objects are one class or function defined again (a module reloaded, a test's
    class re-created): same module and qualified name. Instances never are."""
    return hasattr(known, "__qualname__") and hasattr(obj, "__qualname__") and _qualname(known) == _qualname(obj)


def _qualname(obj: object) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"
