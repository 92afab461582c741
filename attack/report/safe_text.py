"""Text that cannot lie: what a report shows is what it says.

A bidirectional control character (U+202A–U+202E embeddings and overrides, U+2066–U+2069
isolates, U+200E/U+200F marks, U+061C the Arabic letter mark) changes the order in which the
characters around it are displayed: a title ``"Release \u202eDESSAP TON"`` displays as
"Release NOT PASSED". Every string a report shows — titles, column and category names, values,
file names, in HTML (and so the board report and the PDF), Markdown, the terminal and the UI —
has each such character replaced by its visible name (``[U+202E]``), so it displays in the order
it is stored. A link in a report is written only for an ``https:`` or ``http:`` address or a
relative one; any other scheme (``javascript:``, ``data:``, ``file:``) is refused. What a
command prints on standard output (summaries, reports) has the other control characters made
visible too: an escape sequence or a lone carriage return would let a terminal overwrite what
was printed. Standard error keeps them for the progress bar, so the lines the tool itself
writes there (errors, notices, notes) are filtered one by one.
"""

from __future__ import annotations

import io
import re
from typing import Any
from urllib.parse import urlsplit

from markupsafe import Markup

from attack.errors import InputError

#: The bidirectional control characters.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_BIDI = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")
#: The schemes a report may link to (a relative address has none).
LINK_SCHEMES = ("https", "http")
#: Control characters a terminal acts on (escape sequences, carriage return, backspace, C1),
#: besides tab and line feed (a carriage return before a line feed is a line end).
_TERMINAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def visible_controls(text: str) -> str:
    """``text`` with every bidirectional control character replaced by its visible name."""
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def shown(value: Any) -> Any:
    """A value as a template shows it: strings (escaped or safe markup alike) with their
    bidirectional controls made visible; anything else as it is (the ``finalize`` of every
    template environment)."""
    if isinstance(value, Markup):
        return Markup(visible_controls(str(value)))
    if isinstance(value, str):
        return visible_controls(value)
    return value


def checked_url(url: str, what: str = "--docs") -> str:
    """``url`` when a report may link to it (``https:``, ``http:`` or a relative address without
    control characters or spaces); else an ``InputError`` naming ``what``."""
    if any(ord(c) < 0x21 or ord(c) == 0x7f or c in BIDI_CONTROLS for c in url):
        raise InputError(f"expected an https:, http: or relative address, got {visible_controls(url)!r} "
                         "(it holds spaces or control characters)", field=what)
    scheme = urlsplit(url).scheme.lower()
    if scheme and scheme not in LINK_SCHEMES or url.startswith(":"):
        raise InputError(f"expected an https:, http: or relative address, got the scheme {scheme or ':'!r} "
                         f"({url[:40]!r}); a report links only to https:, http: or relative addresses", field=what)
    return url


def terminal_text(text: str) -> str:
    """``text`` as standard output shows it: bidirectional and terminal controls made visible."""
    return _TERMINAL.sub(lambda m: f"[U+{ord(m.group()):04X}]", visible_controls(text))


class VisibleControls(io.TextIOBase):
    """A text stream that writes to ``target`` with the bidirectional controls made visible
    (the terminal: everything a command prints goes through it), and with ``terminal`` (standard
    output) every other control a terminal acts on."""

    def __init__(self, target: Any, terminal: bool = False) -> None:
        self.target = target
        self._shown = terminal_text if terminal else visible_controls

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target, "errors", None)

    def write(self, text: str) -> int:
        self.target.write(self._shown(text))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())

    def fileno(self) -> int:
        return int(self.target.fileno())
