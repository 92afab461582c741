"""Tests for attack.report: Markdown and HTML rendering of results, and atomic writes."""

from __future__ import annotations

import copy
import math
import re

import pytest

from attack.report.attack import fmt_figure, render_html, render_markdown

TAU = 0.5


def _wilson(k: int, n: int) -> list[float] | None:
    if n == 0:
        return None
    z, p = 1.959964, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [centre - half, centre + half]


def _cell(size: str, region: str, n: int, correct: int, none: int,
          u05: float | None, u10: float | None, slots: int = 3) -> dict:
    """One cell with consistent counts, rates and intervals (3 evaluated variables)."""
    false = n - correct - none
    matched = correct + false
    rate = correct / n
    use = {"0.05": u05, "0.1": u10}
    risk = {g: 0.0 if u is None else rate * u for g, u in use.items()}
    return {
        "cell": {"size_class": size, "east_west": region},
        "n_verifiable": n, "n_matched": matched, "n_correct": correct,
        "n_false": false, "n_none": none,
        "reidentification_rate": rate, "reidentification_rate_ci": _wilson(correct, n),
        "false_match_rate": false / matched if matched else None,
        "false_match_rate_ci": _wilson(false, matched),
        "usefulness": use,
        "usefulness_ci": {g: None if u is None else [u - 0.01, min(1.0, u + 0.01)]
                          for g, u in use.items()},
        "disclosure_risk": risk,
        "disclosure_risk_ci": {g: _wilson(round(p * n * slots), n * slots)
                               for g, p in risk.items()},
        "passed": all(p < TAU for p in risk.values()),
    }


SETTINGS = {
    "linkage": {
        "method": "greedy", "standardise": "maxmin", "metric_distance": "squared",
        "keys": [{"name": "turnover", "type": "metric", "weight": 1.0},
                 {"name": "employees", "type": "metric", "weight": 1.0},
                 {"name": "nace", "type": "hierarchical", "weight": 0.5}],
        "blocking": ["nace:prefix=2", "bbr9"], "n_blocks": 210, "n_external_without_block": 12,
        "largest_block": [812, 790], "n_candidate_pairs": 123456, "total_distance": 12.3,
        "n_tied_links": 4,
    },
    "evaluation": {"gamma": [0.05, 0.1], "targets": ["turnover", "employees", "costs"],
                   "cell_variables": ["size_class", "east_west"], "zero_rule": "exact"},
}


def passing_result() -> dict:
    """Realistic intruder (MARKUS-like source) against FORMAL: natural protection only."""
    cells = [
        _cell("20-49", "W", 3000, 600, 120, 0.97, 0.99),
        _cell("20-49", "E", 1200, 260, 50, 0.98, 0.99),
        _cell("50-249", "W", 2100, 540, 80, 0.98, 0.99),
        _cell("50-249", "E", 900, 250, 30, 0.98, 0.99),
        _cell("250+", "W", 1500, 450, 50, 0.99, 1.0),
        _cell("250+", "E", 650, 200, 20, 0.98, 0.99),
    ]
    return {
        "n_external": 9400, "n_verifiable": 9350, "n_matched": 9000, "n_correct": 2300,
        "n_false": 6700, "n_none": 350,
        "reidentification_rate": 0.246, "reidentification_rate_ci": [0.237, 0.255],
        "false_match_rate": 0.744, "false_match_rate_ci": [0.735, 0.753],
        "usefulness": {"0.05": 0.98, "0.1": 0.99},
        "usefulness_ci": {"0.05": [0.97, 0.985], "0.1": [0.985, 0.994]},
        "disclosure_risk": {"0.05": 0.241, "0.1": 0.2435},
        "disclosure_risk_ci": {"0.05": [0.2323, 0.2499], "0.1": [0.2348, 0.2524]},
        "tau": TAU, "passed": True, "cells": cells,
        "distance_histogram": {"edges": [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0],
                               "correct": [900, 700, 450, 200, 50],
                               "false": [300, 900, 1800, 2400, 1300]},
        **copy.deepcopy(SETTINGS),
    }


