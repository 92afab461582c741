"""A result read back is trusted only when its verdict follows from its figures: hand-made
documents of every kind (link, scenario, synth, tune), sound and forged."""

from __future__ import annotations

import copy

import pytest

from attack.errors import InputError
from attack.study.result_check import check_result, verdict_problems


def _cell(risk: float, tau: float) -> dict:
    return {"cell": {"size": "small"}, "n_verifiable": 10, "disclosure_risk": {"0.05": risk, "0.1": risk},
            "passed": risk < tau}


def _link(risk: float = 0.2, tau: float = 0.5) -> dict:
    """A link result with one cell (the layout ``attack link --json`` writes)."""
    return {"name": "a against b", "intruder": {"file": "a.csv"}, "release": {"name": "b"}, "cells": [_cell(risk, tau)],
            "n_verifiable": 10, "disclosure_risk": {"0.05": risk, "0.1": risk}, "tau": tau, "passed": risk < tau}


def _scenario(risks=(0.2, 0.3), tau: float = 0.5) -> dict:
    runs = [_link(r, tau) | {"name": f"run {i}"} for i, r in enumerate(risks)]
    return {"runs": runs, "passed": all(r < tau for r in risks), "combined": None, "single_attack": None}


def _synthetic(upper: float = 0.05, tau: float = 0.1) -> dict:
    check = {"family": "singling_out", "measure": "univariate", "value": upper / 2, "upper": upper, "tau": tau,
             "passed": upper < tau}
    return {"kind": "synthetic", "checks": [check], "settings": {"tau": tau}, "passed": upper < tau}


def _tune(risks=(0.7, 0.3), tau: float = 0.5) -> dict:
    candidates = [{"value": k, "seed": 1, "passed": r < tau, "max_cell_risk": r, "n_failing_cells": int(r >= tau),
                   "n_cells_without_estimate": 0} for k, r in zip((3, 5), risks, strict=True)]
    first = next((c["value"] for c in candidates if c["passed"]), None)
    return {"tune": {}, "tau": tau, "candidates": candidates, "chosen": None if first is None else {"value": first}}


SOUND = {"link passed": _link(0.2), "link not passed": _link(0.9), "scenario": _scenario(),
         "scenario not passed": _scenario((0.2, 0.8)), "synthetic": _synthetic(), "synthetic not passed": _synthetic(0.3),
         "tune": _tune(), "tune infeasible": _tune((0.7, 0.6))}


@pytest.mark.parametrize("name", list(SOUND))
def test_a_sound_result_is_trusted(name):
    assert verdict_problems(SOUND[name]) == []


def _set(document: dict, path: tuple, value) -> dict:
    out = copy.deepcopy(document)
    here = out
    for step in path[:-1]:
        here = here[step]
    here[path[-1]] = value
    return out


FORGED = {
    "link: all 0.9, passed true": (_set(_set(_link(0.9), ("passed",), True), ("cells", 0, "passed"), True),
                                   "marked PASSED but its disclosure risks"),
    "link: passed true over failing cells": (_set(_link(0.9), ("passed",), True), "marked PASSED against its cells"),
    "link: tau true": (_set(_link(), ("tau",), True), "Input should be a valid number"),
    "link: a risk as text": (_set(_link(), ("cells", 0, "disclosure_risk", "0.05"), "0.2"), "valid number"),
    "link: no cells": (_set(_link(), ("cells",), []), "at least 1 item"),
    "scenario: top-level passed true": (_set(_scenario((0.2, 0.8)), ("passed",), True),
                                        "passed is True, but the figures and τ give NOT PASSED"),
    "scenario: two τ": (_set(_scenario(), ("runs", 1, "tau"), 0.4), "different τ"),
    "synthetic: upper above τ marked passed": (_set(_set(_synthetic(0.3), ("checks", 0, "passed"), True),
                                                    ("passed",), True), "marked PASSED but its upper bound"),
    "synthetic: tau true": (_set(_synthetic(), ("settings", "tau"), True), "valid number"),
    "tune: candidate above τ marked passed": (_set(_tune(), ("candidates", 0, "passed"), True),
                                              "is marked passed, but its largest cell risk is 0.7"),
    "tune: chosen is not the first feasible": (_set(_tune((0.3, 0.2)), ("chosen",), {"value": 5}),
                                               "but the candidates give 3"),
    "tune: tau true": (_set(_tune(), ("tau",), True), "tau is True"),
}


@pytest.mark.parametrize("name", list(FORGED))
def test_a_verdict_that_does_not_follow_is_refused(name):
    document, says = FORGED[name]
    problems = verdict_problems(document)
    assert any(says in p for p in problems), problems
    with pytest.raises(InputError, match="the verdict does not follow from the figures") as caught:
        check_result(document, file="r.json")
    assert str(caught.value).startswith("file r.json")
