"""Reading microdata files as statistical offices have them, and validating them up front.

Formats by file suffix: CSV (``.csv``, ``.txt``, ``.tsv``), Excel (``.xlsx``, ``.xlsm``),
OpenDocument (``.ods``), Parquet (``.parquet``, ``.pq``), Stata (``.dta``), SAS (``.sas7bdat``)
and SPSS (``.sav``, needs the optional ``pyreadstat``).

For CSV the encoding (UTF-8 with or without byte-order mark, else Windows-1252 / Latin-1 and
the like), the separator (``,`` ``;`` tab ``|``), the quote character, the decimal separator and
the thousands separator are detected; each can be set (``ReadOptions``). Text columns are
then typed by the one column rule of ``attack.io.columns`` (codes with leading zeros stay
text). What was detected is logged (logger ``attack.io``) and returned in ``ReadInfo``.

Missing values: empty fields and the usual spellings (``NA``, ``n/a``, ``NULL``, ``NaN``, …) and
the single dot ``.`` with which SAS and Stata write a missing value; Stata, SAS and SPSS
missing values (including SPSS user-missing values) as their readers define them; and any codes
declared in ``ReadOptions.na`` (``-8``, ``-9``, ``k.A.``), for every column or per column.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import logging
import os
import re
import stat
import struct
import zipfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from attack.errors import InputError, did_you_mean
from attack.io import limits
from attack.io.columns import (
    DEFAULT_NA,
    code_column,
    id_column,
    numeric_column,
    quote,
    type_text,
)
from attack.io.limits import max_input_bytes
from attack.io.table import ReadInfo, Table, as_table, frame_of, source_name

__all__ = [
    "ReadInfo", "ReadOptions", "Table", "as_table", "code_column", "frame_of", "id_column", "numeric_column",
    "read", "read_file_bytes", "read_table", "require_codes", "require_columns", "source_name",
]

log = logging.getLogger("attack.io")

_FORMATS = {
    ".csv": "csv", ".txt": "csv", ".tsv": "csv",
    ".xlsx": "excel", ".xlsm": "excel", ".ods": "ods",
    ".parquet": "parquet", ".pq": "parquet",
    ".dta": "stata", ".sas7bdat": "sas", ".sav": "spss",
}
#: Separators considered when detecting a CSV dialect.
SEPARATORS = (",", ";", "\t", "|")
_SAMPLE = 1 << 16
_SIGNATURES = {
    b"PAR1": "a Parquet file", b"PK\x03\x04": "a zip archive (Excel .xlsx or OpenDocument .ods)",
    b"\xd0\xcf\x11\xe0": "an old Excel .xls workbook", b"$FL2": "an SPSS .sav file",
    b"\x1f\x8b": "gzip-compressed data",
    b"\xfd7zXZ\x00": "xz-compressed data", b"\x28\xb5\x2f\xfd": "zstd-compressed data",
}
_COMPRESSED = {"gzip-compressed data", "xz-compressed data", "zstd-compressed data"}


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file, where detection should not decide (None: detect).

    ``sheet`` is a sheet name or 0-based index (Excel, OpenDocument); ``na`` are missing-value
    codes for every column, ``na_by_column`` per column; ``codes`` are columns kept as codes
    whatever they hold.
    """

    sep: str | None = None
    decimal: str | None = None
    thousands: str | None = None
    encoding: str | None = None
    sheet: str | int | None = None
    na: tuple[str, ...] = ()
    na_by_column: tuple[tuple[str, tuple[str, ...]], ...] = ()
    codes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name, value, allowed in (("sep", self.sep, None), ("decimal", self.decimal, (".", ",")),
                                     ("thousands", self.thousands, None)):
            if value is None:
                continue
            if not isinstance(value, str) or len(value) != 1:
                raise InputError(f"{name} must be a single character, got {value!r}")
            if allowed and value not in allowed:
                raise InputError(f"{name} must be '.' or ',', got {value!r}")
        if self.encoding is not None:
            try:
                codecs.lookup(self.encoding)
            except (LookupError, TypeError) as exc:
                raise InputError(f"unknown encoding {self.encoding!r}; e.g. utf-8, cp1252, latin-1") from exc

    @classmethod
    def build(cls, *, sep: str | None = None, decimal: str | None = None,
              thousands: str | None = None, encoding: str | None = None,
              sheet: str | int | None = None,
              na: Sequence[str | int | float] | Mapping[str, Sequence[str | int | float]] = (),
              codes: Sequence[str] = ()) -> ReadOptions:
        """Options from plain values: ``sep="tab"`` or ``"\\t"``; ``na`` a list of codes, or a
        mapping of column to codes with ``"*"`` for every column; a ``sheet`` of digits is an
        index."""
        if sep in ("tab", "\\t"):
            sep = "\t"
        if isinstance(sheet, str) and sheet.isdigit():
            sheet = int(sheet)
        everywhere: list[str] = []
        by_column: dict[str, list[str]] = {}
        items = na.items() if isinstance(na, Mapping) else [("*", na)]
        for column, values in items:
            values = [values] if isinstance(values, (str, int, float)) else list(values)
            target = everywhere if column == "*" else by_column.setdefault(str(column), [])
            target.extend(_na_text(v) for v in values)
        return cls(sep=sep, decimal=decimal, thousands=thousands, encoding=encoding, sheet=sheet,
                   na=tuple(everywhere), codes=tuple(codes),
                   na_by_column=tuple((c, tuple(v)) for c, v in by_column.items()))

    def na_for(self, column: str) -> tuple[str, ...]:
        """The declared missing-value codes of ``column``."""
        return self.na + dict(self.na_by_column).get(column, ())


