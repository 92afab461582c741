"""The vocabulary of the settings: the choices each setting offers, its default risk limits and
the text forms the command line and scenario files accept (``"turnover:metric:0.5"`` for a key,
``"nace:prefix=2"`` for a block, ``"2GiB"`` for a memory budget, ``"age=quantile:5"`` for a
binning, ``"minbucket=5,20"`` for a synthesis grid).

Each is declared once in the library; this public module is where a front end (the command
line, a user's own tool) reads them, so that it can offer and check a value before any work
starts. The names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attack.io.lazy import lazy_names

if TYPE_CHECKING:
    from attack.defaults import LINKAGE_TAU, SYNTHETIC_TAU
    from attack.linkage.assignment import METHODS as ASSIGNMENT_METHODS
    from attack.linkage.blocking import parse_block, parse_block_entry
    from attack.linkage.distances import METRIC_DISTANCES, STANDARDISATIONS
    from attack.linkage.engines import ENGINES, parse_size
    from attack.linkage.fellegi_sunter import INTRUDERS
    from attack.linkage.keys import key_types, parse_key
    from attack.linkage.limits import DEFAULT_MEMORY_BUDGET
    from attack.risk.thresholds import (
        COLUMN_ROLES,
        DEFAULT_MIN_SCORED,
        IDENTITY_RULES,
        RISK_BASES,
        TARGET_TYPES,
    )
    from attack.study.synthesis_tuning import parse_grid
    from attack.synthetic_attacks.choices import METRICS as SYNTHETIC_METRICS
    from attack.synthetic_attacks.choices import SCALINGS as SYNTHETIC_SCALINGS
    from attack.synthetic_attacks.settings import parse_binning

#: Public name -> (module, name there).
_LAZY = {
    "ASSIGNMENT_METHODS": ("attack.linkage.assignment", "METHODS"),
    "COLUMN_ROLES": ("attack.risk.thresholds", "COLUMN_ROLES"),
    "DEFAULT_MEMORY_BUDGET": ("attack.linkage.limits", "DEFAULT_MEMORY_BUDGET"),
    "DEFAULT_MIN_SCORED": ("attack.risk.thresholds", "DEFAULT_MIN_SCORED"),
    "ENGINES": ("attack.linkage.engines", "ENGINES"),
    "IDENTITY_RULES": ("attack.risk.thresholds", "IDENTITY_RULES"),
    "INTRUDERS": ("attack.linkage.fellegi_sunter", "INTRUDERS"),
    "LINKAGE_TAU": ("attack.defaults", "LINKAGE_TAU"),
    "METRIC_DISTANCES": ("attack.linkage.distances", "METRIC_DISTANCES"),
    "RISK_BASES": ("attack.risk.thresholds", "RISK_BASES"),
    "STANDARDISATIONS": ("attack.linkage.distances", "STANDARDISATIONS"),
    "SYNTHETIC_METRICS": ("attack.synthetic_attacks.choices", "METRICS"),
    "SYNTHETIC_SCALINGS": ("attack.synthetic_attacks.choices", "SCALINGS"),
    "SYNTHETIC_TAU": ("attack.defaults", "SYNTHETIC_TAU"),
    "TARGET_TYPES": ("attack.risk.thresholds", "TARGET_TYPES"),
    "key_types": ("attack.linkage.keys", "key_types"),
    "parse_binning": ("attack.synthetic_attacks.settings", "parse_binning"),
    "parse_block": ("attack.linkage.blocking", "parse_block"),
    "parse_block_entry": ("attack.linkage.blocking", "parse_block_entry"),
    "parse_grid": ("attack.study.synthesis_tuning", "parse_grid"),
    "parse_key": ("attack.linkage.keys", "parse_key"),
    "parse_size": ("attack.linkage.engines", "parse_size"),
}

__getattr__, __dir__ = lazy_names(_LAZY, globals())

__all__ = [
    "ASSIGNMENT_METHODS",
    "COLUMN_ROLES",
    "DEFAULT_MEMORY_BUDGET",
    "DEFAULT_MIN_SCORED",
    "ENGINES",
    "IDENTITY_RULES",
    "INTRUDERS",
    "LINKAGE_TAU",
    "METRIC_DISTANCES",
    "RISK_BASES",
    "STANDARDISATIONS",
    "SYNTHETIC_METRICS",
    "SYNTHETIC_SCALINGS",
    "SYNTHETIC_TAU",
    "TARGET_TYPES",
    "key_types",
    "parse_binning",
    "parse_block",
    "parse_block_entry",
    "parse_grid",
    "parse_key",
    "parse_size",
]
