"""Which key variables carry the risk: Shapley values of the headline rates over the keys
(docs/method/attribution.md).

The players are the intruder's keys; the value of a coalition S of keys is the figure the
same intruder reaches when he links with the keys of S only (same blocks, method, settings and
evaluation): the overall re-identification rate, and for every failing cell its disclosure risk
P_γ at the γ where it is largest. The empty coalition is worth 0 by definition: an intruder
without any key has nothing to compare and links nobody. So the attributions of a figure sum to
the figure itself (efficiency of the Shapley value), up to rounding.

Up to ``MAX_EXACT_KEYS`` keys every coalition is linked (2^K − 1 linkages, the blocks built
once and reused); above, ``permutations`` seeded random orders of the keys are walked and each
key's attribution is the mean of its marginal contributions, with the 95 % half-width of that
mean as the stated error (each order's contributions sum to the figure, so the sum stays
exact). The leave-one-key-out change ``v(N) − v(N \\ {i})`` is reported beside.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np
from annotated_types import Ge

from attack.errors import InputError
from attack.io.readers import id_column
from attack.io.rules import Seed, checked
from attack.linkage.link import link
from attack.linkage.settings import Linkage
from attack.report.notebook import fields_html, one_line, result_html
from attack.risk.attack_options import code_columns, solve_options
from attack.risk.evaluation import score
from attack.risk.results import CellRisk, Proportion
from attack.risk.settings import Evaluation

#: Most keys for which every coalition is linked; above, permutations are sampled.
MAX_EXACT_KEYS = 12
#: Random orders of the keys walked above ``MAX_EXACT_KEYS`` (default).
DEFAULT_PERMUTATIONS = 64
#: The value of the empty coalition (no key: nobody is linked).
EMPTY_COALITION = 0.0
#: z of the stated 95 % error of sampled attributions.
Z95 = 1.959963984540054

__all__ = ["Attribution", "CellAttribution", "explain_attack", "key_labels", "shapley"]


@dataclass(frozen=True)
class CellAttribution:
    """The attribution of one failing cell's disclosure risk P_γ (at its largest γ)."""

    cell: Mapping[str, str]
    gamma: str
    n_verifiable: int
    disclosure_risk: float
    shares: Mapping[str, float]
    leave_one_out: Mapping[str, float]

    def _repr_html_(self) -> str:
        return fields_html("Attribution of a cell's risk", self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {"cell": dict(self.cell), "gamma": self.gamma, "n_verifiable": self.n_verifiable,
                "disclosure_risk": self.disclosure_risk, "attribution": dict(self.shares),
                "leave_one_out": dict(self.leave_one_out)}


@dataclass(frozen=True)
class Attribution:
    """Additive attribution of an attack's re-identification rate (and of its failing cells'
    P_γ) to the keys; ``shares`` sum to ``reidentification_rate`` (``to_dict`` is the JSON
    ``explanation`` block, ``shares`` the JSON ``attribution``)."""

    keys: tuple[str, ...]
    reidentification_rate: float
    shares: Mapping[str, float]
    leave_one_out: Mapping[str, float]
    method: str
    n_linkages: int
    cells: tuple[CellAttribution, ...] = ()
    permutations: int | None = None
    seed: int | None = None
    error: Mapping[str, float] | None = field(default=None)

    @property
    def largest(self) -> str:
        """The key with the largest attribution (the first such key in key order on ties)."""
        return max(self.keys, key=lambda k: self.shares[k])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "value": "re-identification rate of the same intruder linking with a subset of the keys",
            "empty_coalition": EMPTY_COALITION,
            "keys": list(self.keys),
            "reidentification_rate": self.reidentification_rate,
            "attribution": dict(self.shares),
            "leave_one_out": dict(self.leave_one_out),
            "n_linkages": self.n_linkages,
            "failing_cells": [c.to_dict() for c in self.cells],
        }
        if self.permutations is not None:
            out.update(permutations=self.permutations, seed=self.seed,
                       error_95=None if self.error is None else dict(self.error))
        return out

    def _facts(self) -> list[str]:
        return [f"{self.method} over {len(self.keys)} keys", f"rate {self.reidentification_rate:.4f}",
                f"largest: {self.largest}"]

    def __repr__(self) -> str:
        return one_line("Attribution", None, *self._facts())

    def _repr_html_(self) -> str:
        import pandas as pd

        table = pd.DataFrame({"key": list(self.keys), "attribution": [self.shares[k] for k in self.keys],
                              "leave_one_out": [self.leave_one_out[k] for k in self.keys]})
        return result_html("Risk per key variable", None, self._facts(), table)


def key_labels(linkage: Linkage) -> tuple[str, ...]:
    """One label per key: its name (a linkage declares each key once)."""
    return tuple(key.name for key in linkage.keys)


def _value(estimate: Proportion | None) -> float:
    """A scored rate's value (every scored rate of a linkage has one)."""
    return 0.0 if estimate is None or estimate.value is None else estimate.value


#: A coalition's figures: the overall rate and, per cell index, the cell's risk per γ label.
Worth = tuple[float, list[dict[str, float]]]


