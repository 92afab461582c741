"""Tests for the command-line interface (attack.cli) against the hand-computed case of
worked example 1 (docs/reference/worked-examples.md): options, output files, scenario files and bad input.

Expected values come from worked example 1.3 (docs/reference/worked-examples.md) or from the independent brute force below
(explicit loops over all pairs, sorted-pair greedy and enumeration of all assignments), never
from the library functions under test.
"""

from __future__ import annotations

import csv
import itertools
import json
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, ORIGINAL, RELEASE

from attack.cli import main

APPROX = {"abs": 1e-9}
TARGETS = ("turnover", "employees", "costs")
KEYS = ("turnover", "employees")
EXT_UNITS = list(EXTERNAL["unit_id"])
REL_UNITS = list(RELEASE["unit_id"])

# worked example 1.3 (docs/reference/worked-examples.md): external unit -> linked release unit.
GREEDY = {"u1": "u2", "u2": "u1", "u3": "u3", "u5": "u5", "u6": "u6"}
EXACT = {"u1": "u1", "u2": "u2", "u3": "u3", "u5": "u5", "u6": "u6"}
NEAREST = {"u1": "u1", "u2": "u1", "u3": "u3", "u5": "u5", "u6": "u6"}
# worked example 1.2 (docs/reference/worked-examples.md): standardised distances of the pairs (external unit, release unit).
FIXTURE_DISTANCE = {
    ("u1", "u2"): 0.003265306122,
    ("u2", "u1"): 0.000816326531,
    ("u3", "u3"): 0.002994476250,
    ("u5", "u5"): 0.002388524824,
    ("u6", "u6"): 0.006671735758,
    ("u1", "u1"): 0.002388524824,
    ("u2", "u2"): 0.001572198294,
}


# --------------------------------------------------------------------------------------------
# helpers


@pytest.fixture
def data(tmp_path: Path) -> dict[str, Path]:
    """The three fixture frames as CSV files in tmp_path."""
    paths = {"external": tmp_path / "ext.csv", "release": tmp_path / "rel.csv", "original": tmp_path / "orig.csv"}
    EXTERNAL.to_csv(paths["external"], index=False)
    RELEASE.to_csv(paths["release"], index=False)
    ORIGINAL.to_csv(paths["original"], index=False)
    return paths


def base_args(paths: dict[str, Path], *, original: bool = True) -> list[str]:
    """The worked example 1.1 (docs/reference/worked-examples.md) configuration (without method, γ and outputs)."""
    args = [
        "link",
        "--external", str(paths["external"]),
        "--release", str(paths["release"]),
        "--external-id", "unit_id",
        "--release-id", "unit_id",
        "--key", "turnover:metric",
        "--key", "employees:metric",
        "--block", "wz",
        "--block", "region",
        "--code", "wz",
    ]
    if original:
        args += ["--original", str(paths["original"])]
    return args


FIXTURE_EVAL = ["--target", "turnover", "--target", "employees", "--target", "costs", "--cell", "wz"]


def invoke(args: list[str]):
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def run_link(tmp_path: Path, args: list[str], name: str = "out") -> tuple[dict, dict[str, dict], object]:
    """Run ``attack link`` with --json and --matches; return the JSON, the match rows by external
    id and the click result."""
    json_path, matches_path = tmp_path / f"{name}.json", tmp_path / f"{name}.csv"
    result = invoke(args + ["--json", json_path, "--matches", matches_path])
    assert result.exit_code in (0, 1), result.output
    figures = json.loads(json_path.read_text())
    assert result.exit_code == (0 if figures["passed"] else 1)  # exit 1 on NOT PASSED
    with open(matches_path, newline="") as handle:
        rows = {r["external_id"]: r for r in csv.DictReader(handle)}
    return figures, rows, result


def linked_units(rows: dict[str, dict]) -> dict[str, str]:
    return {ext: r["release_id"] for ext, r in rows.items()}


# independent brute force ------------------------------------------------------------------


def brute_cost(standardise: str = "maxmin", power: int = 2, weights=(1.0, 1.0),
               external: pd.DataFrame = EXTERNAL, release: pd.DataFrame = RELEASE) -> np.ndarray:
    """Total distance of every (external, release) pair by explicit loops (docs/method/linkage.md)."""
    total = np.zeros((len(external), len(release)))
    for name, weight in zip(KEYS, weights, strict=True):
        a = [float(x) for x in external[name]]
        b = [float(y) for y in release[name]]
        d = np.array([[abs(x - y) ** power for y in b] for x in a])
        pooled = np.array(a + b)
        if standardise == "maxmin":
            d = (d - d.min()) / (d.max() - d.min())
        elif standardise == "range":
            d = d / (pooled.max() - pooled.min()) ** power
        elif standardise == "sd":
            d = d / pooled.std(ddof=1) ** power
        total += weight * d
    return total


def brute_blocks(block_of, external: pd.DataFrame = EXTERNAL, release: pd.DataFrame = RELEASE):
    """[(external rows, release rows)] for the blocks present in both files."""
    out = []
    keys = sorted({block_of(external, i) for i in range(len(external))})
    for key in keys:
        ext = [i for i in range(len(external)) if block_of(external, i) == key]
        rel = [j for j in range(len(release)) if block_of(release, j) == key]
        if rel:
            out.append((ext, rel))
    return out


def wz_region(frame: pd.DataFrame, i: int) -> tuple:
    return (str(frame["wz"].iloc[i]), frame["region"].iloc[i])


def brute_match(cost: np.ndarray, method: str, blocks, order=None) -> dict[int, int]:
    """External row -> release row for each matcher, by the textbook definitions."""
    links: dict[int, int] = {}
    for ext, rel in blocks:
        if method == "greedy":  # Procedure II: pairs by (distance, external row, release row)
            used_e, used_r = set(), set()
            for _, i, j in sorted((cost[i, j], i, j) for i in ext for j in rel):
                if i not in used_e and j not in used_r:
                    links[i] = j
                    used_e.add(i)
                    used_r.add(j)
        elif method == "hungarian":  # enumerate every injective assignment
            totals = sorted(
                (sum(cost[i, j] for i, j in zip(ext, p, strict=True)), p)
                for p in itertools.permutations(rel, len(ext))
            )
            if len(totals) > 1:
                assert totals[1][0] - totals[0][0] > 1e-9, "brute force: optimum not unique"
            links.update(zip(ext, totals[0][1], strict=True))
        elif method == "sequential":  # Procedure I in the given order
            free = list(rel)
            for i in (ext if order is None else [i for i in order if i in ext]):
                if not free:
                    break
                j = min(free, key=lambda j: (cost[i, j], j))
                links[i] = j
                free.remove(j)
        elif method == "nearest":
            for i in ext:
                links[i] = min(rel, key=lambda j: (cost[i, j], j))
    return links


