"""The overall risk measure: several intruders combined per cell (handbook §35.4.3, eq. 35.1).

``P(c) = λ · P_worst(c) + (1 − λ) · mean(P_realistic(c))`` per cell and γ, where the mean runs
over the realistic intruders whose verifiable records reach the cell (docs/method/intruders.md). A cell no
realistic intruder covers takes the worst case at 100% (coverage rule, handbook EHS `:L10358`).
Without a worst-case intruder the realistic mean alone is used, and a cell it does not cover has
no estimate and cannot pass. The τ decision is strict and made per cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from attack.errors import InputError
from attack.io.jsonio import cell_key
from attack.risk.results import AttackFigures, CellRisk, CombinedCell, CombinedRisk
from attack.verdict import all_below_tau, below_tau

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




@dataclass(frozen=True)
class _Intruders:
    """The plan of a combination: per cell key the cell of the worst-case intruder and those of
    the realistic intruders that cover it, the cells in order of first appearance, and γ."""

    cells: dict[tuple, Mapping[str, str]]
    worst: dict[tuple, CellRisk]
    realistic: list[dict[tuple, CellRisk]]
    gammas: list[str]

    @classmethod
    def of(cls, results: Sequence[tuple[str, AttackFigures]]) -> _Intruders:
        if not results:
            raise InputError("no intruder to combine")
        worst = [r for role, r in results if role == "worst"]
        if len(worst) > 1:
            raise InputError("at most one intruder may have the role 'worst'")
        cells: dict[tuple, Mapping[str, str]] = {}
        for _, result in results:
            for cell in result.cells:
                cells.setdefault(cell_key(dict(cell.cell)), cell.cell)
        return cls(cells=cells,
                   worst={cell_key(dict(c.cell)): c for c in worst[0].cells} if worst else {},
                   realistic=[{cell_key(dict(c.cell)): c for c in r.cells} for role, r in results if role == "realistic"],
                   gammas=results[0][1].gammas)


def combine(results: Sequence[tuple[str, AttackFigures]], lam: float, tau: float,
            identity_limit: float | None = None) -> CombinedRisk:
    """Combined disclosure risk per cell from ``(role, figures)`` pairs of one release. With
    ``identity_limit`` the cells' re-identification rates are combined the same way and a cell
    passes only below that limit too (docs/method/roles.md)."""
    plan = _Intruders.of(results)
    cells = tuple(_combined_cell(plan, key, cell, lam, tau, identity_limit) for key, cell in plan.cells.items())
    return CombinedRisk(lam=lam, tau=tau, combined_cells=cells,
                        n_failing_cells=sum(not c.passed for c in cells), passed=all(c.passed for c in cells))


def _combined_cell(plan: _Intruders, key: tuple, cell: Mapping[str, str], lam: float, tau: float,
                   identity_limit: float | None) -> CombinedCell:
    """One cell of the combined measure (module docstring)."""
    covering = [cells_of[key] for cells_of in plan.realistic if key in cells_of]
    worst_cell = plan.worst.get(key)
    largest_n = max(c.n_verifiable or 0 for c in [*covering, *([worst_cell] if worst_cell else [])])
    realistic_mean = ({g: sum(_risk(c, g) for c in covering) / len(covering) for g in plan.gammas}
                      if covering else None)
    worst_part = {g: _risk(worst_cell, g) for g in plan.gammas} if worst_cell is not None else None
    risk = {g: _mixed(lam, None if worst_part is None else worst_part[g],
                      None if realistic_mean is None else realistic_mean[g]) for g in plan.gammas}
    passed = all_below_tau(risk.values(), tau)
    identity: dict[str, Any] = {}
    if identity_limit is not None:
        rate = _mixed(lam, None if worst_cell is None else _hit_rate(worst_cell),
                      sum(_hit_rate(c) for c in covering) / len(covering) if covering else None)
        identity = {"reidentification_rate": rate, "identity_passed": below_tau(rate, identity_limit)}
        passed = passed and identity["identity_passed"]
    return CombinedCell(cell=cell, disclosure_risk=risk, worst=worst_part, realistic_mean=realistic_mean,
                        n_realistic=len(covering), n_verifiable=largest_n, rule=_rule(bool(covering), worst_cell),
                        **identity, passed=passed)


def _mixed(lam: float, worst: float | None, mean: float | None) -> float | None:
    """λ · worst + (1 − λ) · mean; either alone when the other is missing (the coverage rule:
    the worst case at 100%), None without both."""
    if mean is not None and worst is not None:
        return lam * worst + (1 - lam) * mean
    return mean if mean is not None else worst


def _rule(covered: bool, worst_cell: CellRisk | None) -> str:
    if covered:
        return "combined" if worst_cell is not None else "realistic only"
    return "worst case (no realistic coverage)" if worst_cell is not None else "no estimate"


def _risk(cell: CellRisk, gamma: str) -> Any:
    return cell.disclosure_risk[gamma].value


def _hit_rate(cell: CellRisk) -> Any:
    rate = cell.reidentification_rate
    return None if rate is None else rate.value
