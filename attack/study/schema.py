"""The JSON Schema of scenario files, for editors and CI checks: one schema for both kinds of
file, a linkage scenario (no ``kind``) or a synthetic-release scenario (``kind = "synthetic"``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import TypeAdapter

from attack.io.rules import checked
from attack.study.settings import ScenarioSettings
from attack.study.settings import json_schema as linkage_schema
from attack.study.synthetic_settings import SyntheticScenarioSettings, synthetic_json_schema

_DRAFT = "https://json-schema.org/draft/2020-12/schema"


@checked
def json_schema(kind: Literal["linkage", "synthetic"] | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scenario files.

    Parameters
    ----------
    kind
        None: every scenario file (a file satisfies the schema of its own kind); ``"linkage"``:
        the mass linkage attack on a candidate release; ``"synthetic"``: attacks on a synthetic
        release (``kind = "synthetic"`` in the file).
    """
    if kind is None:
        schema = TypeAdapter(ScenarioSettings | SyntheticScenarioSettings).json_schema(by_alias=True)
        return {"$schema": _DRAFT, "title": "attack scenario file", **schema}
    return linkage_schema() if kind == "linkage" else synthetic_json_schema()
