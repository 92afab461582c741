"""Tuning a synthesiser: the most useful synthetic file whose every risk is below τ.

docs/howto/synthetic-release.md. Every combination of the grid (minimum leaf size, smoothing,
the method of the synthesised columns, …) gives a candidate synthesised from the original with
one seed. Each candidate is attacked (``attack.attack_synthetic``: DCR diagnostics, singling
out, linkability, the CAP family and replicated uniques per target, inference, and membership
inference when asked) and its utility measured by the propensity score (S_pMSE of the logistic
model by default, ``attack.utility.propensity``) against the holdout when one is given, else
against the original. Risk is a hard constraint: the chosen
candidate is the one with the smallest S_pMSE among those whose every check passes. The
risk–utility **frontier** lists the candidates no other candidate beats on both the worst risk
(the largest upper bound of any check) and S_pMSE.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from attack._version import __version__
from attack.errors import InputError
from attack.generation.sequential import synthesize
from attack.io.rules import Seed, checked
from attack.io.writers import (
    check_outputs,
    json_file,
    record_file,
    write_files_atomic,
)
from attack.report.notebook import result_html, verdict_word
from attack.study.synthetic_run import attack_synthetic
from attack.utility.propensity import MODELS, propensity_utility

#: Grid entries that vary the synthesiser (the rest of ``attack.synthesize`` is fixed), with
#: the type of their values on the command line.
GRID_TYPES: dict[str, type] = {"method": str, "minbucket": int, "cp": float, "smoothing": str, "proper": bool,
                               "ntree": int}
GRID_KEYS = (*GRID_TYPES, "method.COLUMN")
_COLUMN_METHOD = "method."


def grid_type(key: str) -> type | None:
    """The type of a grid entry's values; ``method.COLUMN`` varies one column's method. None for
    a key the grid does not take."""
    if key.startswith(_COLUMN_METHOD) and len(key) > len(_COLUMN_METHOD):
        return str
    return GRID_TYPES.get(key)


def parse_grid(items: Sequence[str]) -> dict[str, list]:
    """``KEY=V1,V2,...`` texts (``minbucket=5,20,50``) as a grid of typed values."""
    grid: dict[str, list] = {}
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        kind = grid_type(key)
        if not eq or kind is None or not text.strip():
            raise InputError(f"--grid {item!r}: expected KEY=V1,V2,... with KEY one of {', '.join(GRID_KEYS)}")
        values = []
        for value in (v.strip() for v in text.split(",")):
            try:
                values.append(_BOOLS[value.lower()] if kind is bool else kind(value))
            except (KeyError, ValueError):
                raise InputError(f"--grid {item!r}: {value!r} is not a valid {kind.__name__}") from None
        grid[key] = values
    return grid


_BOOLS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}


@dataclass(frozen=True)
class SynthesisCandidate:
    """One grid point: its settings, verdict, worst check and utility."""

    settings: dict
    passed: bool
    worst_risk: float | None
    worst_check: str | None
    failed_checks: int
    s_pmse: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SynthesisTuning:
    """Every candidate, the chosen one (None when none passes) and the frontier."""

    candidates: tuple[SynthesisCandidate, ...]
    chosen: int | None
    frontier: tuple[int, ...]
    release: pd.DataFrame | None
    settings: dict

    def to_dict(self) -> dict:
        chosen = None if self.chosen is None else self.candidates[self.chosen].to_dict()
        return {
            "tool": f"attack {__version__}",
            "settings": dict(self.settings),
            "candidates": [c.to_dict() for c in self.candidates],
            "chosen": chosen,
            "frontier": list(self.frontier),
            "verdict": "chosen: the most useful candidate whose every check is below tau" if chosen else
                       "no candidate of the grid passes every check",
        }

    def summary_lines(self) -> list[str]:
        """One line per candidate (* chosen, f on the frontier) and the verdict."""
        lines = []
        for i, c in enumerate(self.candidates):
            mark = "*" if i == self.chosen else ("f" if i in self.frontier else " ")
            risk = "n/a" if c.worst_risk is None else f"{c.worst_risk:.3f}"
            lines.append(f"{mark} {c.settings}: worst risk {risk} ({c.worst_check}), S_pMSE {c.s_pmse:.2f}, "
                         f"{verdict_word(c.passed)}")
        rows = self.settings.get("utility_rows", "original")
        measured = [f"S_pMSE against the {'holdout (rows the generator never saw)' if rows == 'holdout' else 'original'}",
                    *(f"warning: {w}" for w in self.settings.get("warnings", []))]
        return [*lines, self.to_dict()["verdict"] + " (* chosen, f on the risk-utility frontier)", *measured]

    def _repr_html_(self) -> str:
        """The notebook display: the verdict and one row per candidate."""
        table = pd.DataFrame([{"settings": str(c.settings), "worst risk": c.worst_risk, "S_pMSE": c.s_pmse,
                               "passed": c.passed} for c in self.candidates])
        return result_html("Tuning of the synthesis", self.chosen is not None,
                           [f"{len(self.candidates)} candidates"], table,
                           failing=[not c.passed for c in self.candidates], full=".to_dict()['candidates']")

    def write(self, *, json: str | Path | None = None, release: str | Path | None = None,
              inputs: Sequence[str | Path | None] = ()) -> None:
        """Write the JSON and the chosen synthetic file (record-level, owner-only; only when a
        candidate passes), both or neither, never over one of ``inputs``."""
        check_outputs([json, release], inputs)
        files: dict[Path, tuple[str | bytes, int | None]] = {}
        if json is not None:
            files[Path(json)] = json_file(self.to_dict())
        if release is not None and self.release is not None:
            files[Path(release)] = record_file(self.release, release)
        write_files_atomic(files, inputs=inputs)


#: Said when the utility of the candidates is measured against their own training rows.
NO_HOLDOUT_UTILITY = ("no holdout: the propensity utility compares every candidate with the rows it was "
                      "synthesised from, which rewards copies of them; give real rows kept out of synthesis")


@dataclass(frozen=True, eq=False)
class TuningPlan:
    """A checked tuning run: the grid, the settings every candidate shares, the synthesised
    ``columns`` and the rows the utility compares each candidate with."""

    grid: Mapping[str, Sequence[Any]]
    fixed: dict[str, Any]
    columns: list[str]
    compared: pd.DataFrame
    attacks: Mapping[str, Any]
    membership: Mapping[str, Any] | None
    utility_model: str
    seed: int

    def points(self) -> list[dict[str, Any]]:
        """The keywords of ``synthesize`` at every grid point, in the grid's order."""
        names = list(self.grid)
        return [_settings(self.fixed, dict(zip(names, combination, strict=True)))
                for combination in itertools.product(*(list(self.grid[k]) for k in names))]

    def settings(self, holdout: pd.DataFrame | None) -> dict[str, Any]:
        """The tuning's settings as its JSON records them."""
        return {"grid": {k: list(v) for k, v in self.grid.items()}, "fixed": self.fixed,
                "attacks": _plain(self.attacks), "membership": _plain(self.membership),
                "utility_model": self.utility_model, "seed": self.seed, "columns": self.columns,
                "utility_rows": "original" if holdout is None else "holdout",
                "warnings": [NO_HOLDOUT_UTILITY] if holdout is None else []}


