"""Long runs in the background: an ``attack`` command in a child process, with progress and cancel.

A run from the UI is the command line's run: the same command on the same scenario file, so
its figures, files, messages and exit status are those of ``attack run``. The child writes its
progress bars to a pseudo-terminal (where the platform has one), which is read for the bar
shown in the page; cancelling ends the child, and the command's atomic writes leave no
partial file behind.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: tqdm's "blocks:  45%|####      | 9/20": the stage and the share done.
_BAR = re.compile(r"([A-Za-z][\w ]*?):\s+(\d{1,3})%\|")
#: The one line the command line prints for a usage or input error.
ERROR_PREFIX = "attack: error: "
#: Exit status of the command line: 0 passed, 1 not passed, 2 usage or input error, 3 (verify)
#: not checked: inputs outside the certificate's folder were not opened.
OUTCOMES = {0: "passed", 1: "not passed", 2: "error", 3: "not checked"}


@dataclass
class Job:
    """One ``attack`` command running (or run) in the background."""

    kind: str
    arguments: tuple[str, ...]
    cwd: Path
    outputs: dict[str, Path] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    returncode: int | None = None
    cancelled: bool = False
    started: float = 0.0
    finished: float | None = None
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self) -> Job:
        """Start the command; returns at once."""
        read_fd, write_fd = _terminal()
        self._process = subprocess.Popen(
            [sys.executable, "-m", "attack", *self.arguments], cwd=self.cwd,
            env={**os.environ, **self.env},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=write_fd,
        )
        os.close(write_fd)
        self.started = time.monotonic()
        threading.Thread(target=self._collect, args=(read_fd,), daemon=True).start()
        return self

    def _collect(self, read_fd: int) -> None:
        assert self._process is not None and self._process.stdout is not None
        reader = threading.Thread(target=self._read_stdout, daemon=True)
        reader.start()
        while True:
            try:
                chunk = os.read(read_fd, 4096)
            except OSError:  # the terminal closes when the child has ended
                break
            if not chunk:
                break
            with self._lock:
                self.stderr += chunk.decode("utf-8", "replace")
        os.close(read_fd)
        reader.join()
        code = self._process.wait()
        with self._lock:
            self.returncode = code
            self.finished = time.monotonic()

    def _read_stdout(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        data = self._process.stdout.read()
        with self._lock:
            self.stdout = data.decode("utf-8", "replace")

    @property
    def running(self) -> bool:
        return self.returncode is None and self._process is not None

    def cancel(self) -> None:
        """End the command (its outputs are written all at once or not at all)."""
        if self._process is not None and self.returncode is None:
            self.cancelled = True
            self._process.terminate()

    def messages(self) -> list[str]:
        """The command's lines on stderr, progress bars left out."""
        with self._lock:
            text = self.stderr
        lines = [part.rsplit("\r", 1)[-1].strip() for part in text.replace("\r\n", "\n").split("\n")]
        return [line for line in lines if line and not _BAR.search(line)]

    def error(self) -> str | None:
        """The command's error line, as the command line words it."""
        for line in self.messages():
            if line.startswith(ERROR_PREFIX):
                return line[len(ERROR_PREFIX):]
        return None

    def status(self) -> dict[str, Any]:
        """What the page shows: running or done, the bar, the outcome."""
        with self._lock:
            text = self.stderr
        bars = _BAR.findall(text)
        stage, percent = bars[-1] if bars else ("", None)
        started = sum(1 for _, share in bars if share == "0")  # one bar per attack
        if started > 1:
            stage = f"{stage.strip()}, attack {started}"
        elapsed = (self.finished or time.monotonic()) - self.started
        return {
            "kind": self.kind,
            "running": self.running,
            "stage": stage.strip(),
            "percent": None if percent is None else int(percent),
            "seconds": round(elapsed, 1),
            "returncode": self.returncode,
            # attack verify's usage error for inputs outside the certificate's folder (--root)
            "not_checked": self.kind == "verify" and ": NOT CHECKED: " in text,
            "outcome": "cancelled" if self.cancelled else OUTCOMES.get(self.returncode or 0, "error")
            if self.returncode is not None else None,
        }


