"""The cluster-aware intruder's cluster assignment on hand-computed fixtures (docs/method/structure.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.linkage import clusters
from attack.linkage.assignment import greedy
from attack.linkage.clusters import (
    candidate_greedy,
    link_clusters,
    member_alignments,
)
from attack.linkage.settings import Linkage, parse_cluster

# Two households of two persons. One key, age, compared unstandardised by its squared difference.
#   external H1 = {30, 60}, H2 = {31, 50};  release R1 = {31, 58}, R2 = {30, 51} (R1 is H1, R2 is H2)
# Member-to-member costs of each pair of households (best alignment first):
#   H1–R1: (30−31)² + (60−58)² = 1 + 4 = 5        (cross: 28² + 29² = 1625)
#   H1–R2: (30−30)² + (60−51)² = 0 + 81 = 81      (cross: 21² + 30² = 1341)
#   H2–R1: (31−31)² + (50−58)² = 0 + 64 = 64      (cross: 27² + 19² = 1090)
#   H2–R2: (31−30)² + (50−51)² = 1 + 1 = 2        (cross: 20² + 20² = 800)
# Procedure II takes H2–R2 (2), then H1–R1 (5); the exact method too (7 < 81 + 64).
# Person by person, Procedure II would take the two zero distances 30–30 and 31–31, both false.
EXTERNAL = pd.DataFrame({"pid": ["a", "b", "c", "d"], "hid": ["H1", "H1", "H2", "H2"], "age": [30, 60, 31, 50]})
RELEASE = pd.DataFrame({"pid": ["a", "b", "c", "d"], "hh": ["R1", "R1", "R2", "R2"], "age": [31, 58, 30, 51]})


def _spec(method: str = "greedy", **more) -> Linkage:
    return Linkage(keys=["age:metric"], standardise="none", method=method, **more)


@pytest.mark.parametrize("method", ["greedy", "hungarian"])
def test_households_linked_by_their_composition(method):
    links = link_clusters(EXTERNAL, RELEASE, _spec(method), ("hid", "hh"))
    assert links.linked_cluster.tolist() == [0, 1]
    assert links.cluster_distance.tolist() == [5.0, 2.0]
    assert links.release_row.tolist() == [0, 1, 2, 3]
    assert links.distance.tolist() == [1.0, 4.0, 1.0, 1.0]
    assert links.to_dict()["proven"] is (method == "hungarian")


def test_members_pair_within_their_blocking_class_only():
    # sex as blocking key: in H1 the 30-year-old is a man, the 60-year-old a woman; in R1 the
    # woman is 31 and the man 58 (noise), so the only alignment allowed costs 28² + 29² = 1625.
    ext = EXTERNAL.assign(sex=["m", "f", "m", "f"])
    rel = RELEASE.assign(sex=["f", "m", "m", "f"])
    links = link_clusters(ext, rel, _spec(block=["sex"]), ("hid", "hh"))
    assert links.cluster_distance.tolist() == [1625.0, 2.0]
    assert links.release_row.tolist() == [1, 0, 2, 3]


def test_clusters_of_another_size_or_composition_are_never_compared():
    ext = pd.concat([EXTERNAL, pd.DataFrame({"pid": ["e"], "hid": ["H3"], "age": [40]})], ignore_index=True)
    links = link_clusters(ext, RELEASE, _spec(), ("hid", "hh"))
    assert links.linked_cluster.tolist() == [0, 1, -1]
    assert links.release_row.tolist() == [0, 1, 2, 3, -1]
    assert links.to_dict()["n_clusters_without_partner"] == 1


def test_alignments_keep_classes():
    assert member_alignments((0, 0, 1)).tolist() == [[0, 1, 2], [1, 0, 2]]
    assert member_alignments((0, 1, 1, 1)).tolist() == [[0, 1, 2, 3], [0, 1, 3, 2], [0, 2, 1, 3],
                                                        [0, 2, 3, 1], [0, 3, 1, 2], [0, 3, 2, 1]]
    assert member_alignments(tuple(range(1)) * 7) is None  # 7! = 5040 alignments: Hungarian per pair


def test_large_household_solved_by_the_hungarian_method_per_pair():
    # seven persons: 5040 alignments, solved pair by pair; the sorted matching is optimal in 1-D
    ages_e, ages_r = [1, 10, 20, 30, 40, 50, 60], [61, 2, 19, 33, 38, 52, 9]
    ext = pd.DataFrame({"pid": range(7), "hid": 0, "age": ages_e})
    rel = pd.DataFrame({"pid": range(7), "hh": 0, "age": ages_r})
    links = link_clusters(ext, rel, _spec(), ("hid", "hh"))
    assert links.cluster_distance.tolist() == [1 + 1 + 1 + 9 + 4 + 4 + 1]
    assert links.release_row.tolist() == [1, 6, 2, 3, 4, 5, 0]


def test_candidate_greedy_is_procedure_two_on_the_candidates():
    rng = np.random.default_rng(3)
    cost = rng.integers(0, 6, size=(7, 5)).astype(float)  # many ties
    a, b = (g.ravel() for g in np.meshgrid(np.arange(7), np.arange(5), indexing="ij"))
    taken = candidate_greedy(a, b, cost.ravel())
    rows, cols = greedy(cost)
    assert sorted(zip(a[taken].tolist(), b[taken].tolist(), strict=True)) == list(zip(rows.tolist(), cols.tolist(),
                                                                                      strict=True))


def test_large_blocks_use_candidates(monkeypatch):
    rng = np.random.default_rng(0)
    n = 300
    ages = rng.integers(0, 90, size=(n, 2))
    ext = pd.DataFrame({"pid": range(2 * n), "hid": np.repeat(np.arange(n), 2), "age": ages.ravel()})
    rel = ext.rename(columns={"hid": "hh"}).assign(age=ages.ravel() + rng.normal(0, 0.3, 2 * n))
    dense = link_clusters(ext, rel, _spec(), ("hid", "hh"))
    monkeypatch.setattr(clusters, "DENSE_CLUSTER_PAIRS", 0)
    sparse = link_clusters(ext, rel, _spec(), ("hid", "hh"))
    assert sparse.to_dict()["candidate_blocks"] == 1 and dense.to_dict()["candidate_blocks"] == 0
    assert (sparse.linked_cluster == dense.linked_cluster).all()
    assert (sparse.release_row == dense.release_row).all()


def test_cluster_spec_and_bad_input():
    assert parse_cluster("hid") == ("hid", "hid")
    assert parse_cluster("hid:hh") == ("hid", "hh")
    with pytest.raises(InputError, match="EXT_COLUMN:REL_COLUMN"):
        Linkage(keys=["age:metric"], cluster="hid:")
    with pytest.raises(InputError) as caught:
        link_clusters(EXTERNAL.assign(hid=["H1", None, "H2", "H2"]), RELEASE, _spec(), ("hid", "hh"))
    assert (caught.value.column, caught.value.row) == ("hid", 2)
    with pytest.raises(InputError, match="breaks clusters"):
        Linkage(keys=["age:metric"], cluster="hid", learn_weights=0.5)
    with pytest.raises(InputError, match="distance intruder"):
        link_clusters(EXTERNAL, RELEASE, _spec(intruder="fellegi-sunter"), ("hid", "hh"))


def test_hungarian_per_pair_keeps_classes():
    # eight persons, seven of class f: 7! = 5040 alignments, solved by the Hungarian method;
    # the man (70) must take the release's man (0) although a woman of 70 is nearer: 70² = 4900;
    # the women pair in sorted order: 1² + 9² + 13² + 8² + 12² + 11² + 10² = 680
    ext = pd.DataFrame({"pid": range(8), "hid": 0, "sex": ["f"] * 7 + ["m"], "age": [1, 10, 20, 30, 40, 50, 60, 70]})
    rel = pd.DataFrame({"pid": range(8), "hh": 0, "sex": ["f"] * 7 + ["m"], "age": [61, 2, 19, 33, 38, 52, 70, 0]})
    links = link_clusters(ext, rel, _spec(block=["sex"]), ("hid", "hh"))
    assert links.cluster_distance.tolist() == [680 + 4900]
    assert links.release_row.tolist() == [1, 2, 3, 4, 5, 0, 6, 7]


def test_a_signature_block_too_large_without_metric_keys_is_refused(monkeypatch):
    monkeypatch.setattr(clusters, "MAX_CLUSTER_PAIRS", 3)
    names = ["Anna", "Bert", "Carl", "Dora"]
    with pytest.raises(InputError, match="add a blocking key"):
        link_clusters(EXTERNAL.assign(name=names), RELEASE.assign(name=names), Linkage(keys=["name:string"]),
                      ("hid", "hh"))