def shapley(n: int, value: Callable[[int], float]) -> tuple[list[float], list[float]]:
    """Exact Shapley values of ``n`` players and the leave-one-out changes; ``value(mask)`` is
    the worth of the coalition whose bit i is player i (``value(0)`` is not asked:
    ``EMPTY_COALITION``)."""
    full = (1 << n) - 1
    worth = [EMPTY_COALITION] + [value(mask) for mask in range(1, full + 1)]
    weight = [math.factorial(s) * math.factorial(n - s - 1) / math.factorial(n) for s in range(n)]
    shares = [0.0] * n
    for i in range(n):
        bit = 1 << i
        total = 0.0
        for mask in range(full + 1):
            if not mask & bit:
                total += weight[mask.bit_count()] * (worth[mask | bit] - worth[mask])
        shares[i] = total
    return shares, [worth[full] - worth[full & ~(1 << i)] for i in range(n)]


def _sampled(n: int, value: Callable[[int], float], permutations: int,
             seed: int) -> tuple[list[float], list[float], list[float]]:
    """Permutation-sampled Shapley values, their 95 % half-widths and the leave-one-out changes."""
    rng = np.random.default_rng(seed)
    full = (1 << n) - 1
    contributions = np.zeros((permutations, n))
    for p in range(permutations):
        mask, before = 0, EMPTY_COALITION
        for i in rng.permutation(n):
            mask |= 1 << int(i)
            after = value(mask)
            contributions[p, i] = after - before
            before = after
    shares = contributions.mean(axis=0)
    error = Z95 * contributions.std(axis=0, ddof=1) / math.sqrt(permutations) if permutations > 1 \
        else np.full(n, math.inf)
    loo = [value(full) - (value(full & ~(1 << i)) if n > 1 else EMPTY_COALITION) for i in range(n)]
    return shares.tolist(), error.tolist(), loo


@checked
def explain_attack(
    data: Any,
    linkage: Linkage,
    evaluation: Evaluation,
    *,
    engine: Mapping[str, Any] | None = None,
    permutations: Annotated[int, Ge(2)] = DEFAULT_PERMUTATIONS,
    seed: Seed = 0,
    say: Callable[[str], None] | None = None,
) -> Attribution:
    """Attribute the attack's re-identification rate and its failing cells' P_γ to the keys.

    ``data`` is an ``attack.risk.mass.AttackInput``. Exact Shapley values up to
    ``MAX_EXACT_KEYS`` keys; above, ``permutations`` seeded random orders (``seed``).
    """
    if linkage.learn_weights is not None:
        raise InputError("the attribution re-links with subsets of the keys and is not defined for learned "
                         "weights; drop learn_weights to explain the attack", field="learn_weights")
    data = data.as_tables()
    labels = key_labels(linkage)
    n, full = len(labels), (1 << len(labels)) - 1
    external_ids = id_column(data.external, data.external_id, allow_missing=True,
                             unique=not evaluation.truth_complete)
    release_ids = id_column(data.release, data.release_id)
    original_ids = None if data.original is None else id_column(data.original, data.original_id or data.release_id)
    blocking = linkage.make_blocking(data.external.frame, data.release.frame)
    options = solve_options(engine)
    cache: dict[int, Worth] = {}
    full_cells: list[CellRisk] = []

    def worth(mask: int) -> Worth:
        if mask not in cache:
            keys = [k for i, k in enumerate(linkage.keys) if mask >> i & 1]
            links = link(data.external, data.release, linkage.model_copy(update={"keys": keys}),
                         blocking=blocking, **options)
            figures = score(links.release_row, external_ids, data.release, release_ids, evaluation,
                            original=data.original, original_ids=original_ids,
                            categorical=code_columns(linkage),  # the full intruder's: same targets
                            id_columns=(data.release_id, data.original_id or data.release_id),
                            match_probability=links.match_probability).figures
            cache[mask] = (float(_value(figures.reidentification_rate)),
                           [{g: float(_value(p)) for g, p in c.disclosure_risk.items()} for c in figures.cells])
            if mask == full:
                full_cells.extend(figures.cells)
            if say:
                say(f"keys {', '.join(labels[i] for i in range(len(labels)) if mask >> i & 1)}: "
                    f"rate {cache[mask][0]:.4f}")
        return cache[mask]

    rate, risks = worth(full)
    failing = [(c, max(risks[c], key=lambda g: risks[c][g])) for c, f in enumerate(full_cells) if not f.passed]

    def attribute(value: Callable[[int], float]) -> tuple[list[float], list[float], list[float] | None]:
        if n <= MAX_EXACT_KEYS:
            shares, loo = shapley(n, value)
            return shares, loo, None
        shares, error, loo = _sampled(n, value, permutations, seed)
        return shares, loo, error

    shares, loo, error = attribute(lambda mask: worth(mask)[0])
    cells = []
    def cell_risk(c: int, gamma: str) -> Callable[[int], float]:
        return lambda mask: worth(mask)[1][c][gamma]

    for c, gamma in failing:
        c_shares, c_loo, _ = attribute(cell_risk(c, gamma))
        cells.append(CellAttribution(
            cell=dict(full_cells[c].cell), gamma=gamma, n_verifiable=int(full_cells[c].n_verifiable or 0),
            disclosure_risk=float(risks[c][gamma]), shares=dict(zip(labels, c_shares, strict=True)),
            leave_one_out=dict(zip(labels, c_loo, strict=True))))
    sampled = n > MAX_EXACT_KEYS
    return Attribution(
        keys=labels, reidentification_rate=rate, shares=dict(zip(labels, shares, strict=True)),
        leave_one_out=dict(zip(labels, loo, strict=True)),
        method="sampled Shapley values" if sampled else "exact Shapley values",
        n_linkages=len(cache), cells=tuple(cells),
        permutations=permutations if sampled else None, seed=seed if sampled else None,
        error=None if error is None else dict(zip(labels, error, strict=True)))
