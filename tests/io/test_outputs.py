"""Atomic, all-or-none output files and their permissions."""

from __future__ import annotations

import os
import stat

import pytest

from attack.io.writers import OWNER_ONLY, write_files_atomic, write_text_atomic


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
    with pytest.raises(OSError):
        write_files_atomic({good: ("{}", None), blocked: ("<html>", None)})
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
    target = tmp_path / "report.md"
    target.write_text("old", encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk gone"):
        write_text_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["report.md"]
