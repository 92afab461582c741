"""The τ rule (attack.verdict): strictly below τ passes, an unknown figure never does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from attack.verdict import all_below_tau, below_tau, upper_reaches_tau


def test_the_rule_at_its_edges():
    assert below_tau(0.4999, 0.5) and not below_tau(0.5, 0.5) and not below_tau(None, 0.5)
    assert all_below_tau([], 0.5) and all_below_tau([0.1, 0.2], 0.5)
    assert not all_below_tau([0.1, None], 0.5) and not all_below_tau([0.1, 0.5], 0.5)
    assert upper_reaches_tau([(0.1, 0.5)], 0.5) and not upper_reaches_tau([(0.1, 0.49), None], 0.5)


@given(st.lists(st.floats(0, 1)), st.floats(0.01, 1))
def test_all_below_is_the_maximum_below(values, tau):
    assert all_below_tau(values, tau) == (not values or max(values) < tau)
