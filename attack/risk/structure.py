"""The risk of a file with structure: the cluster-aware intruder beside the person-level one
(docs/method/structure.md).

The intruder who knows the clusters of both files is the cluster-aware one: his persons'
links (through their cluster) are the run's figures, cells and verdict; the person-level attack
of the same files runs beside him.

Reported per level: the clusters re-identified (a cluster is re-identified when it is linked to
the release cluster that holds most of its verifiable members), the persons re-identified
through their cluster (the members' links inside matched clusters, scored as every linkage
attack is: cells, usefulness, τ), the persons re-identified alone (the person-level attack of
the same run) and the per-unit maximum of both intruders (``attack.risk.any_intruder``). At the
cluster level τ judges the re-identification rate itself (every value of a re-identified cluster
counts as useful: the worst case). Beside it, as sdcMicro computes it, the frequency-based
household risk of the release on the intruder's categorical keys and blocks; it never decides.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attack.io.readers import Table, code_column, frame_of
from attack.io.serial import to_plain
from attack.linkage.clusters import ClusterLinks, link_clusters
from attack.linkage.settings import Linkage, parse_cluster
from attack.report.labels import cell_label
from attack.risk.any_intruder import any_intruder
from attack.risk.evaluation import Scored, score, wilson_interval
from attack.risk.frequency import frequency_risk
from attack.risk.results import AttackFigures, Proportion
from attack.risk.settings import Evaluation
from attack.verdict import below_tau

#: Why the household risk beside the cluster attack does not decide.
HOUSEHOLD_NOTE = ("household risk as sdcMicro computes it (1 − Π(1 − r_i) over a household's members, r_i the "
                  "individual risk of the categorical keys and blocks): frequency-based, it ignores the metric keys "
                  "and overstates or understates after perturbation; reported beside the cluster attack, never part "
                  "of a verdict")


@dataclass(frozen=True)
class ClusterRisk:
    """The cluster-aware intruder's figures: ``clusters`` (cluster level, overall and per cell),
    ``through_cluster`` (the persons' figures through their cluster), ``alone`` (the person-level
    attack's counts), ``any_intruder`` (per-unit maximum) and ``household_risk``; ``scored`` and
    ``links`` are the persons' scored links through their cluster (record-level, in memory)."""

    linkage: dict
    clusters: dict
    through_cluster: dict
    alone: dict
    any_intruder: dict
    household_risk: dict | None
    tau: float
    scored: Scored = field(repr=False, compare=False)
    links: ClusterLinks = field(repr=False, compare=False)

    @property
    def passed(self) -> bool:
        """Every cluster-level cell and every cell of the persons through their cluster below τ."""
        return bool(self.clusters["passed"] and self.through_cluster["passed"])

    @property
    def gain(self) -> float | None:
        """Persons re-identified through their cluster per person re-identified alone."""
        alone = self.alone["n_correct"]
        return self.through_cluster["n_correct"] / alone if alone else None

    def to_dict(self) -> dict[str, Any]:
        """The ``structure`` block of the JSON (a deep copy)."""
        return copy.deepcopy({
            "passed": self.passed,
            "tau": self.tau,
            "linkage": self.linkage,
            "clusters": self.clusters,
            "persons_through_cluster": self.through_cluster,
            "persons_alone": self.alone,
            "gain": self.gain,
            "any_intruder": self.any_intruder,
            "household_risk": self.household_risk,
        })

    def __repr__(self) -> str:
        c, t, a = self.clusters, self.through_cluster, self.alone
        return (f"ClusterRisk({'passed' if self.passed else 'NOT PASSED'}, clusters {c['n_reidentified']}/"
                f"{c['n_verifiable']}, persons through cluster {t['n_correct']}/{t['n_verifiable']}, alone "
                f"{a['n_correct']}/{a['n_verifiable']})")

    def _repr_html_(self) -> str:
        from attack.report.notebook import result_html

        c, t, a = self.clusters, self.through_cluster, self.alone
        facts = [f"clusters re-identified: {c['n_reidentified']} of {c['n_verifiable']}",
                 f"persons through their cluster: {t['n_correct']} of {t['n_verifiable']}",
                 f"persons alone: {a['n_correct']} of {a['n_verifiable']}",
                 f"any of both: {self.any_intruder['n_reidentified']} of {self.any_intruder['n_units']}"]
        table = pd.DataFrame([{"cell": x["label"], "clusters": x["n_verifiable"], "re-identified": x["n_reidentified"],
                               "rate": x["reidentification_rate"], "passed": x["passed"]} for x in c["cells"]])
        return result_html("Cluster-aware intruder", self.passed, facts, table,
                           failing=[not x["passed"] for x in c["cells"]])


def cluster_risk(external: Table, release: Table, linkage: Linkage, evaluation: Evaluation, person: Scored, *,
                 external_ids: np.ndarray, release_ids: np.ndarray, original: Table | None = None,
                 original_ids: np.ndarray | None = None, categorical: Sequence[str] = (),
                 id_columns: Sequence[str] = ()) -> ClusterRisk:
    """Run the cluster-aware intruder (``linkage.cluster`` set) and score it beside the
    person-level attack ``person`` of the same files."""
    assert linkage.cluster is not None
    links = link_clusters(external, release, linkage, parse_cluster(linkage.cluster))
    through = score(links.release_row, external_ids, release, release_ids, evaluation, original=original,
                    original_ids=original_ids, distance=links.distance, categorical=categorical,
                    id_columns=id_columns)
    true_row = pd.Index(release_ids).get_indexer(external_ids)
    clusters = cluster_figures(links, true_row, through.units["cell"].astype(str).to_numpy(), evaluation.tau)
    return ClusterRisk(
        linkage=links.to_dict(),
        clusters=clusters,
        through_cluster=through.figures.to_dict(),
        alone=_alone(person.figures),
        any_intruder=any_intruder([("person-level", person.units), ("cluster-aware", through.units)]),
        household_risk=household_risk(release, linkage, categorical),
        tau=evaluation.tau,
        scored=through,
        links=links,
    )


def _alone(figures: AttackFigures) -> dict[str, Any]:
    """The person-level attack's counts and hit rate beside the cluster-aware one."""
    rate = figures.reidentification_rate or Proportion(None, None)
    return {"n_verifiable": figures.n_verifiable, "n_correct": figures.n_correct,
            "reidentification_rate": rate.value, "reidentification_rate_ci": to_plain(rate.interval),
            "passed": figures.passed}


def true_clusters(links: ClusterLinks, true_row: np.ndarray) -> np.ndarray:
    """Per external cluster the release cluster holding most of its verifiable members (ties: the
    smallest code); −1 for a cluster without a verifiable member."""
    verifiable = np.flatnonzero(true_row >= 0)
    pairs = pd.DataFrame({"ext": links.external_cluster[verifiable],
                          "rel": links.release_cluster[true_row[verifiable]]})
    counts = pairs.groupby(["ext", "rel"]).size().rename("n").reset_index()
    counts = counts.sort_values(["ext", "n", "rel"], ascending=[True, False, True]).drop_duplicates("ext")
    out = np.full(links.n_external_clusters, -1, dtype=np.int64)
    out[counts["ext"].to_numpy()] = counts["rel"].to_numpy()
    return out


def cluster_figures(links: ClusterLinks, true_row: np.ndarray, member_cells: np.ndarray, tau: float) -> dict:
    """Cluster-level counts and rates, overall and per cell; ``member_cells`` is the cell of every
    verifiable external record (in row order). A cluster's cell is its members' cell; when the
    members of a cluster lie in different cells the cluster level has no cells (said in a note)."""
    truth = true_clusters(links, true_row)
    verifiable = np.flatnonzero(truth >= 0)
    correct = links.linked_cluster[verifiable] == truth[verifiable]
    overall = _rate(verifiable.size, int(correct.sum()), tau)
    rows = np.flatnonzero(true_row >= 0)
    cells = pd.DataFrame({"cluster": links.external_cluster[rows], "cell": member_cells})
    per_cluster = cells.groupby("cluster")["cell"].nunique()
    out: dict[str, Any] = {**overall, "n_external_clusters": links.n_external_clusters,
                           "n_release_clusters": links.n_release_clusters}
    if (per_cluster > 1).any():
        out["cells"] = []
        out["note"] = ("the members of some clusters lie in different cells, so clusters have no cell; the cluster "
                       "level is judged overall")
        out["passed"] = overall["passed"]
        return out
    cell_of = cells.drop_duplicates("cluster").set_index("cluster")["cell"]
    of_verifiable = cell_of.reindex(verifiable).to_numpy()
    out["cells"] = []
    for text in dict.fromkeys(member_cells):
        mine = of_verifiable == text
        cell = json.loads(text)
        out["cells"].append({"cell": cell, "label": cell_label(cell),
                             **_rate(int(mine.sum()), int(correct[mine].sum()), tau)})
    out["passed"] = all(c["passed"] for c in out["cells"])
    out["n_failing_cells"] = sum(not c["passed"] for c in out["cells"])
    return out


def _rate(n: int, hits: int, tau: float) -> dict:
    rate = hits / n if n else 0.0
    return {"n_verifiable": n, "n_reidentified": hits, "reidentification_rate": rate,
            "reidentification_rate_ci": wilson_interval(hits, n), "passed": below_tau(rate, tau)}


def household_risk(release: Table, linkage: Linkage, categorical: Sequence[str]) -> dict | None:
    """sdcMicro's household risk of the release on the intruder's categorical keys and blocks
    (``attack.frequency_risk`` with the release's cluster column); None without such columns."""
    assert linkage.cluster is not None
    column = parse_cluster(linkage.cluster)[1]
    keys = [c for c in dict.fromkeys(categorical) if c != column]
    if not keys:
        return None
    frame = pd.DataFrame({c: code_column(release, c, warn=False) for c in keys})
    frame[column] = frame_of(release)[column].to_numpy()
    full = frequency_risk(frame, keys, household=column, suda=False).to_dict()
    return {"keys": keys, **full["household_risk"], "individual_global_risk": full["individual_risk"]["global_risk"],
            "note": HOUSEHOLD_NOTE}
