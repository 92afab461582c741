"""Single (targeted) attacks and the per-unit risk R(u) (docs/method/single-attacks.md).

The handbook ran single attacks by hand: analysts researched chosen large firms and looked them
up in the protected file (Tables 32.3–32.5, 37.16–37.18). This module automates the bookkeeping:

* target selection by rule (docs/method/single-attacks.md): ``targets_by_size`` (e.g. employees ≥ 1000)
  and ``market_leaders`` (top-k by turnover per industry × region);
* an intruder's approximate knowledge (a declared error model):
  ``knowledge_from_original``, exact categorical keys and metric keys times a seeded uniform
  factor in [1 − e, 1 + e];
* the look-up (this project's procedure): ``single_attack``;
* the handbook's outcome counts (§13.3): ``SingleAttackResult``;
* the per-unit risk R(u) = max(R_E, R_M) (§14; the handbook definition, computation a
  [Proposal]): ``target_usefulness``, ``unit_risk``, ``endangered``.

Procedure per target t (docs/method/single-attacks.md) [Proposal]::

    C_t := release rows whose categorical keys equal the knowledge (string equality of the
           harmonised codes) and whose every metric key lies in the relative window
           |r − k| ≤ ρ·|k| of the knowledge value                 (ρ = window, default 0.10)
    knowledge missing (NaN metric, missing code)  -> "none (no knowledge)"
    |C_t| = 0                                      -> "none"
    |C_t| = 1                                      -> unique: "correct" / "false" by the unit id
    |C_t| > 1: rank C_t by the linkage distance; unique iff d(second) > 0 and
               d(best)/d(second) ≤ δ (default 0.5), else "none (ambiguous)"

The window ρ and the ratio threshold δ are [Proposal] configuration values (the handbook gives
none); they are recorded in the result. Categorical keys are compared for exact equality after
``attack.readers.code_column``; hierarchical compatibility (d_H = 0 between a code and its
ancestor) is not implemented here — harmonise the codes to the release coding first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attack.defaults import LINKAGE_TAU
from attack.errors import InputError
from attack.io.readers import Table, code_column, id_column, numeric_column
from attack.linkage.distances import DistanceKey, build_distance_model
from attack.linkage.keys import Metric

CORRECT = "correct"
FALSE = "false"
NONE = "none"
NONE_AMBIGUOUS = "none (ambiguous)"
NONE_NO_KNOWLEDGE = "none (no knowledge)"
OUTCOMES = (CORRECT, FALSE, NONE, NONE_AMBIGUOUS, NONE_NO_KNOWLEDGE)

#: Relative slack on the window bound so that a value exactly on the boundary (e.g. 110 vs 100
#: with ρ = 0.10) is not lost to floating-point rounding.
_WINDOW_RTOL = 1e-12


# ---------------------------------------------------------------------------------------------
# Target selection (docs/method/single-attacks.md)


def targets_by_size(
    original: pd.DataFrame, id_column_name: str, column: str = "employees", threshold: float = 1000
) -> np.ndarray:
    """Ids of the units with ``column ≥ threshold`` (inclusive), in file order (docs/method/single-attacks.md).

    Handbook size rule: KSE targets are the firms with at least 1000 employees (`:L8028`).
    Units with a missing value are not selected.
    """
    ids = id_column(original, id_column_name)
    values = numeric_column(original, column)
    with np.errstate(invalid="ignore"):
        return ids[values >= threshold]


def market_leaders(
    original: pd.DataFrame,
    id_column_name: str,
    value: str = "turnover",
    by: Sequence[str] = ("nace", "east_west"),
    top: int = 3,
    prefix: int | Mapping[str, int] | None = None,
) -> np.ndarray:
    """Ids of the ``top`` units by ``value`` in every group of ``by`` (docs/method/single-attacks.md).

    ``prefix`` truncates grouping codes: an int applies to the first ``by`` column (e.g. 2 for
    the NACE division of a 4-digit code), a mapping gives a length per column. Ties are broken
    by value (descending), then id (ascending). Units with a missing value or group code are not
    selected. The result is sorted by group, then rank.
    """
    if top < 1:
        raise InputError("top must be at least 1")
    by = list(by)
    lengths: dict[str, int]
    if isinstance(prefix, int):
        lengths = {by[0]: prefix} if by else {}
    else:
        lengths = dict(prefix or {})
    frame = pd.DataFrame(
        {"_id": id_column(original, id_column_name), "_value": numeric_column(original, value)}
    )
    groups: list[str] = []
    for column in by:
        codes = pd.Series(code_column(original, column), dtype=object)
        if column in lengths:
            codes = codes.map(lambda c, n=lengths[column]: None if c is None else c[:n])
        name = f"_g{len(groups)}"
        frame[name] = codes
        groups.append(name)
    frame = frame.dropna(subset=["_value", *groups])
    frame = frame.sort_values(
        [*groups, "_value", "_id"], ascending=[True] * len(groups) + [False, True], kind="stable"
    )
    if groups:
        frame = frame.groupby(groups, sort=False).head(top)
    else:
        frame = frame.head(top)
    return frame["_id"].to_numpy(dtype=object)


def size_groups(
    original: pd.DataFrame,
    id_column_name: str,
    targets: Sequence[str] | np.ndarray,
    column: str = "employees",
    bounds: Sequence[float] = (1000, 5000),
) -> np.ndarray:
    """Size-class label of every target, e.g. "1000-4999" and ">=5000" (Table 32.3 groups).

    Labels are "<b0", "b0-(b1-1)", ..., ">=bk" for the integer bounds ``bounds``.
    """
    ids = id_column(original, id_column_name)
    values = numeric_column(original, column)
    lookup = pd.Series(values, index=ids)
    bounds = [int(b) for b in bounds]
    labels = [f"<{bounds[0]}"]
    labels += [f"{lo}-{hi - 1}" for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    labels.append(f">={bounds[-1]}")
    target_values = lookup.reindex(list(targets)).to_numpy(dtype=float)
    index = np.searchsorted(np.asarray(bounds, dtype=float), target_values, side="right")
    return np.array([labels[i] if np.isfinite(v) else "unknown"
                     for i, v in zip(index, target_values, strict=True)], dtype=object)


# ---------------------------------------------------------------------------------------------
# Knowledge (docs/method/single-attacks.md)


def knowledge_from_original(
    original: pd.DataFrame,
    id_column_name: str,
    targets: Sequence[str] | np.ndarray,
    *,
    exact: Sequence[str] = ("nace", "east_west"),
    noisy: Sequence[str] = ("employees", "turnover"),
    relative_error: float = 0.10,
    seed: int = 0,
) -> pd.DataFrame:
    """The intruder's knowledge of every target, one row per target in ``targets`` order.

    ``exact`` columns are copied as they are; every ``noisy`` value is multiplied by its own
    factor drawn uniformly from [1 − e, 1 + e] (e = ``relative_error``) with a generator seeded
    by ``seed`` (docs/method/single-attacks.md, "original values perturbed by a declared error model").
    """
    if not 0 <= relative_error < 1:
        raise InputError("relative_error must be in [0, 1)")
    ids = id_column(original, id_column_name)
    position = pd.Series(np.arange(len(ids)), index=ids)
    targets = [str(t) for t in targets]
    unknown = [t for t in targets if t not in position.index]
    if unknown:
        raise InputError(f"target {unknown[0]!r} is not in the original", column=id_column_name)
    rows = position.loc[targets].to_numpy()
    out = pd.DataFrame({id_column_name: np.asarray(targets, dtype=object)})
    for column in exact:
        out[column] = original[column].iloc[rows].to_numpy()
    rng = np.random.default_rng(seed)
    factors = rng.uniform(1 - relative_error, 1 + relative_error, size=(len(rows), len(noisy)))
    for j, column in enumerate(noisy):
        out[column] = numeric_column(original, column)[rows] * factors[:, j]
    return out


# ---------------------------------------------------------------------------------------------
# The attack (docs/method/single-attacks.md) and its outcomes


def _counts(outcomes: np.ndarray) -> dict:
    sought = int(outcomes.size)
    correct = int(np.sum(outcomes == CORRECT))
    false = int(np.sum(outcomes == FALSE))
    unique = correct + false
    none = sought - unique
    return {
        "sought": sought,
        "unique": unique,
        "correct": correct,
        "false": false,
        "none": none,
        "none_ambiguous": int(np.sum(outcomes == NONE_AMBIGUOUS)),
        "none_no_knowledge": int(np.sum(outcomes == NONE_NO_KNOWLEDGE)),
        "not_reidentified": false + none,
        "identification_probability": correct / sought if sought else None,
        "false_match_rate": false / unique if unique else None,
    }


@dataclass
class SingleAttackResult:
    """Per-target outcomes of a single attack and the handbook's counts (docs/method/single-attacks.md).

    ``outcome`` holds one of ``OUTCOMES`` per target; ``linked`` the release id of a unique
    link (None otherwise); ``candidates`` the size of C_t; ``ratio`` d(best)/d(second) where it
    was computed (NaN otherwise). ``window`` (ρ) and ``delta`` (δ) are the [Proposal] settings.
    """

    targets: np.ndarray
    outcome: np.ndarray
    linked: np.ndarray
    candidates: np.ndarray
    ratio: np.ndarray
    window: float
    delta: float
    notes: tuple[str, ...] = field(default=())

    def summary(self) -> dict:
        """The handbook's counts (ch. 13): sought = unique + none, unique = correct + false,
        not re-identified = false + none; identification probability = correct / sought,
        false-match rate = false / unique (None without unique links)."""
        return _counts(self.outcome)

    def by_group(self, labels: Sequence | np.ndarray | Mapping) -> dict:
        """``summary`` per group; ``labels`` aligned with ``targets`` or a mapping
        target id → label. Groups in order of first appearance."""
        listed = [labels.get(t) for t in self.targets] if isinstance(labels, Mapping) else list(labels)
        values = np.asarray(listed, dtype=object)
        if values.size != self.outcome.size:
            raise InputError(f"{values.size} group labels for {self.outcome.size} targets")
        return {g: _counts(self.outcome[values == g]) for g in pd.unique(values)}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({
            "target": self.targets, "outcome": self.outcome, "linked": self.linked,
            "candidates": self.candidates, "ratio": self.ratio,
        })

    def to_dict(self) -> dict:
        """JSON-ready settings and counts."""
        return {
            "window": self.window, "window_rule": "[Proposal] |r - k| <= window * |k|",
            "delta": self.delta, "delta_rule": "[Proposal] d(best)/d(second) <= delta",
            "summary": self.summary(), "notes": list(self.notes),
        }


def single_attack(
    knowledge: pd.DataFrame,
    knowledge_id: str,
    release: Table | pd.DataFrame,
    release_id: str,
    *,
    categorical: Sequence[str],
    metric: Sequence[str],
    window: float = 0.10,
    delta: float = 0.5,
    keys: Sequence[DistanceKey] | None = None,
) -> SingleAttackResult:
    """Look every target up in the release and count the outcomes (docs/method/single-attacks.md).

    ``knowledge`` has one row per target (id in ``knowledge_id``) and the columns
    ``categorical`` and ``metric`` under the release's names. A target with any of these values
    missing gets "none (no knowledge)". Candidates are the release rows with equal categorical
    codes and every metric value within ``|r − k| ≤ window·|k|``; several candidates are ranked
    by the linkage distance of ``keys`` (default: squared metric distance of the ``metric`` keys,
    max–min standardised over knowledge × release, eq. 13.4) and the best is taken when
    ``d(second) > 0`` and ``d(best)/d(second) ≤ delta``. A unique link is "correct" when the
    release row's id equals the target id.
    """
    plan = _Lookup.of(knowledge, knowledge_id, release, release_id, list(categorical), list(metric), window, delta,
                      keys)
    n = len(plan.targets)
    outcome = np.empty(n, dtype=object)
    linked = np.full(n, None, dtype=object)
    n_candidates = np.zeros(n, dtype=np.int64)
    ratio = np.full(n, np.nan)
    for t in range(n):
        outcome[t], linked[t], n_candidates[t], ratio[t] = look_up(plan, t)
    return SingleAttackResult(
        targets=plan.targets, outcome=outcome, linked=linked, candidates=n_candidates, ratio=ratio,
        window=float(window), delta=float(delta),
        notes=plan.model.notes if plan.model is not None else (),
    )


@dataclass(frozen=True)
class _Lookup:
    """The plan of a single attack: the targets' ids, categorical codes and metric values, the
    release rows by their categorical codes (rows with a missing code are never candidates),
    the release's metric values and ids, and the distance model that ranks several candidates."""

    targets: np.ndarray
    release_ids: np.ndarray
    codes: list[np.ndarray]
    values: np.ndarray
    release_values: np.ndarray
    blocks: dict[tuple, np.ndarray]
    model: Any
    window: float
    delta: float

    @classmethod
    def of(cls, knowledge: pd.DataFrame, knowledge_id: str, release: Table | pd.DataFrame, release_id: str,
           categorical: list[str], metric: list[str], window: float, delta: float,
           keys: Sequence[DistanceKey] | None) -> _Lookup:
        if window < 0 or not np.isfinite(window):
            raise InputError("window must be a non-negative number")
        if delta < 0 or not np.isfinite(delta):
            raise InputError("delta must be a non-negative number")
        targets = id_column(knowledge, knowledge_id)
        release_ids = id_column(release, release_id, allow_missing=True)
        k_codes = [code_column(knowledge, c) for c in categorical]
        r_codes = [code_column(release, c) for c in categorical]
        values = _metric_values(knowledge, metric, len(targets))
        release_values = _metric_values(release, metric, len(release))
        rows_of: dict[tuple, list[int]] = {}
        for row, codes in enumerate(zip(*r_codes, strict=True) if categorical else ((),) * len(release)):
            if None not in codes:
                rows_of.setdefault(codes, []).append(row)
        keys = list(keys) if keys is not None else [Metric(name=m) for m in metric]
        return cls(targets=targets, release_ids=release_ids, codes=k_codes, values=values,
                   release_values=release_values, blocks={k: np.asarray(v, dtype=np.int64) for k, v in rows_of.items()},
                   model=build_distance_model(knowledge, release, keys) if keys else None, window=window, delta=delta)


