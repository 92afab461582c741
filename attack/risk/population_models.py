"""ARX's models of population uniqueness: Pitman's, Zayatz's and the slide negative binomial
(SNB), each estimating the number of population units that are unique on the keys from the
sample's class-size histogram and the population size (docs/method/population-uniqueness.md).

Ported from ARX 3.9 (``ModelPitman``, ``ModelZayatz``, ``ModelSNB``) formula by formula,
including what ARX computes differently from the papers (said in each function), so that the
figures equal ARX's; tests compare them with ARX's own output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from attack.risk.arx_numerics import (
    ACCURACY,
    Matrix,
    Pair,
    Solution,
    digamma,
    gamma,
    log_gamma,
    solve,
    trigamma,
)

INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class ClassSizes:
    """A class-size histogram: ``counts[i]`` key classes of ``sizes[i]`` sample records,
    sizes ascending, as ARX's ``RiskModelHistogram``."""

    sizes: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, class_sizes: np.ndarray) -> ClassSizes:
        """Histogram of the given class sizes (one entry per key class)."""
        sizes, counts = np.unique(np.asarray(class_sizes, dtype=np.int64), return_counts=True)
        return cls(sizes, counts.astype(np.int64))

    @property
    def records(self) -> int:
        return int((self.sizes * self.counts).sum())

    @property
    def classes(self) -> int:
        return int(self.counts.sum())

    def of_size(self, size: int) -> int:
        hit = self.sizes == size
        return int(self.counts[hit].sum())


def population_size(records: int, sampling_fraction: float) -> int:
    """ARX's population size for a sampling fraction: ``round(n / π)`` (``ARXPopulationModel``)."""
    return int(np.floor(records / sampling_fraction + 0.5))


@dataclass(frozen=True)
class ModelFit:
    """One model's estimate: the number of population uniques (NaN when the model gives none),
    its fitted parameters and whether its solver converged."""

    uniques: float
    parameters: dict[str, float]
    converged: bool


def pitman(hist: ClassSizes, population: int) -> ModelFit:
    """Pitman's model (Hoshino 2001, ARX's ``ModelPitman``): the maximum-likelihood θ, α of the
    Pitman sampling formula, then ``Γ(θ+1)/Γ(θ+α) · N^α`` population uniques.

    As ARX: start from the moment estimates, solve with the closed-form (digamma) score;
    when that fails or its root does not solve the summed score to 1e-6, solve the summed
    score instead; θ must stay non-negative."""
    c1 = float(hist.of_size(1))
    c2 = float(hist.of_size(2)) or 1.0
    u = float(hist.classes)
    n = float(hist.records)
    with np.errstate(all="ignore"):
        c1_, u_, n_ = np.float64(c1), np.float64(u), np.float64(n)
        c = c1_ * (c1_ - 1) / c2
        t = (n_ * u_ * c - c1_ * (n_ - 1) * (2 * u_ + c)) / ((2 * c1_ * u_ + c1_ * c) - n_ * c)
        a = (t * (c1_ - n_) + (n_ - 1) * c1_) / (n_ * u_)
    closed = _pitman_closed(hist, u, n)
    summed = _PitmanSummed(hist, u, n)
    start = (float(t), float(a))
    result = solve(closed, start, _theta_non_negative)
    if not result.converged:
        result = solve(summed, start, _theta_non_negative)
    else:
        (fx, fy), _ = summed(np.float64(result.x), np.float64(result.y))
        if np.isnan(fx) or np.isnan(fy) or abs(fx) > ACCURACY or abs(fy) > ACCURACY:
            result = solve(summed, start, _theta_non_negative)
    return ModelFit(_pitman_uniques(result, float(population)), {"theta": result.x, "alpha": result.y},
                    result.converged)


def pitman_information(hist: ClassSizes, theta: float, alpha: float) -> np.ndarray:
    """Observed information (minus the Hessian of the log-likelihood, from the exact sums) of
    Pitman's θ, α, for the interval's parameter uncertainty."""
    _, (x1, x2, y1, y2) = _PitmanSummed(hist, float(hist.classes), float(hist.records))(
        np.float64(theta), np.float64(alpha))
    return -np.array([[x1, x2], [y1, y2]], dtype=float)


def _theta_non_negative(x: float, y: float) -> bool:
    return x >= 0


