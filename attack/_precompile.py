"""Compile every numba loop of the package into its disk cache, by running each path that uses one
on toy data.

numba compiles a loop the first time it is called and keeps the machine code on disk
(``attack._loops``: a per-user folder, keyed by the module's content, the loop's argument types,
the processor and the numba version). The first import of the package starts this module in a
detached background process at the lowest priority (``main(background=True)``) when the loops
are not all there yet, so that a command's first use of a loop finds it compiled. Run it in the
foreground to compile everything at once (it waits for a background compile running meanwhile):
``python -m attack._precompile``.

Each step goes through the code a real run takes, so that the argument types are those of a
real run; a memory budget of 1 KiB sends every block to the solvers of large blocks.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from attack._loops import BACKGROUND, compile_lock, compiled_key, done_marker

TINY_BUDGET = "1KiB"   # every block "too large" for a dense matrix: the large-block solvers
UNITS = 600            # firms of the toy demo population


def _demo_links() -> None:
    """The demo's attacks with every assignment method, on small blocks and on "large" ones."""
    from attack.study.demo import demo_scenario

    for method in ("greedy", "hungarian", "sequential", "nearest"):
        for engine in ({"jobs": 1}, {"jobs": 1, "memory_budget": TINY_BUDGET}):
            demo_scenario(UNITS, 1, method).run(engine=engine)


def _fellegi_sunter() -> None:
    """A Fellegi–Sunter intruder (Procedure II on match levels), on small and "large" blocks."""
    import attack
    from attack.datasets.demo import demo_source

    release, uid = demo_source("formal", n_units=UNITS, seed=1)
    external, _ = demo_source("external:markus", n_units=UNITS, seed=1)
    for budget in (None, TINY_BUDGET):
        attack.mass_attack(external, release, original=release,
                           keys=["turnover:metric", "employees:metric", "nace:nominal"],
                           blocks=["bbr9"], cells=["east_west"], gammas=[0.1], tau=0.5,
                           external_id=uid, release_id=uid, intruder="fellegi-sunter",
                           engine={"jobs": 1, "memory_budget": budget})


def _microaggregation() -> None:
    """Joint MDAV (the compiled k-d tree searches) and local suppression."""
    import attack

    rng = np.random.default_rng(0)
    numbers = pd.DataFrame(rng.normal(size=(5000, 3)), columns=["a", "b", "c"])
    attack.protect(numbers, "mdav", {"k": 3}, columns=["a", "b", "c"])
    codes = pd.DataFrame(rng.integers(0, 4, size=(300, 3)), columns=["x", "y", "z"]).astype(str)
    attack.protect(codes, "local-suppression", {"k": 3}, columns=["x", "y", "z"])


def _singling_out() -> None:
    """The singling-out attack on synthetic data (its compiled scan of predicates)."""
    from attack.synthetic_attacks.anonymeter import singling_out

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.integers(0, 5, 300), "y": rng.normal(size=300).round(1),
                          "z": rng.integers(0, 3, 300)})
    for mode in ("univariate", "multivariate"):
        singling_out(frame.iloc[:100], frame.iloc[200:], frame.iloc[100:200], mode=mode,
                     n_attacks=50, max_attempts=20_000, seed=0)


STEPS: tuple[Callable[[], None], ...] = (_demo_links, _fellegi_sunter, _microaggregation,
                                         _singling_out)
#: Steps that share no compiled loop, run side by side by ``main`` (MDAV's loops take about as
#: long to compile as all the others).
LANES: tuple[tuple[Callable[[], None], ...], ...] = ((_microaggregation,),
                                                    (_demo_links, _fellegi_sunter, _singling_out))


def precompile(log: Callable[[str], None] = lambda line: None,
               steps: Sequence[Callable[[], None]] = STEPS) -> list[str]:
    """Run ``steps`` one after the other; ``log`` gets a line per step with its time. Returns
    the lines."""
    lines = []
    for step in steps:
        start = time.perf_counter()
        step()
        lines.append(f"{step.__name__.strip('_')}: {time.perf_counter() - start:.1f} s")
        log(lines[-1])
    return lines


def main(background: bool = False) -> None:
    """Every lane in a process of its own, as many at once as there are cores, under the
    compile lock; then the marker that every loop is on disk (``attack._loops.done_marker``).
    In the ``background`` (at the lowest priority) nothing is printed, and nothing is done when
    another process holds the lock or the marker is there."""
    os.environ[BACKGROUND] = "1"        # the workers start no background compile of their own
    if background and hasattr(os, "nice"):
        os.nice(19)
    key = compiled_key()
    with compile_lock(wait=not background) as held:
        if background and (not held or done_marker(key).exists()):
            return
        workers = max(1, min(len(LANES), os.cpu_count() or 1))
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for lines in pool.map(precompile, [_ignore] * len(LANES), LANES):
                for line in lines if not background else ():
                    print(line, file=sys.stderr)
        done_marker(key).touch()


def _ignore(line: str) -> None:
    """A logger for a worker process (its lines are printed by ``main``)."""


if __name__ == "__main__":
    main()