def failing_result() -> dict:
    """Worst case (original as external file) against a microaggregated release."""
    cells = [
        _cell("20-49", "W", 3010, 1200, 10, 0.40, 0.55),
        _cell("20-49", "E", 40, 0, 40, None, None),  # no block: nothing matched
        _cell("50-249", "W", 2110, 1000, 10, 0.45, 0.60),
        _cell("50-249", "E", 930, 450, 0, 0.50, 0.62),
        _cell("250+", "W", 1550, 1300, 0, 0.52, 0.66),  # fails
        _cell("250+", "E", 670, 600, 0, 0.55, 0.70),  # fails
    ]
    return {
        "n_external": 8310, "n_verifiable": 8310, "n_matched": 8250, "n_correct": 4550,
        "n_false": 3700, "n_none": 60,
        "reidentification_rate": 0.5475, "reidentification_rate_ci": [0.5368, 0.5582],
        "false_match_rate": 0.4485, "false_match_rate_ci": [0.4378, 0.4592],
        "usefulness": {"0.05": 0.4734, "0.1": 0.6183},
        "usefulness_ci": {"0.05": [0.4650, 0.4818], "0.1": [0.6101, 0.6264]},
        "disclosure_risk": {"0.05": 0.2592, "0.1": 0.3385},
        "disclosure_risk_ci": {"0.05": [0.2539, 0.2645], "0.1": [0.3328, 0.3443]},
        "tau": TAU, "passed": False, "cells": cells,
        **copy.deepcopy(SETTINGS),
    }


def runs() -> list[dict]:
    return [
        {"name": "realistic (MARKUS-like) vs FORMAL", "intruder": "realistic",
         "release": "FORMAL", "result": passing_result()},
        {"name": "worst case vs MA32G", "intruder": "worst", "release": "MA32G",
         "result": failing_result()},
    ]


def _table_rows(markdown: str, heading: str) -> list[str]:
    """The data rows of the table that follows the line ``heading``."""
    lines = markdown.splitlines()
    i = lines.index(heading) + 2
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        rows.append(lines[i])
        i += 1
    return rows[2:]  # header and separator


# -------------------------------------------------------------------------------- Markdown


def test_markdown_passed_verdict_and_numbers() -> None:
    md = render_markdown(runs()[:1], title="KSE 2001")
    assert md.startswith("# KSE 2001\n")
    assert "**PASSED: every cell below τ = 0.5**" in md
    assert "NOT PASSED" not in md
    assert "| re-identification rate | 0.2460 | [0.2370, 0.2550] |" in md
    assert "| false-match rate | 0.7440 | [0.7350, 0.7530] |" in md
    assert "| usefulness γ = 0.05 | 0.9800 | [0.9700, 0.9850] |" in md
    assert "| disclosure risk γ = 0.1 | 0.2435 | [0.2348, 0.2524] |" in md
    assert "| external records | 9400 |" in md
    assert "matcher: greedy" in md and "zero rule: exact" in md
    assert "NOT PASSED" not in md


def test_markdown_not_passed_lists_failing_cells_per_run() -> None:
    md = render_markdown(runs())
    verdict = md.split("## Comparison")[0]
    assert "**NOT PASSED" in verdict and "PASSED: every cell" not in verdict
    assert "- realistic (MARKUS-like) vs FORMAL: PASSED, 0 of 6 cells failing (τ = 0.5)" in verdict
    assert "- worst case vs MA32G: NOT PASSED, 2 of 6 cells failing (τ = 0.5)" in verdict
    # The comparison table has one row per run.
    row = "| NOT PASSED | worst case vs MA32G | 2 of 6 | 0.2592 | 0.3385 | worst | MA32G | 0.5475 |"
    assert row in md


