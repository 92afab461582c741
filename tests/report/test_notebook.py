"""Notebook display of every public result: one short repr line, a compact HTML block with the
verdict first and the failing rows highlighted, and ``.plot()`` returning the report's figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from fixtures import EXTERNAL, ORIGINAL, RELEASE  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import attack  # noqa: E402
from attack.report.notebook import MAX_ROWS, result_html, verdict_word  # noqa: E402
from attack.risk.results import CombinedRisk  # noqa: E402

FIXTURE_ARGS = dict(keys=["turnover:metric", "employees:metric"], blocks=["wz", "region"],
                    external_id="unit_id", release_id="unit_id", cells=["wz"])
HTML_BOUND = 20_000  # characters: a display, not a dump (the issue saw 62,270 in a repr)
REPR_BOUND = 200


def _numbers(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(100, 10, n), "y": rng.normal(50, 5, n),
                         "g": rng.choice(["a", "b", "c"], n)})


@pytest.fixture(scope="module")
def demo():
    return attack.demo_scenario(n_units=500, seed=3).run(engine={"jobs": 1})


def _check_display(result, verdict: str, *words: str) -> str:
    text = repr(result)
    assert "\n" not in text and len(text) <= REPR_BOUND, text
    page = result._repr_html_()
    assert len(page) <= HTML_BOUND
    assert page.index(verdict) < page.find("<table") if "<table" in page else verdict in page
    for word in words:
        assert word in page
    return page


def test_verdict_words_are_one_set():
    assert [verdict_word(v) for v in (True, False, None)] == ["PASSED", "NOT PASSED", "no verdict"]


def test_failing_rows_are_highlighted_and_shown_first_when_rows_are_cut():
    table = pd.DataFrame({"passed": [True] * 40 + [False], "row": range(41)})
    page = result_html("t", False, ["f"], table, failing=~table["passed"], full=".cells")
    rows = page.split("<tr")[2:]  # after the header row
    assert len(rows) == MAX_ROWS
    assert "background" in rows[0] and "<td>40</td>" in rows[0]  # the failing row, first
    assert sum("background" in r for r in rows) == 1
    assert f"{MAX_ROWS} of 41 rows shown" in page and ".cells" in page
    assert "None" not in result_html("t", True, [], pd.DataFrame({"a": [None, 1.5]}))


@pytest.mark.parametrize("tau, verdict", [(1.0, "PASSED"), (0.01, "NOT PASSED")])
def test_attack_result(tau, verdict):
    # the handbook's perturbed business data: re-identification alone discloses nothing
    result = attack.mass_attack(EXTERNAL, RELEASE, original=ORIGINAL, tau=tau, identity="discloses-nothing",
                                **FIXTURE_ARGS)
    page = _check_display(result, verdict, f"τ = {tau:g}")
    assert repr(result).startswith(f"AttackResult({verdict};")
    assert ("background" in page) == (not result.passed)
    assert list(result.cells.columns[:2]) == ["passed", "below_tau"]
    figures = result.plot()
    assert figures and all(isinstance(f, Figure) for f in figures)


def test_small_cells_show_their_verdict_not_their_figures():
    result = attack.mass_attack(EXTERNAL, RELEASE, original=ORIGINAL, tau=0.5, **FIXTURE_ARGS)
    small = [c for c in result.figures["cells"] if c["n_verifiable"] < 3]
    assert small, "the fixture needs a small cell"
    page = result._repr_html_()
    for cell in small:
        row = next(r for r in page.split("<tr") if f"<td>{cell['cell']['wz']}</td>" in r)
        assert f"<td>{cell['n_verifiable']}</td>" not in row.split("</td>", 4)[-1]
        assert row.count("<td>–</td>") >= 3


def test_scenario_result(demo):
    page = _check_display(demo, "PASSED" if demo.passed else "NOT PASSED", "FORMAL")
    assert repr(demo).startswith("ScenarioResult(")
    cells = demo.cells
    assert list(cells.columns[:4]) == ["passed", "below_tau", "run", "release"]
    assert not [c for c in cells.columns if cells[c].isna().all()]
    assert len(page) < HTML_BOUND
    figures = demo.plot()
    assert len(figures) >= len(demo.runs) and all(isinstance(f, Figure) for f in figures)


def test_combined_cells_have_no_empty_columns():
    cells = [{"cell": {"wz": "A"}, "disclosure_risk": {"0.1": 0.2}, "passed": True, "n_verifiable": 5}]
    frame = attack.ScenarioResult(title="t", scenario_file=None, runs=(),
                                  combined=CombinedRisk.from_dict({"cells": cells, "tau": 0.5, "passed": True,
                                                         "n_failing_cells": 0, "lam": 0.5})).cells
    assert list(frame.columns) == ["passed", "below_tau", "wz", "gamma", "disclosure_risk", "n_verifiable"]


def test_synthetic_result():
    original, synthetic = _numbers(300, 1), _numbers(300, 2)
    result = attack.attack_synthetic(original, synthetic, n_attacks=50, seed=0)
    page = _check_display(result, "PASSED" if result.passed else "NOT PASSED", "upper 95% bound")
    assert list(result.checks.columns)[0] == "passed"
    assert repr(result).startswith("SyntheticResult(")
    assert ("background" in page) == (not result.passed)
    assert all(isinstance(f, Figure) for f in result.plot()) and result.plot()


def test_frequency_risk():
    frame = pd.DataFrame({"a": list("xxxyyz"), "b": list("pppqqq")})
    result = attack.frequency_risk(frame, ["a", "b"], k=2, suda=False)
    assert not result.passed  # z/q is unique
    page = _check_display(result, "NOT PASSED", "records")
    assert repr(result).startswith("FrequencyRisk(NOT PASSED;")
    assert "background" in page


def test_utility_profile_and_protected():
    original = _numbers(200, 1)
    protected = attack.protect(original, "mdav", columns=["x", "y"], k=3)
    _check_display(protected, "no verdict", "mdav")
    profile = attack.utility_profile(original, protected.release)
    page = _check_display(profile, "no verdict", "means")
    assert len(repr(profile)) < REPR_BOUND and len(page) < HTML_BOUND
    assert list(profile.table().columns[:2]) == ["passed", "family"]


def test_synthesis_membership_family_and_ml_utility():
    original, holdout = _numbers(200, 1), _numbers(200, 3)
    synthesis = attack.synthesize(original, seed=0)
    _check_display(synthesis, "no verdict", "cart")
    family = attack.membership_family(original, holdout, synthesis.frame, attacks=["dcr"],
                                      n_bootstrap=20, seed=0)
    _check_display(family, "PASSED" if family.passed else "NOT PASSED", "dcr")
    ml = attack.ml_utility(original, synthesis.frame, "x", models=["linear"], repetitions=2, seed=0)
    verdict = {True: "PASSED", False: "NOT PASSED", None: "no verdict"}[ml.passed]
    _check_display(ml, verdict, "linear")


def test_tune_outcome_and_verification(tmp_path):
    from study.test_tuning import _write

    from attack.study.scenario import load_linkage_scenario as load_scenario

    outcome = attack.tune(load_scenario(_write(tmp_path)))
    page = _check_display(outcome, "PASSED", "chosen value 0.5")
    assert "background" in page  # f = 0.001 does not pass
    assert repr(outcome).startswith("TuneResult(PASSED;")
    assert all(isinstance(f, Figure) for f in outcome.plot()) and outcome.plot()
    result = attack.demo_scenario(n_units=300, seed=2).run(engine={"jobs": 1})
    path = tmp_path / "c.json"
    result.certify(path)
    verification = attack.verify(path)
    _check_display(verification, "PASSED" if verification.ok else "NOT PASSED", "signature not verified")