def _metric_values(frame: Table | pd.DataFrame, metric: list[str], n: int) -> np.ndarray:
    return np.column_stack([numeric_column(frame, c) for c in metric]) if metric else np.empty((n, 0))


def look_up(plan: _Lookup, t: int) -> tuple[str, Any, int, float]:
    """Target ``t`` looked up in the release: its outcome, the linked release id (None without a
    unique link), the number of candidates and d(best)/d(second) (NaN where not computed)."""
    codes = tuple(c[t] for c in plan.codes)
    if any(c is None for c in codes) or np.isnan(plan.values[t]).any():
        return NONE_NO_KNOWLEDGE, None, 0, np.nan
    rows = plan.blocks.get(codes, np.empty(0, dtype=np.int64))
    if plan.values.shape[1] and rows.size:
        k = plan.values[t]
        bound = plan.window * np.abs(k) * (1 + _WINDOW_RTOL)
        with np.errstate(invalid="ignore"):
            inside = np.all(np.abs(plan.release_values[rows] - k) <= bound, axis=1)
        rows = rows[inside]
    if rows.size == 0:
        return NONE, None, 0, np.nan
    ratio = np.nan
    if rows.size == 1:
        best = rows[0]
    else:
        if plan.model is None:
            return NONE_AMBIGUOUS, None, int(rows.size), ratio
        d = plan.model.pair_cost(np.full(rows.size, t), rows)
        order = np.lexsort((rows, d))
        d_best, d_second = d[order[0]], d[order[1]]
        if d_second > 0:
            ratio = d_best / d_second
        if not (d_second > 0 and d_best / d_second <= plan.delta):
            return NONE_AMBIGUOUS, None, int(rows.size), ratio
        best = rows[order[0]]
    found = plan.release_ids[best]
    return (CORRECT if found == plan.targets[t] else FALSE), found, int(rows.size), ratio