def test_markdown_cell_table_marks_exactly_the_failing_cells() -> None:
    md = render_markdown(runs())
    second = md.split("## 2. worst case vs MA32G")[1]
    rows = _table_rows(second, "### Cells")
    assert len(rows) == 6
    failing = [r for r in rows if r.startswith("| NOT PASSED |")]
    assert len(failing) == 2
    assert failing[0] == "| NOT PASSED | size_class 250+, east_west W | 0.4361 | 0.5535 | 1550 | 1300 | 0.8387 |"
    assert failing[1] == "| NOT PASSED | size_class 250+, east_west E | 0.4925 | 0.6269 | 670 | 600 | 0.8955 |"
    # The unmatched cell: zero rate and zero risk, and it passes.
    assert "| PASSED | size_class 20-49, east_west E | 0.0000 | 0.0000 | 40 | 0 | 0.0000 |" in rows


def test_markdown_flags_upper_bound_reaching_tau() -> None:
    run = runs()[1]
    cell = run["result"]["cells"][3]  # 50-249/E, risk 0.3000 at γ = 0.1, passes
    cell["disclosure_risk_ci"]["0.1"] = [0.45, 0.51]
    md = render_markdown([run])
    assert "| PASSED* | size_class 50-249, east_west E | 0.2419 | 0.3000 | 930 | 450 | 0.4839 |" in md
    assert "PASSED* = point estimate below τ" in md


def test_markdown_single_cell_and_pipe_escaping() -> None:
    result = passing_result()
    result["cells"] = [dict(result["cells"][0], cell={})]
    result["evaluation"]["cell_variables"] = []
    md = render_markdown([{"name": "a|b", "intruder": "worst", "release": "R", "result": result}])
    assert "| status | cell | disclosure γ = 0.05 | disclosure γ = 0.1 | n | correct | rate |" in md
    assert "| PASSED | all units | " in md
    assert "## 1. a\\|b" in md


def test_empty_runs_rejected() -> None:
    with pytest.raises(ValueError):
        render_markdown([])
    with pytest.raises(ValueError):
        render_html([])


# -------------------------------------------------------------------------------- HTML


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(runs(), title="KSE 2001", notes=["γ and τ from preset suf", "draft"])


def test_html_is_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "@media print" in page
    lowered = page.lower()
    assert "<script" not in lowered
    assert "<link" not in lowered
    assert "url(http" not in lowered
    assert "<img" not in lowered
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    without_xmlns = re.sub(r'xmlns(:\w+)?="http://www\.w3\.org/[^"]*"', "", page)
    assert "http://" not in without_xmlns and "https://" not in without_xmlns
    # Comparison plot, then per run: heat map and histogram (only the first has one).
    assert page.count("<svg") == 4


def test_html_content_and_order(page: str) -> None:
    banner = page.index('<div class="verdict fail"')
    notes = page.index("<li>γ and τ from preset suf</li>")
    comparison = page.index('<section id="comparison">')
    first, second = page.index('id="run-1"'), page.index('id="run-2"')
    assert banner < notes < comparison < first < second
    assert "NOT PASSED: cells at or above τ = 0.5 for some γ" in page
    assert "worst case vs MA32G: NOT PASSED, 2 of 6 cells failing (τ = 0.5)" in page
    assert "<td class=\"num\">0.2460</td><td class=\"num\">[0.2370, 0.2550]</td>" in page
    run2 = page[second:]
    assert run2.count('<tr class="fail">') == 2
    assert "Disclosure risk per cell at γ = 0.1" in run2
    assert "Distances of assigned pairs" in page[first:second]
    assert "Distances of assigned pairs" not in run2
    # Scenario as run.
    assert "<td>blocking</td><td>nace:prefix=2, bbr9</td>" in page
    assert "<td>zero rule</td><td>exact</td>" in page
    assert "<td>turnover</td><td>metric</td><td>1</td>" in page


def test_html_is_deterministic(page: str) -> None:
    again = render_html(runs(), title="KSE 2001", notes=["γ and τ from preset suf", "draft"])
    assert again == page


def test_html_ids_are_unique(page: str) -> None:
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert ids and len(ids) == len(set(ids))
    referenced = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', page))
    assert referenced <= set(ids)