def as_units(links: dict[int, int], external=EXTERNAL, release=RELEASE) -> dict[str, str]:
    return {external["unit_id"].iloc[i]: release["unit_id"].iloc[j] for i, j in links.items()}


def brute_scores(units: dict[str, str], gamma: float = 0.1, truth: pd.DataFrame = ORIGINAL,
                 targets=TARGETS) -> dict:
    """Overall n_correct, rate, usefulness and disclosure risk (docs/method/risk.md, strict < γ)."""
    true = truth.set_index("unit_id")
    released = RELEASE.set_index("unit_id")
    correct = [e for e, r in units.items() if e == r]
    useful = evaluated = 0
    for unit in correct:
        for column in targets:
            evaluated += 1
            t, w = float(true.loc[unit, column]), float(released.loc[unit, column])
            useful += abs(w - t) / abs(t) < gamma
    rate = len(correct) / len(EXTERNAL)
    usefulness = useful / evaluated if correct else None
    return {
        "n_correct": len(correct),
        "rate": rate,
        "usefulness": usefulness,
        "risk": rate * usefulness if correct else 0.0,
    }


def by_cell(result: dict, name: str = "wz") -> dict[str, dict]:
    return {c["cell"][name]: c for c in result["cells"]}


# --------------------------------------------------------------------------------------------
# help


def test_help_exits_zero() -> None:
    for args in (["--help"], ["link", "--help"], ["run", "--help"], ["demo", "--help"]):
        result = invoke(args)
        assert result.exit_code == 0
        assert "Usage:" in result.output
    assert "--standardise" in invoke(["link", "--help"]).output


# --------------------------------------------------------------------------------------------
# the fixture case with every matcher


