"""The settings models the screens edit: the one place that names them.

A scenario file is validated by ``attack.load_scenario``; the forms are drawn from the model
of its kind, so a field added to a model appears on the screens without an edit in the UI.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from attack.study.settings import ScenarioSettings
from attack.study.synthetic_settings import SyntheticScenarioSettings


def model_for(document: Mapping[str, Any]) -> type[BaseModel]:
    """The settings model of a scenario document: synthetic-release or linkage."""
    return SyntheticScenarioSettings if document.get("kind") == "synthetic" else ScenarioSettings