# ---------------------------------------------------------------------------------------------
# Per-unit risk R(u) = max(R_E, R_M) (docs/method/single-attacks.md)


def target_usefulness(
    result: SingleAttackResult,
    original: pd.DataFrame,
    original_id: str,
    release: Table | pd.DataFrame,
    release_id: str,
    columns: Sequence[str],
    gamma: float = 0.10,
) -> dict:
    """u(u) for every correctly linked target: the share of its evaluated values in ``columns``
    with ``|w' − w| / |w| < γ`` (docs/method/risk.md: strict, divided by the true value; a true 0 is
    useful iff the release shows exactly 0; a missing true value is not evaluated; a missing
    released value is evaluated and not useful; nothing evaluable gives 1, conservative).
    """
    o_pos = pd.Series(np.arange(len(original)), index=id_column(original, original_id))
    r_pos = pd.Series(np.arange(len(release)), index=id_column(release, release_id, allow_missing=True))
    o_vals = np.column_stack([numeric_column(original, c) for c in columns])
    r_vals = np.column_stack([numeric_column(release, c) for c in columns])
    out = {}
    for target, outcome, link in zip(result.targets, result.outcome, result.linked, strict=True):
        if outcome != CORRECT:
            continue
        w = o_vals[o_pos[target]]
        w_rel = r_vals[r_pos[link]]
        evaluated = ~np.isnan(w)
        with np.errstate(divide="ignore", invalid="ignore"):
            useful = np.where(w == 0, w_rel == 0, np.abs(w_rel - w) / np.abs(w) < gamma)
        useful &= ~np.isnan(w_rel)
        out[target] = float(useful[evaluated].mean()) if evaluated.any() else 1.0
    return out


