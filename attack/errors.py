"""Errors raised for bad user input.

An :class:`InputError` names the file, column and row at fault so that the CLI can print one
clear line and exit with status 2 instead of a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """A user mistake in a data file, scenario or option.

    Parameters
    ----------
    message:
        What was wrong and what was expected.
    file, column, row:
        Where the problem is; ``row`` is the 1-based data row (the header is not counted).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        column: str | None = None,
        row: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.column = column
        self.row = row
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        if self.row is not None:
            where.append(f"row {self.row}")
        return f"{', '.join(where)}: {self.message}" if where else self.message
