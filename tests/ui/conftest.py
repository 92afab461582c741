"""A UI server in a thread of the test process, on a scenario file in a temporary folder."""

from __future__ import annotations

import threading
import time

import pytest

# The UI is an optional extra: the README's test command runs without it. CI installs it
# afterwards and runs this folder alone (.ci/run), where collecting no test fails the run.
_MISSING = [name for name in ("starlette", "uvicorn", "multipart", "httpx")
            if __import__("importlib").util.find_spec(name) is None]
#: Without the extra, the test files of this folder are not collected (nothing to import them with).
collect_ignore_glob = ["test_*.py"] if _MISSING else []


@pytest.fixture
def served(tmp_path):
    """A running UI on ``tmp_path/scenario.toml``; stopped after the test."""
    from attack.ui.server import bind

    server = bind(tmp_path / "scenario.toml")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.server.started:
            break
        time.sleep(0.05)
    yield server
    server.stop()
    thread.join(10)