def _na_text(value: object) -> str:
    if isinstance(value, float) and value == int(value):
        value = int(value)
    return str(value).strip()


def read(path: str | Path, columns: Sequence[str] | None = None,
         options: ReadOptions | None = None) -> Table:
    """Read a data file, keeping only ``columns`` (all when None), in that order.

    Raises ``InputError`` naming the file (and column and row where there is one) for a
    missing file, a folder, an empty file or one without data rows, a file that is not in the
    format its suffix says, an undecodable or malformed text file, duplicate or missing columns.
    """
    options = options or ReadOptions()
    path = Path(path)
    name = str(path)
    kind = _FORMATS.get(path.suffix.lower())
    raw = read_file_bytes(path)
    if not raw:
        raise InputError("file is empty", file=name)
    if kind is None:
        known = ", ".join(sorted(_FORMATS))
        raise InputError(f"unknown file format {path.suffix or '(no suffix)'!r}; expected one of {known}",
                         file=name)
    digest = hashlib.sha256(raw).hexdigest()
    _check_signature(raw, kind, name)
    wanted = None if columns is None else list(dict.fromkeys(columns))
    try:
        if kind == "csv":
            frame, info = _read_csv(raw, name, wanted, options)
        elif kind in ("excel", "ods"):
            limits.check_workbook(raw, name)
            try:
                frame, info = _read_workbook(raw, name, kind, wanted, options)
            except (KeyError, zipfile.BadZipFile) as exc:  # e.g. an .xlsx renamed .ods
                raise InputError(f"is not a readable {kind} workbook: {_short(exc)}", file=name) from exc
        else:
            frame = _read_typed(raw, path, kind, wanted, digest)
            _check_duplicates(list(frame.columns), name)
            frame = _typed_missing(frame, options)
            info = ReadInfo(kind, na=tuple(dict.fromkeys(options.na)))
    except InputError:
        raise
    except MemoryError:
        raise
    except pd.errors.EmptyDataError as exc:
        raise InputError("file is empty", file=name) from exc
    except (ValueError, OSError, UnicodeDecodeError, struct.error, pa.ArrowException) as exc:
        if "malloc" in str(exc) or "out of memory" in str(exc).lower():
            raise MemoryError(str(exc)) from exc
        raise InputError(f"cannot be read as {kind}: {_short(exc)}", file=name) from exc
    _check_columns(frame.columns, wanted, name)
    if wanted is not None:
        frame = frame[wanted]
    if len(frame) == 0:
        raise InputError("file has a header but no data rows", file=name)
    frame = frame.reset_index(drop=True)
    info = ReadInfo(**{**info.__dict__, "rows": len(frame), "columns": frame.shape[1]})
    absent = tuple(c for c in options.codes if info.header and c not in info.header)
    log.info("read %s: %s", name, info.to_dict())
    return Table(frame, name, info, digest, len(raw), absent)


