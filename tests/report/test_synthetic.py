"""The synthetic-data report (attack.report.synthetic): counts are printed as counts."""

from __future__ import annotations

from attack.report.synthetic import _rate, success_count


def test_counts_are_whole_and_the_size_corrected_control_says_so() -> None:
    assert success_count(10, 28) == "10/28" and success_count(10.0, 28) == "10/28"
    # the singling-out control count scaled by the size ratio is an expected number, not a count
    assert success_count(74.816, 500) == "≈75/500, size-corrected"
    shown = _rate({"rate": 0.1512, "low": 0.1221, "high": 0.1857, "k": 74.816, "n": 500})
    assert "74.816" not in shown and shown.endswith("(≈75/500, size-corrected)")
    assert _rate(None) == "–"
