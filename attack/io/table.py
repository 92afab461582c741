"""A table: data plus its provenance (the name errors quote, how it was read, the digest and size
of the bytes parsed). Readers return one; the attacks take one or a plain frame, which is a table
built in memory."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

#: The name of a table built in memory (no file): what error messages and results show.
IN_MEMORY = "<data>"


@dataclass(frozen=True)
class ReadInfo:
    """What was read and how: the format and the detected (or given) dialect."""

    format: str
    encoding: str | None = None
    sep: str | None = None
    decimal: str | None = None
    thousands: str | None = None
    quotechar: str | None = None
    sheet: str | None = None
    na: tuple[str, ...] = ()
    rows: int = 0
    columns: int = 0
    #: Every column of the file (not only those read); not part of the record.
    header: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record of the reading (for results and certificates)."""
        out: dict[str, Any] = {"format": self.format}
        for name in ("encoding", "sep", "decimal", "thousands", "quotechar", "sheet"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out.update(na=list(self.na), rows=self.rows, columns=self.columns)
        return out


@dataclass(frozen=True)
class Table:
    """A data file as read: the frame, the name of its source, how it was read, and the SHA-256
    and size of the very bytes that were parsed (what a certificate binds). A table built in
    memory has no digest; ``codes_absent`` are the declared code columns the file lacks."""

    frame: pd.DataFrame
    source: str = IN_MEMORY
    info: ReadInfo = field(default_factory=lambda: ReadInfo("memory"))
    sha256: str | None = None
    size: int | None = None
    codes_absent: tuple[str, ...] | None = None

    def __len__(self) -> int:
        """The number of records."""
        return len(self.frame)

    @property
    def from_file(self) -> bool:
        """Whether the data was parsed from a file (it then has a digest and a size)."""
        return self.sha256 is not None

    @property
    def reading(self) -> dict[str, Any] | None:
        """How the file was read, for results (without the number of columns read, which
        depends on the caller, not the file); None for a table built in memory."""
        if not self.from_file:
            return None
        return {k: v for k, v in self.info.to_dict().items() if k != "columns"}

    def with_frame(self, frame: pd.DataFrame) -> Table:
        """The same source with other data (a selection of its rows or columns)."""
        return replace(self, frame=frame)


def as_table(data: Table | pd.DataFrame, source: str = IN_MEMORY) -> Table:
    """``data`` as a table: a table as it is, a frame as a table named ``source``."""
    return data if isinstance(data, Table) else Table(data, source)


def frame_of(data: Table | pd.DataFrame) -> pd.DataFrame:
    """The data of a table or a frame."""
    return data.frame if isinstance(data, Table) else data


def file_name(data: Table | pd.DataFrame) -> str | None:
    """The name of the source of a table, None for data built in memory."""
    name = source_name(data)
    return None if name == IN_MEMORY else name


def source_name(data: Table | pd.DataFrame) -> str:
    """The file a table was read from, or ``"<data>"`` for data built in memory."""
    return data.source if isinstance(data, Table) else IN_MEMORY
