"""The numerics under ARX's population-uniqueness models, ported so that the estimates equal
ARX's (docs/method/population-uniqueness.md): ARX's digamma and trigamma approximations
(``org.deidentifier.arx.risk.Gamma``, after Minka's Lightspeed toolbox), commons-math's
``logGamma``/``gamma`` conventions, and the Newton–Raphson solver of the ``newtonraphson``
library ARX uses (``de.linearbits.newtonraphson.NewtonRaphson2D``) with ARX's default solver
configuration (``ARXSolverConfiguration``).

Everything works on numpy float64 so that a division by zero, the logarithm of a negative
number or a negative base to a fractional power gives ``inf``/``nan`` as in Java, never an
exception. Two departures, both documented: the solver has no wall-clock limits (ARX stops a
try after 100 ms and a solve after 1 s, which makes its results depend on the machine), and
its random restarts are never used (ARX's default configuration is deterministic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

EULER = 0.57721566490153286060651209008240243104215933593992
APERY = 1.202056903159594285399738161511449990764986292
TRIGAMMA_1 = np.pi * np.pi / 6.0
LARGE_DIGAMMA = 12.0
LARGE_TRIGAMMA = 8.0

#: ARX's ``ARXSolverConfiguration`` defaults.
ACCURACY = 1e-6
ITERATIONS_PER_TRY = 1000


def _start_values() -> tuple[tuple[float, float], ...]:
    """The start values exactly as Java's ``for (d = 0; d < 1; d += 0.33)`` accumulates them."""
    steps = []
    d = 0.0
    while d < 1.0:
        steps.append(d)
        d += 0.33
    return tuple((a, b) for a in steps for b in steps)


#: ARX's deterministic start values: (d1, d2) for d1, d2 in 0, 0.33, 0.66, 0.99.
START_VALUES = _start_values()


def digamma(x: np.ndarray | float) -> np.ndarray:
    """ARX's digamma approximation (``Gamma.digamma``), elementwise."""
    x = np.array(x, dtype=float, ndmin=1)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        ok = np.isfinite(x)
        out[ok & (x == 0.0)] = -np.inf
        neg = ok & (x < 0.0)
        if neg.any():
            out[neg] = digamma(1.0 - x[neg]) + np.pi / np.tan(-np.pi * x[neg])
        small = ok & (x > 0.0) & (x <= 1e-6)
        out[small] = (-EULER - 1.0 / x[small]) + TRIGAMMA_1 * x[small]
        big = ok & (x > 1e-6)
        v = x[big].copy()
        res = np.zeros_like(v)
        low = v < LARGE_DIGAMMA
        while low.any():
            res[low] -= 1.0 / v[low]
            v[low] += 1.0
            low = v < LARGE_DIGAMMA
        r = 1.0 / v
        res += np.log(v) - 0.5 * r
        r = r * r
        res -= r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132)))))
        out[big] = res
    return out


def trigamma(x: np.ndarray | float) -> np.ndarray:
    """ARX's trigamma approximation (``Gamma.trigamma``), elementwise.

    As in ARX, the argument is shifted up to 8 but the asymptotic tail is added only from 12
    on, so every argument below 12 lacks the tail (one in [8, 12) gives 0); only the solver's
    derivatives use it, which changes the path of Newton's steps, not the solution."""
    x = np.array(x, dtype=float, ndmin=1)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        ok = np.isfinite(x)
        out[ok & (x == 0.0)] = -np.inf
        neg = ok & (x < 0.0)
        if neg.any():
            r = np.pi / np.sin(-np.pi * x[neg])
            out[neg] = -trigamma(1.0 - x[neg]) + r * r
        small = ok & (x > 0.0) & (x <= 1e-4)
        out[small] = 1.0 / (x[small] * x[small]) + TRIGAMMA_1 - 2.0 * APERY * x[small]
        big = ok & (x > 1e-4)
        v = x[big].copy()
        res = np.zeros_like(v)
        low = v < LARGE_TRIGAMMA
        while low.any():
            res[low] += 1.0 / (v[low] * v[low])
            v[low] += 1.0
            low = v < LARGE_TRIGAMMA
        tail = v >= LARGE_DIGAMMA
        vt = v[tail]
        r = 1.0 / (vt * vt)
        b2, b4, b6, b8, b10 = 1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66
        res[tail] += 0.5 * r + (1.0 + r * (b2 + r * (b4 + r * (b6 + r * (b8 + r * b10))))) / vt
        out[big] = res
    return out


def log_gamma(x: float) -> float:
    """commons-math's ``Gamma.logGamma``: NaN for non-positive arguments."""
    if not np.isfinite(x) or x <= 0.0:
        return float("nan")
    return float(special.gammaln(x))


def gamma(x: float) -> float:
    """commons-math's ``Gamma.gamma`` (NaN at the poles)."""
    if not np.isfinite(x) or (x <= 0.0 and x == np.floor(x)):
        return float("nan")
    return float(special.gamma(x))


Pair = tuple[float, float]
Matrix = tuple[float, float, float, float]   # (x1, x2, y1, y2) as newtonraphson's SquareMatrix2D


@dataclass(frozen=True)
class Solution:
    """Result of a Newton–Raphson solve: the root (NaN when none was found), the number of
    function evaluations and of start values tried."""

    x: float
    y: float
    evaluations: int
    tries: int

    @property
    def converged(self) -> bool:
        return not (np.isnan(self.x) or np.isnan(self.y))


def solve(function: Callable[[float, float], tuple[Pair, Matrix]], start: Pair,
          constraint: Callable[[float, float], bool] | None = None) -> Solution:
    """``NewtonRaphson2D.solve`` with ARX's default configuration: from ``start``, then from
    each of the 16 deterministic start values, at most 1000 steps per try; a try ends when a
    step leaves the constraint or gives NaN. ``function`` returns the object functions and
    their Jacobian at a point. As in the library, the last start value gets a single step
    (the solve ends as soon as it has been taken)."""
    total = (len(START_VALUES) + 1) * ITERATIONS_PER_TRY
    evaluations = 0
    tries = 0
    offset = 0
    first = True
    with np.errstate(all="ignore"):
        while evaluations <= total:
            if first:
                x, y = np.float64(start[0]), np.float64(start[1])
                first = False
            else:
                x, y = np.float64(START_VALUES[offset][0]), np.float64(START_VALUES[offset][1])
                offset += 1
            tries += 1
            iterations = 0
            while True:
                evaluations += 1
                (fx, fy), (x1, x2, y1, y2) = function(x, y)
                if abs(fx) <= ACCURACY and abs(fy) <= ACCURACY:
                    return Solution(float(x), float(y), evaluations, tries)
                scalar = np.float64(1.0) / (np.float64(x1) * y2 - np.float64(x2) * y1)
                i1, i2, j1, j2 = y2 * scalar, -x2 * scalar, -y1 * scalar, x1 * scalar
                x, y = x - (i1 * fx + i2 * fy), y - (j1 * fx + j2 * fy)
                if offset == len(START_VALUES):
                    return Solution(float("nan"), float("nan"), evaluations, tries)
                if constraint is not None and not constraint(float(x), float(y)):
                    break
                if np.isnan(x) or np.isnan(y) or iterations >= ITERATIONS_PER_TRY:
                    break
                iterations += 1
    return Solution(float("nan"), float("nan"), evaluations, tries)
