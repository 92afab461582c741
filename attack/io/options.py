"""Reading options and small settings as a user writes them on one line (the command line, a
notebook cell): ``-9`` or ``turnover=-8`` for a missing-value code, ``NAME=0.05,0.1`` for the
usefulness thresholds of one variable."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import overload

from attack.errors import InputError
from attack.io.readers import ReadOptions, Table, read, require_codes


def read_options(
    sep: str | None = None,
    decimal: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = None,
    na: Iterable[str] = (),
    codes: Sequence[str] = (),
) -> ReadOptions:
    """How to read the input files, from values as a user types them.

    Parameters
    ----------
    sep, decimal, encoding, sheet
        As in ``ReadOptions.build`` (None: detected; a sheet of digits is an index).
    na
        Missing-value codes, each ``CODE`` (every column) or ``COLUMN=CODE`` (that column only).
    codes
        Columns holding codes even if they look like numbers.
    """
    by_column: dict[str, list[str]] = {}
    for item in na:
        column, eq, code = item.partition("=")
        named = bool(eq and column)
        by_column.setdefault(column if named else "*", []).append(code if named else item)
    return ReadOptions.build(sep=sep, decimal=decimal, encoding=encoding, sheet=sheet,
                             na=by_column, codes=codes)


@overload
def read_tables(paths: Sequence[str | Path], options: ReadOptions | None = None,
                columns: Sequence[Sequence[str] | None] | None = None) -> list[Table]: ...
@overload
def read_tables(paths: Sequence[str | Path | None], options: ReadOptions | None = None,
                columns: Sequence[Sequence[str] | None] | None = None) -> list[Table | None]: ...
def read_tables(
    paths: Sequence[str | Path | None],
    options: ReadOptions | None = None,
    columns: Sequence[Sequence[str] | None] | None = None,
) -> Sequence[Table | None]:
    """Read several input files with the same options (None stays None), as tables.

    ``columns`` gives, per path, the columns to keep (None: all). A column declared as holding
    codes (``options.codes``) that none of the files has is an ``InputError``.
    """
    wanted = list(columns) if columns is not None else [None] * len(paths)
    tables = [None if path is None else read(path, keep, options)
              for path, keep in zip(paths, wanted, strict=True)]
    require_codes(tables)
    return tables


def gammas_by_variable(values: Iterable[str]) -> dict[str, list[float]]:
    """Per-variable usefulness thresholds from ``NAME=G1[,G2...]`` items (one per γ)."""
    out: dict[str, list[float]] = {}
    for value in values:
        name, sep, settings = value.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            out[name] = [float(s) for s in settings.split(",")]
        except ValueError:
            raise InputError(f"{value!r}: expected NAME=G1[,G2...]") from None
    return out
