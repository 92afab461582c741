"""Atomic, all-or-none output files and their permissions."""

from __future__ import annotations

import os
import stat

import pytest

from attack.errors import InputError
from attack.io.writers import (
    OWNER_ONLY,
    check_outputs,
    write_files_atomic,
    write_text_atomic,
)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_reports_follow_the_umask_and_match_files_are_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        report = write_text_atomic(tmp_path / "r.json", "{}\n")
        matches = write_text_atomic(tmp_path / "m.csv", "a\n", mode=OWNER_ONLY)
    finally:
        os.umask(old)
    assert _mode(report) == 0o644
    assert _mode(matches) == 0o600


def test_all_or_none(tmp_path):
    good = tmp_path / "good.json"
    blocked = tmp_path / "file" / "report.html"  # parent is a file: cannot be created
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder") as info:
        write_files_atomic({good: ("{}", None), blocked: ("<html>", None)})
    assert info.value.file == str(blocked)
    assert not good.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_replaces_existing_file_whole(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_text_atomic(target, "new γ")
    assert target.read_text(encoding="utf-8") == "new γ"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "bad \ud800")
    assert target.read_text(encoding="utf-8") == "new γ"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_failed_rename_keeps_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "summary.txt"
    target.write_text("old", encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(InputError, match="disk gone") as info:
        write_text_atomic(target, "new")
    assert info.value.file == str(target)  # the path as given, not the temporary file
    assert target.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["summary.txt"]


def test_unwritable_folder_names_the_path_given(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        with pytest.raises(InputError, match="cannot be written") as info:
            write_text_atomic(folder / "x.json", "{}")
        assert info.value.file == str(folder / "x.json")
        assert ".tmp" not in str(info.value)
    finally:
        folder.chmod(0o700)


def test_output_that_is_an_input_is_refused(tmp_path):
    original = tmp_path / "original.csv"
    original.write_text("a\n1\n")
    link = tmp_path / "alias.csv"
    link.symlink_to(original)
    for given in (original, link, tmp_path / "sub" / ".." / "original.csv"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(InputError, match="is also the input") as info:
            write_files_atomic({given: ("b\n2\n", None)}, inputs=[original])
        assert info.value.file == str(given)
    assert original.read_text() == "a\n1\n"


def test_outputs_checked_before_writing(tmp_path):
    (tmp_path / "plain").write_text("x")
    with pytest.raises(InputError, match="plain is a file, not a folder"):
        check_outputs([tmp_path / "plain" / "deeper" / "r.html"])
    with pytest.raises(InputError, match="is a folder"):
        check_outputs([tmp_path])
    with pytest.raises(InputError, match="is also the output"):
        check_outputs([tmp_path / "a.json", tmp_path / "a.json"])
    check_outputs([None, tmp_path / "new" / "r.json"], inputs=[None, tmp_path / "plain"])
