"""Risk per record: for every release record, whether and how confidently each intruder
re-identifies it, its margin to the runner-up candidate, its frequency risk and the targets it
discloses within γ (docs/method/record-risk.md).

Record-level and confidential: the table points at the riskiest records of the original. It is
kept in memory (``AttackResult.records``) and written only on request, owner-only
(``attack link --records``, a scenario's ``records`` output).

The **margin** of a link is ``d₂ − d``: the distance from the external record to the nearest
release record of its block other than the one it was linked to (``d₂``, the runner-up; only
candidate pairs count under multi-pass blocking), less the link's own distance ``d``. A large
margin means no other release record comes close: the intruder can be sure. A margin of 0 is a
tie; a negative margin means the one-to-one assignment took a record that is not the nearest.
Without a second release record in the block the margin is infinite. For the Fellegi–Sunter
intruder distances are ``W_max − W``, so the margin is the weight (in bits) by which the link
beats the runner-up.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.io.readers import Table
from attack.linkage.candidates import embedding
from attack.linkage.distances import DistanceModel
from attack.linkage.limits import DEFAULT_MEMORY_BUDGET
from attack.linkage.link import Links
from attack.risk.evaluation import _usefulness as usefulness  # the scoring's rule, not a copy
from attack.risk.settings import Evaluation
from attack.risk.targets import TargetComparison

__all__ = ["RECORD_COLUMNS", "record_outcomes", "records_table", "runner_up"]

#: Columns of one intruder's outcome per release record (``record_outcomes``), before the
#: ``disclosed γ=…`` columns, one per γ, and ``frequency_risk`` where the keys are categorical.
RECORD_COLUMNS = ("release_id", "linked", "reidentified", "match_probability", "margin")


def runner_up(links: Links, memory_budget: int = DEFAULT_MEMORY_BUDGET) -> np.ndarray:
    """Per external record, the distance to the nearest release record of its block other than
    its link (NaN without a link, inf without another release record); KD-tree on the
    distance's embedding where it has one (up to rounding of the embedded distances, the
    candidates' costs recomputed exactly), else cost rows of the block in chunks."""
    out = np.full(links.release_row.size, np.nan)
    embedded = embedding(links.model) if isinstance(links.model, DistanceModel) else None
    for block in links.blocking:
        partner = links.release_row[block.external]
        local = np.flatnonzero(partner >= 0)
        if local.size == 0:
            continue
        rows = block.external[local]
        if block.release.size < 2:
            out[rows] = np.inf
            continue
        if embedded is not None and block.pairs is None:
            from scipy.spatial import cKDTree  # imported on use: a noticeable share of start-up

            tree = cKDTree(embedded[1][block.release])
            _, nearest = tree.query(embedded[0][rows], k=2)
            first, second = block.release[nearest[:, 0]], block.release[nearest[:, 1]]
            other = np.where(first == partner[local], second, first)
            out[rows] = links.model.pair_cost(rows, other)
            continue
        model = links.model.subset(block.external, block.release)
        position = pd.Index(block.release).get_indexer(partner[local])
        columns = np.arange(block.release.size)
        step = max(1, memory_budget // (8 * 4 * block.release.size))
        for start in range(0, local.size, step):
            chunk = slice(start, start + step)
            cost = np.array(model.cost(local[chunk], columns), dtype=float)
            if block.pairs is not None:
                cost[~block.pairs[local[chunk]].toarray().astype(bool)] = np.inf
            cost[np.arange(cost.shape[0]), position[chunk]] = np.inf
            out[rows[chunk]] = cost.min(axis=1)
    return out


def record_outcomes(links: Links, external_ids: np.ndarray, release: Table, release_ids: np.ndarray,
                    truth: Table, truth_ids: np.ndarray, spec: Evaluation, comparisons: Sequence[TargetComparison],
                    frequency: np.ndarray | None = None) -> pd.DataFrame:
    """One intruder's outcome per release record (rows in release order; ``RECORD_COLUMNS`` and
    one ``disclosed γ=…`` column per γ naming, ``;``-separated, the targets whose released value
    lies within γ of the true one, by the usefulness rule of the scoring). ``frequency`` (1/f_k
    of each release record's combination of the intruder's categorical keys and blocks, where
    he has such keys) adds ``frequency_risk``.

    A link is correct when it names the external record's true unit (all links count, whatever
    ``risk_on``). A release record taken by several external records (the ``nearest`` method)
    shows its correct link first, else the most probable one.
    """
    n_release = len(release_ids)
    linked = np.flatnonzero(links.release_row >= 0)
    correct = np.zeros(links.release_row.size, dtype=bool)
    correct[linked] = release_ids[links.release_row[linked]] == external_ids[linked]
    probability = (np.full(links.release_row.size, np.nan) if links.match_probability is None
                   else links.match_probability)
    chosen = linked
    if np.bincount(links.release_row[linked], minlength=n_release).max(initial=0) > 1:
        # best link per release record: correct first, then the highest probability
        order = np.lexsort((-np.nan_to_num(probability[linked], nan=-1.0), ~correct[linked]))
        _, first = np.unique(links.release_row[linked[order]], return_index=True)
        chosen = linked[order][first]
    release_row = links.release_row[chosen]
    hit = correct[chosen]
    truth_rows = (release_row if truth_ids is release_ids
                  else pd.Index(truth_ids).get_indexer(release_ids[release_row]))
    useful, _ = usefulness(release, truth, truth_rows, release_row, hit & (truth_rows >= 0), comparisons, spec)
    targets = [c.target.name for c in comparisons]
    columns: dict[str, object] = {"release_id": release_ids}
    for name, values, empty in (("linked", True, False), ("reidentified", hit, False),
                                ("match_probability", probability[chosen], np.nan),
                                ("margin", runner_up(links)[chosen] - links.distance[chosen], np.nan)):
        column = np.full(n_release, empty)
        column[release_row] = values
        columns[name] = column
    for g, gamma in enumerate(spec.gammas):
        columns[f"disclosed γ={gamma.label}"] = _joined(useful[g], targets, release_row, n_release)
    if frequency is not None:
        columns["frequency_risk"] = frequency
    return pd.DataFrame(columns)


def _joined(flags: np.ndarray, names: Sequence[str], rows: np.ndarray, n: int) -> pd.Categorical:
    """For ``n`` records, the names set in each of ``rows``' rows of a (rows, names) boolean
    matrix, ``;``-separated, "" elsewhere: categorical, by the distinct patterns, so that a
    million records cost a handful of joins."""
    k = flags.shape[1]
    if k > 62:
        patterns, inverse = np.unique(flags, axis=0, return_inverse=True)
    else:
        packed = flags.astype(np.int64) @ (np.int64(1) << np.arange(k, dtype=np.int64))
        if k <= 20:  # few patterns: count them instead of sorting a million codes
            present = np.flatnonzero(np.bincount(packed, minlength=1))
            lookup = np.zeros(int(present[-1]) + 1 if present.size else 1, dtype=np.int64)
            lookup[present] = np.arange(present.size)
            inverse = lookup[packed]
        else:
            present, inverse = np.unique(packed, return_inverse=True)
        patterns = (present[:, None] >> np.arange(k)) & 1 == 1
    return _categorical([";".join(n for n, on in zip(names, p, strict=True) if on) for p in patterns],
                        inverse.reshape(-1), rows, n)


def _categorical(texts: Sequence[str], codes: np.ndarray, rows: np.ndarray, n: int) -> pd.Categorical:
    """``texts[codes[i]]`` at ``rows[i]``, "" at the other of ``n`` records, as a categorical."""
    categories = list(dict.fromkeys(["", *texts]))
    where = np.array([categories.index(t) for t in texts], dtype=np.int64)
    full = np.zeros(n, dtype=np.int64)
    full[rows] = where[codes] if len(texts) else 0
    return pd.Categorical.from_codes(full, categories=categories)


def _union(columns: Sequence[pd.Categorical]) -> pd.Categorical:
    """Per record the union of the ``;``-separated names of several categorical columns."""
    if len(columns) == 1:
        return columns[0]
    codes = np.column_stack([np.asarray(c.codes, dtype=np.int64) for c in columns])
    sizes = np.array([len(c.categories) for c in columns], dtype=np.int64)
    packed = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):  # a few categories per intruder: the product stays small
        packed = packed * sizes[j] + codes[:, j]
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    combos = codes[first]
    texts = [";".join(sorted({v for j, c in enumerate(combo) for v in str(columns[j].categories[c]).split(";") if v}))
             for combo in combos]
    return _categorical(texts, inverse.reshape(-1), np.arange(codes.shape[0]), codes.shape[0])


