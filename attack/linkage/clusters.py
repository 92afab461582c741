"""The cluster-aware intruder: link whole clusters first, then members inside matched clusters
(docs/method/structure.md).

A cluster is a household of persons, an enterprise of establishments or an employer of
employees: the rows of a file that share a cluster identifier. The intruder knows the clusters
of both files (the household number of the release, the households of his register). He
compares two clusters by their composition: clusters are blocked by their *signature* — the
size and the multiset of the members' blocking classes (a household of two women and a man in
Tyrol) — and a pair of clusters of one signature costs the minimum total distance of a
one-to-one assignment of their members, members paired only within one blocking class (an
optimal member-to-member assignment inside the pair). Clusters are then assigned one to one
with the project's assignment methods (``attack.linkage.assignment``), and every member of a
matched cluster is linked to the member the cluster's assignment gave it.

A signature block small enough (``DENSE_CLUSTER_PAIRS``) gets the full cost matrix; a larger
one gets candidate pairs, the ``NEIGHBOURS`` nearest release clusters of each external cluster
and vice versa by a lower bound of the cost (per coordinate, members sorted within each
blocking class: a relaxation of the joint assignment), exact costs for the candidates and
Procedure II on them; such a block is reported as not proven.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import Table, as_table, code_column, source_name
from attack.linkage.assignment import TIE_TOLERANCE, assign
from attack.linkage.blocking import AnyBlock, Block
from attack.linkage.candidates import embedding
from attack.linkage.distances import DistanceModel, MetricComponent, build_distance_model
from attack.linkage.settings import Linkage

#: Signature blocks with at most this many cluster pairs get the full cost matrix.
DENSE_CLUSTER_PAIRS = 250_000
#: Without metric keys (no coordinates for candidates) a signature block may hold at most this many pairs.
MAX_CLUSTER_PAIRS = 20_000_000
#: Candidate release clusters per external cluster (and back) in larger blocks.
NEIGHBOURS = 6
#: Member alignments enumerated per signature; beyond, each pair is solved by the Hungarian method.
MAX_ALIGNMENTS = 720
#: Member distances computed at a time (memory of one step: this many float64 values times the alignments).
_PAIR_CHUNK = 1 << 20


@dataclass(frozen=True)
class ClusterLinks:
    """Links of the cluster-aware intruder.

    Per external record ``release_row`` (−1 without a link through its cluster), ``distance``
    (its member distance) and ``n_best`` (the release clusters its cluster's candidates hold at the
    chosen cost: ties); per external cluster (codes ``0 … n−1`` of ``external_cluster``) the
    release cluster it is linked to (``linked_cluster``, −1 none) and the pair's cost. Cluster
    codes number the clusters in order of first appearance in each file.
    """

    release_row: np.ndarray
    distance: np.ndarray
    n_best: np.ndarray
    external_cluster: np.ndarray
    release_cluster: np.ndarray
    linked_cluster: np.ndarray
    cluster_distance: np.ndarray
    columns: tuple[str, str]
    n_blocks: int
    n_candidate_blocks: int
    n_unblocked: int
    method: str

    @property
    def linked(self) -> np.ndarray:
        return self.release_row >= 0

    @property
    def n_external_clusters(self) -> int:
        return int(self.linked_cluster.size)

    @property
    def n_release_clusters(self) -> int:
        return int(self.release_cluster.max(initial=-1) + 1)

    def to_dict(self) -> dict:
        """JSON-ready description of how the clusters were linked (aggregates only)."""
        return {
            "external_column": self.columns[0],
            "release_column": self.columns[1],
            "method": self.method,
            "n_external_clusters": self.n_external_clusters,
            "n_release_clusters": self.n_release_clusters,
            "n_linked_clusters": int((self.linked_cluster >= 0).sum()),
            "signature_blocks": self.n_blocks,
            "candidate_blocks": self.n_candidate_blocks,
            "proven": self.method == "hungarian" and self.n_candidate_blocks == 0,
            "n_clusters_without_partner": self.n_unblocked,
            "evidence": "size and the members' blocking classes (blocks); members' keys by an optimal "
                        "member-to-member assignment",
        }


def link_clusters(external: Table | pd.DataFrame, release: Table | pd.DataFrame, spec: Linkage,
                  columns: tuple[str, str]) -> ClusterLinks:
    """Link the clusters of ``external`` to those of ``release`` one to one, then their members
    (module docstring); ``spec`` gives keys, blocks and the assignment method."""
    if spec.intruder != "distance":
        raise InputError("the cluster-aware intruder compares distances; use it with the distance intruder",
                         field="cluster")
    if any(isinstance(entry, AnyBlock) for entry in spec.block):
        raise InputError("blocking alternatives (a|b) are not combined with clusters; give single blocking keys",
                         field="cluster")
    ext, rel = as_table(external), as_table(release)
    ext_cluster = _cluster_codes(ext, columns[0])
    rel_cluster = _cluster_codes(rel, columns[1])
    key_ext = ext.with_frame(ext.frame[list(dict.fromkeys(c for k in spec.keys for c in k.external_columns))])
    key_rel = rel.with_frame(rel.frame[list(dict.fromkeys(c for k in spec.keys for c in k.columns))])
    model = build_distance_model(key_ext, key_rel, spec.keys, standardise=spec.standardise,
                                 metric_distance=spec.metric_distance, winsorise=spec.winsorise)
    ext_class, rel_class = member_classes(ext.frame, rel.frame, spec.blocks)
    coords = candidate_coordinates(model)
    ext_sides = _by_signature(ext_cluster, ext_class)
    rel_sides = _by_signature(rel_cluster, rel_class)
    n_ext_clusters = int(ext_cluster.max(initial=-1) + 1)
    linked = np.full(n_ext_clusters, -1, dtype=np.int64)
    cluster_distance = np.full(n_ext_clusters, np.nan)
    release_row = np.full(len(ext.frame), -1, dtype=np.int64)
    distance = np.full(len(ext.frame), np.nan)
    n_best = np.zeros(len(ext.frame), dtype=np.int64)
    n_blocks = n_candidates = 0
    for signature in sorted(set(ext_sides) & set(rel_sides)):
        (ext_ids, ext_members), (rel_ids, rel_members) = ext_sides[signature], rel_sides[signature]
        alignments = member_alignments(signature)
        n_blocks += 1
        if coords is None and ext_ids.size * rel_ids.size > MAX_CLUSTER_PAIRS:
            raise InputError(f"{ext_ids.size:,} × {rel_ids.size:,} clusters share one signature and no metric key "
                             "proposes candidates among them; add a blocking key or a metric key", field="cluster")
        if ext_ids.size * rel_ids.size <= DENSE_CLUSTER_PAIRS or coords is None:
            a, b = (g.ravel() for g in np.meshgrid(np.arange(ext_ids.size), np.arange(rel_ids.size),
                                                    indexing="ij"))
            cost, best = pair_costs(model, ext_members[a], rel_members[b], signature, alignments)
            matrix = cost.reshape(ext_ids.size, rel_ids.size)
            rows, cols = assign(matrix, spec.method)
            chosen = best.reshape(ext_ids.size, rel_ids.size, -1)[rows, cols]
            chosen_cost = matrix[rows, cols]
            ties = (np.abs(matrix[rows] - chosen_cost[:, None]) <= TIE_TOLERANCE).sum(axis=1)
        else:
            n_candidates += 1
            a, b = _candidates(coords, ext_members, rel_members, signature)
            cost, best = pair_costs(model, ext_members[a], rel_members[b], signature, alignments)
            take = candidate_greedy(a, b, cost)
            rows, cols, chosen, chosen_cost = a[take], b[take], best[take], cost[take]
            ties = _candidate_ties(a, cost, rows, chosen_cost)
        linked[ext_ids[rows]] = rel_ids[cols]
        cluster_distance[ext_ids[rows]] = chosen_cost
        members, partners = ext_members[rows], rel_members[cols][np.arange(rows.size)[:, None], chosen]
        release_row[members.ravel()] = partners.ravel()
        n_best[members.ravel()] = np.repeat(ties, members.shape[1])
        distance[members.ravel()] = model.pair_cost(members.ravel(), partners.ravel())
    unblocked = n_ext_clusters - sum(ids.size for sig, (ids, _) in ext_sides.items() if sig in rel_sides)
    return ClusterLinks(release_row, distance, n_best, ext_cluster, rel_cluster, linked, cluster_distance,
                        columns, n_blocks, n_candidates, unblocked, spec.method)


def _cluster_codes(table: Table, column: str) -> np.ndarray:
    """Cluster code of every row (order of first appearance); a missing cluster id is an error."""
    if column not in table.frame.columns:
        raise InputError("cluster column is missing", file=source_name(table), column=column)
    values = code_column(table, column, warn=False)
    codes, _ = pd.factorize(values, use_na_sentinel=True)
    missing = np.flatnonzero(codes < 0)
    if missing.size:
        raise InputError("cluster identifier is missing; every record belongs to a cluster",
                         file=source_name(table), column=column, row=int(missing[0]) + 1)
    return codes.astype(np.int64)


def member_classes(external: pd.DataFrame, release: pd.DataFrame,
                   blocks: Sequence[Block]) -> tuple[np.ndarray, np.ndarray]:
    """Joint blocking class of every external and release record (−1: a missing blocking value,
    a class of its own); all 0 without blocks."""
    if not blocks:
        return np.zeros(len(external), dtype=np.int64), np.zeros(len(release), dtype=np.int64)
    joint = pd.DataFrame({str(i): np.concatenate([b.classes(external, b.external_column), b.classes(release, b.name)])
                          for i, b in enumerate(blocks)})
    group = joint.groupby(list(joint.columns), sort=True, dropna=True).ngroup().to_numpy().astype(np.int64)
    return group[: len(external)], group[len(external):]


def _by_signature(cluster: np.ndarray, classes: np.ndarray) -> dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
    """Clusters grouped by signature (the sorted classes of their members): per signature the
    cluster codes and a matrix of their member rows, members ordered by class, then row."""
    order = np.lexsort((np.arange(cluster.size), classes, cluster))
    sizes = np.bincount(cluster)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    out: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
    for size in np.unique(sizes[sizes > 0]):
        ids = np.flatnonzero(sizes == size)
        rows = order[starts[ids][:, None] + np.arange(size)[None, :]]
        sig, inverse = np.unique(classes[rows], axis=0, return_inverse=True)
        inverse = inverse.ravel()
        for k, signature in enumerate(sig):
            pick = np.flatnonzero(inverse == k)
            out[tuple(int(c) for c in signature)] = (ids[pick], rows[pick])
    return out


def member_alignments(signature: Sequence[int]) -> np.ndarray | None:
    """Every one-to-one alignment of the members of two clusters of ``signature`` that pairs
    members of one class only (rows: alignments; entry i: the partner of member i); None when
    there are more than ``MAX_ALIGNMENTS``."""
    groups = [list(g) for _, g in itertools.groupby(range(len(signature)), key=lambda i: signature[i])]
    if math.prod(math.factorial(len(g)) for g in groups) > MAX_ALIGNMENTS:
        return None
    alignments = [list(itertools.chain.from_iterable(choice))
                  for choice in itertools.product(*(itertools.permutations(g) for g in groups))]
    return np.array(alignments, dtype=np.int64)


def pair_costs(model: DistanceModel, ext_members: np.ndarray, rel_members: np.ndarray, signature: Sequence[int],
               alignments: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Cost of every cluster pair ``(ext_members[p], rel_members[p])`` of ``signature``: the
    minimum over the alignments of the members' summed distances, with the best alignment (ties:
    the first); without alignments (too many) the Hungarian method on the members of one class."""
    n_pairs, size = ext_members.shape
    cost = np.empty(n_pairs)
    best = np.empty((n_pairs, size), dtype=np.int64)
    if alignments is None:  # every pair of members of one class
        classes = np.asarray(signature)
        member_i, member_j = np.nonzero(classes[:, None] == classes[None, :])
    else:  # only the member pairs some alignment uses
        used = np.unique(np.stack([np.tile(np.arange(size), len(alignments)), alignments.ravel()]), axis=1)
        member_i, member_j = used
    width = member_i.size * (1 if alignments is None else len(alignments))
    step = max(1, _PAIR_CHUNK // width)
    for start in range(0, n_pairs, step):
        part = slice(start, min(start + step, n_pairs))
        e, r = ext_members[part], rel_members[part]
        d = np.full((e.shape[0], size, size), np.inf)  # d[p, i, j]: external member i, release member j
        d[:, member_i, member_j] = model.pair_cost(e[:, member_i].ravel(), r[:, member_j].ravel()).reshape(
            e.shape[0], member_i.size)
        if alignments is None:
            cost[part], best[part] = _hungarian_each(d)
            continue
        totals = d[:, np.arange(size)[None, :], alignments].sum(axis=2)  # (pairs, alignments)
        pick = totals.argmin(axis=1)
        cost[part] = totals[np.arange(pick.size), pick]
        best[part] = alignments[pick]
    return cost, best


def _hungarian_each(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact member assignment of each pair (members of different classes, at an infinite
    distance, are never paired)."""
    from scipy.optimize import linear_sum_assignment

    cost = np.empty(d.shape[0])
    best = np.empty(d.shape[:2], dtype=np.int64)
    for p, matrix in enumerate(d):
        rows, cols = linear_sum_assignment(matrix)
        best[p, rows] = cols
        cost[p] = matrix[rows, cols].sum()
    return cost, best


def candidate_coordinates(model: DistanceModel) -> tuple[np.ndarray, np.ndarray] | None:
    """Coordinates of the records whose squared Euclidean distance is the cost (the embedding
    of ``attack.linkage.candidates``) or, where the cost has none (missing values, absolute
    differences), approximates it on the metric keys: a missing value at the key's centre. Used
    to propose candidate pairs only; their costs are always computed exactly. None without
    metric keys."""
    found = embedding(model)
    if found is not None:
        return found[0], found[1]
    ext_parts, rel_parts = [], []
    for key, comp, scale in zip(model.keys, model.components, model.scales, strict=True):
        if key.weight == 0 or scale <= 0 or not isinstance(comp, MetricComponent):
            continue
        pooled = np.concatenate([comp.a, comp.b])
        centre = float(np.nanmean(pooled)) if np.isfinite(pooled).any() else 0.0
        factor = np.sqrt(key.weight / scale) if comp.power == 2 else key.weight / scale
        ext_parts.append((np.nan_to_num(comp.a - centre) * factor)[:, None])
        rel_parts.append((np.nan_to_num(comp.b - centre) * factor)[:, None])
    if not ext_parts:
        return None
    return np.hstack(ext_parts), np.hstack(rel_parts)


def _candidates(coords: tuple[np.ndarray, np.ndarray], ext_members: np.ndarray, rel_members: np.ndarray,
                signature: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Candidate cluster pairs of a large block: the nearest clusters of either side by the
    lower bound of the cost (coordinates sorted within each class of members)."""
    from scipy.spatial import cKDTree

    x_ext, x_rel = coords
    ext_points, rel_points = _sorted_points(x_ext, ext_members, signature), _sorted_points(x_rel, rel_members, signature)
    pairs = []
    for query, data, forward in ((ext_points, rel_points, True), (rel_points, ext_points, False)):
        k = min(NEIGHBOURS, len(data))
        _, near = cKDTree(data).query(query, k=k)
        near = near.reshape(len(query), k)
        mine = np.repeat(np.arange(len(query)), k)
        pairs.append((mine, near.ravel()) if forward else (near.ravel(), mine))
    a = np.concatenate([p[0] for p in pairs])
    b = np.concatenate([p[1] for p in pairs])
    unique = np.unique(a * len(rel_members) + b)
    return unique // len(rel_members), unique % len(rel_members)


def _sorted_points(x: np.ndarray, members: np.ndarray, signature: Sequence[int]) -> np.ndarray:
    """Per cluster the members' coordinates, sorted per coordinate within each class of members
    and concatenated: ``||p − q||²`` bounds the assignment cost from below (up to its constant)."""
    values = x[members]  # (clusters, size, dims)
    sig = np.asarray(signature)
    parts = [np.sort(values[:, sig == c, :], axis=1) for c in np.unique(sig)]
    return np.concatenate(parts, axis=1).reshape(len(members), -1)


def _candidate_ties(a: np.ndarray, cost: np.ndarray, rows: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Per chosen pair the candidates of its external cluster at the chosen cost."""
    at = np.full(int(a.max(initial=-1)) + 1, np.nan)
    at[rows] = chosen
    near = np.abs(cost - at[a]) <= TIE_TOLERANCE
    return np.bincount(a[near], minlength=at.size)[rows]


def candidate_greedy(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Procedure II on candidate pairs: in ascending order of ``(cost, a, b)`` take each pair
    whose two clusters are still free; the positions of the pairs taken.

    With that strict order the result equals taking, round after round, every pair that is the
    first free pair of both its clusters (as ``attack.linkage.assignment.greedy`` does on a
    matrix), so each round is one vectorised pass over the pairs still alive."""
    rank = np.empty(a.size, dtype=np.int64)
    rank[np.lexsort((b, a, cost))] = np.arange(a.size)
    alive = np.arange(a.size)
    free_a = np.ones(int(a.max(initial=-1)) + 1, dtype=bool)
    free_b = np.ones(int(b.max(initial=-1)) + 1, dtype=bool)
    taken = []
    while alive.size:
        best_a = np.full(free_a.size, a.size, dtype=np.int64)
        best_b = np.full(free_b.size, a.size, dtype=np.int64)
        np.minimum.at(best_a, a[alive], rank[alive])
        np.minimum.at(best_b, b[alive], rank[alive])
        mutual = alive[(best_a[a[alive]] == rank[alive]) & (best_b[b[alive]] == rank[alive])]
        taken.append(mutual)
        free_a[a[mutual]] = False
        free_b[b[mutual]] = False
        alive = alive[free_a[a[alive]] & free_b[b[alive]]]
    return np.concatenate(taken) if taken else np.zeros(0, dtype=np.int64)
