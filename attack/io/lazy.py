"""Public names imported on first use (PEP 562), for a module that gathers names from others.

A module of public names (``attack``, ``attack.vocabulary``, ``attack.frontend``) lists them
in a table of ``name -> (module, name there)``; ``lazy_names`` gives it the module-level
``__getattr__`` and ``__dir__`` that import each one when it is first asked for, so that a
command loads only the modules it uses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(table: Mapping[str, tuple[str, str]],
               namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the module whose globals are ``namespace``."""
    def getattr_(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        module, attribute = table[name]
        value = getattr(importlib.import_module(module), attribute)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *table})

    return getattr_, dir_