def unit_risk(
    targets_outcome: SingleAttackResult | Mapping[str, str],
    usefulness_by_unit: Mapping[str, float],
    mass_risk_by_unit: Mapping[str, float] | pd.Series,
) -> pd.DataFrame:
    """R(u) = max(R_E(u), R_M(u)) per unit (docs/method/single-attacks.md; handbook `:L2072`, computation a
    [Proposal]).

    ``targets_outcome``: a ``SingleAttackResult`` or a mapping target id → outcome.
    R_E(u) = 1[outcome "correct"] × u(u) for attacked units (a correct target without a
    usefulness entry counts u(u) = 1, conservative), 0 for units not attacked.
    R_M(u) = the unit's mass-attack disclosure risk (0 when absent). Returns one row per unit of
    either input with columns ``unit, R_E, R_M, R``.
    """
    if isinstance(targets_outcome, SingleAttackResult):
        targets_outcome = dict(zip(targets_outcome.targets, targets_outcome.outcome, strict=True))
    mass = dict(mass_risk_by_unit.items())
    units = list(dict.fromkeys([*mass, *targets_outcome]))
    r_e = np.array([
        float(usefulness_by_unit.get(u, 1.0)) if targets_outcome.get(u) == CORRECT else 0.0
        for u in units
    ])
    r_m = np.array([float(mass.get(u, 0.0)) for u in units])
    return pd.DataFrame({"unit": units, "R_E": r_e, "R_M": r_m, "R": np.maximum(r_e, r_m)})


def endangered(risk: pd.DataFrame, tau: float = LINKAGE_TAU) -> pd.DataFrame:
    """Units with R(u) ≥ τ (docs/method/single-attacks.md), with the reason ("single attack", "mass attack" or
    both) for choosing a targeted protection measure."""
    out = risk[risk["R"] >= tau].copy()
    single = out["R_E"] >= tau
    mass = out["R_M"] >= tau
    out["reason"] = np.where(single & mass, "single and mass attack",
                             np.where(single, "single attack", "mass attack"))
    return out.reset_index(drop=True)