def plan_tuning(original: pd.DataFrame, grid: Mapping[str, Sequence[Any]], *, holdout: pd.DataFrame | None,
                columns: Sequence[str] | None, fixed: Mapping[str, Any] | None, attacks: Mapping[str, Any] | None,
                membership: Mapping[str, Any] | None, utility_model: str, seed: int) -> TuningPlan:
    """Check the grid and the fixed settings of ``tune_synthesis``; nothing is synthesised yet."""
    unknown = sorted(k for k in grid if grid_type(k) is None)
    if unknown:
        raise InputError(f"cannot vary {unknown[0]!r}; the grid takes {', '.join(GRID_KEYS)}", field=f"grid.{unknown[0]}")
    if not grid or any(not isinstance(v, (list, tuple)) or not v for v in grid.values()):
        raise InputError("every grid entry needs a non-empty list of values", field="grid")
    if utility_model not in MODELS:
        raise InputError(f"expected one of {', '.join(MODELS)}, got {utility_model!r}", field="utility_model")
    fixed = dict(fixed or {})
    clash = sorted(set(fixed) & set(grid))
    if clash or "seed" in fixed:
        raise InputError(f"{(clash or ['seed'])[0]!r} is set by the tuning itself", field="fixed")
    columns = list(original.columns if columns is None else columns)
    # utility against real rows the generator never saw when there are some: a file that copies its
    # training rows then gains nothing from the copies
    compared = original[columns] if holdout is None else holdout[columns]
    return TuningPlan(grid, fixed, columns, compared, attacks or {}, membership, utility_model, seed)


