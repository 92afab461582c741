"""A code map read from a CSV file with columns ``from`` and ``to`` (codes kept as text): the
``mapping`` parameters of recoding and coarsening."""

from __future__ import annotations

import csv
from pathlib import Path

from attack.errors import InputError

__all__ = ["read_mapping"]


def read_mapping(path: str | Path) -> dict[str, str]:
    """Read a code map from a CSV file with columns ``from`` and ``to`` (codes kept as text).

    Errors name the file and the 1-based data row: missing columns, empty codes, a ``from``
    code given twice.
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = [name.strip() for name in reader.fieldnames or []]
            if "from" not in header or "to" not in header:
                raise InputError(f"a mapping file needs columns 'from' and 'to', found {header}",
                                 file=str(path))
            reader.fieldnames = header
            mapping: dict[str, str] = {}
            for row, record in enumerate(reader, start=1):
                source = (record.get("from") or "").strip()
                target = (record.get("to") or "").strip()
                if not source or not target:
                    raise InputError("empty code", file=str(path),
                                     column="from" if not source else "to", row=row)
                if source in mapping:
                    raise InputError(f"code {source!r} is mapped twice", file=str(path),
                                     column="from", row=row)
                mapping[source] = target
    except OSError as error:
        raise InputError(f"cannot read mapping file: {error.strerror}", file=str(path)) from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise InputError(f"not a readable CSV file: {error}", file=str(path)) from None
    return mapping
