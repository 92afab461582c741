"""The privacy-budget ledger file: every release made from the same data and its (ε, δ) spend,
read with the scenario files' TOML reader (docs/method/privacy-claims.md).

```toml
[[release]]
name = "wave 1 public-use file"
epsilon = 0.5
delta = 1e-6
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from attack.errors import InputError, from_validation
from attack.study.scenario import scenario_file
from attack.synthetic_attacks.privacy_claim import BudgetLedger

__all__ = ["claim_settings", "read_budget_ledger"]


def read_budget_ledger(path: str | Path) -> BudgetLedger:
    """The ledger in ``path``; a missing file, bad TOML or a bad entry is an ``InputError``
    naming the file and the field."""
    path = Path(path)
    if not path.is_file():
        raise InputError("budget ledger not found", file=path.name)
    raw, _ = scenario_file(path)
    try:
        return BudgetLedger.model_validate(raw)
    except ValidationError as exc:
        raise from_validation(exc, model=BudgetLedger, file=path.name) from None


def claim_settings(epsilon: float | None, delta: float | None, ledger: str | Path | None,
                   confidence: float | None) -> dict[str, Any] | None:
    """The ``privacy_claim`` settings of ``attack.attack_synthetic`` from a claimed ε and δ, a
    ledger file and the confidence of the bound (None when nothing is claimed)."""
    if epsilon is None and ledger is None:
        if delta is not None or confidence is not None:
            raise InputError("a claimed δ or a confidence needs a claimed ε or a budget ledger", field="privacy_claim")
        return None
    claim: dict[str, Any] = {"epsilon": epsilon, "delta": delta}
    if ledger is not None:
        claim["ledger"] = read_budget_ledger(ledger).model_dump()
    if confidence is not None:
        claim["confidence"] = confidence
    return claim
