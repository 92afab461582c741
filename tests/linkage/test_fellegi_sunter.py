"""The Fellegi–Sunter intruder: comparison levels by hand, EM against known m/u, links and
match probabilities on generated data, the chance calibration of the distance intruder."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from attack.errors import InputError
from attack.linkage.blocking import make_blocks
from attack.linkage.fellegi_sunter import (
    comparisons,
    expectation_maximisation,
    fit,
    normalise_text,
)
from attack.linkage.keys import Hierarchical, Key, Metric, Nominal, String
from attack.linkage.link import link
from attack.linkage.settings import Linkage


def _levels(key: Key, a: list, b: list) -> tuple[np.ndarray, np.ndarray]:
    """Levels of the aligned pairs (a[i], b[i]) and of the matrix, for one key."""
    ext = pd.DataFrame({key.name: a})
    rel = pd.DataFrame({key.name: b})
    (comparison,) = comparisons(ext, rel, [key])
    idx = np.arange(len(a))
    return comparison.levels(idx, idx, pairs=True), comparison.levels(idx, idx, pairs=False)


def test_metric_levels_by_relative_difference():
    pairs, matrix = _levels(Metric("x"), [100.0, 100.0, 100.0, np.nan, 0.0],
                            [100.0, 91.0, 89.0, 5.0, 0.0])
    # |100-91|/100 = 0.09 <= 0.1 near; 0.11 far; missing; 0 == 0 exact
    assert pairs.tolist() == [0, 1, 2, -1, 0]
    assert np.array_equal(np.diag(matrix), pairs)
    assert matrix[0, 2] == 2 and matrix[3, 0] == -1


def test_string_levels_by_jaro_winkler_after_normalising():
    a = ["Smith", "martha", "dixon", "abc", None]
    b = ["  smith.", "marhta", "dicksonx", "xyz", "abc"]
    pairs, matrix = _levels(String("s"), a, b)
    # JW(martha, marhta) = 0.961 >= 0.92; JW(dixon, dicksonx) = 0.813 >= 0.80; 0 different
    assert pairs.tolist() == [0, 1, 2, 3, -1]
    assert np.array_equal(np.diag(matrix), pairs)
    assert matrix[3, 4] == 0 and (matrix[4] == -1).all()
    assert normalise_text("  Mc-Donald ,  Jr ") == "mc donald jr"


def test_hierarchical_levels_by_common_prefix():
    key = Hierarchical("nace", levels=(2, 3))
    pairs, matrix = _levels(key, ["1511", "1511", "1511", "1511"], ["1511", "1512", "1521", "2711"])
    assert pairs.tolist() == [0, 1, 2, 3]  # exact, prefix 3, prefix 2, different
    assert np.array_equal(np.diag(matrix), pairs)


def test_nominal_levels_and_weightless_keys():
    pairs, _ = _levels(Nominal("c"), ["a", "a", None], ["a", "b", "a"])
    assert pairs.tolist() == [0, 1, -1]
    with pytest.raises(InputError, match="weight 0"):
        comparisons(pd.DataFrame({"c": ["a"]}), pd.DataFrame({"c": ["a"]}), [Nominal("c", weight=0)])


M = [np.array([0.85, 0.10, 0.05]), np.array([0.9, 0.1]), np.array([0.6, 0.25, 0.1, 0.05]),
     np.array([0.7, 0.2, 0.1])]
U = [np.array([0.02, 0.08, 0.90]), np.array([0.1, 0.9]), np.array([0.01, 0.04, 0.15, 0.80]),
     np.array([0.05, 0.15, 0.80])]


def _patterns(n: int, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    match = rng.random(n) < share
    levels = np.empty((n, len(M)), dtype=np.int64)
    for k, (m, u) in enumerate(zip(M, U, strict=True)):
        levels[match, k] = rng.choice(m.size, match.sum(), p=m)
        levels[~match, k] = rng.choice(u.size, (~match).sum(), p=u)
    levels[rng.random(n) < 0.05, 1] = -1  # some comparisons missing
    patterns, counts = np.unique(levels, axis=0, return_counts=True)
    return patterns, counts


def test_em_recovers_known_m_and_match_share():
    patterns, counts = _patterns(300_000, 0.03, seed=1)
    result = expectation_maximisation(patterns, counts, U, match_share=0.2)
    assert result.converged
    assert abs(result.match_share - 0.03) < 0.002
    for estimated, true in zip(result.m, M, strict=True):
        assert np.abs(estimated - true).max() < 0.02
        assert estimated.sum() == pytest.approx(1.0)


def test_em_fails_the_check_with_wrong_u():
    """The recovery check can fail: EM with u far from the truth misses m by more than 0.02."""
    patterns, counts = _patterns(300_000, 0.03, seed=1)
    wrong = [np.full(u.size, 1 / u.size) for u in U]
    result = expectation_maximisation(patterns, counts, wrong, match_share=0.2)
    assert max(np.abs(e - t).max() for e, t in zip(result.m, M, strict=True)) > 0.02


N_UNITS, N_CATEGORIES, ERROR = 2000, 40, 0.1
KEYS = tuple(Nominal(f"k{i}") for i in range(8))


def _people(seed: int = 3, units: int = N_UNITS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A release of ``units`` with 8 uniform codes, and an external copy in which every value is
    replaced by a uniform random code with probability ERROR: m(exact) = 1 − ERROR + ERROR/C,
    u(exact) = 1/C for C categories."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, N_CATEGORIES, (units, len(KEYS)))
    noisy = np.where(rng.random(codes.shape) < ERROR, rng.integers(0, N_CATEGORIES, codes.shape), codes)
    ids = [f"u{i}" for i in range(units)]
    release = pd.DataFrame({"id": ids, **{k.name: [f"c{v}" for v in codes[:, i]] for i, k in enumerate(KEYS)}})
    external = pd.DataFrame({"id": ids, **{k.name: [f"c{v}" for v in noisy[:, i]] for i, k in enumerate(KEYS)}})
    return release, external


def _half_absent() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Release: units 0..1999; external: units 1000..2999, half of them not in the release."""
    release, external = _people(units=3 * N_UNITS // 2)
    return release.iloc[:N_UNITS].reset_index(drop=True), external.iloc[N_UNITS // 2:].reset_index(drop=True)


def test_fit_recovers_m_and_u_of_generated_people():
    release, external = _people()
    model = fit(external, release, KEYS, make_blocks(external, release, ()), seed=0)
    m_exact = 1 - ERROR + ERROR / N_CATEGORIES
    for m, u in zip(model.em.m, model.u, strict=True):
        assert abs(m[0] - m_exact) < 0.02
        assert abs(u[0] - 1 / N_CATEGORIES) < 0.02
    assert abs(model.em.match_share - N_UNITS / N_UNITS**2) < 1e-4
    about = model.to_dict()
    assert about["candidate_pairs"] == N_UNITS**2 and about["em_pairs"] == N_UNITS**2
    assert about["keys"][0]["levels"][0]["weight"] == pytest.approx(np.log2(model.em.m[0][0] / model.u[0][0]))


@pytest.mark.parametrize("method", ["greedy", "hungarian"])
def test_fellegi_sunter_links_and_probabilities(method):
    release, external = _people()
    spec = Linkage(keys=KEYS, method=method, intruder="fellegi-sunter")
    links = link(external, release, spec)
    correct = links.release_row == np.arange(N_UNITS)
    assert correct.mean() > 0.97
    sure = links.match_probability >= 0.5
    assert correct[sure].mean() >= 0.99 and sure.mean() > 0.9
    # the probability is the posterior of the pair's weight, monotone in it
    weight = links.model.top - links.distance
    order = np.argsort(weight)
    assert (np.diff(links.match_probability[order]) >= -1e-12).all()
    assert links.to_dict()["match_probability"]["model"] == "fellegi-sunter"
    assert links.to_dict()["intruder"] == "fellegi-sunter"


def test_distance_links_are_calibrated_against_chance():
    """Links of external records without counterpart reach a threshold P no more often than
    chance allows (1 − P; they are even rarer, as the one-to-one links leave them what the
    others do not take); correct links of the records with counterpart come near 1."""
    release, external = _half_absent()
    links = link(external, release, Linkage(keys=KEYS, method="greedy"))
    assert links.linked.all()
    absent = links.match_probability[N_UNITS // 2:]
    for p in (0.5, 0.9, 0.99):
        assert (absent >= p).mean() <= 1 - p + 0.01
    present = links.match_probability[: N_UNITS // 2]
    correct = links.release_row[: N_UNITS // 2] == np.arange(N_UNITS // 2, N_UNITS)
    assert np.median(present[correct]) > 0.9
    assert links.to_dict()["match_probability"]["model"] == "chance calibration of the distance"


def test_fellegi_sunter_confident_links_when_half_is_absent():
    """The issue's target on generated data: confident links (P >= 0.5) reach precision >= 0.99
    at recall >= 0.97 of the units present."""
    release, external = _half_absent()
    links = link(external, release, Linkage(keys=KEYS, method="hungarian", intruder="fellegi-sunter"))
    truth = np.r_[np.arange(N_UNITS // 2, N_UNITS), np.full(N_UNITS // 2, -1)]
    sure = links.match_probability >= 0.5
    correct = sure & (links.release_row == truth)
    assert correct.sum() / sure.sum() >= 0.99
    assert correct.sum() / (N_UNITS // 2) >= 0.97


def test_unknown_intruder_refused():
    with pytest.raises(InputError, match="expected .distance. or .fellegi-sunter., got .oracle."):
        Linkage(keys=KEYS, intruder="oracle")


def test_large_blocks_are_linked_by_the_candidate_solver():
    """A block beyond the dense size goes to the sparse Hungarian solver, which must link every
    record as the dense one does (not linking costs as much as the worst link)."""
    release, external = _people(units=2100)  # 4.4 million pairs > the dense limit of 4 million
    links = link(external, release, Linkage(keys=KEYS, method="hungarian", intruder="fellegi-sunter"))
    assert {s.solver for s in links.solutions} == {"sparse"}
    assert links.linked.all()
    assert (links.release_row == np.arange(2100)).mean() > 0.97


def test_scenario_key_chooses_the_intruder():
    from attack.linkage.settings import IntruderLinkage, Linkage

    base = Linkage.model_validate({"keys": ["k0:nominal"], "intruder": "fellegi-sunter"})
    assert base.intruder == "fellegi-sunter"
    assert base.overridden(IntruderLinkage.model_validate({"intruder": "distance"})).intruder == "distance"
    assert Linkage.model_validate({"keys": ["k0:nominal"]}).intruder == "distance"
    with pytest.raises(ValidationError, match="fellegi-sunter"):
        Linkage.model_validate({"keys": ["k0:nominal"], "intruder": "oracle"})
