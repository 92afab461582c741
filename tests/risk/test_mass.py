"""Handbook relations 1-3 on the demo population (docs/method/validation.md), run through the library.

The worst-case intruder (the original's own key values, docs/method/intruders.md) attacks three releases
of the 17,000-unit demo population: FORMAL, separate microaggregation in triples (MA33G-like,
docs/method/protection.md) and joint MDAV microaggregation with k = 3 over all metric variables
(MA1G-like). Keys: turnover and employees, blocked by NACE division × BBR9
(:func:`attack.demo.demo_linkage`).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from attack.datasets.demo import demo_linkage, demo_source, metric_columns
from attack.errors import InputError
from attack.protect.microaggregation import mdav
from attack.risk.mass import AttackInput, mass_attack, run_attack
from attack.risk.settings import Evaluation

N_UNITS = 17000  # the demo default, the size of the handbook's KSE
SEED = 1


@pytest.fixture(scope="module")
def formal_and_mdav() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The FORMAL release and its joint MDAV microaggregation (made once for the module)."""
    formal, _ = demo_source("formal", N_UNITS, SEED)
    return formal, mdav(formal, metric_columns(formal), k=3, seed=SEED)


@pytest.fixture(scope="module")
def results(formal_and_mdav: tuple[pd.DataFrame, pd.DataFrame]) -> dict[str, dict]:
    original, _ = demo_source("original", N_UNITS, SEED)
    formal, mdav_release = formal_and_mdav
    worst, _ = demo_source("worst_case", N_UNITS, SEED)
    releases: dict[str, pd.DataFrame] = {
        "formal": formal,
        "separate_ma": demo_source("microaggregated", N_UNITS, SEED)[0],
        "mdav": mdav_release,
    }
    return {
        name: run_attack(
            AttackInput(worst, "unit_id", release, "unit_id", original, "unit_id"),
            demo_linkage("greedy"), Evaluation.of(), engine={"jobs": 1},
        ).figures
        for name, release in releases.items()
    }


def rate(result: dict) -> float:
    return result["reidentification_rate"]


def test_mdav_release_is_a_joint_k3_aggregation(
        formal_and_mdav: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    formal, release = formal_and_mdav
    sizes = release.groupby(metric_columns(formal)).size()
    assert sizes.min() >= 3 and sizes.max() <= 5
    assert release["unit_id"].equals(formal["unit_id"])


def test_relation_1_worst_case_vs_formal(results: dict[str, dict]) -> None:
    result = results["formal"]
    assert result["n_verifiable"] == N_UNITS
    assert rate(result) == 1.0
    assert result["usefulness"]["0.05"] == 1.0
    assert result["disclosure_risk"]["0.05"] == 1.0


def test_relation_2_worst_case_vs_separate_ma(results: dict[str, dict]) -> None:
    result = results["separate_ma"]
    assert rate(result) >= 0.98
    assert result["usefulness"]["0.05"] >= 0.95


def test_relation_3_joint_mdav_is_weaker_and_devalues_values(results: dict[str, dict]) -> None:
    mdav_rate, ma_rate, formal_rate = (rate(results[name])
                                       for name in ("mdav", "separate_ma", "formal"))
    assert mdav_rate < ma_rate <= formal_rate
    # "u clearly below 1 (0.55-0.86)" in the handbook tables
    assert results["mdav"]["usefulness"]["0.05"] <= 0.86


def test_relation_3_joint_mdav_falls_to_about_a_third_or_less(results: dict[str, dict]) -> None:
    # issue 6: "joint MDAV falls to about a third or less" of separate MA; measured 0.336 here
    # (at 4,000 units it is 0.56: the relation needs the handbook's population size)
    assert rate(results["mdav"]) <= 0.35 * rate(results["separate_ma"])


@pytest.mark.parametrize("intruder", ["distance", "fellegi-sunter"])
def test_every_link_of_every_intruder_has_a_match_probability(intruder: str) -> None:
    import io

    import numpy as np

    from attack.risk.mass import mass_attack, matches_csv

    rng = np.random.default_rng(4)
    people = pd.DataFrame({"unit": [f"u{i}" for i in range(120)], "x": rng.normal(size=120),
                           "y": rng.integers(0, 5, 120).astype(str), "w": rng.lognormal(size=120)})
    external = people.iloc[20:].assign(x=lambda d: d["x"] + rng.normal(0, 0.05, len(d)))
    result = mass_attack(external, people.iloc[:100], keys=["x:metric", "y:nominal"], external_id="unit",
                         release_id="unit", tau=0.5, targets=["w"], intruder=intruder, truth_complete=True)
    written = pd.read_csv(io.StringIO(matches_csv(result.links)))
    assert len(written) == result.figures["n_matched"] > 0
    assert written["match_probability"].between(0.0, 1.0).all()
    assert written["match_probability"].notna().all()


def test_settings_document_with_shortcuts_on_top(tmp_path):
    import attack

    frame = pd.DataFrame({"id": [f"u{i}" for i in range(12)], "w": [float(i) for i in range(12)]})
    shortcuts = mass_attack(frame, frame, keys=["w:metric"], external_id="id", release_id="id", tau=0.4,
                            gammas=[0.1])
    document = {"keys": ["w:metric"], "tau": 0.4, "gamma": [0.1]}
    path = tmp_path / "attack.json"
    path.write_text(json.dumps({**document, "tau": 0.9}), encoding="utf-8")
    for settings, extra in ((document, {}), (attack.AttackSettings(**document), {}), (path, {"tau": 0.4})):
        result = mass_attack(frame, frame, settings=settings, external_id="id", release_id="id", **extra)
        assert result.figures == shortcuts.figures
    with pytest.raises(InputError) as missing:
        mass_attack(frame, frame, settings={"keys": ["w:metric"]}, external_id="id", release_id="id")
    assert missing.value.field == "tau"
    with pytest.raises(InputError) as bad:
        mass_attack(frame, frame, keys=["w:metric"], external_id="id", release_id="id", tau=0.4, gammas=[-1])
    assert bad.value.field.startswith("gammas")
    with pytest.raises(InputError) as unknown:
        mass_attack(frame, frame, keys=["w:metric"], external_id="id", release_id="id", tau=0.4, tua=0.3)
    assert unknown.value.field == "tua" and "tau" in unknown.value.message
