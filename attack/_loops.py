"""The compiled loops (numba): where their machine code is kept, and when it is compiled.

numba compiles a loop on its first call. Every loop of the package is decorated with ``njit``
below, which keeps the machine code on disk in a folder of the user's cache
(``~/.cache/attack/numba`` on Linux, ``$XDG_CACHE_HOME`` honoured; :func:`cache_folder`), one
subfolder per module and content of the module. The folder does not depend on where the
package is installed, so a reinstall, a new virtual environment or the checkout the tests import
all find the loops that any of them compiled, as long as the module's text is the same (numba
itself also checks the text, the argument types, the processor and its own version). A user's
own ``NUMBA_CACHE_DIR`` takes precedence (numba's rule; it keys by the installation's path).
When no folder can be written, the loops compile in memory, in every process anew.

The first import of the package (:func:`start_background_compile`, called by
``attack/__init__.py``) starts ``attack._precompile`` in a detached process at the lowest
priority when the loops of this code, numba, Python and machine are not all compiled yet, so
that a command's first use of a loop finds it on disk (MDAV's take about 25 s to compile).
``ATTACK_BACKGROUND_COMPILE=0`` turns this off; ``python -m attack._precompile`` does the same
in the foreground.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:           # imported when a process is started (importing the package stays quick)
    import subprocess

PACKAGE = Path(__file__).resolve().parent
#: The modules with compiled loops (tests/test_loops.py checks that this list is complete).
KERNEL_MODULES = ("linkage/compiled.py", "linkage/fs_candidates.py", "linkage/shortest_path.py",
                  "protect/mdav_index.py", "protect/suppression.py",
                  "synthetic_attacks/anonymeter.py")
#: Set in the background process (and its workers), which must not start another.
BACKGROUND = "ATTACK_COMPILING_IN_BACKGROUND"
SWITCH = "ATTACK_BACKGROUND_COMPILE"
LOCK = "precompile.lock"


def cache_folder() -> Path:
    """The per-user folder of the package's compiled loops."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    return base / "attack" / "numba"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def module_folder(source: str | Path) -> Path:
    """The subfolder of :func:`cache_folder` for the loops of the module in ``source``: named
    after the module's place in the package and its content, not after where it is installed."""
    source = Path(source).resolve()
    try:
        name = ".".join(source.relative_to(PACKAGE).with_suffix("").parts)
    except ValueError:          # a module outside the package (the tests' probes)
        name = source.stem
    return cache_folder() / f"{name}-{_digest(source)[:16]}"


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)`` with the machine code kept in :func:`module_folder` (or in
    ``NUMBA_CACHE_DIR`` when the user set it); in memory when neither can be written."""
    import numba

    def decorate(function: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**options)(function)
        try:
            # what Dispatcher.enable_caching does, with the package's folder
            dispatcher._cache = _function_cache()(function)
        except RuntimeError:    # numba: "no locator available", no folder can be written
            pass
        return dispatcher

    return decorate


def njit_inner(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """:func:`njit` for a loop called only by other compiled loops: kept on disk like the others,
    but without the wrappers that let Python call it (a good part of compiling a small loop);
    ``options`` are numba's (``fastmath=...``)."""
    return njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, **options)


def _function_cache() -> type:
    """numba's function cache, looking first in ``NUMBA_CACHE_DIR`` (when set), then in
    :func:`module_folder`. Defined on first use: it subclasses numba's classes."""
    global _FUNCTION_CACHE
    if _FUNCTION_CACHE is None:
        from numba.core import caching

        class PackageFolderLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
            def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
                self._py_file = py_file
                self._lineno = py_func.__code__.co_firstlineno
                self._cache_path = str(module_folder(py_file))

            def get_cache_path(self) -> str:
                return self._cache_path

        class PackageCacheImpl(caching.CompileResultCacheImpl):
            _locator_classes = [caching.UserProvidedCacheLocator, PackageFolderLocator]

        class PackageFunctionCache(caching.FunctionCache):
            _impl_class = PackageCacheImpl

        _FUNCTION_CACHE = PackageFunctionCache
    return _FUNCTION_CACHE


_FUNCTION_CACHE: type | None = None


def compiled_key() -> str:
    """What the compiled loops depend on: the kernel modules' text, numba (its installed file),
    Python, the machine (and ``NUMBA_CACHE_DIR`` with the installation's path, which numba then
    keys by). Quick: it runs on every import of the package."""
    spec = importlib.util.find_spec("numba")
    numba_file = spec.origin if spec is not None and spec.origin else ""
    stat = os.stat(numba_file) if numba_file else None
    numba_stamp = f"{numba_file} {stat.st_size} {stat.st_mtime_ns}" if stat else "none"
    machine = " ".join(os.uname()) if hasattr(os, "uname") else sys.platform
    user_folder = os.environ.get("NUMBA_CACHE_DIR", "")
    parts = [numba_stamp, sys.version, machine, user_folder, str(PACKAGE) if user_folder else "",
             *(_digest(PACKAGE / module) for module in KERNEL_MODULES)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def done_marker(key: str) -> Path:
    """The file the background compile writes when every loop for ``key`` is on disk."""
    return cache_folder() / f"compiled-{key}"


def start_background_compile() -> subprocess.Popen[bytes] | None:
    """Start ``attack._precompile`` in a detached low-priority process unless every loop is
    compiled already, another process is compiling them, the switch is off, or this is that
    process. Never raises: a failure only means that loops compile on first use."""
    if os.environ.get(BACKGROUND) or os.environ.get(SWITCH) == "0":
        return None
    try:
        if done_marker(compiled_key()).exists():
            return None
        with compile_lock(wait=False) as free:
            if not free:
                return None
        import subprocess

        code = ("import sys; sys.path.insert(0, sys.argv[1]); "
                "from attack._precompile import main; main(background=True)")
        return subprocess.Popen([sys.executable, "-c", code, str(PACKAGE.parent)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True,
                                env={**os.environ, BACKGROUND: "1"})
    except (OSError, RuntimeError):  # no (writable) cache folder or home, no process: the
        return None                   # loops compile on first use


@contextmanager
def compile_lock(wait: bool) -> Iterator[bool]:
    """Hold the lock of the compile into :func:`cache_folder` (created if need be); yields
    whether this process got it (without waiting unless ``wait``). Platforms without
    ``fcntl`` never get it, so no background compile starts there."""
    try:
        import fcntl
    except ImportError:
        yield False
        return
    folder = cache_folder()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
