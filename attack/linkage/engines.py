"""Engines that solve independent blocks: in this process, on local cores, or on Dask.

Blocks never interact (docs/method/linkage.md: pairs of different blocks never conflict), so they can
be solved in any order and on any worker; results are returned in task order, which keeps the
output identical whatever the engine and the number of jobs.

``local`` solves the blocks in this process (``jobs=1``) or in a pool of worker processes
(``jobs`` > 1, or ``None`` for all cores); a run whose blocks are estimated to take less than
``PARALLEL_MIN_SECONDS`` on one core stays in this process, where it is faster. ``dask``
sends the blocks to a Dask cluster (the optional extra ``attack[dask]``): the one at
``scheduler``, or a local cluster of worker processes started for the run and closed after it.

Workers receive only their blocks' data; ``func`` and the tasks must be picklable top-level
objects (as ``attack.solvers.solve_block`` and ``attack.solvers.BlockTask`` are), so
the same code runs under the ``spawn`` and ``forkserver`` start methods. Large blocks are
handed out first so that a long block does not start last; small ones travel in groups
(``CHUNK_CELLS``), and only a few groups per worker are in flight at a time.
"""

from __future__ import annotations

import importlib.util
import math
import multiprocessing
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing.context import BaseContext
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, field_validator

from attack.errors import InputError
from attack.io.strict import SettingsModel
from attack.linkage.limits import DENSE_PAIRS, GREEDY_DENSE_PAIRS

T = TypeVar("T")
R = TypeVar("R")

ENGINES: tuple[str, ...] = ("local", "dask")

DASK_MISSING = "the dask engine needs the optional extra: pip install 'attack[dask]'"

#: Below this many estimated seconds of solving on one core (``estimated_seconds``, summed
#: over the blocks) the local engine solves every block in this process: starting worker
#: processes and sending them the data takes about a second here, so with two workers fanning
#: out pays only well beyond twice that (measured: benchmarks/bench_jobs.py).
PARALLEL_MIN_SECONDS = 6.0

#: Seconds per pair of a dense block of a greedy, sequential or nearest method, per record of a
#: block solved through the KD-tree candidates, per pair × min(n_ext, n_rel) of a dense exact
#: block, and per (n_ext + n_rel)² of a sparse exact block — measured on this project's 2-core
#: machine (benchmarks/bench_jobs.py, benchmarks/bench_scale.py).
SECONDS_PER_DENSE_PAIR = 3e-8
SECONDS_PER_TREE_RECORD = 2.5e-6
SECONDS_PER_EXACT_UNIT = 5e-12
SECONDS_PER_SPARSE_EXACT = 3e-9

#: Blocks smaller than this many pairs are sent to the workers in groups of about this size.
CHUNK_CELLS = 250_000

#: Work units queued per worker process beyond the one it is solving: keeps the workers busy while
#: bounding the pickled block data held by the pool at once.
_QUEUED_PER_WORKER = 2


_SIZE_UNITS = {
    "": 1, "b": 1,
    "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2,
    "g": 1024**3, "gib": 1024**3, "t": 1024**4, "tib": 1024**4,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][0-9]+)?)\s*([a-zA-Z]*)\s*")


def parse_size(value: str | int) -> int:
    """A memory size in bytes from ``2GiB``, ``512MiB``, ``1.5GB``, ``4096`` or an integer.

    Binary units: ``KiB``, ``MiB``, ``GiB``, ``TiB`` (also ``K``, ``M``, ``G``, ``T``); decimal
    units: ``kB``, ``MB``, ``GB``, ``TB``; case does not matter. The size must be at least 1 byte.
    """
    bad = InputError(f"memory size {value!r}: expected bytes or a size like 2GiB or 512MiB")
    if isinstance(value, bool):
        raise bad
    if isinstance(value, int):
        size = value
    else:
        match = _SIZE.fullmatch(str(value))
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _SIZE_UNITS:
            raise bad
        number = float(match.group(1)) * _SIZE_UNITS[unit]
        if not math.isfinite(number):
            raise bad
        size = int(number)
    if size < 1:
        raise InputError(f"memory size {value!r}: must be at least 1 byte")
    return size


class Engine(SettingsModel):
    """How the blocks of an attack are solved; never changes a figure.

    ``name`` is ``local`` (this process or a pool of ``jobs`` worker processes) or ``dask`` (the
    cluster at ``scheduler``, or a local one of ``jobs`` workers); ``memory_budget`` caps the
    memory of the exact solver per block (bytes or a size such as ``"2GiB"``). None leaves the
    choice to the next level: the command line over the scenario's ``[engine]`` table over the
    defaults (local engine, all cores, the solvers' default budget).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Literal["local", "dask"] | None = Field(default=None, description="Engine: local or dask.")
    jobs: int | None = Field(default=None, ge=1, strict=True, description="Worker processes (default: all cores).")
    scheduler: str | None = Field(default=None, min_length=1, description="Dask scheduler address, e.g. tcp://host:8786.")
    memory_budget: int | str | None = Field(default=None, description="Bytes, or a size such as 2GiB or 512MiB.")

    @field_validator("memory_budget", mode="before")
    @classmethod
    def _size(cls, value: Any) -> Any:
        try:
            return None if value is None else parse_size(value)
        except InputError as exc:
            raise ValueError(exc.message) from None

    def fixed(self) -> dict[str, Any]:
        """The entries this setting fixes (None entries are left to the next level)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