def _pitman_closed(hist: ClassSizes, u: float, n: float):  # type: ignore[no-untyped-def]
    other = hist.sizes != 1
    sizes = hist.sizes[other].astype(float)
    counts = hist.counts[other].astype(float)

    def function(t: float, a: float) -> tuple[Pair, Matrix]:
        val0 = u - 1.0
        # one call per function: [val0 + t/a + 1, t/a + 1, n + t, t + 1, 1 - a, sizes - a]
        psi = digamma(np.concatenate(([val0 + t / a + 1.0, t / a + 1.0, n + t, t + 1.0, 1.0 - a], sizes - a)))
        # [(a + t + a·val0)/a, t/a + 1, t + 1, n + t, 1 - a, sizes - a]
        psi1 = trigamma(np.concatenate(([(a + t + a * val0) / a, t / a + 1.0, t + 1.0, n + t, 1.0 - a], sizes - a)))
        val1, val4, val6 = psi[0], psi[1], psi[4]
        val2, val3, val7 = psi1[0], psi1[1], psi1[4]
        val5 = a * a
        d1 = (val3 - val2) / val5
        d5 = ((a * val1 + t * val2) - a * val4 - t * val3) / (val5 * a)
        d3 = ((((val5 * val0) - (t * t * val2)) + (t * t * val3)) - (2.0 * a * t * val1) + (2.0 * a * t * val4)) / (
            val5 * val5)
        o1 = (val1 - val4) / a
        o3 = (-t * val1 + a * val0 + t * val4) / (a * a)
        o2 = psi[2] - psi[3]
        d2 = psi1[2] - psi1[3]
        d4 = float(np.sum(counts * (val7 - psi1[5:]))) if sizes.size else 0.0
        o4 = float(np.sum(counts * (psi[5:] - val6))) if sizes.size else 0.0
        return (o1 - o2, o3 - o4), (d2 - d1, -d5, -d5, -d3 - d4)

    return function


class _PitmanSummed:
    """Pitman's score and Hessian as the sums ARX's ``getMasterFunctionIterative`` adds term by
    term (the sum over the n records by exact digamma differences)."""

    def __init__(self, hist: ClassSizes, u: float, n: float) -> None:
        self.i_classes = np.arange(1, max(int(u), 1), dtype=float)        # i = 1 .. u-1
        self.n = n
        other = hist.sizes != 1
        self.sizes = hist.sizes[other]
        self.counts = hist.counts[other].astype(float)
        self.j = np.arange(1, int(self.sizes.max()) if self.sizes.size else 1, dtype=float)  # j = 1 .. max-1

    def __call__(self, t: float, a: float) -> tuple[Pair, Matrix]:
        with np.errstate(all="ignore"):
            i = self.i_classes
            v0 = t + i * a
            v1 = 1.0 / v0
            v3 = v1 * v1
            d1, d5, d3 = v3.sum(), (i * v3).sum(), (i * i * v3).sum()
            o1, o3 = v1.sum(), (i * v1).sum()
            if self.sizes.size:
                w = self.j - a
                inv = np.concatenate(([0.0], np.cumsum(1.0 / w)))
                inv2 = np.concatenate(([0.0], np.cumsum(1.0 / (w * w))))
                d4 = float(np.sum(self.counts * inv2[self.sizes - 1]))
                o4 = float(np.sum(self.counts * inv[self.sizes - 1]))
            else:
                d4 = o4 = 0.0
            # Σ_{i=1}^{n-1} 1/(t+i) and 1/(t+i)² by the recurrences of ψ and ψ' (the same sums, in
            # constant time for a sample of millions)
            o2 = special.digamma(t + self.n) - special.digamma(t + 1.0)
            d2 = special.polygamma(1, t + 1.0) - special.polygamma(1, t + self.n)
        return (o1 - o2, o3 - o4), (d2 - d1, -d5, -d5, -d3 - d4)


def _pitman_uniques(result: Solution, p: float) -> float:
    """ARX's ``getResult``: ``exp(lnΓ(θ+1) − lnΓ(θ+α))·N^α`` and ``Γ(θ+1)/Γ(θ+α)·N^α``,
    each kept when in [0, N], the larger of the two."""
    t, a = result.x, result.y
    if np.isnan(a) or np.isnan(t) or a == 0:
        return float("nan")
    with np.errstate(all="ignore"):
        values = []
        for value in (np.exp(np.float64(log_gamma(t + 1.0) - log_gamma(t + a))) * np.power(np.float64(p), a),
                      np.float64(gamma(t + 1.0)) / np.float64(gamma(t + a)) * np.power(np.float64(p), a)):
            values.append(float(value) if 0.0 <= value <= p else float("nan"))
    valid = [v for v in values if not np.isnan(v)]
    return max(valid) if valid else float("nan")


def zayatz(hist: ClassSizes, population: int) -> ModelFit:
    """Zayatz's model (Zayatz 1991, ARX's ``ModelZayatz``): the share of sample uniques that are
    population uniques, from hypergeometric probabilities of drawing exactly one record of a
    class, times the sample uniques over the sampling fraction. As in ARX the population and
    sample sizes are capped at 2³¹ − 1."""
    n = hist.records
    big_n = min(population, INT_MAX)
    small_n = min(n, INT_MAX)
    u = float(hist.classes)
    c1 = float(hist.counts[0]) if hist.sizes[0] == 1 else 0.0
    with np.errstate(all="ignore"):
        p_one = _hypergeometric_one(big_n, hist.sizes, small_n)
        temp = float(np.sum(hist.counts / u * p_one))
        uniqueness = (c1 / u) * _hypergeometric_one(big_n, np.array([1]), small_n)[0] / np.float64(temp)
        uniques = np.float64(hist.of_size(1)) * uniqueness / (np.float64(n) / np.float64(population))
    return ModelFit(float(uniques), {}, True)


