"""The overall risk measure: several intruders combined per cell (handbook §35.4.3, eq. 35.1).

``P(c) = λ · P_worst(c) + (1 − λ) · mean(P_realistic(c))`` per cell and γ, where the mean runs
over the realistic intruders whose verifiable records reach the cell (docs/method/intruders.md). A cell no
realistic intruder covers takes the worst case at 100% (coverage rule, handbook EHS `:L10358`).
Without a worst-case intruder the realistic mean alone is used, and a cell it does not cover has
no estimate and cannot pass. The τ decision is strict and made per cell.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from attack.errors import InputError
from attack.io.jsonio import cell_key

#: Handbook presets for λ (docs/method/intruders.md).
LAMBDA_PRESETS = {"kse_ch35": 0.2, "ehs_ch37": 0.2, "ehs_suf": 0.05, "kse_suf": 0.0}
ROLES = ("worst", "realistic")


def resolve_lambda(value: float | str) -> float:
    """λ as a number in [0, 1], or the value of a named preset."""
    if isinstance(value, str):
        if value not in LAMBDA_PRESETS:
            raise InputError(
                f"unknown λ preset {value!r}; expected a number or one of {', '.join(LAMBDA_PRESETS)}"
            )
        return LAMBDA_PRESETS[value]
    if not 0 <= value <= 1:
        raise InputError(f"λ must lie in [0, 1], got {value}")
    return float(value)




def _combined_rate(lam: float, worst: Mapping | None, realistic: Sequence[Mapping]) -> float | None:
    """λ · h_worst + (1 − λ) · mean(h_realistic) of one cell, with the coverage rule of the risk."""
    mean = sum(c["reidentification_rate"] for c in realistic) / len(realistic) if realistic else None
    if mean is not None and worst is not None:
        return lam * worst["reidentification_rate"] + (1 - lam) * mean
    return mean if mean is not None else (None if worst is None else worst["reidentification_rate"])


def combine(results: Sequence[tuple[str, Mapping]], lam: float, tau: float,
            identity_limit: float | None = None) -> dict:
    """Combined disclosure risk per cell from ``(role, result)`` pairs of one release. With
    ``identity_limit`` the cells' re-identification rates are combined the same way and a cell
    passes only below that limit too (docs/method/roles.md)."""
    if not results:
        raise InputError("no intruder to combine")
    worst = [r for role, r in results if role == "worst"]
    realistic = [r for role, r in results if role == "realistic"]
    if len(worst) > 1:
        raise InputError("at most one intruder may have the role 'worst'")
    by_cell: dict[tuple, dict] = {}
    for _, result in results:
        for cell in result["cells"]:
            by_cell.setdefault(cell_key(cell["cell"]), {"cell": cell["cell"]})
    worst_cells = {cell_key(c["cell"]): c for c in worst[0]["cells"]} if worst else {}
    realistic_cells = [{cell_key(c["cell"]): c for c in r["cells"]} for r in realistic]
    gammas = list(results[0][1]["disclosure_risk"])
    cells = []
    for key, entry in by_cell.items():
        covering = [cells_of[key] for cells_of in realistic_cells if key in cells_of]
        worst_cell = worst_cells.get(key)
        largest_n = max(c["n_verifiable"] for c in [*covering, *([worst_cell] if worst_cell else [])])
        risk: dict[Hashable, float | None] = {}
        realistic_mean = (
            {g: sum(c["disclosure_risk"][g] for c in covering) / len(covering) for g in gammas}
            if covering else None
        )
        worst_part = {g: worst_cell["disclosure_risk"][g] for g in gammas} if worst_cell is not None else None
        for g in gammas:
            if realistic_mean is not None and worst_part is not None:
                risk[g] = lam * worst_part[g] + (1 - lam) * realistic_mean[g]
            elif realistic_mean is not None:
                risk[g] = realistic_mean[g]
            elif worst_part is not None:
                risk[g] = worst_part[g]  # coverage rule: the worst case at 100%
            else:
                risk[g] = None
        rule = (
            "combined" if covering and worst_cell is not None
            else "realistic only" if covering
            else "worst case (no realistic coverage)" if worst_cell is not None
            else "no estimate"
        )
        passed = all(v is not None and v < tau for v in risk.values())
        identity: dict[str, object] = {}
        if identity_limit is not None:
            rate = _combined_rate(lam, worst_cell, covering)
            identity = {"reidentification_rate": rate,
                        "identity_passed": rate is not None and rate < identity_limit}
            passed = passed and bool(identity["identity_passed"])
        cells.append(
            {
                **entry,
                "disclosure_risk": risk,
                "worst": worst_part,
                "realistic_mean": realistic_mean,
                "n_realistic": len(covering),
                "n_verifiable": largest_n,  # the largest count behind the cell (for suppression)
                "rule": rule,
                **identity,
                "passed": passed,
            }
        )
    return {
        "lam": lam,
        "tau": tau,
        "formula": "lam * P_worst + (1 - lam) * mean(P_realistic); uncovered cells take P_worst",
        "cells": cells,
        "n_failing_cells": sum(not c["passed"] for c in cells),
        "passed": all(c["passed"] for c in cells),
    }