def read_file_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """The whole content of a regular file, read once (what is parsed is what is hashed);
    a folder, a missing file, a special file (a FIFO, a device) or a file larger than ``limit``
    bytes (default ``attack.io.limits.max_input_bytes()``) is an ``InputError``."""
    path = Path(path)
    name = str(path)
    try:
        info = os.stat(path)
        mode = info.st_mode
    except FileNotFoundError:
        raise InputError("file not found", file=name) from None
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", file=name) from None
    if stat.S_ISDIR(mode):
        raise InputError("is a folder, not a data file", file=name)
    if not stat.S_ISREG(mode):
        raise InputError("is not a regular file (a FIFO, socket or device); give a data file", file=name)
    limits.check_size(info.st_size, max_input_bytes() if limit is None else limit, name)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", file=name) from None


def read_table(path: str | Path, columns: Sequence[str] | None = None,
               options: ReadOptions | None = None) -> pd.DataFrame:
    """The frame of ``read`` (for callers that need no record of how it was read)."""
    return read(path, columns, options).frame


def _short(exc: BaseException) -> str:
    return quote(str(exc), 200).strip("'\"")


def _check_signature(raw: bytes, kind: str, name: str) -> None:
    """Refuse a file whose first bytes contradict its suffix (a CSV renamed ``.parquet``, a
    truncated download, a compressed file named ``.csv``)."""
    head = raw[:8]
    found = next((what for magic, what in _SIGNATURES.items() if head.startswith(magic)), None)
    expected = {"parquet": b"PAR1", "excel": b"PK\x03\x04", "ods": b"PK\x03\x04"}.get(kind)
    if expected is not None and not head.startswith(expected):
        seen = found or ("text" if _looks_like_text(head) else "something else")
        article = "an" if kind[0] in "aeiou" else "a"
        raise InputError(f"is not {article} {kind} file (its first bytes show {seen}); is the suffix right?",
                         file=name)
    if kind == "parquet" and raw[-4:] != b"PAR1":
        raise InputError("is a truncated or damaged Parquet file (its end marker is missing)", file=name)
    if kind == "csv" and (found is not None or b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff"))):
        raise InputError(f"is not a text file (it looks like {found or 'binary data'}); is the suffix right?"
                         + (" Decompress it first." if found in _COMPRESSED else ""), file=name)


def _looks_like_text(head: bytes) -> bool:
    return b"\x00" not in head and all(b >= 9 for b in head)


# ---------------------------------------------------------------------------------------------
# CSV


def _read_csv(raw: bytes, name: str, wanted: list[str] | None, options: ReadOptions) -> tuple[pd.DataFrame, ReadInfo]:
    import pyarrow.csv as pcsv

    encoding, content = _decode(raw, name, options.encoding)
    limits.check_rows(content, name)
    sample = _sample(content)
    sep, quotechar = _dialect(sample, options.sep, name)
    if not sample.strip():
        raise InputError("file is empty", file=name)
    header = next(csv.reader(io.StringIO(sample), delimiter=sep, quotechar=quotechar), [])
    header = [h.strip() for h in header]
    if not header or header == [""]:
        raise InputError("file has no header line", file=name)
    _check_duplicates(header, name)
    for i, column in enumerate(header):
        if column == "":
            raise InputError(f"column {i + 1} of the header has no name", file=name)
    _check_columns(header, wanted, name)
    include = wanted if wanted is not None else header
    try:
        table = pcsv.read_csv(
            pa.BufferReader(content),
            read_options=pcsv.ReadOptions(column_names=header, skip_rows=1,
                                           block_size=limits.MAX_CSV_ROW_BYTES),
            parse_options=pcsv.ParseOptions(  # quoted line breaks need the slower parser
                delimiter=sep, quote_char=quotechar or False,
                newlines_in_values=bool(quotechar and quotechar.encode() in content)),
            convert_options=pcsv.ConvertOptions(
                column_types={c: pa.string() for c in header}, include_columns=include,
                null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except pa.ArrowInvalid as exc:
        raise _malformed(content, name, sep, quotechar, len(header), exc) from exc
    decimal, thousands = _number_format(sample, sep, quotechar, options)
    frame = _typed_text(table, name, options, decimal, thousands)
    info = ReadInfo("csv", encoding=encoding, sep=sep, decimal=decimal, thousands=thousands,
                    quotechar=quotechar, na=tuple(dict.fromkeys(options.na)), header=tuple(header))
    return frame, info


def _decode(raw: bytes, name: str, given: str | None) -> tuple[str, bytes]:
    """The encoding, and the content as UTF-8 (Arrow reads UTF-8 only).

    A given encoding must decode the whole file. Otherwise: a byte-order mark decides (UTF-8 or
    UTF-16); else UTF-8 when the whole file decodes so; else, when the file holds no UTF-8
    character beyond ASCII at all, Windows-1252 (Latin-1 where a byte is undefined there), which
    then changes only the bytes UTF-8 refused. A file mixing valid UTF-8 characters with bytes
    that are not UTF-8 is refused, naming the line and the byte: no encoding reads both right."""
    if given is not None:
        first = given
    elif raw.startswith(codecs.BOM_UTF8):
        first = "utf-8-sig"
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        first = "utf-16"
    else:
        first = "utf-8"
    try:
        text = raw.decode(first)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        if given is not None or first != "utf-8" or _has_utf8_beyond_ascii(raw):
            mixed = "" if given is not None or first != "utf-8" else (
                "the file holds UTF-8 characters elsewhere, so it mixes two encodings; ")
            raise InputError(
                f"line {line} cannot be decoded as {first} (byte 0x{raw[exc.start]:02x}) at byte "
                f"offset {exc.start}; {mixed}fix that line, or set the file's encoding (e.g. --encoding cp1252)",
                file=name) from exc
        for candidate in ("cp1252", "latin-1"):
            try:
                text = raw.decode(candidate)
            except UnicodeDecodeError:
                continue
            log.info("%s: not UTF-8 (first at line %d); no UTF-8 character in the file; encoding %s",
                     name, line, candidate)
            return candidate, text.encode("utf-8")
        raise AssertionError("Latin-1 decodes every byte") from exc
    log.info("%s: encoding %s", name, first)
    return first, raw if codecs.lookup(first).name in ("utf-8", "utf-8-sig") else text.encode("utf-8")


_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def _has_utf8_beyond_ascii(raw: bytes) -> bool:
    """Whether the bytes hold a well-formed UTF-8 sequence for a character beyond ASCII."""
    return _UTF8_MULTIBYTE.search(raw) is not None


def _sample(content: bytes) -> str:
    """The first 64 KiB of UTF-8 text, cut after the last complete line."""
    text = content[: _SAMPLE + 1].decode("utf-8", "ignore")
    if len(content) > _SAMPLE:
        cut = max(text.rfind("\n"), text.rfind("\r"))
        text = text[: cut + 1] if cut > 0 else text
    return text.lstrip("\ufeff")


def _dialect(sample: str, given: str | None, name: str) -> tuple[str, str | None]:
    """Separator and quote character: ``csv.Sniffer`` among ``SEPARATORS``, checked (and
    replaced when it fails) by the separator that splits the most lines into the same number
    (at least two) of fields."""
    quotechar = '"'
    if given is not None:
        return given, quotechar
    lines = [line for line in sample.splitlines()[:200] if line.strip()]
    sniffed = None
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines[:50]), delimiters="".join(SEPARATORS))
        sniffed = dialect.delimiter
        quotechar = dialect.quotechar or '"'
    except csv.Error:
        pass
    best, best_score = None, (0, 0)
    for sep in SEPARATORS:
        counts = [len(row) for row in csv.reader(lines, delimiter=sep, quotechar=quotechar)]
        if not counts or counts[0] < 2:
            continue
        score = (sum(c == counts[0] for c in counts), counts[0])
        if score > best_score:
            best, best_score = sep, score
    if sniffed is not None and (best is None or sniffed == best):
        chosen = sniffed
    else:
        chosen = best or ","
    log.info("%s: separator %r, quote %r", name, chosen, quotechar)
    return chosen, quotechar


def _number_format(sample: str, sep: str, quotechar: str | None,
                   options: ReadOptions) -> tuple[str, str | None]:
    """Decimal and thousands separators: as given, else from the sample's numbers. A comma
    decimal needs a separator other than ``,`` and values like ``12,5`` (a comma not followed by
    exactly three digits) or more of them than values with a decimal point."""
    decimal, thousands = options.decimal, options.thousands
    if decimal is None:
        decimal = "."
        if sep != ",":
            fields = [f.strip() for row in csv.reader(sample.splitlines()[1:400], delimiter=sep,
                                                      quotechar=quotechar or '"') for f in row]
            comma = sum(bool(re.fullmatch(r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+),[0-9]+", f)) for f in fields)
            point = sum(bool(re.fullmatch(r"[+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)\.[0-9]+", f)) for f in fields)
            sure_comma = sum(bool(re.fullmatch(r"[+-]?[0-9.]*,(?:[0-9]{1,2}|[0-9]{4,})", f)) for f in fields)
            sure_point = sum(bool(re.fullmatch(r"[+-]?[0-9,]*\.(?:[0-9]{1,2}|[0-9]{4,})", f)) for f in fields)
            if sure_comma > sure_point or (sure_comma == sure_point and comma > point) or \
                    (comma and comma == point and sep == ";"):
                decimal = ","
    if thousands is None and decimal == ",":
        thousands = "."
    if thousands == decimal:
        raise InputError(f"the thousands separator cannot be the decimal separator {decimal!r}")
    return decimal, thousands


def _malformed(content: bytes, name: str, sep: str, quotechar: str | None, width: int,
               exc: Exception) -> InputError:
    """The row of a malformed CSV file (a wrong number of fields), found by rereading its text."""
    too_long = InputError(f"has a row or field longer than the limit of {limits.size_words(limits.MAX_CSV_ROW_BYTES)} "
                          "for a CSV row (docs/reference/input-formats.md); is it a CSV file, with the right "
                          "quote character?", file=name)
    if "straddling" in str(exc):
        return too_long
    reader = csv.reader(io.StringIO(content.decode("utf-8", "replace"), newline=""), delimiter=sep,
                        quotechar=quotechar or '"')
    row_number = 0
    try:
        next(reader, None)
        for row_number, row in enumerate(reader, start=1):
            if len(row) != width and row:
                return InputError(
                    f"has {len(row)} fields where the header has {width} (separator {sep!r}); "
                    "is the separator right (--sep)?", file=name, row=row_number)
    except csv.Error:  # a field beyond the csv module's limit
        too_long.row = row_number + 1
        return too_long
    return InputError(f"cannot be read as CSV: {_short(exc)}", file=name)


def _typed_text(table: pa.Table, name: str, options: ReadOptions, decimal: str,
                thousands: str | None) -> pd.DataFrame:
    """Text columns after trimming, missing-value codes and the column rule."""
    def one(column: str) -> pd.Series:
        values = pc.utf8_trim_whitespace(table[column])
        missing = [*DEFAULT_NA, *options.na_for(column)]
        values = pc.if_else(pc.is_in(values, value_set=pa.array(missing, pa.string())),
                            pa.scalar(None, pa.string()), values)
        typed = type_text(values, decimal=decimal, thousands=thousands, code=column in options.codes)
        if typed.role == "code" and typed.first_text_row is not None and typed.numbers * 2 >= typed.present > 1:
            log.info("%s: column %r is mostly numbers but row %d holds %s; it is read as codes",
                     name, column, typed.first_text_row + 1,
                     quote(table[column][typed.first_text_row].as_py()))
        return typed.values

    with ThreadPoolExecutor(max_workers=min(len(table.column_names), os.cpu_count() or 1) or 1) as pool:
        columns = list(pool.map(one, table.column_names))  # Arrow kernels release the GIL
    return pd.DataFrame(dict(zip(table.column_names, columns, strict=True)), copy=False)


# ---------------------------------------------------------------------------------------------
# Excel and OpenDocument


def _read_workbook(raw: bytes, name: str, kind: str, wanted: list[str] | None,
                   options: ReadOptions) -> tuple[pd.DataFrame, ReadInfo]:
    if kind == "excel":
        sheets, sheet, cells = _excel_sheet(raw, name, options.sheet)
    else:
        sheets = pd.ExcelFile(io.BytesIO(raw), engine="odf").sheet_names
        sheet = _chosen_sheet(sheets, options.sheet, name)
        cells = pd.read_excel(io.BytesIO(raw), sheet_name=sheet, header=None, dtype=object, engine="odf",
                              na_filter=False)
    raw_cells = cells.dropna(how="all")
    if raw_cells.empty:
        raise InputError(f"sheet {sheet!r} is empty", file=name)
    header = [_cell_text(v) or "" for v in raw_cells.iloc[0]]
    while header and header[-1] == "" and raw_cells.iloc[1:, len(header) - 1].map(_cell_text).isna().all():
        header.pop()
    raw_cells = raw_cells.iloc[1:, : len(header)]
    _check_duplicates(header, name)
    try:
        _check_columns(header, wanted, name)
    except InputError as exc:
        others = [s for s in sheets if s != sheet]
        if others:
            exc.message += f"; sheet {sheet!r} was read (others: {', '.join(others)}); choose one with --sheet"
        raise
    out = {}
    for j, column in enumerate(header):
        if wanted is not None and column not in wanted:
            continue
        column_cells = raw_cells.iloc[:, j]
        _check_mixed_codes(column_cells, name, column)
        text = pa.array([_cell_text(v) for v in column_cells], type=pa.string())
        missing = [*DEFAULT_NA, *options.na_for(column)]
        text = pc.if_else(pc.is_in(text, value_set=pa.array(missing, pa.string())),
                          pa.scalar(None, pa.string()), text)
        out[column] = type_text(text, code=column in options.codes).values
    frame = pd.DataFrame(out)
    return frame, ReadInfo(kind, sheet=str(sheet), na=tuple(dict.fromkeys(options.na)), header=tuple(header))


def _chosen_sheet(sheets: list[str], given: str | int | None, name: str) -> str:
    sheet = 0 if given is None else given
    if isinstance(sheet, int):
        if not 0 <= sheet < len(sheets):
            raise InputError(f"has no sheet number {sheet} (sheets, from 0: {', '.join(sheets)})", file=name)
        return sheets[sheet]
    if sheet not in sheets:
        raise InputError(f"has no sheet {sheet!r} (sheets: {', '.join(sheets)})", file=name)
    return sheet


def _excel_sheet(raw: bytes, name: str, given: str | int | None) -> tuple[list[str], str, pd.DataFrame]:
    """The cells of one Excel sheet as the workbook last computed them. A cell whose value the
    file does not hold cannot be read as missing: a formula without a cached result (a workbook
    written by a program that does not calculate), an error value (``#DIV/0!``, ``#N/A``) and a
    merged range (one value meant for several cells) are refused, naming sheet and cell."""
    import openpyxl

    values = openpyxl.load_workbook(io.BytesIO(raw), data_only=True)
    sheet = _chosen_sheet(values.sheetnames, given, name)
    sheet_values = values[sheet]
    if sheet_values.merged_cells.ranges:
        merged = sorted(str(r) for r in sheet_values.merged_cells.ranges)
        raise InputError(f"sheet {sheet!r} has merged cells ({', '.join(merged[:5])}); unmerge them so that "
                         "every cell holds its own value", file=name)
    for row in sheet_values.iter_rows():
        for cell in row:
            if cell.data_type == "e":
                raise InputError(f"sheet {sheet!r}, cell {cell.coordinate} holds the error value {cell.value}; "
                                 "correct it or clear the cell", file=name)
    formulas = openpyxl.load_workbook(io.BytesIO(raw), data_only=False, read_only=True)[sheet]
    for row in formulas.iter_rows():
        for cell in row:
            if cell.data_type == "f" and sheet_values[cell.coordinate].value is None:
                raise InputError(f"sheet {sheet!r}, cell {cell.coordinate} holds a formula whose result the file "
                                 "does not store; open and save it in a spreadsheet program, or save the sheet "
                                 "as values", file=name)
    cells = pd.DataFrame(list(sheet_values.iter_rows(values_only=True)), dtype=object)
    return values.sheetnames, sheet, cells


def _cell_text(value: object) -> str | None:
    """A workbook cell as the text a CSV file would hold (numbers in plain notation)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if np.isinf(number):
            return "inf" if number > 0 else "-inf"
        return str(int(number)) if number == int(number) and abs(number) < 2**53 else repr(number)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    text = str(value).strip()
    return text or None


def _check_mixed_codes(cells: pd.Series, name: str, column: str) -> None:
    """A workbook column holding digit codes both as numbers and as text with a leading zero
    (``5`` and ``"05"``) would give one code two spellings: refuse it, naming both rows."""
    numbers = [i for i, v in enumerate(cells) if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
               and not (isinstance(v, float) and np.isnan(v))]
    if not numbers:
        return
    for i, v in enumerate(cells):
        if isinstance(v, str) and re.fullmatch(r"0[0-9]+", v.strip()):
            raise InputError(
                f"codes mixing numbers and text: row {numbers[0] + 1} holds the number "
                f"{_cell_text(cells.iloc[numbers[0]])}, row {i + 1} the text {quote(v.strip())}; "
                "format the whole column as text in the workbook", file=name, column=column,
                row=i + 1)


# ---------------------------------------------------------------------------------------------
# Typed formats


def _read_typed(raw: bytes, path: Path, kind: str, wanted: list[str] | None, digest: str) -> pd.DataFrame:
    """Parquet, Stata and SAS files parsed from the bytes already read; SPSS (whose reader takes
    only a path) from the file, which must still hold the same bytes afterwards."""
    name = str(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        names = pq.read_schema(pa.BufferReader(raw)).names
        _check_duplicates(names, name)
        _check_columns(names, wanted, name)
        return pd.read_parquet(io.BytesIO(raw), columns=wanted)
    if kind == "stata":
        with pd.read_stata(io.BytesIO(raw), iterator=True) as reader:
            names = list(reader.variable_labels())
        _check_columns(names, wanted, name)
        return pd.read_stata(io.BytesIO(raw), columns=wanted)
    if kind == "sas":
        frame = pd.read_sas(io.BytesIO(raw), format="sas7bdat")
        for column in frame.columns:
            if frame[column].dtype == object:
                frame[column] = frame[column].map(
                    lambda v: v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
        return frame
    try:  # SPSS: user-missing values become missing (pyreadstat's default)
        frame = pd.read_spss(path, usecols=wanted)
    except ImportError as exc:
        raise InputError("reading SPSS files needs the optional reader: pip install 'attack[spss]'",
                         file=name) from exc
    if hashlib.sha256(read_file_bytes(path)).hexdigest() != digest:
        raise InputError("changed while it was being read; read it again once nothing writes to it", file=name)
    return frame


def _typed_missing(frame: pd.DataFrame, options: ReadOptions) -> pd.DataFrame:
    """Declared missing-value codes in a typed file: numbers compared as numbers, text as
    trimmed text."""
    for column in frame.columns:
        codes = options.na_for(column)
        if not codes:
            continue
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
            numbers = pd.to_numeric(pd.Series(codes), errors="coerce").dropna().to_numpy()
            hit = values.isin(numbers)
        else:
            hit = values.astype("string").str.strip().isin(codes).fillna(False)
        if hit.any():
            frame[column] = values.mask(hit)
    return frame


# ---------------------------------------------------------------------------------------------
# Columns


def require_codes(tables: Sequence[Table | pd.DataFrame | None], *, field: str = "--code") -> None:
    """Refuse a column declared as holding codes that no file read with those options has (a
    misspelt name would otherwise be ignored and its codes read as numbers)."""
    read = [t for t in tables if isinstance(t, Table) and t.codes_absent is not None]
    if not read:
        return
    absent = set.intersection(*(set(t.codes_absent or ()) for t in read))
    if absent:
        files = ", ".join(t.source for t in read)
        raise InputError(f"is declared as a code column but no input file has it ({files})",
                         field=field, column=sorted(absent)[0])


def require_columns(data: Table | pd.DataFrame, columns: Sequence[str]) -> None:
    """Raise ``InputError`` naming the file and the first of ``columns`` it lacks."""
    _check_columns(frame_of(data).columns, list(dict.fromkeys(columns)), source_name(data))


def _check_columns(available: Sequence[str], wanted: Sequence[str] | None, name: str) -> None:
    if wanted is None:
        return
    have = set(map(str, available))
    for column in wanted:
        if column not in have:
            shown = ", ".join(sorted(have)[:20])
            guess = did_you_mean(column, have)
            hint = ""
            if len(have) == 1 and any(s in next(iter(have)) for s in SEPARATORS):
                hint = "; the header was not split: is the separator right (--sep)?"
            raise InputError(f"column is missing{guess} (the file has: {shown}){hint}", file=name, column=column)


def _check_duplicates(names: Sequence[object], name: str) -> None:
    seen: dict[str, int] = {}
    for i, column in enumerate(map(str, names)):
        if column in seen and column != "":
            raise InputError(f"the header names this column twice (columns {seen[column] + 1} and "
                             f"{i + 1}); names must be unique", file=name, column=column)
        seen[column] = i
