"""The τ rule, in one place: a figure passes when it is known and strictly below τ.

Every verdict of the tool (a cell's disclosure risk per γ, a combined measure, a synthetic
attack's check, the certificate's re-check) compares with τ through these functions, so the
rule (strictly below; an unknown figure never passes) cannot drift between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["below_tau", "all_below_tau", "upper_reaches_tau"]


def below_tau(value: float | None, tau: float) -> bool:
    """True when ``value`` is known and strictly below ``tau``."""
    return value is not None and value < tau


def all_below_tau(values: Iterable[float | None], tau: float) -> bool:
    """True when every value is known and strictly below ``tau`` (True for no values)."""
    return all(below_tau(v, tau) for v in values)


def upper_reaches_tau(intervals: Iterable[Sequence[float] | None], tau: float) -> bool:
    """True when some interval's upper bound is at or above ``tau``: a passing figure whose
    uncertainty reaches τ (the reports mark it, the verdict stays on the estimate)."""
    return any(ci is not None and ci[1] is not None and ci[1] >= tau for ci in intervals)