def default_jobs() -> int:
    """The number of jobs used when none is given: all cores of this machine."""
    return os.cpu_count() or 1


def map_blocks(
    func: Callable[[T], R],
    tasks: Sequence[T],
    engine: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> list[R]:
    """Apply ``func`` to every task and return the results in task order.

    Parameters
    ----------
    func, tasks:
        Picklable top-level function and tasks (one block each). A task with ``model.sizes``
        (``(n_ext, n_rel)``) is scheduled by its size ``n_ext · n_rel``, largest first.
    engine:
        ``"local"`` or ``"dask"`` (see the module docstring).
    jobs:
        Worker processes: ``None`` for all cores, 1 to solve every block in this process. With
        ``engine="dask"`` and no ``scheduler``, the number of workers of the local cluster.
    scheduler:
        Address of a running Dask scheduler (``engine="dask"`` only); its workers must be able
        to import ``attack``.
    progress:
        Print a progress line per finished block on stderr, if stderr is a terminal.
    """
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise InputError(f"jobs must be a whole number of at least 1, got {jobs!r}")
    if scheduler is not None and engine != "dask":
        raise InputError("a scheduler address needs the dask engine")
    tasks = list(tasks)
    bar = progress_bar(len(tasks), progress)
    try:
        if engine == "dask":
            return _map_dask(func, tasks, jobs, scheduler, bar)
        return _map_local(func, tasks, jobs, bar)
    finally:
        if bar is not None:
            bar.close()


# --------------------------------------------------------------------------------------------
# scheduling


def largest_first(tasks: Sequence) -> list[int]:
    """Task positions ordered by block size ``n_ext · n_rel``, largest first (ties and tasks
    without a size keep their order; tasks without a size come last)."""
    return sorted(range(len(tasks)), key=lambda i: -(_size(tasks[i]) or 0))


def _size(task: Any) -> int | None:
    """``n_ext · n_rel`` of a task's block, None when the task does not say."""
    try:
        n_ext, n_rel = task.model.sizes
        return int(n_ext) * int(n_rel)
    except (AttributeError, TypeError, ValueError):
        return None


def _chunks(tasks: Sequence) -> list[list[int]]:
    """Task positions in work units for the workers, largest blocks first.

    A block of at least ``CHUNK_CELLS`` pairs is a unit of its own; smaller ones are grouped
    until a unit reaches that many pairs, so that thousands of tiny blocks do not each pay the
    cost of a round trip to a worker. Tasks without a size are units of their own.
    """
    units: list[list[int]] = []
    current: list[int] = []
    cells = 0
    for index in largest_first(tasks):
        size = _size(tasks[index])
        if size is None:
            units.append([index])
            continue
        current.append(index)
        cells += size
        if cells >= CHUNK_CELLS:
            units.append(current)
            current, cells = [], 0
    if current:
        units.append(current)
    return units


def estimated_seconds(task: Any) -> float | None:
    """Seconds one core needs for a task's block, from its size and method (None when the task
    says neither): dense blocks grow with their pairs, KD-tree blocks with their records, exact
    blocks with pairs × the smaller side while dense, with the squared records when sparse."""
    pairs = _size(task)
    if pairs is None:
        return None
    n_ext, n_rel = (int(n) for n in task.model.sizes)
    if getattr(task, "method", None) == "hungarian":
        if pairs > DENSE_PAIRS:
            return (n_ext + n_rel) ** 2 * SECONDS_PER_SPARSE_EXACT
        return pairs * min(n_ext, n_rel) * SECONDS_PER_EXACT_UNIT
    greedy_bound = getattr(task, "greedy_dense_pairs", None) or GREEDY_DENSE_PAIRS
    dense = min(DENSE_PAIRS, greedy_bound) if getattr(task, "method", None) == "greedy" else DENSE_PAIRS
    if pairs <= dense:
        return pairs * SECONDS_PER_DENSE_PAIR
    return (n_ext + n_rel) * SECONDS_PER_TREE_RECORD


def _quick(tasks: Sequence) -> bool:
    """True when every task can be estimated and all together take less than
    ``PARALLEL_MIN_SECONDS``: starting workers would take longer than solving here."""
    seconds = [estimated_seconds(task) for task in tasks]
    known = [s for s in seconds if s is not None]
    return len(known) == len(seconds) and sum(known) < PARALLEL_MIN_SECONDS


def solve_chunk(func: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
    """Apply ``func`` to the tasks of one work unit (runs on a worker)."""
    return [func(task) for task in tasks]


def _place(results: list, unit: list[int], solved: list, bar: Any) -> None:
    for index, result in zip(unit, solved, strict=True):
        results[index] = result
    if bar is not None:
        bar.update(len(unit))


# --------------------------------------------------------------------------------------------
# local


def _map_local(func: Callable[[Any], Any], tasks: list, jobs: int | None, bar: Any) -> list:
    units = _chunks(tasks)
    workers = min(jobs or default_jobs(), len(units))
    if workers < 2 or _quick(tasks):
        solved = []
        for task in tasks:
            solved.append(func(task))
            if bar is not None:
                bar.update()
        return solved

    results: list = [None] * len(tasks)
    pending = iter(units)
    running: dict[Future, list[int]] = {}
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context())
    try:
        _submit(executor, func, tasks, pending, running, workers * (1 + _QUEUED_PER_WORKER))
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                _place(results, running.pop(future), future.result(), bar)
            _submit(executor, func, tasks, pending, running, len(done))
    except BaseException:
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
    return results


def _submit(executor: ProcessPoolExecutor, func: Callable[[Any], Any], tasks: Sequence[Any],
            pending: Iterator[list[int]], running: dict, count: int) -> None:
    """Hand up to ``count`` more work units to the pool."""
    for _ in range(count):
        unit = next(pending, None)
        if unit is None:
            return
        running[executor.submit(solve_chunk, func, [tasks[i] for i in unit])] = unit


def _mp_context() -> BaseContext:
    """``forkserver`` where the platform has it (safe in a process with threads, and workers
    are forked from a server that has already imported the solvers and loaded their compiled
    kernels: ``attack.linkage.worker``), else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["attack.linkage.worker"])
        return context
    return multiprocessing.get_context("spawn")


# --------------------------------------------------------------------------------------------
# dask


def _map_dask(func: Callable[[Any], Any], tasks: list, jobs: int | None, scheduler: str | None, bar: Any) -> list:
    try:
        from dask import distributed
    except ImportError as exc:
        raise InputError(DASK_MISSING) from exc
    if not tasks:
        return []
    results: list = [None] * len(tasks)
    pending = iter(_chunks(tasks))
    running: dict = {}  # future key -> (future, unit)

    def submit(client: Any) -> Any:
        unit = next(pending, None)
        if unit is None:
            return None
        future = client.submit(solve_chunk, func, [tasks[i] for i in unit], pure=False)
        running[future.key] = (future, unit)
        return future

    with _dask_client(distributed, jobs, scheduler) as client:
        slots = max(1, sum(client.nthreads().values())) * (1 + _QUEUED_PER_WORKER)
        first = [submit(client) for _ in range(slots)]
        queue = distributed.as_completed([f for f in first if f is not None], with_results=True)
        try:
            for future, solved in queue:
                _place(results, running.pop(future.key)[1], solved, bar)
                following = submit(client)
                if following is not None:
                    queue.add(following)
        finally:
            if running:
                client.cancel([future for future, _ in running.values()])
    return results


class _dask_client:
    """A client of the cluster at ``scheduler``, or of a local cluster started (and closed)
    here with ``jobs`` single-threaded worker processes on the loopback interface."""

    def __init__(self, distributed: Any, jobs: int | None, scheduler: str | None) -> None:
        self.distributed = distributed
        self.jobs = jobs
        self.scheduler = scheduler
        self.cluster: Any = None
        self.client: Any = None

    def __enter__(self) -> Any:
        if self.scheduler is not None:
            try:
                self.client = self.distributed.Client(self.scheduler)
            except (OSError, TimeoutError) as exc:
                raise InputError(
                    f"cannot reach the Dask scheduler at {self.scheduler}: {exc}"
                ) from exc
            return self.client
        with warnings.catch_warnings():
            # The scheduler's status server moves to a free port when another cluster runs.
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            self.cluster = self.distributed.LocalCluster(
                n_workers=self.jobs or default_jobs(),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
        try:
            self.client = self.distributed.Client(self.cluster)
        except BaseException:
            self.cluster.close()
            raise
        return self.client

    def __exit__(self, *exc: object) -> None:
        try:
            if self.client is not None:
                self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


# --------------------------------------------------------------------------------------------
# progress


def _is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress_bar(total: int, enabled: bool, what: str = "blocks") -> Any:
    """A tqdm bar over ``total`` steps on a terminal or in a notebook; None when ``enabled`` is
    false or nobody would see it (stderr redirected to a file or a pipe)."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    in_notebook = any(c.__module__ == "tqdm.notebook" for c in tqdm.__mro__)
    if not enabled or not (_is_terminal() or in_notebook):
        return None
    if in_notebook and importlib.util.find_spec("ipywidgets") is None:
        from tqdm.std import (
            tqdm,  # a text bar, not the warning the widget bar gives without ipywidgets
        )
    return tqdm(total=total, desc=what, unit=what.rstrip("s"), file=sys.stderr, mininterval=0.1,
                leave=True)