def _terminal() -> tuple[int, int]:
    """A pseudo-terminal (so that the child draws its progress bars) or, without one, a pipe."""
    if not hasattr(os, "openpty"):
        return os.pipe()
    import fcntl
    import struct
    import termios

    read_fd, write_fd = os.openpty()
    # a new terminal is 0 columns wide, and a progress bar drawn in 0 columns is empty
    fcntl.ioctl(write_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    return read_fd, write_fd


def run_arguments(scenario: Path, folder: Path, *, matches: bool, key: Path | None,
                  passphrase: bool = True, records: bool = False) -> tuple[list[str], dict[str, Path]]:
    """The ``attack run`` command of a UI run and the files it writes into ``folder``; with
    ``key`` it signs, reading the key's passphrase (when ``passphrase``) from the environment;
    ``records`` adds the risk of every release record (record-level, owner-only)."""
    stem = scenario.stem
    outputs = {
        "json": folder / f"{stem}.json",
        "html": folder / f"{stem}.html",
        "certificate": folder / f"{stem}.certificate.json",
        "certificate_html": folder / f"{stem}.certificate.html",
    }
    arguments = ["run", str(scenario), "--json", str(outputs["json"]), "--html", str(outputs["html"]),
                 "--certificate", str(outputs["certificate"])]
    if matches:
        outputs["matches"] = folder / f"{stem}.links.csv"
        arguments += ["--matches", str(outputs["matches"])]
    if records:
        outputs["records"] = folder / f"{stem}.records.csv"
        arguments += ["--records", str(outputs["records"])]
    if key is not None:
        arguments += ["--sign", str(key)]
        if passphrase:
            arguments += ["--passphrase-env", PASSPHRASE_VARIABLE]
    return arguments, outputs


def tune_arguments(scenario: Path, folder: Path) -> tuple[list[str], dict[str, Path]]:
    """The ``attack tune`` command of a UI run and the files it writes into ``folder``."""
    outputs = {"json": folder / f"{scenario.stem}.tune.json", "html": folder / f"{scenario.stem}.tune.html"}
    return ["tune", str(scenario), "--json", str(outputs["json"]), "--html", str(outputs["html"])], outputs


def remedy_arguments(scenario: Path, folder: Path) -> tuple[list[str], dict[str, Path]]:
    """The ``attack remedy`` command of a UI run and the file it writes into ``folder`` (the JSON,
    aggregates only; the remedied release only where the scenario's [remedy] table names it)."""
    outputs = {"json": folder / f"{scenario.stem}.remedy.json"}
    return ["remedy", str(scenario), "--json", str(outputs["json"])], outputs


def verify_arguments(certificate: Path, public_key: Path | None, mode: str, root: Path | None = None) -> list[str]:
    """The ``attack verify`` command: ``mode`` is offline, inputs (the default) or rerun; ``root``
    the folder the inputs may lie in (the UI gives the scenario's folder, which holds the
    reports/ folder its runs write certificates into and the inputs one level up)."""
    arguments = ["verify", str(certificate)]
    if root is not None and mode != "offline":
        arguments += ["--root", str(root)]
    if public_key is not None:
        arguments += ["--public-key", str(public_key)]
    if mode in ("offline", "rerun"):
        arguments.append(f"--{mode}")
    return arguments


#: The environment variable that hands a private key's passphrase to the signing child.
PASSPHRASE_VARIABLE = "ATTACK_UI_PASSPHRASE"


def once(arguments: Sequence[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run a short ``attack`` command (``inspect``) and wait for it."""
    return subprocess.run([sys.executable, "-m", "attack", *arguments], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)
