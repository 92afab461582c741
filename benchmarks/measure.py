"""Running one benchmark case in its own process and measuring it.

The peak resident memory comes from ``wait4`` on the child, so it is that process's alone.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Measured:
    """What a child process printed, how long it took, its peak resident memory and its processor
    time (user + system; on shared cores a steadier measure of the work than the wall time)."""

    output: str
    seconds: float
    peak_mib: float
    failed: bool
    cpu_seconds: float = 0.0

    @property
    def peak_gib(self) -> float:
        return self.peak_mib / 1024


def run_child(command: list[str], capture: bool = True, ok: tuple[int, ...] = (0,)) -> Measured:
    """Run ``command`` to completion; wall time, stdout (when captured) and peak memory. An exit
    code outside ``ok`` counts as failed."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                            text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    output = proc.stdout.read().strip() if capture else ""
    failed = os.waitstatus_to_exitcode(status) not in ok
    return Measured(output, seconds, usage.ru_maxrss / 1024, failed, usage.ru_utime + usage.ru_stime)