def test_html_escapes_every_string() -> None:
    run = runs()[1]
    run["name"] = "<script>alert(1)</script>"
    run["result"]["cells"][0]["cell"]["size_class"] = "<b>"
    page = render_html([run], title="a & <i>b</i>", notes=["<em>note</em>"])
    assert "<b>" not in page and "<script>" not in page and "<em>" not in page
    assert "&lt;b&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<title>a &amp; &lt;i&gt;b&lt;/i&gt;</title>" in page
    # A single run gets its own risk-by-γ plot instead of the comparison section.
    assert 'id="comparison"' not in page
    assert "Disclosure risk by γ" in page


def test_html_one_and_three_cell_variables() -> None:
    result = failing_result()
    for cell in result["cells"]:
        cell["cell"]["nace"] = "C"
    result["evaluation"]["cell_variables"] = ["size_class", "east_west", "nace"]
    page = render_html([{"name": "r", "intruder": "worst", "release": "R", "result": result}])
    assert "size_class 250+, east_west E, nace C" in page  # one heat-map row per cell
    result["cells"] = [dict(result["cells"][0], cell={})]
    result["evaluation"]["cell_variables"] = []
    page = render_html([{"name": "r", "intruder": "worst", "release": "R", "result": result}])
    assert "all units" in page


# -------------------------------------------------------------------------------- small cells


def _small_cells_run() -> dict:
    """The failing result with two small cells: 250+/E (n = 2, fails) and 50-249/E (n = 3)."""
    result = failing_result()
    result["cells"][5] = _cell("250+", "E", 2, 2, 0, 0.935, 0.965)  # risk 0.935/0.965: fails
    result["cells"][3] = _cell("50-249", "E", 3, 1, 0, 0.93, 0.94)  # risk 0.31/0.3133: passes
    assert not result["cells"][5]["passed"] and result["cells"][3]["passed"]
    return {"name": "small cells", "intruder": "worst", "release": "R", "result": result}


def _small_cell_numbers(cell: dict) -> list[str]:
    """Every rate and interval bound of a cell as the reports format them."""
    values = [cell["reidentification_rate"], *cell["reidentification_rate_ci"]]
    for g in ("0.05", "0.1"):
        values += [cell["disclosure_risk"][g], *cell["disclosure_risk_ci"][g]]
    return [f"{v:.4f}" for v in values]


def test_markdown_suppresses_small_cells_but_keeps_their_status() -> None:
    run = _small_cells_run()
    md = render_markdown([run])
    rows = _table_rows(md, "### Cells")
    assert "| NOT PASSED | size_class 250+, east_west E | suppressed (n < 3) |  |  |  |  |" in rows
    assert "| PASSED* | size_class 50-249, east_west E | 0.3100 | 0.3133 | 3 | 1 | 0.3333 |" in rows
    small = [r for r in rows if r.startswith("| NOT PASSED | size_class 250+, east_west E |")]
    assert len(small) == 1
    assert not re.search(r"\d", small[0].split("east_west E |")[1].replace("n < 3", ""))
    for text in _small_cell_numbers(run["result"]["cells"][5]):
        assert text not in md
    assert "Cells with fewer than 3 verifiable units are suppressed" in md
    assert md.count("Cells with fewer than 3 verifiable units are suppressed") == 1
    # The verdict still counts the suppressed failing cell; overall figures stay.
    assert "small cells: NOT PASSED, 2 of 6 cells failing" in md
    assert "| re-identification rate | 0.5475 | [0.5368, 0.5582] |" in md


def test_markdown_min_cell_count_zero_shows_every_cell() -> None:
    md = render_markdown([_small_cells_run()], min_cell_count=0)
    rows = _table_rows(md, "### Cells")
    assert "| NOT PASSED | size_class 250+, east_west E | 0.9350 | 0.9650 | 2 | 2 | 1.0000 |" in rows
    assert "suppressed" not in md
    higher = render_markdown([_small_cells_run()], min_cell_count=4)
    assert "| PASSED* | size_class 50-249, east_west E | suppressed (n < 4) |  |  |  |  |" in higher
    with pytest.raises(ValueError):
        render_markdown([_small_cells_run()], min_cell_count=-1)


