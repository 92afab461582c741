"""The JSON Schema of scenario files, for editors and CI checks."""

from __future__ import annotations

from typing import Any, Literal

from attack.errors import InputError
from attack.study.settings import json_schema as linkage_schema
from attack.study.synthetic_settings import synthetic_json_schema

#: The kinds of scenario file (the ``kind`` field; absent: a linkage scenario).
KINDS = ("linkage", "synthetic")


def json_schema(kind: Literal["linkage", "synthetic"] = "linkage") -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scenario files of one ``kind``: ``"linkage"`` (a
    mass linkage attack on a candidate release) or ``"synthetic"`` (attacks on a synthetic
    release, ``kind = "synthetic"`` in the file)."""
    if kind not in KINDS:
        raise InputError(f"unknown scenario kind {kind!r}; expected linkage or synthetic")
    return linkage_schema() if kind == "linkage" else synthetic_json_schema()
