"""Rates and their intervals: the one place where a success count becomes a risk estimate.

Every attack that reports a share of successes (the linkage evaluation, the attacks on
synthetic data, membership games) takes its interval from here:

* the Wilson (1927) score interval of ``k`` successes in ``n`` trials, centred on
  ``(k + z²/2)/(n + z²)`` with half-width ``z/(n + z²)·sqrt(k(n − k)/n + z²/4)``, clipped to
  [0, 1] and touching 0 at ``k = 0`` and 1 at ``k = n``;
* the residual risk of Giomi et al. (2023, Anonymeter), ``R = (r_a − r_c)/(1 − r_c)``: what an
  attack on the release achieves beyond the same attack on records the release never saw, with
  the error propagated from both rates;
* the one-sided exact bound of Clopper & Pearson (1934), for the lower bound on ε that a
  membership attack proves (``attack.synthetic_attacks.privacy_claim``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from attack.errors import InputError

__all__ = ["Z_95", "UNDEFINED_RESIDUAL", "Estimate", "Rate", "clopper_pearson_upper", "residual_risk",
           "success_rate", "wilson_interval", "z_quantile"]

#: The two-sided 95 % normal quantile.
Z_95 = 1.959963984540054
UNDEFINED_RESIDUAL = "control success rate is 1: residual risk is undefined"


@dataclass(frozen=True)
class Estimate:
    """A risk estimate with its symmetric error and interval, all clipped to [0, 1]."""

    value: float
    error: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"value": self.value, "error": self.error, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Rate:
    """The Wilson success rate of ``k`` successes in ``n`` attacks: its centre ``rate``, the
    half-width ``error`` and the interval ``[low, high]``. ``k`` may be fractional (the
    size-corrected singling-out control count)."""

    rate: float
    error: float
    low: float
    high: float
    n: int
    k: float

    def to_dict(self) -> dict[str, float]:
        return {"rate": self.rate, "error": self.error, "low": self.low, "high": self.high,
                "n": self.n, "k": self.k}

    def estimate(self) -> Estimate:
        """The rate as a risk estimate (when no control set gives a residual risk)."""
        return Estimate(self.rate, self.error, self.low, self.high)


def _clip(x: float) -> float:
    return float(min(max(x, 0.0), 1.0))


def z_quantile(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level in (0, 1)."""
    if not 0 < confidence < 1:
        raise InputError(f"confidence level must lie strictly between 0 and 1, got {confidence}")
    from scipy.special import ndtri  # here: the command line starts without SciPy

    return float(ndtri(0.5 * (1.0 + confidence)))


def _wilson(k: float, n: float, z: float) -> tuple[float, float, float, float]:
    """Centre, half-width and clipped interval of the Wilson score interval (``n > 0``)."""
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k <= 0 else max(0.0, centre - half)  # exactly 0 (and 1 below) without rounding
    high = 1.0 if k >= n else min(1.0, centre + half)
    return float(centre), float(half), float(low), float(high)


def wilson_interval(successes: float, n: float, z: float = Z_95) -> list[float] | None:
    """The Wilson score interval ``[low, high]`` of a proportion; None when ``n`` is 0."""
    if n <= 0:
        return None
    _, _, low, high = _wilson(successes, n, z)
    return [low, high]


def success_rate(k: float, n: int, confidence: float = 0.95) -> Rate:
    """The Wilson success rate of ``k`` successes in ``n`` attacks (Wilson 1927)."""
    if n < 1:
        raise InputError(f"a success rate needs at least one attack, got n = {n}")
    if not 0 <= k <= n:
        raise InputError(f"successes must lie between 0 and n = {n}, got {k}")
    rate, error, low, high = _wilson(k, n, z_quantile(confidence))
    return Rate(rate, error, low, high, int(n), float(k))


def residual_risk(main: Rate, control: Rate) -> Estimate | None:
    """Residual risk ``R = (r_a − r_c)/(1 − r_c)`` with the propagated error, point and interval
    clipped to [0, 1]. Undefined when ``r_c = 1``: returns None and issues a warning."""
    if control.rate >= 1:
        warnings.warn(UNDEFINED_RESIDUAL, RuntimeWarning, stacklevel=2)
        return None
    gap = 1.0 - control.rate
    value = (main.rate - control.rate) / gap
    error = np.hypot(main.error / abs(gap), control.error * (main.rate - 1.0) / gap**2)
    return Estimate(_clip(value), float(error), _clip(value - error), _clip(value + error))


def clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    """The one-sided exact (Clopper & Pearson 1934) upper bound of a proportion at level
    ``1 − alpha``: the ``1 − alpha`` quantile of Beta(k + 1, n − k), and 1 at ``k = n``."""
    if n < 1 or not 0 <= k <= n:
        raise InputError(f"a proportion needs 0 ≤ k ≤ n and n ≥ 1, got k = {k}, n = {n}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    if k >= n:
        return 1.0
    from scipy.special import betaincinv  # here: the command line starts without SciPy

    return float(betaincinv(k + 1, n - k, 1.0 - alpha))