def records_table(outcomes: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The per-record risk file of one release (the outcomes of its intruders, each from
    ``record_outcomes``): the release id, per intruder its outcome columns prefixed
    ``"<intruder>: "``, then ``any: reidentified`` (by at least one intruder),
    ``any: match_probability`` (the highest probability among the intruders that re-identify it),
    ``any: disclosed γ=…`` (the union) and, where an intruder has categorical keys,
    ``any: frequency_risk`` (the highest of the intruders' 1/f_k)."""
    if not outcomes:
        raise ValueError("no intruder's outcome to tabulate")
    columns: dict[str, object] = {"release_id": outcomes[0][1]["release_id"].to_numpy()}
    for name, table in outcomes:
        columns.update({f"{name}: {c}": table[c].array for c in table.columns if c != "release_id"})
    hit = np.column_stack([t["reidentified"].to_numpy() for _, t in outcomes])
    columns["any: reidentified"] = hit.any(axis=1)
    probability = np.column_stack([t["match_probability"].to_numpy() for _, t in outcomes])
    with np.errstate(invalid="ignore"):
        masked = np.where(hit, probability, np.nan)
        best = np.full(hit.shape[0], np.nan)
        some = hit.any(axis=1)
        best[some] = np.nanmax(masked[some], axis=1)
    columns["any: match_probability"] = best
    for column in [c for c in outcomes[0][1].columns if c.startswith("disclosed")]:
        columns[f"any: {column}"] = _union([pd.Categorical(t[column]) for _, t in outcomes])
    frequency = [t["frequency_risk"].to_numpy() for _, t in outcomes if "frequency_risk" in t.columns]
    if frequency:
        columns["any: frequency_risk"] = np.max(np.column_stack(frequency), axis=1)
    return pd.DataFrame(columns)
