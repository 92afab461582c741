"""The one reader of documents read back: every guard, for JSON and TOML alike."""

from __future__ import annotations

import pytest

from attack.errors import InputError
from attack.io import readback

DEEP = 5000  # far beyond MAX_DEPTH and beyond Python's recursion limit

#: (format, content, what the error says): one bad document per guard and format.
BAD = [
    ("json", b'{"passed": false, "passed": true}', "the key 'passed' occurs twice"),
    ("json", b"[" * DEEP + b"]" * DEEP, "nested deeper than 64 levels"),
    ("json", b'{"a": ' * 70 + b"1" + b"}" * 70, "nested deeper than 64 levels"),
    ("json", b'{"tau": NaN}', "NaN is not a JSON number"),
    ("json", b'{"tau": -Infinity}', "-Infinity is not a JSON number"),
    ("json", b'{"title": "ok",\n "name": "x\\ud800y"}', "lone UTF-16 surrogate escape at line 2, column 12"),
    ("json", b'{"\\udc00": 1}', "lone UTF-16 surrogate escape at line 1, column 3"),
    ("json", b'{"title": "caf\xe9"}', "not UTF-8 text: byte 14"),
    ("json", b'{"title": ', "invalid JSON"),
    ("toml", b'title = "a"\ntitle = "b"\n', "not valid TOML"),
    ("toml", b"v = " + b"[" * DEEP + b"]" * DEEP, "nested deeper than 64 levels"),
    ("toml", b"v = " + b"{a = " * 70 + b"1" + b"}" * 70, "nested deeper than 64 levels"),
    ("toml", b"[" + b".".join(b"t%d" % i for i in range(70)) + b"]\nx = 1\n", "nested deeper than 64 levels"),
    ("toml", b'title = "caf\xe9"\n', "not UTF-8 text: byte 12"),
    ("toml", b'title = "\\ud800"\n', "not valid TOML"),
]


def _read(kind: str, content: bytes):
    return (readback.read_json if kind == "json" else readback.read_toml)(content, file="doc", what="document")


@pytest.mark.parametrize(("kind", "content", "says"), BAD, ids=[f"{k}-{s[:30]}" for k, _, s in BAD])
def test_every_guard_refuses_with_a_clear_message(kind, content, says):
    with pytest.raises(InputError, match=None) as caught:
        _read(kind, content)
    assert says in str(caught.value)
    assert str(caught.value).startswith("file doc")


@pytest.mark.parametrize(("kind", "content", "expected"), [
    ("json", '\ufeff{"title": "\\ud83d\\ude00 caf\u00e9", "n": [1, 2.5, null]}'.encode(),
     {"title": "\U0001f600 café", "n": [1, 2.5, None]}),
    ("json", b"[" * 64 + b"]" * 64, [[]] and None),
    ("toml", 'title = "caf\u00e9"\n[a.b]\nc = [1, 2]\n'.encode(), {"title": "café", "a": {"b": {"c": [1, 2]}}}),
])
def test_sound_documents_read_as_they_are(kind, content, expected):
    document = _read(kind, content)
    if expected is not None:
        assert document == expected
    else:
        assert readback.depth(document) == 64


@pytest.mark.parametrize("kind", ["json", "toml"])
def test_a_document_over_the_size_limit_is_not_read(kind, tmp_path, monkeypatch):
    monkeypatch.setattr(readback, "MAX_DOCUMENT_BYTES", 100)
    path = tmp_path / f"doc.{kind}"
    path.write_bytes(b'{"a": "' + b"x" * 200 + b'"}' if kind == "json" else b'a = "' + b"x" * 200 + b'"\n')
    load = readback.load_json if kind == "json" else readback.load_toml
    with pytest.raises(InputError, match="larger than the limit of 100 bytes"):
        load(path)
