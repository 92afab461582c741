"""Picklable top-level tasks and functions for the engine tests (tests/linkage/test_engines.py).

Kept in a module of their own with no heavy imports: worker processes import it by name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Sizes:
    sizes: tuple[int, int]


@dataclass(frozen=True)
class Task:
    """A stand-in for BlockTask: an index and a block size."""

    index: int
    model: Sizes


def tag(task) -> tuple[int, int]:
    """The square of the task's index (or of the task itself) and the id of the process that
    ran it."""
    value = task.index if isinstance(task, Task) else task
    return value * value, os.getpid()


def fail_on_three(task: int) -> int:
    if task == 3:
        raise ArithmeticError("block 3 failed")
    return task


def sized_tasks() -> list[Task]:
    """Sizes out of order, so that largest-first scheduling differs from task order."""
    sizes = [(3, 4), (50, 60), (1, 1), (20, 30), (50, 60), (7, 2), (40, 1), (9, 9)]
    return [Task(i, Sizes(s)) for i, s in enumerate(sizes)]
