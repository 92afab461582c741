"""Where the compiled loops are kept (attack._loops): one per-user folder that every copy of the
same code shares, the user's NUMBA_CACHE_DIR first, memory when nothing can be written; and when
the first import starts the background compile."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from attack import _loops

PROBE = "from attack._loops import njit\n\n\n@njit()\ndef plus_one(x):\n    return x + 1\n"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty per-user cache folder, no NUMBA_CACHE_DIR."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    return tmp_path / "cache" / "attack" / "numba"


def _probe(folder: Path, name: str, text: str = PROBE):
    """The probe module written to ``folder`` and imported as ``name`` (a copy installed there)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "probe.py").write_text(text)
    spec = importlib.util.spec_from_file_location(name, folder / "probe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.plus_one


def test_every_module_with_compiled_loops_is_listed_and_uses_the_package_cache() -> None:
    sources = {path.relative_to(_loops.PACKAGE).as_posix(): path.read_text(encoding="utf-8")
               for path in _loops.PACKAGE.rglob("*.py")}
    assert sorted(_loops.KERNEL_MODULES) == sorted(
        name for name, text in sources.items() if "from attack._loops import njit" in text)
    direct = re.compile(r"from numba import [^\n]*\bnjit\b|numba\.njit|cache=True")
    assert [name for name, text in sources.items() if direct.search(text) and name != "_loops.py"] == []


def test_a_loop_compiled_by_one_copy_is_loaded_by_another(cache, tmp_path) -> None:
    """A reinstall or a new virtual environment holds the same module elsewhere: its loops come
    from the cache, keyed by the module's text and not by its path."""
    first = _probe(tmp_path / "venv-a", "probe_a")
    assert first(1) == 2
    assert sum(first.stats.cache_misses.values()) == 1
    [folder] = cache.iterdir()
    assert folder.name.startswith("probe-")
    assert any(path.suffix == ".nbi" for path in folder.iterdir())
    second = _probe(tmp_path / "venv-b", "probe_b")
    assert second(1) == 2
    assert (sum(second.stats.cache_hits.values()), sum(second.stats.cache_misses.values())) == (1, 0)
    changed = _probe(tmp_path / "venv-c", "probe_c", PROBE.replace("x + 1", "x + 2"))
    assert changed(1) == 3                                          # another text: compiled anew
    assert sum(changed.stats.cache_misses.values()) == 1
    assert len(list(cache.iterdir())) == 2


def test_the_users_numba_cache_dir_comes_first(cache, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "mine"))
    function = _probe(tmp_path / "venv", "probe_mine")
    assert function(1) == 2
    assert list((tmp_path / "mine").rglob("*.nbi"))
    assert not cache.exists()


def test_without_a_writable_folder_the_loops_compile_in_memory(tmp_path, monkeypatch) -> None:
    """A file where the cache folder should be: no folder can be made (also as root)."""
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.delenv(_loops.BACKGROUND, raising=False)
    monkeypatch.delenv(_loops.SWITCH, raising=False)
    function = _probe(tmp_path / "venv", "probe_memory")
    assert (function(1), function(2)) == (2, 3)
    assert function.stats.cache_path is None
    assert _loops.start_background_compile() is None


class _Started:
    """subprocess.Popen's stand-in: records what would have been started."""

    calls: list[tuple[list[str], dict]] = []

    def __init__(self, command: list[str], **options) -> None:
        self.calls.append((command, options))


@pytest.fixture
def started(cache, monkeypatch) -> list[tuple[list[str], dict]]:
    monkeypatch.delenv(_loops.BACKGROUND, raising=False)
    monkeypatch.delenv(_loops.SWITCH, raising=False)
    monkeypatch.setattr(subprocess, "Popen", _Started)
    _Started.calls = []
    return _Started.calls


def test_the_first_import_starts_one_detached_compile_of_this_copy(started) -> None:
    assert isinstance(_loops.start_background_compile(), _Started)
    [(command, options)] = started
    assert command[0] == sys.executable and "main(background=True)" in command[2]
    assert command[3] == str(_loops.PACKAGE.parent)                 # the same copy of the package
    assert options["start_new_session"] and options["stdout"] == subprocess.DEVNULL
    assert options["env"][_loops.BACKGROUND] == "1"


def test_no_compile_starts_when_done_running_switched_off_or_in_the_compile(started, monkeypatch) -> None:
    with _loops.compile_lock(wait=False) as held:
        assert held
        assert _loops.start_background_compile() is None            # another one is running
    _loops.done_marker(_loops.compiled_key()).touch()
    assert _loops.start_background_compile() is None                # every loop compiled
    _loops.done_marker(_loops.compiled_key()).unlink()
    monkeypatch.setenv(_loops.SWITCH, "0")
    assert _loops.start_background_compile() is None
    monkeypatch.delenv(_loops.SWITCH)
    monkeypatch.setenv(_loops.BACKGROUND, "1")
    assert _loops.start_background_compile() is None
    assert started == []


def test_the_key_changes_with_the_code_and_with_numba_cache_dir(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    key = _loops.compiled_key()
    assert key == _loops.compiled_key()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert _loops.compiled_key() != key
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(_loops, "KERNEL_MODULES", _loops.KERNEL_MODULES[:-1])
    assert _loops.compiled_key() != key