def _candidate_at(plan: TuningPlan, original: pd.DataFrame, holdout: pd.DataFrame | None,
                  settings: dict[str, Any]) -> tuple[SynthesisCandidate, pd.DataFrame]:
    """One grid point synthesised, attacked and measured."""
    columns, seed = plan.columns, plan.seed
    synthetic = synthesize(original, columns=columns, seed=seed, **settings).frame
    game = None if plan.membership is None else {**plan.membership, "synthesis": settings}
    risk = attack_synthetic(original[columns], synthetic, None if holdout is None else holdout[columns],
                            **plan.attacks, membership=game, seed=seed)
    utility = propensity_utility(plan.compared, synthetic, models=(plan.utility_model,), tables=False, seed=seed)
    checks = [c.to_dict() for c in risk.tau_checks]
    return _candidate(settings, checks, risk.passed, utility.scores[0].pmse_ratio), synthetic


@checked
def tune_synthesis(
    original: pd.DataFrame,
    grid: Mapping[str, Sequence[Any]],
    *,
    holdout: pd.DataFrame | None = None,
    columns: Sequence[str] | None = None,
    fixed: Mapping[str, Any] | None = None,
    attacks: Mapping[str, Any] | None = None,
    membership: Mapping[str, Any] | None = None,
    utility_model: str = "logistic",
    seed: Seed = 0,
) -> SynthesisTuning:
    """Search ``grid`` (e.g. ``{"minbucket": [5, 20, 50], "smoothing": ["none", "density"]}``)
    for the most useful synthetic file whose every risk is below τ (see the module docstring).

    ``fixed``: further settings of ``attack.synthesize`` for every candidate. ``attacks``:
    settings of ``attack.attack_synthetic`` (``keys``, ``targets``, ``tau``, ``n_attacks`` …).
    ``membership``: the membership game (``n_isolated``, ``n_random``, ``shadow_sets`` …), run
    against each candidate's own settings. ``utility_model``: ``logistic``, ``logistic2`` or
    ``cart``. With a ``holdout`` the propensity score compares each candidate with the holdout
    (real rows the generator never saw) instead of the original it was made from.
    """
    plan = plan_tuning(original, grid, holdout=holdout, columns=columns, fixed=fixed, attacks=attacks,
                       membership=membership, utility_model=utility_model, seed=seed)
    made = [_candidate_at(plan, original, holdout, settings) for settings in plan.points()]
    candidates = [candidate for candidate, _ in made]
    passing = [i for i, c in enumerate(candidates) if c.passed]
    chosen = min(passing, key=lambda i: (candidates[i].s_pmse, i)) if passing else None
    return SynthesisTuning(tuple(candidates), chosen, _frontier(candidates),
                           None if chosen is None else made[chosen][1], plan.settings(holdout))


def _settings(fixed: Mapping[str, Any], point: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``synthesize`` at one grid point: ``method.COLUMN`` entries join the
    per-column methods (a plain ``method`` then becomes the default of the other columns)."""
    settings = dict(fixed)
    columns = {k[len(_COLUMN_METHOD):]: v for k, v in point.items() if k.startswith(_COLUMN_METHOD)}
    settings.update({k: v for k, v in point.items() if not k.startswith(_COLUMN_METHOD)})
    if columns:
        if isinstance(settings.get("method"), str):
            settings["default_method"] = settings.pop("method")
        settings["method"] = {**(settings.get("method") or {}), **columns}
    return settings


def _candidate(settings: dict, checks: Sequence[Mapping], passed: bool, s_pmse: float) -> SynthesisCandidate:
    judged = [c for c in checks if c["upper"] is not None]
    worst = max(judged, key=lambda c: c["upper"], default=None)
    label = None
    if worst is not None:
        label = " / ".join(str(worst[k]) for k in ("family", "measure", "target") if worst.get(k) is not None)
    return SynthesisCandidate(_plain(settings), passed, None if worst is None else float(worst["upper"]), label,
                              sum(not c["passed"] for c in checks), float(s_pmse))


def _frontier(candidates: Sequence[SynthesisCandidate]) -> tuple[int, ...]:
    """Candidates that no other candidate beats on both worst risk and S_pMSE."""
    def key(c: SynthesisCandidate) -> tuple[float, float]:
        return (float("inf") if c.worst_risk is None else c.worst_risk, c.s_pmse)

    points = [key(c) for c in candidates]
    return tuple(i for i, p in enumerate(points)
                 if not any(q[0] <= p[0] and q[1] <= p[1] and q != p for q in points))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


__all__ = ["GRID_KEYS", "GRID_TYPES", "SynthesisCandidate", "SynthesisTuning", "TuningPlan", "grid_type",
           "parse_grid", "plan_tuning", "tune_synthesis"]
