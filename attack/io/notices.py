"""Notices about the data, gathered per run and emitted once per kind (``attack.DataNotice``).

A notice (a column of numbers used as codes, a column one file lacks) is something to know,
not an error. Inside a run (``gathered()``: every public entry point and each command-line
command opens one) the notices of one kind are collected and, when the outermost run ends,
emitted as one :class:`attack.DataNotice` warning per kind: "3 numeric columns used as codes:
relat, sex, roof (file testdata.csv); declare them ...". Outside a run a notice is emitted at
once. Files are named by their file name only: no machine path reaches the screen.
"""

from __future__ import annotations

import contextvars
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import PurePath
from types import FrameType
from typing import Any, TypeVar

from attack.errors import DataNotice
from attack.io.table import IN_MEMORY

F = TypeVar("F", bound=Callable[..., Any])

#: Kind -> file name -> the items noted (column names or whole sentences), in first-seen order.
_Gathered = dict[str, dict[str, list[str]]]
_current: contextvars.ContextVar[_Gathered | None] = contextvars.ContextVar("attack_notices", default=None)

NUMBER_AS_CODE = "number-as-code"
UNSHARED = "unshared-columns"
PLAUSIBILITY = "plausibility"


def shown_name(name: str) -> str:
    """A file as a notice names it: its file name, never the folder it lies in."""
    return PurePath(name).name or name


def notice(kind: str, file: str, item: str) -> None:
    """Note ``item`` of ``kind`` about ``file``: collected inside a run, emitted at once outside."""
    gathered_now = _current.get()
    if gathered_now is None:
        _emit({kind: {shown_name(file): [item]}})
        return
    items = gathered_now.setdefault(kind, {}).setdefault(shown_name(file), [])
    if item not in items:
        items.append(item)


@contextmanager
def gathering() -> Iterator[None]:
    """One run: notices are collected and emitted, one line per kind, when the outermost ends
    (also when it ends with an error). Nested runs add to the outermost."""
    if _current.get() is not None:
        yield
        return
    token = _current.set({})
    try:
        yield
    finally:
        collected = _current.get() or {}
        _current.reset(token)
        _emit(collected)


def gathered(function: F) -> F:
    """Decorate a public entry point: its notices are emitted once per kind when it returns."""
    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with gathering():
            return function(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def _emit(collected: _Gathered) -> None:
    for kind, by_file in collected.items():
        if by_file:
            warnings.warn(DataNotice(_LINES[kind](by_file)), stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside this package and ``contextlib``: the
    warning names the caller's line, as a warning should."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in ("attack", "contextlib"):
        frame, level = frame.f_back, level + 1
    return level


def _number_as_code(by_file: dict[str, list[str]]) -> str:
    columns = list(dict.fromkeys(c for names in by_file.values() for c in names))
    where = "; ".join(f"{', '.join(names)} (file {file})" for file, names in by_file.items())
    flags = " ".join(f"--code {c}" for c in columns)
    listed = ", ".join(f'"{c}"' for c in columns)
    count = f"{len(columns)} numeric column{'s' if len(columns) != 1 else ''}"
    return (f"{count} used as codes: {where}. Commands that do not use a column as a code treat it "
            f"as a number; to treat them as codes everywhere, declare them: on the command line "
            f"{flags}; in a scenario file, codes = [{listed}] in the file's data entry "
            "(e.g. under [data.release])" + (_IN_PYTHON.format(columns=", ".join(f'"{c}": "string"' for c in columns))
                                             if IN_MEMORY in by_file else "") + ".")


#: The same advice for data frames built in memory (``"string"`` keeps missing values missing).
_IN_PYTHON = "; for a data frame, give them as text: frame.astype({{{columns}}})"


def _unshared(by_file: dict[str, list[str]]) -> str:
    return "; ".join(sentence for sentences in by_file.values() for sentence in sentences)


def _plausibility(by_file: dict[str, list[str]]) -> str:
    """Doubts about keys and weights, one clause per file (a frame in memory that repeats what a
    file was doubted for is not named twice)."""
    seen = {sentence for file, sentences in by_file.items() if file != IN_MEMORY for sentence in sentences}
    return "; ".join(f"file {file}, {sentence}" for file, sentences in by_file.items()
                     for sentence in sentences if file != IN_MEMORY or sentence not in seen)


#: How each kind of notice reads as its one line.
_LINES: dict[str, Callable[[dict[str, list[str]]], str]] = {
    NUMBER_AS_CODE: _number_as_code,
    UNSHARED: _unshared,
    PLAUSIBILITY: _plausibility,
}
