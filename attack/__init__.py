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
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attack import _loops
from attack._version import __version__
from attack.errors import DataNotice, InputError
from attack.io.lazy import lazy_names

if TYPE_CHECKING:  # the names below are imported on first use (a command pays only for its own)
    import pandas as pd

    from attack.generation.sequential import Synthesis, synthesize
    from attack.io.inspect import inspect_file, render_inspection
    from attack.io.options import gammas_by_variable, read_options, read_tables
    from attack.io.readers import ReadOptions
    from attack.linkage.blocking import AnyBlock, Block
    from attack.linkage.engines import Engine
    from attack.linkage.keys import (
        Date,
        Hierarchical,
        Key,
        Metric,
        Nominal,
        Ordinal,
        String,
    )
    from attack.linkage.truth import TruthResult, link_names
    from attack.protect.catalogue import Protected
    from attack.risk.attackers import AttackerRisk
    from attack.risk.attribution import Attribution, CellAttribution, explain_attack
    from attack.risk.frequency import FrequencyRisk, frequency_risk
    from attack.risk.mass import AttackInput, AttackSettings, mass_attack, run_attack
    from attack.risk.population_file import PopulationFile
    from attack.risk.population_interval import UniquesInterval
    from attack.risk.population_risk import PopulationRisk, population_risk
    from attack.risk.population_uniqueness import (
        PopulationUniqueness,
        UniquenessEstimate,
        population_uniqueness,
    )
    from attack.risk.records import record_outcomes, records_table
    from attack.risk.release_context import ReleaseContext, release_context, resolve_context
    from attack.risk.results import AttackResult
    from attack.study.budget_ledger import read_budget_ledger
    from attack.study.demo import DemoResult, demo_scenario, run_demo
    from attack.study.outputs import certificate_path, tune_paths
    from attack.study.remedy import RemedyResult, RemedyRound, remedy, remedy_table
    from attack.study.report_files import RenderedReport, render_report, report_path
    from attack.study.results import ScenarioResult, release_records, write_outputs
    from attack.study.scenario import Scenario
    from attack.study.schema import json_schema
    from attack.study.signing import generate_keypair, load_private_key, passphrase_from_env
    from attack.study.synthesis_tuning import tune_synthesis
    from attack.study.synthetic_result import SyntheticResult
    from attack.study.synthetic_run import attack_synthetic
    from attack.study.synthetic_scenario import (
        SyntheticScenario,
        SyntheticScenarioResult,
    )
    from attack.study.synthetic_scenario import open_scenario as load_scenario
    from attack.study.tuning import TuneResult, tune
    from attack.study.verify import verify
    from attack.synthetic_attacks.family_options import FamilyOptions
    from attack.synthetic_attacks.inference_confidence import (
        ConfidentInference,
        confident_inference,
    )
    from attack.synthetic_attacks.mia_family import MembershipFamilyResult, membership_family
    from attack.synthetic_attacks.privacy_claim import (
        BudgetLedger,
        ClaimCheck,
        EpsilonBound,
        PrivacyClaim,
        check_claim,
        epsilon_lower_bound,
    )
    from attack.synthetic_attacks.settings import SynthSpec
    from attack.utility.ml import MlUtility, ml_utility
    from attack.utility.profile import UtilityProfile, utility_profile

