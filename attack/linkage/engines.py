"""Engines that solve independent blocks: in this process, on local cores, or on Dask.

Blocks never interact (METHOD.md §7.2: pairs of different blocks never conflict), so they can
be solved in any order and on any worker; results are returned in task order, which keeps the
output identical whatever the engine and the number of jobs.

``local`` solves the blocks in this process (``jobs=1``) or in a pool of worker processes
(``jobs`` > 1, or ``None`` for all cores); a run whose blocks hold fewer than
:data:`PARALLEL_MIN_CELLS` pairs in all stays in this process, where it is faster. ``dask``
sends the blocks to a Dask cluster (the optional extra ``attack[dask]``): the one at
``scheduler``, or a local cluster of worker processes started for the run and closed after it.

Workers receive only their blocks' data; ``func`` and the tasks must be picklable top-level
objects (as :func:`attack.solvers.solve_block` and :class:`attack.solvers.BlockTask` are), so
the same code runs under the ``spawn`` and ``forkserver`` start methods. Large blocks are
handed out first so that a long block does not start last; small ones travel in groups
(:data:`CHUNK_CELLS`), and only a few groups per worker are in flight at a time.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TypeVar

from attack.errors import InputError

T = TypeVar("T")
R = TypeVar("R")

ENGINES: tuple[str, ...] = ("local", "dask")

DASK_MISSING = "the dask engine needs the optional extra: pip install 'attack[dask]'"

#: Below this many pairs (``n_ext · n_rel`` summed over the blocks, one to three seconds of
#: work on one core) the local engine solves every block in this process: starting worker
#: processes (about a second, most of it importing the solvers) would eat up the gain.
PARALLEL_MIN_CELLS = 20_000_000

#: Blocks smaller than this many pairs are sent to the workers in groups of about this size.
CHUNK_CELLS = 250_000

#: Work units queued per worker process beyond the one it is solving: keeps the workers busy while
#: bounding the pickled block data held by the pool at once.
_QUEUED_PER_WORKER = 2


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
        to import :mod:`attack`.
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
    bar = _Progress(len(tasks)) if progress and _is_terminal() else None
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


def _size(task) -> int | None:
    """``n_ext · n_rel`` of a task's block, None when the task does not say."""
    try:
        n_ext, n_rel = task.model.sizes
        return int(n_ext) * int(n_rel)
    except (AttributeError, TypeError, ValueError):
        return None


def _chunks(tasks: Sequence) -> list[list[int]]:
    """Task positions in work units for the workers, largest blocks first.

    A block of at least :data:`CHUNK_CELLS` pairs is a unit of its own; smaller ones are grouped
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


def _small(tasks: Sequence) -> bool:
    """True when every task has a size and all of them together are below
    :data:`PARALLEL_MIN_CELLS`: starting workers would take longer than solving here."""
    sizes = [_size(task) for task in tasks]
    return all(s is not None for s in sizes) and sum(sizes) < PARALLEL_MIN_CELLS


def solve_chunk(func: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
    """Apply ``func`` to the tasks of one work unit (runs on a worker)."""
    return [func(task) for task in tasks]


def _place(results: list, unit: list[int], solved: list, bar: _Progress | None) -> None:
    for index, result in zip(unit, solved):
        results[index] = result
    if bar is not None:
        bar.step(len(unit))


# --------------------------------------------------------------------------------------------
# local


def _map_local(func, tasks: list, jobs: int | None, bar: _Progress | None) -> list:
    units = _chunks(tasks)
    workers = min(jobs or default_jobs(), len(units))
    if workers < 2 or _small(tasks):
        results = []
        for task in tasks:
            results.append(func(task))
            if bar is not None:
                bar.step()
        return results

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


def _submit(executor, func, tasks, pending, running: dict, count: int) -> None:
    """Hand up to ``count`` more work units to the pool."""
    for _ in range(count):
        unit = next(pending, None)
        if unit is None:
            return
        running[executor.submit(solve_chunk, func, [tasks[i] for i in unit])] = unit


def _mp_context():
    """``forkserver`` where the platform has it (safe in a process with threads, and workers
    are forked from a server that has already imported the solvers), else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["attack.linkage.solvers"])
        return context
    return multiprocessing.get_context("spawn")


# --------------------------------------------------------------------------------------------
# dask


def _map_dask(func, tasks: list, jobs: int | None, scheduler: str | None, bar) -> list:
    try:
        from dask import distributed
    except ImportError as exc:
        raise InputError(DASK_MISSING) from exc
    if not tasks:
        return []
    results: list = [None] * len(tasks)
    pending = iter(_chunks(tasks))
    running: dict = {}  # future key -> (future, unit)

    def submit(client) -> object | None:
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

    def __init__(self, distributed, jobs: int | None, scheduler: str | None) -> None:
        self.distributed = distributed
        self.jobs = jobs
        self.scheduler = scheduler
        self.cluster = None
        self.client = None

    def __enter__(self):
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

    def __exit__(self, *exc) -> None:
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


class _Progress:
    """One line on stderr, rewritten as blocks finish: ``blocks 12/340 (4%), 0:05 elapsed``."""

    #: Seconds between redraws (the last block always redraws).
    INTERVAL = 0.1

    def __init__(self, total: int, stream=None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.drawn = 0.0
        self.shown = False

    def step(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self.done == self.total or now - self.drawn >= self.INTERVAL:
            self.drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        share = self.done / self.total if self.total else 1.0
        minutes, seconds = divmod(int(now - self.start), 60)
        elapsed = f"{minutes}:{seconds:02d}"
        self.stream.write(f"\rblocks {self.done}/{self.total} ({share:.0%}), {elapsed} elapsed")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