def test_greedy_fixture_json(tmp_path, data) -> None:
    result, rows, click_result = run_link(tmp_path, base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1"])
    for key in ("n_external", "n_verifiable", "n_matched", "n_correct", "reidentification_rate",
                "false_match_rate", "usefulness", "disclosure_risk", "tau", "passed", "cells"):
        assert key in result
    assert result["n_external"] == 5
    assert result["n_verifiable"] == 5
    assert result["n_matched"] == 5
    assert result["n_correct"] == 3
    assert result["reidentification_rate"] == pytest.approx(0.6, **APPROX)
    assert result["false_match_rate"] == pytest.approx(0.4, **APPROX)
    assert list(result["usefulness"]) == ["0.1"]
    assert result["usefulness"]["0.1"] == pytest.approx(7 / 9, **APPROX)
    assert result["disclosure_risk"]["0.1"] == pytest.approx(7 / 15, **APPROX)
    assert result["tau"] == 0.5
    assert result["passed"] is False

    cells = by_cell(result)
    assert [c["cell"] for c in result["cells"]] == [{"wz": "15"}, {"wz": "22"}]
    c15, c22 = cells["15"], cells["22"]
    assert (c15["n_verifiable"], c15["n_correct"], c15["n_false"]) == (3, 1, 2)
    assert c15["reidentification_rate"] == pytest.approx(1 / 3, **APPROX)
    assert c15["false_match_rate"] == pytest.approx(2 / 3, **APPROX)
    assert c15["usefulness"]["0.1"] == pytest.approx(2 / 3, **APPROX)
    assert c15["disclosure_risk"]["0.1"] == pytest.approx(2 / 9, **APPROX)
    assert c15["passed"] is True
    assert (c22["n_verifiable"], c22["n_correct"], c22["n_false"]) == (2, 2, 0)
    assert c22["usefulness"]["0.1"] == pytest.approx(5 / 6, **APPROX)
    assert c22["disclosure_risk"]["0.1"] == pytest.approx(5 / 6, **APPROX)
    assert c22["passed"] is False

    assert linked_units(rows) == GREEDY
    assert result["linkage"]["method"] == "greedy"
    assert result["truth"] == "original"
    # the Markdown summary goes to stdout
    assert click_result.stdout.startswith("# ")
    assert "NOT PASSED" in click_result.stdout


def test_matches_file_content_permissions_and_warning(tmp_path, data) -> None:
    matches = tmp_path / "links" / "matches.csv"
    result = invoke(base_args(data) + FIXTURE_EVAL + ["--matches", matches])
    assert result.exit_code == 1, result.output  # the fixture is NOT PASSED at τ = 0.5
    with open(matches, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        body = list(reader)
    assert header == ["external_id", "release_id", "distance", "correct", "match_probability"]
    assert len(body) == 5  # one row per assigned pair
    assert all(0.0 <= float(p) <= 1.0 for *_, p in body)  # every link has its probability
    got = {(e, r): (float(d), c) for e, r, d, c, _ in body}
    assert set(got) == set(GREEDY.items())
    for (e, r), (distance, correct) in got.items():
        assert distance == pytest.approx(FIXTURE_DISTANCE[(e, r)], abs=1e-9)
        assert correct == str(e == r)
    assert stat.S_IMODE(matches.stat().st_mode) == 0o600
    # the warning goes to stderr, names the file and is not part of the summary
    assert str(matches) in result.stderr
    assert "confidential" in result.stderr
    assert "0600" in result.stderr
    assert "confidential release records" not in result.stdout


def test_no_matches_file_and_no_warning_by_default(tmp_path, data) -> None:
    result = invoke(base_args(data) + FIXTURE_EVAL + ["--json", tmp_path / "r.json"])
    assert result.exit_code == 1
    assert result.stderr == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ext.csv", "orig.csv", "r.json", "rel.csv"]


def test_hungarian_fixture(tmp_path, data) -> None:
    result, rows, _ = run_link(tmp_path, base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--method", "hungarian"])
    assert linked_units(rows) == EXACT
    assert result["n_correct"] == 5
    assert result["reidentification_rate"] == pytest.approx(1.0, **APPROX)
    assert result["false_match_rate"] == pytest.approx(0.0, **APPROX)
    assert result["usefulness"]["0.1"] == pytest.approx(10 / 15, **APPROX)
    assert result["disclosure_risk"]["0.1"] == pytest.approx(2 / 3, **APPROX)
    cells = by_cell(result)
    assert cells["15"]["usefulness"]["0.1"] == pytest.approx(5 / 9, **APPROX)
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 9, **APPROX)
    assert cells["22"]["disclosure_risk"]["0.1"] == pytest.approx(5 / 6, **APPROX)
    assert result["passed"] is False
    assert [c["passed"] for c in result["cells"]] == [False, False]
    assert result["linkage"]["method"] == "hungarian"
    # block (15, W) totals, worked example 1.3 (docs/reference/worked-examples.md)
    total = sum(float(r["distance"]) for e, r in rows.items() if e in ("u1", "u2", "u3"))
    assert total == pytest.approx(0.006955199367, abs=1e-9)


def test_sequential_input_order_equals_exact_here(tmp_path, data) -> None:
    result, rows, _ = run_link(tmp_path, base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--method", "sequential"])
    assert linked_units(rows) == EXACT
    assert result["n_correct"] == 5
    assert result["linkage"]["order"] == "input"


def test_nearest_fixture(tmp_path, data) -> None:
    result, rows, _ = run_link(tmp_path, base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--method", "nearest"])
    assert linked_units(rows) == NEAREST  # e1 and e2 both to the release row of u1
    assert result["n_matched"] == 5
    assert result["n_correct"] == 4
    assert result["reidentification_rate"] == pytest.approx(0.8, **APPROX)
    assert result["false_match_rate"] == pytest.approx(0.2, **APPROX)
    cells = by_cell(result)
    assert cells["15"]["n_correct"] == 2
    assert cells["15"]["reidentification_rate"] == pytest.approx(2 / 3, **APPROX)
    assert cells["22"]["n_correct"] == 2


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_sequential_with_seed_is_procedure_one_for_some_order(tmp_path, data, seed) -> None:
    args = base_args(data) + FIXTURE_EVAL + ["--method", "sequential", "--seed", str(seed)]
    result, rows, _ = run_link(tmp_path, args)
    cost = brute_cost()
    blocks = brute_blocks(wz_region)
    outcomes = {
        tuple(sorted(as_units(brute_match(cost, "sequential", blocks, order=list(p))).items()))
        for p in itertools.permutations(range(len(EXTERNAL)))
    }
    assert tuple(sorted(linked_units(rows).items())) in outcomes
    assert result["linkage"]["order"] == f"random (seed {seed})"
    again, _, _ = run_link(tmp_path, args, name="again")
    assert again == result


# --------------------------------------------------------------------------------------------
# distance options against the brute force


@pytest.mark.parametrize("method", ["greedy", "hungarian", "sequential", "nearest"])
@pytest.mark.parametrize("metric_distance", ["squared", "absolute"])
@pytest.mark.parametrize("standardise", ["maxmin", "range", "sd", "none"])
def test_standardisation_and_metric_distance_match_brute_force(tmp_path, data, standardise, metric_distance, method) -> None:
    args = base_args(data) + FIXTURE_EVAL + [
        "--gamma", "0.1", "--method", method,
        "--standardise", standardise, "--metric-distance", metric_distance,
    ]
    result, rows, _ = run_link(tmp_path, args)
    power = 2 if metric_distance == "squared" else 1
    cost = brute_cost(standardise, power)
    links = brute_match(cost, method, brute_blocks(wz_region))
    expected = as_units(links)
    assert linked_units(rows) == expected
    scores = brute_scores(expected)
    assert result["n_correct"] == scores["n_correct"]
    assert result["reidentification_rate"] == pytest.approx(scores["rate"], **APPROX)
    assert result["usefulness"]["0.1"] == pytest.approx(scores["usefulness"], **APPROX)
    assert result["disclosure_risk"]["0.1"] == pytest.approx(scores["risk"], **APPROX)
    assert result["linkage"]["standardise"] == standardise
    assert result["linkage"]["metric_distance"] == metric_distance
    distances = np.array([float(rows[EXT_UNITS[i]]["distance"]) for i in sorted(links)])
    wanted = np.array([cost[i, links[i]] for i in sorted(links)])
    if standardise == "sd":  # the divisor's ddof is a convention; the ratios are not
        np.testing.assert_allclose(distances / distances.sum(), wanted / wanted.sum(), rtol=1e-9)
    else:
        np.testing.assert_allclose(distances, wanted, rtol=1e-9, atol=1e-12)


def test_standardise_none_changes_greedy_links(tmp_path, data) -> None:
    """Raw squared differences let turnover dominate: in block (22, W) e4 now goes to u6
    (49 + 16 = 65 is the smallest pair) and e5 to u5; block (15, W) is as with max-min."""
    args = base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1"]
    result, rows, _ = run_link(tmp_path, args + ["--standardise", "none"])
    assert linked_units(rows) == {"u1": "u2", "u2": "u1", "u3": "u3", "u5": "u6", "u6": "u5"}
    assert result["n_correct"] == 1
    assert result["reidentification_rate"] == pytest.approx(0.2, **APPROX)
    assert float(rows["u5"]["distance"]) == pytest.approx(65.0, abs=1e-9)
    assert float(rows["u6"]["distance"]) == pytest.approx(250.0, abs=1e-9)


def test_absolute_distance_changes_exact_links(tmp_path, data) -> None:
    """With |a - b| the exact solver agrees with greedy here (e1→u2, e2→u1)."""
    args = base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--method", "hungarian"]
    _, squared, _ = run_link(tmp_path, args, name="sq")
    _, absolute, _ = run_link(tmp_path, args + ["--metric-distance", "absolute"], name="abs")
    assert linked_units(squared) == EXACT
    assert linked_units(absolute) == GREEDY


def test_key_weights(tmp_path, data) -> None:
    """Weight 10 on employees makes every greedy link correct (brute force: 12356)."""
    args = [a for a in base_args(data) if a not in ("turnover:metric", "employees:metric", "--key")]
    args += ["--key", "turnover:metric:1", "--key", "employees:metric:10"] + FIXTURE_EVAL
    result, rows, _ = run_link(tmp_path, args)
    expected = as_units(brute_match(brute_cost(weights=(1, 10)), "greedy", brute_blocks(wz_region)))
    assert expected == EXACT
    assert linked_units(rows) == expected
    assert [k["weight"] for k in result["linkage"]["keys"]] == [1.0, 10.0]
    heavy_turnover = base_args(data)[:]
    heavy_turnover[heavy_turnover.index("turnover:metric")] = "turnover:metric:10"
    _, rows10, _ = run_link(tmp_path, heavy_turnover + FIXTURE_EVAL, name="w10")
    expected10 = as_units(brute_match(brute_cost(weights=(10, 1)), "greedy", brute_blocks(wz_region)))
    assert linked_units(rows10) == expected10
    assert expected10 == {"u1": "u2", "u2": "u1", "u3": "u3", "u5": "u6", "u6": "u5"}


# --------------------------------------------------------------------------------------------
# blocking and evaluation options


def test_block_prefix(tmp_path, data) -> None:
    """Recode WZ 22 as 12: ``wz:prefix=1`` puts both industries in one block ("1", W)."""
    ext, rel, orig = (f.copy() for f in (EXTERNAL, RELEASE, ORIGINAL))
    for frame in (ext, rel, orig):
        frame["wz"] = frame["wz"].replace({"22": "12"})
    paths = {k: tmp_path / f"{k}12.csv" for k in ("external", "release", "original")}
    ext.to_csv(paths["external"], index=False)
    rel.to_csv(paths["release"], index=False)
    orig.to_csv(paths["original"], index=False)
    args = base_args(paths)
    i = args.index("wz")
    coarse = args[:i] + ["wz:prefix=1"] + args[i + 1 :]
    result, rows, _ = run_link(tmp_path, coarse + FIXTURE_EVAL)
    blocks = brute_blocks(lambda f, i: (str(f["wz"].iloc[i])[:1], f["region"].iloc[i]), ext, rel)
    assert [(len(e), len(r)) for e, r in blocks] == [(5, 5)]
    expected = as_units(brute_match(brute_cost(external=ext, release=rel), "greedy", blocks), ext, rel)
    assert linked_units(rows) == expected
    assert result["linkage"]["blocking"] == ["wz:prefix=1", "region"]
    assert result["linkage"]["n_blocks"] == 1
    assert result["linkage"]["n_candidate_pairs"] == 25
    fine, fine_rows, _ = run_link(tmp_path, args + FIXTURE_EVAL, name="fine")
    assert fine["linkage"]["n_blocks"] == 2
    assert fine["linkage"]["n_candidate_pairs"] == 9 + 4
    assert linked_units(fine_rows) == GREEDY


def test_block_prefix_without_region_reaches_u4(tmp_path, data) -> None:
    args = base_args(data)
    args = args[: args.index("--block")] + ["--block", "wz:prefix=1"] + FIXTURE_EVAL
    result, rows, _ = run_link(tmp_path, args)
    blocks = brute_blocks(lambda f, i: str(f["wz"].iloc[i])[:1])
    expected = as_units(brute_match(brute_cost(), "greedy", blocks))
    assert expected["u1"] == "u4"  # u4's release row (region E) is now a candidate
    assert linked_units(rows) == expected
    assert result["linkage"]["blocking"] == ["wz:prefix=1"]


def test_no_blocking(tmp_path, data) -> None:
    args = base_args(data)
    args = args[: args.index("--block")] + FIXTURE_EVAL
    result, rows, _ = run_link(tmp_path, args)
    blocks = [(list(range(5)), list(range(6)))]
    assert linked_units(rows) == as_units(brute_match(brute_cost(), "greedy", blocks))
    assert result["linkage"]["n_candidate_pairs"] == 30


def test_gamma_labels_as_written(tmp_path, data) -> None:
    args = base_args(data) + FIXTURE_EVAL + ["--gamma", "0.02", "--gamma", "0.10", "--gamma", "0.20"]
    result, _, _ = run_link(tmp_path, args)
    assert set(result["usefulness"]) == {"0.02", "0.1", "0.2"}  # one spelling: shortest decimal
    assert set(result["disclosure_risk"]) == {"0.02", "0.1", "0.2"}
    # correct links u3, u5, u6; deviations (worked example 1.4 (docs/reference/worked-examples.md)) below 0.02: only costs of u6 and
    # employees of u3 (0) -> 2/9; below 0.10 (strict): 7/9; below 0.20: all 9
    assert result["usefulness"]["0.02"] == pytest.approx(2 / 9, **APPROX)
    assert result["usefulness"]["0.1"] == pytest.approx(7 / 9, **APPROX)
    assert result["usefulness"]["0.2"] == pytest.approx(1.0, **APPROX)
    assert result["disclosure_risk"]["0.2"] == pytest.approx(0.6, **APPROX)
    assert set(by_cell(result)["15"]["disclosure_risk"]) == {"0.02", "0.1", "0.2"}


def test_default_gammas(tmp_path, data) -> None:
    result, _, _ = run_link(tmp_path, base_args(data) + FIXTURE_EVAL)
    assert set(result["usefulness"]) == {"0.05", "0.1"}
    # the 0.05 threshold gives the same shares here: 0.0333, 0.03, 0.0288... are all < 0.05
    assert result["usefulness"]["0.05"] == pytest.approx(7 / 9, **APPROX)
    assert result["usefulness"]["0.1"] == pytest.approx(7 / 9, **APPROX)
    assert result["tau"] == 0.5


@pytest.mark.parametrize(
    ("tau", "passed", "failing"),
    [("0.5", False, ["22"]), ("0.9", True, []), ("0.2", False, ["15", "22"]), ("0.85", True, [])],
)
def test_tau_changes_passed(tmp_path, data, tau, passed, failing) -> None:
    # the handbook's perturbed business data: τ judges usefulness, re-identification alone discloses nothing
    result, _, _ = run_link(tmp_path, base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--tau", tau,
                                                                      "--identity", "discloses-nothing"])
    assert result["tau"] == float(tau)
    assert result["passed"] is passed
    assert [c["cell"]["wz"] for c in result["cells"] if not c["passed"]] == failing
    assert result["n_failing_cells"] == len(failing)


@pytest.mark.parametrize(
    ("targets", "usefulness"),
    [(["turnover"], 1.0), (["costs"], 1 / 3), (["employees", "costs"], 4 / 6), (list(TARGETS), 7 / 9)],
)
def test_target_selects_evaluated_variables(tmp_path, data, targets, usefulness) -> None:
    args = base_args(data) + ["--gamma", "0.1"]
    for t in targets:
        args += ["--target", t]
    result, _, _ = run_link(tmp_path, args)
    assert result["evaluation"]["targets"] == targets
    assert result["usefulness"]["0.1"] == pytest.approx(usefulness, **APPROX)
    assert result["disclosure_risk"]["0.1"] == pytest.approx(0.6 * usefulness, **APPROX)
    assert result["usefulness"]["0.1"] == pytest.approx(
        brute_scores(GREEDY, targets=targets)["usefulness"], **APPROX
    )


def test_default_targets_exclude_code_columns(tmp_path, data) -> None:
    result, _, _ = run_link(tmp_path, base_args(data) + ["--block", "wz", "--cell", "wz"])
    assert "wz" not in result["evaluation"]["targets"]


def test_cell_bins(tmp_path, data) -> None:
    args = base_args(data) + ["--gamma", "0.1", "--cell", "employees:bins=20,30"]
    args += ["--target", "turnover", "--target", "employees", "--target", "costs"]
    result, _, _ = run_link(tmp_path, args)
    name = "employees:bins=20,30"
    assert [c["cell"] for c in result["cells"]] == [
        {name: "[-inf, 20)"}, {name: "[20, 30)"}, {name: "[30, inf)"},
    ]
    small, mid, large = result["cells"]
    # true employees (original): u1 10, u2 12 | u3 25 | u5 40, u6 45; greedy links u1, u2 falsely
    assert (small["n_verifiable"], small["n_correct"]) == (2, 0)
    assert small["usefulness"]["0.1"] is None
    assert small["disclosure_risk"]["0.1"] == 0.0
    assert small["passed"] is True
    assert (mid["n_verifiable"], mid["n_correct"]) == (1, 1)
    assert mid["disclosure_risk"]["0.1"] == pytest.approx(2 / 3, **APPROX)
    assert (large["n_verifiable"], large["n_correct"]) == (2, 2)
    assert large["disclosure_risk"]["0.1"] == pytest.approx(5 / 6, **APPROX)
    assert result["passed"] is False


def test_two_cell_variables(tmp_path, data) -> None:
    args = base_args(data) + ["--gamma", "0.1", "--cell", "region", "--cell", "wz:prefix=1"]
    args += ["--target", "turnover", "--target", "employees", "--target", "costs"]
    result, _, _ = run_link(tmp_path, args)
    assert [c["cell"] for c in result["cells"]] == [
        {"region": "W", "wz:prefix=1": "1"}, {"region": "W", "wz:prefix=1": "2"},
    ]
    assert [c["n_verifiable"] for c in result["cells"]] == [3, 2]


def test_gamma_var_overrides_one_variable(tmp_path, data) -> None:
    """costs deviates by exactly 0.1 for u3 and u5; with γ_costs = 0.2 both become useful."""
    args = base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--gamma-var", "costs=0.2"]
    result, _, _ = run_link(tmp_path, args)
    assert result["usefulness"]["0.1"] == pytest.approx(1.0, **APPROX)
    assert result["usefulness_by_variable"]["0.1"]["costs"] == pytest.approx(1.0, **APPROX)


def test_without_original_release_values_are_the_truth(tmp_path, data) -> None:
    result, rows, _ = run_link(tmp_path, base_args(data, original=False) + FIXTURE_EVAL + ["--gamma", "0.1"])
    assert linked_units(rows) == GREEDY
    assert result["truth"] == "release values"
    assert result["n_correct"] == 3
    assert result["usefulness"]["0.1"] == pytest.approx(1.0, **APPROX)
    assert result["disclosure_risk"]["0.1"] == pytest.approx(0.6, **APPROX)
    cells = by_cell(result)
    assert cells["15"]["disclosure_risk"]["0.1"] == pytest.approx(1 / 3, **APPROX)
    assert cells["22"]["disclosure_risk"]["0.1"] == pytest.approx(1.0, **APPROX)


def test_html_report(tmp_path, data) -> None:
    html = tmp_path / "report" / "r.html"
    result = invoke(base_args(data) + FIXTURE_EVAL + ["--html", html])
    assert result.exit_code == 1, result.output  # the fixture is NOT PASSED at τ = 0.5
    text = html.read_text(encoding="utf-8")
    assert "<svg" in text
    assert "<html" in text.lower()


def test_json_is_deterministic(tmp_path, data) -> None:
    for method in ("greedy", "hungarian", "nearest"):
        args = base_args(data) + FIXTURE_EVAL + ["--method", method]
        first, second = tmp_path / f"{method}1.json", tmp_path / f"{method}2.json"
        assert invoke(args + ["--json", first]).exit_code == 1
        assert invoke(args + ["--json", second]).exit_code == 1
        assert first.read_bytes() == second.read_bytes()


def test_json_output_replaces_an_existing_file(tmp_path, data) -> None:
    out = tmp_path / "r.json"
    out.write_text("old")
    assert invoke(base_args(data) + FIXTURE_EVAL + ["--json", out]).exit_code == 1
    assert json.loads(out.read_text())["n_correct"] == 3


# --------------------------------------------------------------------------------------------
# attack run


SCENARIO = """\
title = "fixture scenario"

[data]
external = {{ path = "data/ext.csv", id = "unit_id" }}
release = {{ path = "data/rel.csv", id = "unit_id" }}
original = {{ path = "data/orig.csv", id = "unit_id" }}

[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["wz", "region"]
method = "{method}"

[evaluation]
gamma = [0.1]
tau = 0.5
targets = ["turnover", "employees", "costs"]
cells = ["wz"]

[output]
json = "out/result.json"
matches = "out/matches.csv"
"""


def write_scenario(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "study"
    (folder / "data").mkdir(parents=True)
    EXTERNAL.to_csv(folder / "data" / "ext.csv", index=False)
    RELEASE.to_csv(folder / "data" / "rel.csv", index=False)
    ORIGINAL.to_csv(folder / "data" / "orig.csv", index=False)
    path = folder / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("method", ["greedy", "hungarian"])
def test_run_scenario_equals_link(tmp_path, data, monkeypatch, method) -> None:
    scenario = write_scenario(tmp_path, SCENARIO.format(method=method))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # paths in the scenario are relative to the scenario file
    result = invoke(["run", scenario])
    assert result.exit_code == 1, result.output  # the fixture is NOT PASSED at τ = 0.5
    out = scenario.parent / "out"
    document = json.loads((out / "result.json").read_text())
    assert (document["title"], document["scenario_file"]) == ("fixture scenario", "scenario.toml")
    assert document["passed"] is False and len(document["runs"]) == 1
    from_run = {k: v for k, v in document["runs"][0].items() if k not in ("name", "intruder", "release")}
    assert stat.S_IMODE((out / "matches.csv").stat().st_mode) == 0o600
    assert "matches.csv" in result.stderr
    assert "fixture scenario" in result.stdout

    from_link, rows, _ = run_link(tmp_path, base_args(data) + FIXTURE_EVAL + ["--gamma", "0.1", "--method", method])
    assert from_link.pop("schema_version") == document["schema_version"]
    assert from_run == {k: v for k, v in from_link.items() if k not in ("name", "intruder", "release")}
    with open(out / "matches.csv", newline="") as handle:
        assert {r["external_id"]: r for r in csv.DictReader(handle)} == rows
    assert linked_units(rows) == (GREEDY if method == "greedy" else EXACT)
    assert list(elsewhere.iterdir()) == []


def test_run_json_option_overrides_scenario_output(tmp_path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO.format(method="greedy").split("[output]")[0])
    target = tmp_path / "override.json"
    result = invoke(["run", scenario, "--json", target])
    assert result.exit_code == 1, result.output  # the fixture is NOT PASSED at τ = 0.5
    assert json.loads(target.read_text())["runs"][0]["n_correct"] == 3
    assert not (scenario.parent / "out").exists()


def test_run_is_deterministic(tmp_path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO.format(method="greedy").split("[output]")[0])
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert invoke(["run", scenario, "--json", first]).exit_code == 1
    assert invoke(["run", scenario, "--json", second]).exit_code == 1
    assert first.read_bytes() == second.read_bytes()


def test_run_scenario_with_key_tables_and_options(tmp_path) -> None:
    text = """\
[data]
external = { path = "data/ext.csv", id = "unit_id" }
release = { path = "data/rel.csv", id = "unit_id" }

[linkage]
keys = [{ name = "turnover", type = "metric", weight = 1.0 }, { name = "employees", type = "metric", weight = 10.0 }]
block = [{ column = "wz", prefix = 1 }, "region"]
method = "greedy"
standardise = "maxmin"
metric_distance = "squared"

[evaluation]
gamma = ["0.10", "0.20"]
tau = 0.9
targets = ["turnover", "employees", "costs"]
cells = ["wz"]
"""
    scenario = write_scenario(tmp_path, text)
    out = tmp_path / "r.json"
    result = invoke(["run", scenario, "--json", out])
    assert result.exit_code == 1, result.output  # cell 22 fails even at τ = 0.9
    document = json.loads(out.read_text())
    doc = document["runs"][0]
    assert doc["n_correct"] == 5  # brute force with weights (1, 10): every link correct
    assert set(doc["usefulness"]) == {"0.1", "0.2"}
    assert doc["usefulness"]["0.1"] == pytest.approx(1.0, **APPROX)  # release values are the truth
    assert doc["tau"] == 0.9
    assert doc["passed"] is False and document["passed"] is False  # cell 22: h = 1, u = 1 ≥ 0.9
    assert doc["linkage"]["blocking"] == ["wz:prefix=1", "region"]
    assert document["title"] == "attack scenario"


# --------------------------------------------------------------------------------------------
# attack demo


def test_demo_writes_reports(tmp_path) -> None:
    out = tmp_path / "demo"
    result = invoke(["demo", "--units", "1500", "--out", out])
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file()
    assert "<svg" in (out / "report.html").read_text(encoding="utf-8")
    doc = json.loads((out / "demo.json").read_text())
    assert doc["origin"] == {"bundled": "demo", "n_units": 1500, "seed": 1, "method": "greedy"}
    runs = {(r["intruder"]["role"], r["release"]["name"]): r for r in doc["runs"]}
    assert len(runs) == 4
    worst = runs[("worst", "FORMAL")]
    assert worst["reidentification_rate"] == 1.0
    assert worst["n_correct"] == worst["n_verifiable"] > 0
    realistic = runs[("realistic", "FORMAL")]
    assert 0 < realistic["reidentification_rate"] < 1
    assert "demo.json" in result.stderr
    assert result.stdout.startswith("# ")


def test_demo_rejects_too_few_units(tmp_path) -> None:
    result = invoke(["demo", "--units", "10", "--out", tmp_path / "d"])
    assert result.exit_code == 2
    assert not (tmp_path / "d").exists()


# --------------------------------------------------------------------------------------------
# bad input: one line on stderr, exit 2, no traceback, no output file


def _edit_csv(path: Path, row: int, column: str, value: str) -> None:
    """Set a value; ``row`` is the 1-based data row."""
    frame = pd.read_csv(path, dtype=str)
    frame.loc[row - 1, column] = value
    frame.to_csv(path, index=False)


def _drop_column(path: Path, column: str) -> None:
    pd.read_csv(path, dtype=str).drop(columns=[column]).to_csv(path, index=False)


def _set_all(path: Path, column: str, value: str) -> None:
    """Give every row ``value`` (numbered ``value1``, ``value2``... for the id column)."""
    frame = pd.read_csv(path, dtype=str)
    frame[column] = [f"{value}{i + 1}" if column == "unit_id" else value for i in range(len(frame))]
    frame.to_csv(path, index=False)


def _as_xlsx(paths: dict[str, Path]) -> None:
    paths["external"] = paths["external"].rename(paths["external"].with_suffix(".xlsx"))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _header_only(path: Path) -> None:
    path.write_text(path.read_text().splitlines()[0] + "\n")


# (name, how to spoil the files, extra arguments, strings the message must contain)
BAD_INPUT = [
    ("key column missing in external", None, ["--key", "sales:metric"], ["ext.csv", "'sales'", "column is missing"]),
    ("key column missing in release", lambda p: _drop_column(p["release"], "employees"), [], ["rel.csv", "'employees'", "missing"]),
    ("block column missing in release", lambda p: _drop_column(p["release"], "region"), [], ["rel.csv", "'region'", "missing"]),
    ("external id column missing", None, ["--external-id", "uid"], ["ext.csv", "'uid'", "missing"]),
    ("release id column missing", None, ["--release-id", "uid"], ["rel.csv", "'uid'", "missing"]),
    ("original id column missing", None, ["--original-id", "uid"], ["orig.csv", "'uid'", "missing"]),
    ("target column missing", None, ["--target", "profit"], ["rel.csv", "'profit'", "missing"]),
    ("target column missing in original", lambda p: _drop_column(p["original"], "costs"), [], ["orig.csv", "'costs'", "missing"]),
    ("cell column missing in original", lambda p: _drop_column(p["original"], "wz"), [], ["orig.csv", "'wz'", "missing"]),
    ("non-numeric key in external", lambda p: _edit_csv(p["external"], 3, "turnover", "abc"), [], ["ext.csv", "'turnover'", "row 3", "'abc'"]),
    ("non-numeric key in release", lambda p: _edit_csv(p["release"], 2, "employees", "11 staff"), [], ["rel.csv", "'employees'", "row 2", "'11 staff'"]),
    ("non-numeric target in original", lambda p: _edit_csv(p["original"], 4, "costs", "n/a?"), [], ["orig.csv", "'costs'", "row 4", "'n/a?'"]),
    ("non-numeric target in release", lambda p: _edit_csv(p["release"], 5, "costs", "3,30"), [], ["rel.csv", "'costs'", "row 5"]),
    ("empty external", lambda p: _empty(p["external"]), [], ["ext.csv", "empty"]),
    ("empty release", lambda p: _empty(p["release"]), [], ["rel.csv", "empty"]),
    ("empty original", lambda p: _empty(p["original"]), [], ["orig.csv", "empty"]),
    ("header-only external", lambda p: _header_only(p["external"]), [], ["ext.csv", "no data rows"]),
    ("header-only release", lambda p: _header_only(p["release"]), [], ["rel.csv", "no data rows"]),
    ("missing external", lambda p: p["external"].unlink(), [], ["ext.csv", "not found"]),
    ("missing release", lambda p: p["release"].unlink(), [], ["rel.csv", "not found"]),
    ("missing original", lambda p: p["original"].unlink(), [], ["orig.csv", "not found"]),
    ("duplicate release id", lambda p: _edit_csv(p["release"], 4, "unit_id", "u3"), [], ["rel.csv", "'unit_id'", "row 4", "duplicate", "'u3'"]),
    ("duplicate external id", lambda p: _edit_csv(p["external"], 2, "unit_id", "u1"), [], ["ext.csv", "'unit_id'", "row 2", "duplicate"]),
    ("duplicate original id", lambda p: _edit_csv(p["original"], 6, "unit_id", "u1"), [], ["orig.csv", "'unit_id'", "row 6", "duplicate"]),
    ("missing release id", lambda p: _edit_csv(p["release"], 3, "unit_id", ""), [], ["rel.csv", "'unit_id'", "row 3", "missing"]),
    ("block with no partner", lambda p: _set_all(p["external"], "region", "X"), [], ["ext.csv", "no external record shares its block", "wz, region"]),
    ("no external id in the release", lambda p: _set_all(p["external"], "unit_id", "x"), [], ["rel.csv", "no external identifier"]),
    ("unknown file format", _as_xlsx, [], ["ext.xlsx", "is not an excel file", "its first bytes show text"]),
    ("unit of release missing in original", lambda p: pd.read_csv(p["original"], dtype=str).iloc[:5].to_csv(p["original"], index=False), [], ["orig.csv", "'u6'", "not in the original"]),
    ("gamma not a number", None, ["--gamma", "abc"], ["'abc'"]),
    ("gamma not positive", None, ["--gamma", "0"], ["field gammas[0]", "greater than 0"]),
    ("tau out of range", None, ["--tau", "1.5"], ["field tau", "less than or equal to 1", "1.5"]),
    ("per-variable γ for a variable not evaluated", None, ["--gamma-var", "profit=0.1,0.2"], ["gamma_by_variable", "'profit'"]),
]


@pytest.mark.parametrize(("spoil", "extra", "needles"), [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT])
def test_bad_input_is_one_clear_line(tmp_path, data, spoil, extra, needles) -> None:
    if spoil is not None:
        spoil(data)
    outputs = [tmp_path / "out" / "r.json", tmp_path / "out" / "r.html", tmp_path / "out" / "m.csv"]
    args = base_args(data) + FIXTURE_EVAL + extra + [
        "--json", outputs[0], "--html", outputs[1], "--matches", outputs[2],
    ]
    result = invoke(args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("attack: error: ")
    for needle in needles:
        assert needle in lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""
    for path in outputs:
        assert not path.exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--method", "fastest"], "'--method'"),
        (["--key", "sector:categorical"], "unknown key type 'categorical'"),
        (["--key", "turnover"], "'--key'"),
        (["--standardise", "zscore"], "'--standardise'"),
        (["--metric-distance", "euclid"], "'--metric-distance'"),
        (["--block", "wz:prefix=x"], "'--block'"),
        (["--cell", "employees:bins=30,20"], "strictly increasing"),
    ],
)
def test_usage_errors_exit_2(tmp_path, data, extra, needle) -> None:
    out = tmp_path / "r.json"
    result = invoke(base_args(data) + FIXTURE_EVAL + extra + ["--json", out])
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()


def test_failed_run_leaves_an_existing_output_untouched(tmp_path, data) -> None:
    out = tmp_path / "r.json"
    out.write_text("previous result\n")
    _edit_csv(data["original"], 1, "costs", "lots")
    result = invoke(base_args(data) + FIXTURE_EVAL + ["--json", out])
    assert result.exit_code == 2
    assert "'costs', row 1" in result.stderr
    assert out.read_text() == "previous result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ext.csv", "orig.csv", "r.json", "rel.csv"]


def test_unwritable_output_path_is_one_clear_line(tmp_path, data) -> None:
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("")
    result = invoke(base_args(data) + FIXTURE_EVAL + ["--json", blocker / "r.json"])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("attack: error: ")
    assert "not_a_folder" in lines[0]
    assert "Traceback" not in result.output


def test_missing_required_option_exits_2(tmp_path, data) -> None:
    args = base_args(data)
    i = args.index("--release-id")
    result = invoke(args[:i] + args[i + 2 :] + ["--json", tmp_path / "r.json"])
    assert result.exit_code == 2
    assert "--release-id" in result.stderr
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        (lambda t: t.replace('method = "greedy"', 'method = "fastest"'), ["scenario.toml", "'fastest'"]),
        (lambda t: t.replace('"employees:metric"', '"employees:amount"'), ["scenario.toml", "'amount'"]),
        (lambda t: t.replace("data/rel.csv", "data/nothere.csv"), ["nothere.csv", "not found"]),
        (lambda t: t.replace('id = "unit_id" }\nrelease', 'id = "uid" }\nrelease'), ["ext.csv", "'uid'", "missing"]),
        (lambda t: t.replace('release = { path = "data/rel.csv", id = "unit_id" }', 'release = { path = "data/rel.csv", id = "uid" }'), ["rel.csv", "'uid'", "missing"]),
        (lambda t: t.replace('cells = ["wz"]', 'cells = ["nace"]'), ["orig.csv", "'nace'", "missing"]),
        (lambda t: t.replace("[evaluation]", "[evaluation]\nalpha = 1"), ["scenario.toml", "'alpha'"]),
        (lambda t: t.replace("[linkage]", "[linkage"), ["scenario.toml", "not valid TOML"]),
        (lambda t: t.replace('release = { path = "data/rel.csv", id = "unit_id" }\n', ""), ["scenario.toml", "field data.release", "required"]),
        # one case per class of bad setting: the field's dotted path, before any data file is read
        (lambda t: t.replace("tau = 0.5", 'tau = "abc"').replace("data/rel.csv", "data/nothere.csv"),
         ["scenario.toml", "field evaluation.tau", "expected a number", "'abc'"]),
        (lambda t: t.replace("tau = 0.5", "tau = 1.5"), ["field evaluation.tau", "less than or equal to 1", "1.5"]),
        (lambda t: t.replace('"employees:metric"]', '{ name = "employees", type = "metric", weight = -1 }]'),
         ["field linkage.keys[1].weight", "greater than or equal to 0", "-1"]),
        (lambda t: t.replace('"employees:metric"]', '{ name = "employees", type = "metric", weight = "heavy" }]'),
         ["field linkage.keys[1].weight", "expected a number", "'heavy'"]),
        (lambda t: t.replace("tau = 0.5", "tua = 0.5"), ["field evaluation.tua", "unknown field 'tua'", "did you mean 'tau'?"]),
        (lambda t: t.replace('method = "greedy"', 'method = "hungarain"'), ["field linkage.method", "'hungarian'", "got 'hungarain'"]),
        (lambda t: t.replace('block = ["wz", "region"]', 'block = "region"'), ["field linkage.block", "expected a list", "'region'"]),
        (lambda t: t.replace("gamma = [0.1]", "gamma = 0.1"), ["field evaluation.gamma", "expected a list"]),
        (lambda t: t.replace('cells = ["wz"]', "cells = [5]"), ["field evaluation.cells[0]", "got 5"]),
        (lambda t: t.replace('"employees:metric"]', '{ type = "metric" }]'), ["field linkage.keys[1].name", "required"]),
        (lambda t: t.replace('"employees:metric"]', '{ name = "employees", type = "metrik" }]'),
         ["field linkage.keys[1]", "did you mean 'metric'?"]),
    ],
    ids=["unknown method", "unknown key type", "missing data file", "external id missing",
         "release id missing", "cell missing", "unknown entry", "invalid TOML", "no release",
         "wrong type", "out of range", "negative weight", "weight not a number", "misspelt field",
         "misspelt method", "string for a list", "scalar for a list", "number for a cell",
         "key without name", "misspelt key type"],
)
def test_bad_scenario_is_one_clear_line(tmp_path, edit, needles) -> None:
    scenario = write_scenario(tmp_path, edit(SCENARIO.format(method="greedy")))
    result = invoke(["run", scenario])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("attack: error: ")
    for needle in needles:
        assert needle in lines[0]
    assert "Traceback" not in result.output
    assert not (scenario.parent / "out").exists()


