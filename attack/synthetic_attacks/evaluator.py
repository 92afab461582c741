"""The evaluator protocol of the attacks on a synthetic release, and the registry they join.

One class per attack family, in the spirit of Anonymeter's evaluators: it is built from the
validated settings (``configure``; None when the settings or the files do not call for it) and
``evaluate(original, synthetic, control, seed)`` returns an ``AttackEvaluation``: the JSON section
of the family, its τ checks (each a risk with the upper bound of its interval) and, for the
attacks that can, how many attacks would decide an undecided check. ``attack_synthetic`` runs
every registered family in ``order``; the report shows what they return. A new family is one
module with a class decorated by ``register`` (docs/contributing/add-a-synthetic-attack.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import pandas as pd

from attack.errors import InputError
from attack.io.plugins import Registry
from attack.io.serial import Serialised, figure, rules
from attack.verdict import below_tau

if TYPE_CHECKING:
    from attack.synthetic_attacks.settings import SynthSpec
    from attack.synthetic_attacks.space import Preparation

__all__ = ["ATTACKS", "Check", "AttackEvaluation", "Space", "SyntheticAttack", "register", "registered"]


@dataclass(frozen=True)
class Check(Serialised):
    """One τ decision: the risk ``value`` of a measure and the ``upper`` bound of its 95 %
    interval; ``passed`` when the upper bound lies below τ. ``where`` names the target (and γ);
    in the JSON its entries stand between the measure and the value."""

    document_order: ClassVar[tuple[str, ...]] = ("family", "measure", "where", "value", "upper", "tau", "passed")

    family: str
    measure: str
    value: float | None
    upper: float | None
    tau: float
    where: Mapping[str, Any] = figure(default_factory=dict, flatten=True)

    @property
    def passed(self) -> bool:
        return below_tau(self.upper, self.tau)


@dataclass(frozen=True, eq=False)
class AttackEvaluation(Serialised):
    """What one attack family found.

    Attributes
    ----------
    family:
        The key of ``section`` in the result's JSON.
    section:
        The family's figures (aggregates only): a typed result, whose document is the family's
        JSON section, or a JSON-ready mapping.
    checks:
        Its τ decisions, in the order the report lists them.
    attacks_wanted:
        The attacks per check that would decide its undecided checks (None: decided, or no
        estimate).
    exposed:
        Record-level rows of the original the attack flags (never in ``to_dict``).
    """

    family: str = field(metadata=rules(serialise=False))
    section: Any = field(metadata=rules(flatten=True))
    checks: tuple[Check, ...] = figure(default=(), serialise=False)
    attacks_wanted: int | None = figure(default=None, serialise=False)
    exposed: pd.DataFrame | None = figure(default=None, serialise=False, repr=False)

    @property
    def passed(self) -> bool:
        """True when every check of the family passes."""
        return all(c.passed for c in self.checks)

    @property
    def worst(self) -> Check | None:
        """The check with the largest upper bound (an undefined bound counts as the largest)."""
        return max(self.checks, key=lambda c: 2.0 if c.upper is None else c.upper, default=None)


@dataclass(frozen=True, eq=False)
class Space:
    """What every family shares: the attacked ``columns``, the distance ``preparation`` fitted on
    the original, and the intruder's ``reference`` sample (membership family only)."""

    columns: tuple[str, ...]
    preparation: Preparation
    reference: pd.DataFrame | None = None


class SyntheticAttack(Protocol):
    """An attack family on a synthetic release."""

    family: ClassVar[str]
    order: ClassVar[int]

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> SyntheticAttack | None:
        """The attack with its settings, or None when the settings do not ask for it."""

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        """Attack ``synthetic`` (made from ``original``; ``control``: real records it never saw)."""


A = TypeVar("A", bound=type)

#: Every family by name, in ``order``; reading it imports every module of this package once
#: (``attack.io.plugins.Registry``, the one mechanism of every plug-in), so a family registers by
#: being defined in one of them.
ATTACKS: Registry[type[SyntheticAttack]] = Registry(
    "synthetic attack", "attack.synthetic_attacks", order=lambda family, cls: (cls.order, family))


def register(cls: A) -> A:
    """Class decorator: add an attack family to the run of ``attack_synthetic``."""
    family = getattr(cls, "family", None)
    if not isinstance(family, str) or not isinstance(getattr(cls, "order", None), int):
        raise TypeError(f"{cls.__name__} needs the class attributes family (str) and order (int)")
    try:
        ATTACKS.add(family, cls)
    except TypeError as exc:
        raise InputError(f"two synthetic attacks are named {family!r} ({exc})") from None
    return cls


def unregister(family: str) -> None:
    """Remove a family (for tests that register a toy attack)."""
    ATTACKS.remove(family)


def registered() -> Sequence[type[SyntheticAttack]]:
    """Every family, in ``order``."""
    return ATTACKS.values()
