"""``attack ui``: serve the web interface on this machine and open it in the browser. A public
module of the optional ui extra: the command line starts the interface through ``serve``."""

from __future__ import annotations

import ipaddress
import socket
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from attack.ui.app import create_app, new_token
from attack.ui.session import Session

#: The only address served unless another is asked for explicitly.
LOOPBACK = "127.0.0.1"


@dataclass
class Served:
    """A UI server bound to its socket: the address to open, and how to run or stop it."""

    url: str
    server: uvicorn.Server
    sock: socket.socket

    def run(self) -> None:
        """Serve until stopped (Ctrl-C)."""
        self.server.run(sockets=[self.sock])

    def stop(self) -> None:
        self.server.should_exit = True


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(scenario: str | Path, *, host: str = LOOPBACK, port: int = 0) -> Served:
    """A server for the scenario file ``scenario`` (opened or made), bound to ``host``:``port``
    (port 0: a free one), with a new session token in its address."""
    session = Session.open(scenario)  # a scenario file that cannot be read ends here, before any socket
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    bound = sock.getsockname()[1]
    token = new_token()
    name = f"[{host}]" if ":" in host else host
    hosts = frozenset({f"{name}:{bound}", f"localhost:{bound}"}) if is_loopback(host) else None
    app = create_app(session, token, hosts)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    return Served(f"http://{name}:{bound}/?token={token}", uvicorn.Server(config), sock)


def serve(scenario: str | Path, *, host: str = LOOPBACK, port: int = 0, open_browser: bool = True,
          say: Callable[[str], None] = print) -> None:
    """Serve the UI until Ctrl-C; print its address and open it unless ``open_browser`` is false."""
    served = bind(scenario, host=host, port=port)
    say(f"attack ui: {served.url}")
    say("keep this address to yourself: it carries the session token; Ctrl-C ends the UI")
    if open_browser:
        webbrowser.open(served.url)
    served.run()


__all__ = ["LOOPBACK", "Served", "bind", "is_loopback", "serve"]