def test_missing_scenario_file(tmp_path) -> None:
    result = invoke(["run", tmp_path / "none.toml"])
    assert result.exit_code == 2
    assert result.stderr.startswith("attack: error: ")
    assert "none.toml" in result.stderr


def test_bad_input_in_a_real_process(tmp_path, data) -> None:
    """Outside CliRunner: the installed entry point prints one line and no traceback."""
    _edit_csv(data["external"], 3, "turnover", "abc")
    out = tmp_path / "r.json"
    code = "import sys; from attack.cli import main; sys.argv[0] = 'attack'; main()"
    args = [sys.executable, "-c", code] + base_args(data) + FIXTURE_EVAL + ["--json", str(out)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"attack: error: file {data['external']}, column 'turnover', row 3: expected a number, found 'abc'"
    ]
    assert proc.stdout == ""
    assert not out.exists()


def test_every_command_that_prints_a_summary_can_be_quiet(tmp_path, data) -> None:
    """--quiet on every command with a summary; with it a run prints nothing on stdout."""
    from attack.cli import main as group

    summarising = {"link", "run", "tune", "utility", "synth", "truth", "risk"}
    for name in summarising:
        assert "--quiet" in {o for p in group.commands[name].params for o in p.opts}, name
    result = CliRunner().invoke(group, ["utility", "--original", str(data["original"]), "--release",
                                        str(data["release"]), "--code", "wz", "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


def test_records_file_of_link_and_run(tmp_path, data) -> None:
    records = tmp_path / "records.csv"
    result = invoke(base_args(data) + FIXTURE_EVAL + ["--records", records, "--json", tmp_path / "r.json"])
    assert result.exit_code == 1, result.output
    assert stat.S_IMODE(records.stat().st_mode) == 0o600 and str(records) in result.stderr
    table = pd.read_csv(records)
    assert len(table) == len(RELEASE) and int(table["any: reidentified"].sum()) == 3  # the fixture's 3 hits
    assert "margin" not in (tmp_path / "r.json").read_text()  # the JSON stays aggregate
    scenario = write_scenario(tmp_path, SCENARIO.format(method="greedy") + 'records = "out/records.csv"\n')
    assert invoke(["run", scenario]).exit_code == 1
    written = scenario.parent / "out" / "records.csv"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert pd.read_csv(written)["any: reidentified"].sum() == 3
