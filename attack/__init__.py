"""attack: play the intruder against a candidate microdata release.

The public Python API. The command line (``attack link``, ``attack run``, ``attack demo`` …) is
a thin layer over these functions, so a notebook gets the same figures and the same JSON::

    import attack

    result = attack.mass_attack(
        "external.csv", "release.csv", original="original.csv",
        keys=[attack.Metric("turnover"), attack.Metric("employees")],
        blocks=[attack.Block("nace", prefix=2)], cells=[attack.Block("nace", prefix=2)],
        external_id="unit_id", release_id="unit_id", tau=0.5,
    )
    result.passed, result.cells

The method is explained in the project's documentation (``docs/method/overview.md``); the
results' JSON layout in ``docs/reference/json-results.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from attack._version import __version__
from attack.errors import InputError

if TYPE_CHECKING:  # the names below are imported on first use (a command pays only for its own)
    import pandas as pd

    from attack.generation.sequential import Synthesis, synthesize
    from attack.linkage.engines import Engine
    from attack.linkage.keys import (
        AnyBlock,
        Block,
        Date,
        Hierarchical,
        Key,
        Metric,
        Nominal,
        Ordinal,
        String,
    )
    from attack.protect.catalogue import Protected
    from attack.risk.frequency import FrequencyRisk, frequency_risk
    from attack.risk.mass import mass_attack
    from attack.risk.results import AttackResult
    from attack.risk.truth import TruthResult, link_names
    from attack.study.demo import demo_scenario
    from attack.study.results import ScenarioResult
    from attack.study.scenario import Scenario
    from attack.study.synthetic_result import SyntheticResult
    from attack.study.synthetic_run import attack_synthetic
    from attack.study.synthetic_scenario import (
        SyntheticScenario,
        SyntheticScenarioResult,
    )
    from attack.study.synthetic_scenario import open_scenario as load_scenario
    from attack.study.tuning import tune
    from attack.study.verify import verify
    from attack.synthetic_attacks.mia_family import MembershipFamilyResult, membership_family
    from attack.utility.ml import MlUtility, ml_utility
    from attack.utility.profile import utility_profile

#: Public name -> (module, name there).
_LAZY = {
    "Engine": ("attack.linkage.engines", "Engine"),
    **{name: ("attack.linkage.keys", name) for name in
       ("AnyBlock", "Block", "Date", "Hierarchical", "Key", "Metric", "Nominal", "Ordinal", "String")},
    "Protected": ("attack.protect.catalogue", "Protected"),
    "mass_attack": ("attack.risk.mass", "mass_attack"),
    "frequency_risk": ("attack.risk.frequency", "frequency_risk"),
    "FrequencyRisk": ("attack.risk.frequency", "FrequencyRisk"),
    "AttackResult": ("attack.risk.results", "AttackResult"),
    "TruthResult": ("attack.risk.truth", "TruthResult"),
    "link_names": ("attack.risk.truth", "link_names"),
    "demo_scenario": ("attack.study.demo", "demo_scenario"),
    "ScenarioResult": ("attack.study.results", "ScenarioResult"),
    "Scenario": ("attack.study.scenario", "Scenario"),
    "SyntheticScenario": ("attack.study.synthetic_scenario", "SyntheticScenario"),
    "SyntheticScenarioResult": ("attack.study.synthetic_scenario", "SyntheticScenarioResult"),
    "load_scenario": ("attack.study.synthetic_scenario", "open_scenario"),
    "tune": ("attack.study.tuning", "tune"),
    "verify": ("attack.study.verify", "verify"),
    "Synthesis": ("attack.generation.sequential", "Synthesis"),
    "synthesize": ("attack.generation.sequential", "synthesize"),
    "SyntheticResult": ("attack.study.synthetic_result", "SyntheticResult"),
    "membership_family": ("attack.synthetic_attacks.mia_family", "membership_family"),
    "MembershipFamilyResult": ("attack.synthetic_attacks.mia_family", "MembershipFamilyResult"),
    "attack_synthetic": ("attack.study.synthetic_run", "attack_synthetic"),
    "utility_profile": ("attack.utility.profile", "utility_profile"),
    "ml_utility": ("attack.utility.ml", "ml_utility"),
    "MlUtility": ("attack.utility.ml", "MlUtility"),
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'attack' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "__version__", "InputError",
    "Key", "Metric", "Nominal", "Ordinal", "Hierarchical", "String", "Date", "Block", "AnyBlock", "Engine",
    "mass_attack", "AttackResult", "Scenario", "ScenarioResult", "demo_scenario",
    "protect", "Protected", "utility_profile", "attack_synthetic", "SyntheticResult",
    "verify", "tune", "link_names", "TruthResult", "synthesize", "Synthesis",
    "SyntheticScenario", "SyntheticScenarioResult", "load_scenario",
    "membership_family", "MembershipFamilyResult",
    "frequency_risk", "FrequencyRisk",
    "ml_utility", "MlUtility",
]


# The subpackage attack.protect is imported first (it is light), so that importing its modules
# later never replaces the function below as the package attribute ``attack.protect``.
importlib.import_module("attack.protect")


def protect(
    frame: pd.DataFrame,
    method: str,
    *,
    columns: Sequence[str] = (),
    by: Sequence[str] = (),
    seed: int = 0,
    **params: Any,
) -> Protected:
    """Make a candidate release of ``frame`` with one protection method.

    ``method`` is a name from the catalogue (``attack protect --list-methods``; explained in
    ``docs/method/protection.md``), ``params`` its parameters (``k=3``), ``columns`` the
    variables it changes, ``by`` categorical variables within whose groups it runs separately.
    Returns the release and a log of what was done (``attack.Protected``).
    """
    from attack.protect.catalogue import protect as catalogue_protect

    return catalogue_protect(frame, method, params, columns=columns, by=by, seed=seed)
