"""The tuning report's risk–utility plot: families whose share never changes are named instead
of drawn, and a plot with nothing to show becomes a sentence (hand-made tuning documents)."""

from __future__ import annotations

from attack.report.release import (
    ml_table,
    render_tune_html,
    risk_utility_figure,
    risk_utility_sentence,
)


def _document(shares: dict[str, tuple[float, float]]) -> dict:
    """Two tried values of k (one seed): k = 3 fails at risk 0.7, k = 5 passes at 0.2."""
    candidates = []
    for i, (value, risk) in enumerate(((3, 0.7), (5, 0.2))):
        families = {name: {"share": pair[i], "cases": 10} for name, pair in shares.items()}
        candidates.append({"value": value, "seed": 1, "passed": risk < 0.5, "n_cells": 4,
                           "n_failing_cells": int(risk >= 0.5), "max_cell_risk": risk,
                           "utility": {"families": families, "il1s": 0.1 * (i + 1)}})
    return {"tune": {"method": "mdav", "parameter": "k", "values": [3, 5], "seeds": [1]}, "tau": 0.5,
            "chosen": {"value": 5, "seed": 1}, "candidates": candidates}


def test_every_family_at_zero_is_a_sentence_not_a_plot() -> None:
    document = _document({"means": (0.0, 0.0), "sds": (0.0, 0.0)})
    assert risk_utility_figure(document) is None
    sentence = risk_utility_sentence(document)
    assert sentence.startswith("Every check family keeps one share") and "means 0.0%, sds 0.0%" in sentence
    page = render_tune_html(document, "t")
    assert "<svg" not in page and '<p class="sentence">Every check family keeps one share' in page


def test_constant_families_are_named_and_the_others_drawn() -> None:
    document = _document({"means": (0.0, 0.4), "sds": (0.0, 0.0)})
    figure = risk_utility_figure(document)
    assert figure is not None
    (axes,) = figure.axes
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["means"]
    assert risk_utility_sentence(document) == "Not drawn, the same share for every tried value: sds 0.0%."
    page = render_tune_html(document, "t")
    assert "<svg" in page and "Not drawn, the same share for every tried value: sds 0.0%." in page
    assert risk_utility_sentence(_document({"means": (0.0, 0.4)})) is None


def test_the_ml_table_rounds_large_metrics_for_reading() -> None:
    """An RMSE of 28958458.8609 reads 28,958,459 (the JSON keeps every digit); the ratio keeps
    four decimals."""
    model = {"model": "forest", "original": {"rmse": {"mean": 28958458.8609}},
             "release": {"rmse": {"mean": 30123456.12}}, "ratio": {"mean": 0.961321, "low": 0.9, "high": 1.02},
             "tolerance": 0.1, "passed": True, "importance_spearman": 0.9, "most_changed": []}
    row = ml_table({"metric": "rmse", "models": [model]}).rows[0]
    assert row[1:4] == ["28,958,459", "30,123,456", "0.9613"]
