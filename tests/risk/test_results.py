"""The typed fields of the attack results agree with the figures they serialise to."""

import json

import pandas as pd
import pytest

from attack.io.jsonio import to_json
from attack.risk.combine import combine
from attack.risk.evaluation import wilson_interval
from attack.risk.mass import mass_attack
from attack.risk.results import LINK_COLUMNS, AttackFigures, AttackResult, CellRisk, Proportion


def _cell(label: str, n: int, correct: int, risk: float, tau: float = 0.5) -> dict:
    slots = n * 2  # two target variables
    return {"cell": {"wz": label}, "label": f"wz={label}", "n_verifiable": n, "n_correct": correct,
            "reidentification_rate": correct / n, "reidentification_rate_ci": wilson_interval(correct, n),
            "disclosure_risk": {"0.1": risk}, "disclosure_risk_ci": {"0.1": wilson_interval(risk * slots, slots)},
            "passed": risk < tau}


def _figures() -> dict:
    # two cells: 3 of 4 re-identified with P = 0.5 (fails τ = 0.5, strict), 1 of 6 with P = 0.1
    cells = [_cell("A", 4, 3, 0.5), _cell("B", 6, 1, 0.1)]
    return {"n_external": 12, "n_verifiable": 10, "n_correct": 4, "reidentification_rate": 0.4,
            "reidentification_rate_ci": wilson_interval(4, 10), "disclosure_risk": {"0.1": 0.26},
            "disclosure_risk_ci": {"0.1": wilson_interval(5.2, 20)}, "tau": 0.5, "passed": False,
            "n_failing_cells": 1, "cells": cells}


def _result(figures: dict) -> AttackResult:
    return AttackResult("run", {"name": "ext", "role": "", "file": "ext.csv"}, {"name": "rel", "file": "rel.csv"},
                        AttackFigures.from_dict(figures), pd.DataFrame(columns=list(LINK_COLUMNS)))


def test_attack_result_fields_are_the_figures_typed():
    result = _result(_figures())
    assert (result.passed, result.tau, result.n_external, result.n_verifiable, result.n_correct) == (
        False, 0.5, 12, 10, 4)
    assert result.reidentification_rate == Proportion(0.4, tuple(wilson_interval(4, 10)))
    assert result.disclosure_risk["0.1"].value == 0.26
    assert result.disclosure_risk["0.1"].interval == pytest.approx(wilson_interval(5.2, 20))
    assert [c.passed for c in result.cell_risks] == [False, True]
    first = result.cell_risks[0]
    assert (first.cell, first.n_verifiable, first.n_correct) == ({"wz": "A"}, 4, 3)
    assert first.reidentification_rate.value == 0.75
    json.dumps(first.to_dict(), allow_nan=False)


def test_to_dict_is_the_figures_unchanged():
    figures = _figures()
    out = _result(figures).to_dict()
    assert {k: v for k, v in out.items() if k not in ("schema_version", "name", "intruder", "release")} == figures
    out["cells"][0]["passed"] = True  # a copy: the result does not change
    assert _result(figures).cell_risks[0].passed is False


def test_combined_risk_typed():
    worst = {"cells": [{"cell": {"c": "a"}, "n_verifiable": 10, "disclosure_risk": {"0.1": 0.9}}],
             "disclosure_risk": {"0.1": 0.0}}
    realistic = {"cells": [{"cell": {"c": "a"}, "n_verifiable": 10, "disclosure_risk": {"0.1": 0.3}}],
                 "disclosure_risk": {"0.1": 0.0}}
    combined = combine([("worst", AttackFigures.from_dict(worst)), ("realistic", AttackFigures.from_dict(realistic))],
                       0.2, 0.5)
    figures = combined.to_dict()
    assert (combined.lam, combined.tau, combined.passed, combined.n_failing_cells) == (0.2, 0.5, True, 0)
    assert combined.cells == (CellRisk(cell={"c": "a"}, passed=True,
                                       disclosure_risk={"0.1": Proportion(pytest.approx(0.2 * 0.9 + 0.8 * 0.3), None)},
                                       n_verifiable=10),)
    assert combined.to_dict() == figures


def test_a_scored_attack_reads_back_from_its_json():
    ids = [f"u{i}" for i in range(30)]
    frame = pd.DataFrame({"id": ids, "w": [float(i % 7) for i in range(30)], "c": list("ab") * 15})
    result = mass_attack(frame, frame.assign(w=frame["w"] + 0.3), keys=["w:metric"], external_id="id",
                         release_id="id", tau=0.5, cells=["c"], truth_complete=True)
    text = to_json(result.to_dict())
    again = AttackResult.from_dict(json.loads(text))
    assert to_json(again.to_dict()) == text
    assert again.cell_risks == result.cell_risks and again.passed is result.passed