#: Public name -> (module, name there).
_LAZY = {
    "inspect_file": ("attack.io.inspect", "inspect_file"),
    "render_inspection": ("attack.io.inspect", "render_inspection"),
    **{name: ("attack.io.options", name) for name in ("gammas_by_variable", "read_options", "read_tables")},
    "ReadOptions": ("attack.io.readers", "ReadOptions"),
    "Engine": ("attack.linkage.engines", "Engine"),
    **{name: ("attack.linkage.keys", name) for name in
       ("Date", "Hierarchical", "Key", "Metric", "Nominal", "Ordinal", "String")},
    "AnyBlock": ("attack.linkage.blocking", "AnyBlock"),
    "Block": ("attack.linkage.blocking", "Block"),
    "Protected": ("attack.protect.catalogue", "Protected"),
    "mass_attack": ("attack.risk.mass", "mass_attack"),
    "run_attack": ("attack.risk.mass", "run_attack"),
    "AttackSettings": ("attack.risk.mass", "AttackSettings"),
    "frequency_risk": ("attack.risk.frequency", "frequency_risk"),
    "FrequencyRisk": ("attack.risk.frequency", "FrequencyRisk"),
    "AttackResult": ("attack.risk.results", "AttackResult"),
    "TruthResult": ("attack.linkage.truth", "TruthResult"),
    "link_names": ("attack.linkage.truth", "link_names"),
    **{name: ("attack.study.demo", name) for name in ("DemoResult", "demo_scenario", "run_demo")},
    **{name: ("attack.study.outputs", name) for name in ("certificate_path", "tune_paths")},
    **{name: ("attack.study.report_files", name) for name in ("RenderedReport", "render_report", "report_path")},
    "ScenarioResult": ("attack.study.results", "ScenarioResult"),
    "write_outputs": ("attack.study.results", "write_outputs"),
    "json_schema": ("attack.study.schema", "json_schema"),
    **{name: ("attack.study.signing", name) for name in
       ("generate_keypair", "load_private_key", "passphrase_from_env")},
    "Scenario": ("attack.study.scenario", "Scenario"),
    "SyntheticScenario": ("attack.study.synthetic_scenario", "SyntheticScenario"),
    "SyntheticScenarioResult": ("attack.study.synthetic_scenario", "SyntheticScenarioResult"),
    "load_scenario": ("attack.study.synthetic_scenario", "open_scenario"),
    "tune": ("attack.study.tuning", "tune"),
    "TuneResult": ("attack.study.tuning", "TuneResult"),
    "verify": ("attack.study.verify", "verify"),
    "Synthesis": ("attack.generation.sequential", "Synthesis"),
    "synthesize": ("attack.generation.sequential", "synthesize"),
    "SyntheticResult": ("attack.study.synthetic_result", "SyntheticResult"),
    "membership_family": ("attack.synthetic_attacks.mia_family", "membership_family"),
    "MembershipFamilyResult": ("attack.synthetic_attacks.mia_family", "MembershipFamilyResult"),
    "attack_synthetic": ("attack.study.synthetic_run", "attack_synthetic"),
    "tune_synthesis": ("attack.study.synthesis_tuning", "tune_synthesis"),
    "SynthSpec": ("attack.synthetic_attacks.settings", "SynthSpec"),
    "FamilyOptions": ("attack.synthetic_attacks.family_options", "FamilyOptions"),
    "utility_profile": ("attack.utility.profile", "utility_profile"),
    "UtilityProfile": ("attack.utility.profile", "UtilityProfile"),
    "ml_utility": ("attack.utility.ml", "ml_utility"),
    "MlUtility": ("attack.utility.ml", "MlUtility"),
    **{name: ("attack.risk.population_uniqueness", name) for name in
       ("PopulationUniqueness", "UniquenessEstimate", "population_uniqueness")},
    "UniquesInterval": ("attack.risk.population_interval", "UniquesInterval"),
    **{name: ("attack.risk.population_risk", name) for name in ("PopulationRisk", "population_risk")},
    "AttackerRisk": ("attack.risk.attackers", "AttackerRisk"),
    **{name: ("attack.risk.release_context", name) for name in
       ("ReleaseContext", "release_context", "resolve_context")},
    **{name: ("attack.synthetic_attacks.privacy_claim", name) for name in
       ("BudgetLedger", "ClaimCheck", "EpsilonBound", "PrivacyClaim", "check_claim", "epsilon_lower_bound")},
    "read_budget_ledger": ("attack.study.budget_ledger", "read_budget_ledger"),
    **{name: ("attack.synthetic_attacks.inference_confidence", name) for name in
       ("ConfidentInference", "confident_inference")},
    **{name: ("attack.risk.attribution", name) for name in ("Attribution", "CellAttribution", "explain_attack")},
    **{name: ("attack.risk.records", name) for name in ("record_outcomes", "records_table")},
    "release_records": ("attack.study.results", "release_records"),
    **{name: ("attack.study.remedy", name) for name in ("remedy", "remedy_table", "RemedyResult", "RemedyRound")},
    "AttackInput": ("attack.risk.mass", "AttackInput"),
    "PopulationFile": ("attack.risk.population_file", "PopulationFile"),
}