def test_html_suppresses_small_cells_in_table_heat_map_and_plot() -> None:
    run = _small_cells_run()
    page = render_html([run])
    # Status first, then the cell's label; the suppression spans every other column, the
    # details column included.
    assert ('<tr class="fail supp"><td>NOT PASSED</td><td>size_class 250+, east_west E</td>'
            '<td class="supp" colspan="4">suppressed (n &lt; 3)</td></tr>') in page
    assert ('<tr><td>PASSED*</td><td>size_class 50-249, east_west E</td><td class="num">0.3100</td>'
            '<td class="num">0.3133</td><td class="num">3</td><td class="more"><details>') in page
    for text in _small_cell_numbers(run["result"]["cells"][5]):
        assert text not in page
    assert page.count(">supp.<") == 1  # the masked heat-map cell
    assert "Grey &#34;supp.&#34;: suppressed, fewer than 3 verifiable units." in page
    assert "Cells with fewer than 3 verifiable units are suppressed" in page
    assert "NOT PASSED, 2 of 6 cells failing" in page
    # Nothing about a suppressed cell but its status reaches the page: other numbers in it
    # (here a higher risk that would top the heat-map scale and the highest-cell line) leave
    # the page byte-identical.
    other = copy.deepcopy(run)
    other["result"]["cells"][5] = _cell("250+", "E", 1, 1, 0, 0.99, 1.0)
    assert not other["result"]["cells"][5]["passed"]
    assert render_html([other]) == page
    assert render_markdown([other]) == render_markdown([run])


def test_html_min_cell_count_zero_shows_every_cell() -> None:
    run = _small_cells_run()
    page = render_html([run], min_cell_count=0)
    assert "suppressed" not in page and ">supp.<" not in page
    assert ('<tr class="fail"><td>NOT PASSED</td><td>size_class 250+, east_west E</td><td class="num">0.9350</td>'
            '<td class="num">0.9650</td><td class="num">2</td>') in page
    assert "0.9650" in page
    with pytest.raises(ValueError):
        render_html([run], min_cell_count=-1)


@pytest.mark.parametrize(("value", "shown"), [
    (28958458.8609, "28,958,459"), (1234.5678, "1,234.57"), (12.3456789, "12.3457"), (3.0, "3"),
    (-987654.321, "-987,654"), (0.000123456, "0.0001235"), (0.5, "0.5"), (0, "0"), (None, "–"),
    (math.nan, "–"), (math.inf, "–"),
])
def test_figures_are_rounded_for_reading(value, shown) -> None:
    assert fmt_figure(value) == shown


def test_the_overall_line_stays_visible_where_it_equals_the_highest_cell() -> None:
    """Every firm re-identified: overall and highest cell are both 1.0. The highest-cell line lies
    beneath (lower z-order, wider, hollow markers), the overall line over it, and the label says
    they coincide; where they differ each has its own label."""
    from attack.report.attack import risk_by_gamma_figure

    def run(overall: float, cells: list[float]) -> dict:
        gammas = {"0.05": overall, "0.1": overall}
        return {"name": "r", "result": {
            "tau": 0.5, "disclosure_risk": gammas, "disclosure_risk_ci": {g: [overall, overall] for g in gammas},
            "cells": [{"cell": {"c": i}, "n_verifiable": 10, "passed": False,
                       "disclosure_risk": {"0.05": v, "0.1": v}} for i, v in enumerate(cells)]}}

    ax = risk_by_gamma_figure([run(1.0, [1.0, 0.9])], 3).axes[0]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    solid = [line for line in ax.get_lines() if line.get_linestyle() == "-" and len(line.get_xdata()) == 2]
    assert len(dashed) == 1 and len(solid) == 1
    assert list(dashed[0].get_ydata()) == list(solid[0].get_ydata()) == [1.0, 1.0]
    assert solid[0].get_zorder() > dashed[0].get_zorder()
    assert dashed[0].get_linewidth() > solid[0].get_linewidth() and dashed[0].get_markerfacecolor() == "white"
    assert [a.get_text() for a in ax.texts if "cell" in a.get_text() or a.get_text() == "overall"] == [
        "highest cell = overall"]
    apart = risk_by_gamma_figure([run(0.4, [0.7, 0.2])], 3).axes[0]
    assert {a.get_text() for a in apart.texts} >= {"highest cell", "overall"}
