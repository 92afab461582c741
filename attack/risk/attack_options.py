"""What the attack's linkage and scoring take from its settings: the solver options and the
code columns (shared by ``attack.risk.mass`` and ``attack.risk.attribution``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attack.linkage.limits import DEFAULT_MEMORY_BUDGET
from attack.linkage.settings import Linkage


def solve_options(engine: Mapping[str, Any] | None) -> dict[str, Any]:
    """Keyword arguments of ``attack.linkage.link.link`` from engine settings, with the
    defaults for what they leave open (local engine, all cores, the default memory budget)."""
    engine = dict(engine or {})
    return {
        "engine": engine.get("name") or "local",
        "jobs": engine.get("jobs"),
        "scheduler": engine.get("scheduler"),
        "progress": bool(engine.get("progress", False)),
        "memory_budget": engine.get("memory_budget") or DEFAULT_MEMORY_BUDGET,
    }


def code_columns(linkage: Linkage) -> list[str]:
    """Release columns the intruder treats as codes (non-metric keys, unbinned blocking keys)."""
    keys = [c for k in linkage.keys if k.reads_codes for c in k.columns]
    return keys + [b.name for b in linkage.blocks if b.bins is None]
