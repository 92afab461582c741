"""Atomic, all-or-none output files and their permissions."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, write_study

from attack.cli import main
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


# The one output guard (attack.io.writers.check_outputs) as every command meets it: an output is
# never an input (by path, symbolic link or hard link), a scenario file, another output of the run
# (a certificate's printable twin included), a folder or a special file; record-level files are
# owner-only whatever the umask; an interrupted run leaves nothing and exits 130 or 143.

TUNE = """
[tune]
method = "separate-ma"
parameter = "k"
values = [3, 4]
columns = ["turnover", "employees"]
"""


@pytest.fixture
def study(tmp_path: Path) -> Path:
    return write_study(tmp_path, TUNE)


def _invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("option,target", [
    ("--json", "orig.csv"), ("--json", "rel.csv"), ("--html", "ext.csv"), ("--json", "scenario.toml"),
    ("--certificate", "scenario.toml"), ("--certificate", "orig.csv"), ("--matches", "rel.csv"),
])
def test_run_refuses_every_input_as_output_before_the_attack(study, option, target) -> None:
    before = _snapshot(study.parent)
    result = _invoke(["run", study, option, study.parent / target])
    assert result.exit_code == 2, result.output
    assert "is also the input" in result.stderr and target in result.stderr
    assert _snapshot(study.parent) == before


@pytest.mark.parametrize("option,target", [("--release", "orig.csv"), ("--release", "rel.csv"),
                                           ("--json", "scenario.toml"), ("--html", "ext.csv")])
def test_tune_refuses_every_input_as_output(study, option, target) -> None:
    before = _snapshot(study.parent)
    result = _invoke(["tune", study, option, study.parent / target, "--quiet"])
    assert result.exit_code == 2, result.output
    assert "is also the input" in result.stderr
    assert _snapshot(study.parent) == before


def test_links_to_an_input_are_refused_symbolic_and_hard(study) -> None:
    folder = study.parent
    (folder / "soft.csv").symlink_to(folder / "orig.csv")
    os.link(folder / "orig.csv", folder / "hard.csv")
    for alias in ("soft.csv", "hard.csv"):
        with pytest.raises(InputError, match="is also the input"):
            check_outputs([folder / alias], [folder / "orig.csv"])
        result = _invoke(["tune", study, "--release", folder / alias, "--quiet"])
        assert result.exit_code == 2 and "is also the input" in result.stderr
    assert (folder / "orig.csv").read_bytes() == ORIGINAL.to_csv(index=False).encode()


def test_two_outputs_of_one_run_and_the_certificate_twin(study) -> None:
    folder = study.parent
    same = _invoke(["run", study, "--json", folder / "x.json", "--certificate", folder / "x.json"])
    assert same.exit_code == 2 and "is also the output" in same.stderr
    twin = _invoke(["run", study, "--html", folder / "cert.html", "--certificate", folder / "cert.json"])
    assert twin.exit_code == 2 and "cert.html" in twin.stderr
    assert not (folder / "x.json").exists() and not (folder / "cert.json").exists()


def test_special_files_are_never_outputs(tmp_path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        check_outputs([fifo])
    with pytest.raises(InputError, match="character device"):
        write_files_atomic({Path(os.devnull): ("x", None)})
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_record_level_files_are_owner_only_under_any_umask(tmp_path) -> None:
    EXTERNAL.assign(name=[f"firm {i}" for i in range(len(EXTERNAL))]).rename(columns={"unit_id": "record"}) \
        .to_csv(tmp_path / "ext.csv", index=False)
    ORIGINAL.assign(name=[f"firm {i}" for i in range(len(ORIGINAL))]).to_csv(tmp_path / "orig.csv", index=False)
    old = os.umask(0)
    try:
        result = _invoke(["truth", "--external", tmp_path / "ext.csv", "--external-id", "record",
                          "--original", tmp_path / "orig.csv", "--original-id", "unit_id", "--name", "name",
                          "--out", tmp_path / "truth.csv"])
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "truth.csv").stat().st_mode) == 0o600
    assert "owner-only" in result.stderr


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (Linux: the SigCgt mask)."""
    status = Path(f"/proc/{pid}/status").read_text()
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) >> (sig - 1) & 1)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_writes_nothing_and_says_how_it_ended(tmp_path, sig, code) -> None:
    out = tmp_path / "demo"
    proc = subprocess.Popen([sys.executable, "-m", "attack", "demo", "--units", "200000", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60.0
    while not _catches(proc.pid, signal.SIGTERM):  # Python catches SIGINT itself; SIGTERM only
        assert proc.poll() is None and time.monotonic() < deadline  # once the command has begun
        time.sleep(0.05)
    time.sleep(1.0)  # into the demo's computation (a minute or more at this size)
    assert proc.poll() is None
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr
    assert not out.exists() or list(out.iterdir()) == []


def test_a_scenario_saved_with_a_byte_order_mark_runs_like_one_without(study) -> None:
    plain = _invoke(["run", study, "--json", study.parent / "plain.json", "--quiet"])
    marked = study.parent / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + study.read_bytes())
    with_bom = _invoke(["run", marked, "--json", study.parent / "bom.json", "--quiet"])
    assert plain.exit_code == with_bom.exit_code == 1, with_bom.output
    plain_text = (study.parent / "plain.json").read_text().replace('"scenario.toml"', '"marked.toml"')
    assert plain_text == (study.parent / "bom.json").read_text()


def test_tune_exits_1_when_no_value_passes_and_refuses_an_unordered_grid(study) -> None:
    text = study.read_text().replace('method = "separate-ma"\nparameter = "k"\nvalues = [3, 4]',
                                     'method = "additive-noise"\nparameter = "d"\nvalues = [0.0001]')
    study.write_text(text)  # noise this small leaves the fixture's links as they are: NOT PASSED
    result = _invoke(["tune", study, "--json", study.parent / "tune.json", "--quiet"])
    assert result.exit_code == 1, result.output
    assert '"verdict": "no feasible candidate' in (study.parent / "tune.json").read_text()
    study.write_text(text.replace("values = [0.0001]", "values = [0.001, 0.01, 0.005]"))
    unordered = _invoke(["tune", study, "--quiet"])
    assert unordered.exit_code == 2 and "must run in one direction" in unordered.stderr