_public, __dir__ = lazy_names(_LAZY, globals())


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562); a key type registered beyond the built-in
    ones (attack.linkage.keys) is found under its class name."""
    if name in _LAZY:
        return _public(name)
    registered = {cls.__name__: cls for cls in _key_types().values()} if name[:1].isupper() else {}
    if name not in registered:
        raise AttributeError(f"module 'attack' has no attribute {name!r}")
    globals()[name] = registered[name]
    return registered[name]


def _key_types() -> dict[str, type]:
    from attack.linkage.keys import key_types  # noqa: PLC0415 - imported on first use, as _LAZY

    return dict(key_types())


__all__ = [
    "__version__", "InputError",
    "Key", "Metric", "Nominal", "Ordinal", "Hierarchical", "String", "Date", "Block", "AnyBlock", "Engine",
    "mass_attack", "AttackResult", "Scenario", "ScenarioResult", "demo_scenario",
    "protect", "Protected", "utility_profile", "attack_synthetic", "SyntheticResult",
    "verify", "tune", "link_names", "TruthResult", "synthesize", "Synthesis",
    "SyntheticScenario", "SyntheticScenarioResult", "load_scenario",
    "membership_family", "MembershipFamilyResult",
    "SynthSpec", "FamilyOptions",
    "frequency_risk", "FrequencyRisk",
    "ml_utility", "MlUtility",
    "ReadOptions", "read_options", "read_tables", "gammas_by_variable", "inspect_file", "render_inspection",
    "run_demo", "DemoResult", "write_outputs", "certificate_path", "tune_paths", "json_schema",
    "render_report", "report_path", "RenderedReport",
    "generate_keypair", "load_private_key", "passphrase_from_env", "protection_listing", "protection_methods",
    "TuneResult", "UtilityProfile",
    "population_uniqueness", "PopulationUniqueness", "UniquenessEstimate", "UniquesInterval",
    "population_risk", "PopulationRisk", "AttackerRisk", "ReleaseContext", "release_context", "resolve_context",
    "epsilon_lower_bound", "EpsilonBound", "check_claim", "ClaimCheck", "PrivacyClaim", "BudgetLedger",
    "read_budget_ledger", "confident_inference", "ConfidentInference",
    "DataNotice",
    "Attribution", "CellAttribution", "explain_attack", "record_outcomes", "records_table", "release_records",
    "remedy", "remedy_table", "RemedyResult", "RemedyRound", "AttackInput",
    "PopulationFile",
    "tune_synthesis",
    "AttackSettings", "run_attack",
]


# The subpackage attack.protect is imported first (it is light), so that importing its modules
# later never replaces the function below as the package attribute ``attack.protect``; the
# subpackage itself stays reachable as ``sys.modules["attack.protect"]`` or through its modules
# (``import attack.protect.catalogue``).
importlib.import_module("attack.protect")


def protect(
    frame: pd.DataFrame,
    method: str,
    params: Sequence[str] | Mapping[str, Any] = (),
    *,
    columns: Sequence[str] = (),
    by: Sequence[str] = (),
    seed: int = 0,
    **keywords: Any,
) -> Protected:
    """Make a candidate release of ``frame`` with one protection method.

    Parameters
    ----------
    frame
        The data to protect (the original or an earlier stage).
    method
        A name from the catalogue (``attack.protection_methods()``; explained in
        ``docs/method/protection.md``).
    params
        The method's parameters as ``key=value`` strings (``["k=3"]``) or a mapping; needed for a
        parameter named like an argument of this function (``method``, ``by``).
    columns
        The variables the method changes.
    by
        Categorical variables within whose groups the method runs separately.
    seed
        Master seed of every random step.
    **keywords
        More parameters of the method (``k=3``).

    Returns
    -------
    Protected
        The release and a log of what was done.
    """
    from attack.protect.catalogue import protect as catalogue_protect

    if isinstance(params, Mapping):
        params = {**params, **keywords}
    elif keywords and params:
        raise InputError("give the method's parameters either as key=value strings or as a mapping and keywords")
    elif keywords:
        params = keywords
    return catalogue_protect(frame, method, params, columns=columns, by=by, seed=seed)


def protection_methods() -> dict[str, str]:
    """The protection methods of ``attack.protect``: name and one-line summary, in catalogue order."""
    from attack.protect.catalogue import METHODS

    return {name: m.summary for name, m in METHODS.items()}


def protection_listing() -> str:
    """The catalogue as ``attack protect --list-methods`` prints it: each method with its summary
    and one line per parameter (kind, default, bounds, meaning), grouped by family."""
    from attack.protect.catalogue import listing

    return listing()


# The compiled loops not yet on disk for this code, numba and machine compile in a detached
# low-priority process, so that a command's first use of one finds it compiled (attack._loops).
_loops.start_background_compile()
