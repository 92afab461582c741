"""Size limits of every file read: a data file, a CSV row, a workbook's unpacked size and its
compression ratio (a zip bomb), through every command that reads a data file: exit 2, the
limit named, nothing written."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.io import limits
from attack.io.readers import read


def _bomb(path, member_bytes: int) -> None:
    """A workbook-shaped zip whose one sheet unpacks to ``member_bytes`` of zeros (a few KB packed)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            block = b"\0" * (1 << 20)
            for _ in range(member_bytes // len(block)):
                sheet.write(block)


def _real_workbook(path) -> None:
    pd.DataFrame({"id": [1, 2, 3], "sex": [1, 2, 1]}).to_excel(path, index=False)


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A CSV file with a row longer than the limit, a zip bomb named .xlsx and a sound workbook."""
    monkeypatch.setattr(limits, "MAX_CSV_ROW_BYTES", 1 << 20)  # small files, the same code
    long_row = tmp_path / "long.csv"
    long_row.write_bytes(b"id,sex\n1," + b"x" * (limits.MAX_CSV_ROW_BYTES + 10) + b"\n2,1\n")
    quoted = tmp_path / "quoted.csv"
    quoted.write_bytes(b'id,sex\n1,"' + b"x" * (limits.MAX_CSV_ROW_BYTES + 10) + b'"\n2,1\n')
    bomb = tmp_path / "bomb.xlsx"
    _bomb(bomb, 8 << 20)
    sound = tmp_path / "sound.xlsx"
    _real_workbook(sound)
    return {"long": long_row, "quoted": quoted, "bomb": bomb, "sound": sound}


CASES = [("long", "line 2 is longer than the limit of 1 MiB for a CSV row"),
         ("quoted", "line 2 is longer than the limit of 1 MiB for a CSV row"),
         ("bomb", "compressed")]


@pytest.mark.parametrize(("name", "says"), CASES)
def test_the_reader_refuses_a_file_over_a_limit(files, name, says):
    with pytest.raises(InputError, match=says) as caught:
        read(files[name])
    assert str(files[name]) in str(caught.value)


def test_a_workbook_that_would_unpack_beyond_the_limit_is_refused(files, monkeypatch):
    monkeypatch.setattr(limits, "MAX_WORKBOOK_BYTES", 1 << 20)
    monkeypatch.setattr(limits, "MAX_COMPRESSION_RATIO", 10**9)
    with pytest.raises(InputError, match="would unpack to 8 MiB, more than the limit of 1 MiB"):
        read(files["bomb"])
    assert list(read(files["sound"]).frame["sex"]) == [1, 2, 1]  # a real workbook is read


def test_the_size_limit_of_a_data_file_is_set_by_the_environment(files, monkeypatch):
    monkeypatch.setenv(limits.ENVIRONMENT, "100")
    with pytest.raises(InputError, match="larger than the limit of 100 bytes"):
        read(files["sound"])
    monkeypatch.setenv(limits.ENVIRONMENT, "many")
    with pytest.raises(InputError, match="positive whole number of bytes"):
        read(files["sound"])


#: Commands that read a data file, with the file put in the place of each.
COMMANDS = [
    lambda f, out: ["risk", "--data", f, "--key", "sex", "--json", out],
    lambda f, out: ["inspect", f],
    lambda f, out: ["protect", "--method", "local-suppression", "--input", f, "--out", out, "--columns", "sex"],
    lambda f, out: ["link", "--external", f, "--release", f.with_name("sound.xlsx"), "--external-id", "id",
                    "--release-id", "id", "--key", "sex:nominal", "--json", out],
    lambda f, out: ["utility", "--original", f, "--release", f.with_name("sound.xlsx")],
]


@pytest.mark.parametrize("command", COMMANDS, ids=["risk", "inspect", "protect", "link", "utility"])
@pytest.mark.parametrize(("name", "says"), CASES)
def test_every_command_ends_over_a_limit_with_exit_2(files, tmp_path, command, name, says):
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, [str(a) for a in command(files[name], out)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and says in result.output
    assert not out.exists()


def test_the_zip_directory_is_judged_without_unpacking(files):
    archive = zipfile.ZipFile(io.BytesIO(files["bomb"].read_bytes()))
    member = archive.getinfo("xl/worksheets/sheet1.xml")
    assert member.file_size / member.compress_size > limits.MAX_COMPRESSION_RATIO
    assert files["bomb"].stat().st_size < 1 << 20  # a small file