def _hypergeometric_one(population: int, successes: np.ndarray, draws: int) -> np.ndarray:
    """P(X = 1) for X ~ Hypergeometric(N, K, n) for each K, as
    ``K·(n/N)·Π_{i=1}^{K−1} (1 − (n−1)/(N−i))`` (exact in logarithms, no cancellation)."""
    k = np.asarray(successes, dtype=np.int64)
    top = int(k.max()) if k.size else 1
    i = np.arange(1, top, dtype=float)
    with np.errstate(all="ignore"):
        terms = np.log1p(-(draws - 1) / (population - i))
        terms[~(population - i > draws - 1)] = -np.inf if draws > 1 else 0.0
    cum = np.concatenate(([0.0], np.cumsum(terms)))
    with np.errstate(all="ignore"):
        out = np.exp(np.log(k.astype(float)) + np.log(draws / population) + cum[k - 1])
    out[(k > population) | (draws > population)] = 0.0
    return out


def snb(hist: ClassSizes, population: int) -> ModelFit:
    """The slide negative binomial model (Chen & Keller-McNulty 1998, ARX's ``ModelSNB``):
    solve for α, β with the population's non-empty classes K estimated by Shlosser's estimator
    (Haas et al. 1995), then ``K·β^α`` population uniques.

    Ported as ARX has it, which differs from the paper in two places: Shlosser's denominator
    subtracts 1 once per histogram entry (``Σ[(1−f)^s·c_s·(1+f)^s − 1]``), and the second
    equation multiplies by ``(1 − (1−f)(1−β))^{α+2}`` where the paper divides."""
    f = np.float64(hist.records) / np.float64(population)
    c1 = float(hist.of_size(1))
    c2 = float(hist.of_size(2))
    k = _shlosser(hist, f, c1)
    result = solve(_snb_function(k, f, c1, c2), (1.0, 1.0))
    with np.errstate(all="ignore"):
        uniques = float(k * np.power(np.float64(result.y), result.x))
    return ModelFit(uniques, {"alpha": result.x, "beta": result.y, "classes": float(k)}, result.converged)


def _shlosser(hist: ClassSizes, f: np.float64, c1: float) -> float:
    s = hist.sizes.astype(float)
    c = hist.counts.astype(float)
    with np.errstate(all="ignore"):
        f2 = f * f
        val2 = np.power(1 - f, s) * c
        var1 = float(np.sum(s * f2 * np.power(1 - f2, s - 1) * c))
        var2 = float(np.sum(val2 * np.power(1 + f, s) - 1))
        var3 = float(np.sum(val2))
        var4 = float(np.sum(s * f * np.power(1 - f, s - 1) * c))
        return float(hist.classes + c1 * (np.float64(var1) / var2) * (np.float64(var3) / var4) ** 2)


def _snb_function(k: float, f: float, c1: float, c2: float):  # type: ignore[no-untyped-def]
    log, pw = np.log, np.power

    def function(a: float, b: float) -> tuple[Pair, Matrix]:
        a, b = np.float64(a), np.float64(b)
        dividend = (1 - f) * (1 - b)
        fx = k * f * pw(b / (1 - dividend), a) * (((a * dividend) / (1 - dividend)) + 1) - c1
        fy = k * a * pw(b, a) * (f * f) * (1 - b) / 2 * pw(1 - dividend, a + 2) * (2 - (1 - a) * dividend) - c2
        val0 = (b - 1.0) * (f - 1.0)
        val1 = val0 - 1.0
        val2 = 1.0 - val0
        val3 = a * val0 / val1 - 1.0
        val4 = pw(-b / val1, a)
        val6 = pw(f, 2.0)
        val7 = pw(b, a)
        val8 = val7 * val6 * k
        val9 = a * val8
        val10 = 2.0 * pw(val2, a + 2.0)
        val11 = pw(val1, 2.0)
        val13 = f * k
        val14 = f - 1.0
        val15 = a - 1.0
        val16 = b - 1.0
        val17 = val15 * val0
        val18 = val6 * k
        val19 = val17 + 2.0
        val20 = val18 * val19
        x1 = -val13 * log(-b / val1) * val3 * val4 - (val13 * val4 * val0) / val1
        x2 = (a * val13 * (1.0 / val1 - (b * val14) / val11) * val3 * pw(-b / val1, val15)
              - val13 * val4 * ((a * val14) / val1 - (a * val16 * pw(val14, 2.0)) / val11))
        y1 = ((val9 * log(val2) * val19 * val16) / val10 - (val9 * pw(val16, 2.0) * val14) / val10
              - (val7 * val20 * val16) / val10 - (a * val7 * val18 * log(b) * val19 * val16) / val10)
        y2 = (-(val9 * val19) / val10 - (pw(a, 2.0) * pw(b, val15) * val20 * val16) / val10
              - (a * val7 * val18 * val17) / val10 - (a * val7 * val20 * (a + 2.0) * val0) / (2.0 * pw(val2, a + 3.0)))
        return (fx, fy), (x1, x2, y1, y2)

    return function
