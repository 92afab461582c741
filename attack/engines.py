"""Engines that solve independent blocks: in this process, on local cores, or on Dask.

Blocks never interact (METHOD.md §7.2: pairs of different blocks never conflict), so they can
be solved in any order and on any worker; results are returned in task order, which keeps the
output identical whatever the engine and the number of jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

ENGINES: tuple[str, ...] = ("local",)


def map_blocks(func: Callable[[T], R], tasks: Sequence[T], engine: str = "local") -> list[R]:
    """Apply ``func`` to every task and return the results in task order."""
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r}")
    return [func(task) for task in tasks]
