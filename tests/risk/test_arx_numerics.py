"""ARX's digamma and trigamma approximations and the Newton–Raphson solver, ported."""

import numpy as np
import pytest
from scipy import special

from attack.risk.arx_numerics import START_VALUES, digamma, solve, trigamma


def test_digamma_is_close_to_the_exact_function_everywhere_but_the_poles():
    x = np.array([1e-8, 1e-3, 0.5, 1.0, 3.7, 11.9, 12.0, 150.0, 1e6, -0.5, -2.3])
    assert digamma(x) == pytest.approx(special.digamma(x), rel=1e-9)
    assert digamma(0.0)[0] == -np.inf and np.isnan(digamma(np.inf)[0])


def test_trigamma_keeps_arxs_missing_tail_below_12():
    assert trigamma(np.array([12.5, 40.0, 1e4])) == pytest.approx(special.polygamma(1, [12.5, 40.0, 1e4]), rel=1e-9)
    # below 12 ARX shifts the argument up to [8, 9) and adds no asymptotic tail: the finite sum alone
    assert trigamma(9.0)[0] == 0.0
    assert trigamma(7.5)[0] == pytest.approx(1 / 7.5**2)
    assert trigamma(3.0)[0] == pytest.approx(sum(1 / x**2 for x in range(3, 8)))


def test_the_start_values_accumulate_as_javas_loop():
    assert len(START_VALUES) == 16 and START_VALUES[0] == (0.0, 0.0)
    assert START_VALUES[-1] == (0.33 + 0.33 + 0.33, 0.33 + 0.33 + 0.33)


def test_solve_finds_a_root_and_reports_none_without_one():
    def circle(x, y):   # x² + y² = 4, x = y: root (√2, √2)
        return (x * x + y * y - 4, x - y), (2 * x, 2 * y, 1.0, -1.0)

    found = solve(circle, (1.0, 0.5))
    assert found.converged and found.x == pytest.approx(np.sqrt(2), abs=1e-6)

    def none(x, y):     # x² + 1 = 0 has no real root
        return (x * x + 1.0, y), (2 * x, 0.0, 0.0, 1.0)

    missing = solve(none, (1.0, 1.0))
    assert not missing.converged and np.isnan(missing.x)
