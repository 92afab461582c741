"""What a certificate binds is what was parsed: readers hash the very bytes they parse, a run
records each file once (a file that changes during the run is refused), and a file replaced
after it was read does not change the certificate. Also the readers' refusals that keep a
verdict from changing silently: encodings, special files, compressed files, workbook cells."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import openpyxl
import pytest
from fixtures import EXTERNAL, RELEASE, write_study

from attack.errors import InputError
from attack.io.fingerprint import ReadLedger
from attack.io.readers import ReadOptions, read, read_table, require_codes
from attack.study.scenario import load_linkage_scenario as load_scenario


def test_a_table_carries_the_digest_of_the_bytes_it_parsed(tmp_path) -> None:
    path = tmp_path / "rel.csv"
    RELEASE.to_csv(path, index=False)
    table = read(path)
    assert table.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert table.size == path.stat().st_size
    assert table.from_file and not table.frame.attrs  # the provenance is the table's, not hidden in the frame


def test_the_certificate_binds_the_file_as_read_not_as_it_is_later(tmp_path) -> None:
    scenario_path = write_study(tmp_path)
    read_bytes = (tmp_path / "rel.csv").read_bytes()
    result = load_scenario(scenario_path).run()
    (tmp_path / "rel.csv").write_text(RELEASE.assign(turnover=1.0).to_csv(index=False))  # swapped afterwards
    sealed = result.certificate(tmp_path)
    release = next(i for i in sealed["inputs"] if i["role"] == "release")
    assert release["sha256"] == hashlib.sha256(read_bytes).hexdigest()
    assert release["bytes"] == len(read_bytes)
    scenario = next(i for i in sealed["inputs"] if i["role"] == "scenario")
    assert scenario["sha256"] == hashlib.sha256(scenario_path.read_bytes()).hexdigest()


def test_a_file_that_changes_between_two_reads_of_a_run_is_refused(tmp_path) -> None:
    ledger = ReadLedger()
    ledger.record_bytes(tmp_path / "a.csv", b"x,y\n1,2\n")
    ledger.record_bytes(tmp_path / "a.csv", b"x,y\n1,2\n")  # the same bytes again: fine
    with pytest.raises(InputError, match="changed while the run was reading it"):
        ledger.record_bytes(tmp_path / "a.csv", b"x,y\n1,3\n")


def test_utf8_is_never_replaced_by_a_guess_that_changes_other_characters(tmp_path) -> None:
    mixed = tmp_path / "mixed.csv"
    mixed.write_bytes("name,x\nMüller,1\n".encode() + b"Stra\xdfe,2\n")  # UTF-8 plus one Latin-1 byte
    with pytest.raises(InputError, match=r"line 3 cannot be decoded as utf-8 \(byte 0xdf\).*mixes two encodings"):
        read_table(mixed)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,x\nMüller,1\nStraße,2\n".encode("cp1252"))  # no UTF-8 anywhere: Windows-1252
    assert list(read_table(latin)["name"]) == ["Müller", "Straße"]
    given = read_table(mixed, options=ReadOptions(encoding="latin-1"))
    assert list(given["name"]) == ["MÃ¼ller", "Straße"]  # what the user asked for, said by the user


def test_special_and_compressed_inputs_are_named(tmp_path) -> None:
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_table(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_table(Path("/dev/zero").with_suffix(""))
    packed = tmp_path / "packed.csv"
    packed.write_bytes(gzip.compress(RELEASE.to_csv(index=False).encode()))
    with pytest.raises(InputError, match="gzip-compressed data.*Decompress"):
        read_table(packed)


def _workbook(path: Path, fill) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "data"
    sheet.append(["unit_id", "turnover"])
    sheet.append(["u1", 10])
    sheet.append(["u2", 20])
    fill(book, sheet)
    book.save(path)
    return path


def test_workbook_cells_without_a_stored_value_are_refused_by_sheet_and_cell(tmp_path) -> None:
    formula = _workbook(tmp_path / "f.xlsx", lambda b, s: s.append(["u3", "=B2+B3"]))
    with pytest.raises(InputError, match=r"sheet 'data', cell B4 holds a formula whose result"):
        read_table(formula)
    error = _workbook(tmp_path / "e.xlsx", lambda b, s: s.append(["u3", "#DIV/0!"]))
    with pytest.raises(InputError, match=r"cell B4 holds the error value #DIV/0!"):
        read_table(error)
    merged = _workbook(tmp_path / "m.xlsx", lambda b, s: (s.append(["u3", 5]), s.merge_cells("B3:B4")))
    with pytest.raises(InputError, match=r"merged cells \(B3:B4\)"):
        read_table(merged)

    def notes_first(book, sheet):
        book.create_sheet("notes", 0).append(["read me"])

    behind = _workbook(tmp_path / "n.xlsx", notes_first)
    with pytest.raises(InputError, match=r"sheet 'notes' was read \(others: data\)"):
        read_table(behind, ["unit_id"])
    assert list(read_table(behind, ["turnover"], ReadOptions(sheet="data"))["turnover"]) == [10, 20]


def test_a_code_column_no_file_has_is_refused(tmp_path) -> None:
    RELEASE.to_csv(tmp_path / "rel.csv", index=False)
    EXTERNAL.to_csv(tmp_path / "ext.csv", index=False)
    options = ReadOptions(codes=("wz", "nace"))
    tables = [read(tmp_path / "rel.csv", options=options), read(tmp_path / "ext.csv", options=options)]
    with pytest.raises(InputError, match="column 'nace'.*declared as a code column but no input file has it"):
        require_codes(tables)
    require_codes([read(tmp_path / "rel.csv", options=ReadOptions(codes=("wz",)))])
