"""Distance attacks on synthetic data: DCR, NNDR, exact and near copies, DCR baselines.

docs/method/synthetic-attacks.md. Every distance is the exact nearest-neighbour distance of the recorded
preparation (``attack.synth_space``); the reference side is never subsampled, only the
synthetic query side may be (``query_sample``, seeded and reported; a subsampled reference would bias the distances). Statistics
that are undefined (no rows, zero denominators, no control set) are None, never NaN.

Directions are named ``query→reference``: ``synthetic→original`` is each synthetic record's
distance to its nearest training-original record (Papavasiliou (2020), SDMetrics), ``original→synthetic``
each original record's distance to its nearest synthetic record (the intruder's view).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from attack.errors import InputError
from attack.io.serial import Serialised
from attack.risk.stats import wilson_interval
from attack.synthetic_attacks.space import (
    Encoded,
    Neighbours,
    Preparation,
    encode,
    group_ids,
    search,
    search_many,
)


def _float(value: float | None) -> float | None:
    """Plain float, or None for undefined values."""
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def _share(flags: np.ndarray) -> float | None:
    return float(np.mean(flags)) if flags.size else None


@dataclass(frozen=True)
class DcrSummary(Serialised):
    """Distances to the closest record in one direction (docs/method/synthetic-attacks.md)."""

    direction: str
    n: int
    min: float | None
    p1: float | None
    p5: float | None
    median: float | None
    mean: float | None
    share_zero: float | None
    share_below_threshold: float | None
    threshold: float | None


def summarise_dcr(direction: str, dcr: np.ndarray, threshold: float | None = None) -> DcrSummary:
    """Min, 1st/5th percentile (linear interpolation), median, mean, share exactly 0 and share
    strictly below ``threshold`` of the distances ``dcr``."""
    if dcr.size == 0:
        return DcrSummary(direction, 0, None, None, None, None, None, None, None, threshold)
    p1, p5, med = np.percentile(dcr, [1, 5, 50])
    below = _share(dcr < threshold) if threshold is not None else None
    return DcrSummary(
        direction, int(dcr.size), _float(dcr.min()), _float(p1), _float(p5), _float(med),
        _float(dcr.mean()), _share(dcr == 0), below, threshold,
    )


@dataclass(frozen=True)
class NndrSummary(Serialised):
    """Nearest-neighbour distance ratio of the synthetic records against one reference."""

    reference: str
    n: int
    mean: float | None
    median: float | None
    p5: float | None


def nndr(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``d_1 / d_2`` with the edge rules of docs/method/synthetic-attacks.md: both 0 → 1, ``d_1 = 0 < d_2`` → 0."""
    out = np.ones_like(first)
    positive = second > 0
    out[positive] = first[positive] / second[positive]
    return out


def summarise_nndr(reference: str, ratios: np.ndarray | None) -> NndrSummary:
    if ratios is None or ratios.size == 0:
        return NndrSummary(reference, 0, None, None, None)
    p5, med = np.percentile(ratios, [5, 50])
    return NndrSummary(reference, int(ratios.size), _float(ratios.mean()), _float(med), _float(p5))


@dataclass(frozen=True)
class CopyCounts(Serialised):
    """Exact and near copies against one original file (training or control), docs/method/synthetic-attacks.md.

    ``exact_copy_share``: synthetic query rows at distance 0 from some row of the file (identical
    on every prepared column; missing values count as equal only with ``na_equal``).
    ``reproduced_share``: rows of the file at distance 0 from some synthetic row.
    ``near_copy_share``: rows of the file hit by a synthetic row equal on every categorical
    column and within ``range / (1 / near_fraction)`` (training range, ``≤``; ``range / 30`` as
    SynthEval for the default) on every numeric column. ``gamma_copy_share``: the same with
    ``|s − o| / |o| < γ`` (``o = 0``: only ``s = 0``), None without γ.
    """

    against: str
    n_rows: int
    exact_copies: int
    exact_copy_share: float | None
    reproduced: int
    reproduced_share: float | None
    near_copies: int
    near_copy_share: float | None
    gamma_copies: int | None
    gamma_copy_share: float | None


@dataclass(frozen=True)
class DistanceAttack(Serialised):
    """Result of ``distance_attack``; see the module docstring for the directions. Its JSON
    (``to_dict``) is its fields, None for every undefined value."""

    preparation: dict
    n_original: int
    n_synthetic: int
    n_control: int | None
    n_query: int
    query_sample: int | None
    seed: int
    dcr: dict[str, DcrSummary]
    closer_than_original_nn: dict
    seed003: dict
    nndr_training: NndrSummary
    nndr_control: NndrSummary | None
    nndr_difference: dict | None
    copies_training: CopyCounts
    copies_control: CopyCounts | None
    near_fraction: float
    gamma: float | None
    baseline_protection: dict
    overfitting_protection: dict | None
    warnings: list[str] = field(default_factory=list)


def distance_attack(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    prep: Preparation,
    *,
    control: pd.DataFrame | None = None,
    t_dcr: float | None = None,
    near_fraction: float = 1 / 30,
    gamma: float | None = None,
    seed: int = 0,
    query_sample: int | None = None,
    baseline_rows: int | None = 1_000,
    balance_repeats: int = 10,
) -> DistanceAttack:
    """DCR in both directions, NNDR, copies and the SDMetrics DCR baselines (docs/method/synthetic-attacks.md).

    ``original`` is the training original the preparation was fitted on, ``control`` an optional
    holdout from the same population. ``query_sample`` draws that many synthetic rows (seeded,
    without replacement) as queries; every reference stays complete. ``baseline_rows`` is the
    number of uniform random records for DCRBaselineProtection (at most the number of synthetic
    queries; None = as many, SDMetrics' choice). Random records lie far from skewed data, so each
    needs close to a full scan of the original; the default keeps that cost bounded and the
    Monte Carlo error of the random median small.

    *Closer than the original's own nearest neighbour*: for a synthetic query row ``s`` let ``o``
    be its nearest original row (ties to the lower row) and ``δ(o)`` the distance from ``o`` to
    its nearest *other* original row (another row position; an identical duplicate gives 0).
    The statistic is the share of ``s`` with ``DCR(s) < δ(o)`` (strict), undefined with fewer
    than two original rows.

    *Overfitting with unequal sizes*: the share of synthetic rows closer to the training data
    than to the holdout favours the larger file (more records, smaller distances). When the two
    differ in size, the larger one is subsampled (seeded, without replacement) to the size of the
    smaller ``balance_repeats`` times and ``p`` is the mean over the repeats (the balanced
    comparison); the comparison on the full files is kept under ``unbalanced``.
    ``balance_repeats=0`` reports the unbalanced comparison only.
    """
    _check_options(original, synthetic, control, t_dcr, near_fraction, gamma)
    _check_counts(query_sample, baseline_rows, balance_repeats)
    seeds = np.random.SeedSequence(seed).spawn(3)
    n_syn = len(synthetic)
    rows = _query_rows(n_syn, query_sample, seeds[0])
    n_random = rows.size if baseline_rows is None else min(rows.size, int(baseline_rows))
    random_frame = uniform_records(prep, n_random, seeds[1])
    orig, syn_all, rand, *held = encode(prep, original, synthetic, random_frame, *([] if control is None else [control]))
    ctrl = held[0] if held else None
    syn = syn_all.take(rows)
    k_orig = min(2, len(orig))
    to_orig, own = search_many(prep, orig, [(syn, k_orig), (orig, k_orig)])
    from_syn = search_many(prep, syn_all, [(orig, 1)] + ([(ctrl, 1)] if ctrl is not None else []))
    from_orig = from_syn[0]
    dcr_so = to_orig.distances[:, 0]
    dcr = {
        "synthetic→original": summarise_dcr("synthetic→original", dcr_so, t_dcr),
        "original→synthetic": summarise_dcr("original→synthetic", from_orig.distances[:, 0], t_dcr),
    }
    ratios_t = nndr(to_orig.distances[:, 0], to_orig.distances[:, 1]) if k_orig == 2 else None
    closer = _closer_than_own_nn(orig, own, to_orig.indices[:, 0], dcr_so)
    side = None if ctrl is None else _control_side(
        prep, _QuerySide(syn, syn_all, orig, dcr_so, ratios_t), ctrl, from_syn[1].distances[:, 0],
        t_dcr=t_dcr, near_fraction=near_fraction, gamma=gamma, balance_repeats=int(balance_repeats), seed=seeds[2])
    if side is not None:
        dcr.update(side.dcr)
    copies_training = _copies(prep, "training", orig, syn_all, dcr_so, from_orig.distances[:, 0], near_fraction, gamma)
    baseline = _baseline(dcr_so, search(prep, rand, orig, 1).distances[:, 0], seed)
    return DistanceAttack(
        preparation=prep.to_dict(), n_original=len(orig), n_synthetic=n_syn,
        n_control=len(ctrl) if ctrl is not None else None, n_query=int(rows.size),
        query_sample=int(rows.size) if rows.size < n_syn else None, seed=seed, dcr=dcr,
        closer_than_original_nn=closer, seed003=_seed003(prep, dcr["synthetic→original"]),
        nndr_training=summarise_nndr("training", ratios_t),
        nndr_control=summarise_nndr("control", side.ratios) if side is not None else None,
        nndr_difference=None if side is None else side.nndr_difference, copies_training=copies_training,
        copies_control=None if side is None else side.copies, near_fraction=float(near_fraction),
        gamma=None if gamma is None else float(gamma), baseline_protection=baseline,
        overfitting_protection=None if side is None else side.overfitting,
        warnings=[] if side is None else side.warnings,
    )


@dataclass(frozen=True, eq=False)
class _QuerySide:
    """The synthetic queries (``rows``: the sampled ones; ``every``: all of them), the encoded
    original, each query's distance to it and the training NNDRs (None with one original row)."""

    rows: Encoded
    every: Encoded
    original: Encoded
    dcr: np.ndarray
    ratios: np.ndarray | None


@dataclass(frozen=True, eq=False)
class _ControlSide:
    """What the holdout adds: its DCR summaries, NNDRs, the paired NNDR difference, its copies,
    the overfitting comparison and a warning when it is small."""

    dcr: dict[str, DcrSummary]
    ratios: np.ndarray | None
    nndr_difference: dict[str, Any] | None
    copies: CopyCounts
    overfitting: dict[str, Any]
    warnings: list[str]


def _control_side(prep: Preparation, queries: _QuerySide, ctrl: Encoded, from_ctrl: np.ndarray, *,
                  t_dcr: float | None, near_fraction: float, gamma: float | None, balance_repeats: int,
                  seed: np.random.SeedSequence) -> _ControlSide:
    """The distance figures against the holdout (``from_ctrl``: each holdout row's distance to the
    nearest synthetic row)."""
    orig = queries.original
    k_ctrl = min(2, len(ctrl))
    to_ctrl = search(prep, queries.rows, ctrl, k_ctrl)
    dcr_sc = to_ctrl.distances[:, 0]
    dcr = {"synthetic→control": summarise_dcr("synthetic→control", dcr_sc, t_dcr),
           "control→synthetic": summarise_dcr("control→synthetic", from_ctrl, t_dcr)}
    ratios = nndr(to_ctrl.distances[:, 0], to_ctrl.distances[:, 1]) if k_ctrl == 2 else None
    difference = None
    if queries.ratios is not None and ratios is not None:
        difference = _paired_difference(ratios, queries.ratios)
    copies = _copies(prep, "control", ctrl, queries.every, dcr_sc, from_ctrl, near_fraction, gamma)
    overfitting = _balanced_overfitting(prep, queries.rows, orig, ctrl, queries.dcr, dcr_sc, balance_repeats, seed)
    warnings = []
    if len(ctrl) < len(orig) / 2 and not balance_repeats:
        warnings.append(f"the control (holdout) set has {len(ctrl)} rows, fewer than half the "
                        f"{len(orig)} training rows; DCROverfittingProtection is unreliable")
    return _ControlSide(dcr, ratios, difference, copies, overfitting, warnings)


def _query_rows(n_syn: int, query_sample: int | None, seed: np.random.SeedSequence) -> np.ndarray:
    """The synthetic rows used as queries: all of them, or a seeded sample of ``query_sample``."""
    if query_sample is not None and query_sample < n_syn:
        return np.sort(np.random.default_rng(seed).choice(n_syn, query_sample, replace=False))
    return np.arange(n_syn)


def _check_counts(query_sample: int | None, baseline_rows: int | None, balance_repeats: int) -> None:
    for name, value in (("query_sample", query_sample), ("baseline_rows", baseline_rows)):
        if value is not None and (int(value) != value or value < 1):
            raise InputError(f"{name} must be a positive whole number, got {value!r}")
    if int(balance_repeats) != balance_repeats or balance_repeats < 0:
        raise InputError(f"balance_repeats must be a whole number >= 0, got {balance_repeats!r}")


def _check_options(original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                   t_dcr: float | None, near_fraction: float, gamma: float | None) -> None:
    for name, frame in (("original", original), ("synthetic", synthetic), ("control", control)):
        if frame is not None and len(frame) == 0:
            raise InputError(f"the {name} file has no rows")
    if t_dcr is not None and not (np.isfinite(t_dcr) and t_dcr >= 0):
        raise InputError(f"t_dcr must be a non-negative number, got {t_dcr!r}")
    if not (np.isfinite(near_fraction) and 0 < near_fraction <= 1):
        raise InputError(f"near_fraction must lie in (0, 1], got {near_fraction!r}")
    if gamma is not None and not (0 < gamma < 1):
        raise InputError(f"gamma must lie strictly between 0 and 1, got {gamma!r}")


def uniform_records(prep: Preparation, n: int, seed: int | np.random.SeedSequence) -> pd.DataFrame:
    """``n`` records drawn uniformly over the training ranges of the numeric columns and the
    observed training categories (SDMetrics DCRBaselineProtection's random data)."""
    rng = np.random.default_rng(seed)
    data: dict[str, np.ndarray] = {}
    for name, lo, hi in zip(prep.numeric, prep.minima, prep.maxima, strict=True):
        data[name] = rng.uniform(lo, hi, n) if hi > lo else np.full(n, lo)
    for name, levels in zip(prep.categorical, prep.levels, strict=True):
        data[name] = np.asarray(levels, dtype=object)[rng.integers(0, len(levels), n)]
    return pd.DataFrame({c: data[c] for c in prep.columns})


def _closer_than_own_nn(orig: Encoded, own: Neighbours, nearest: np.ndarray, dcr: np.ndarray) -> dict:
    """Share of synthetic rows closer to their nearest original than that original is to its
    nearest other original (see ``distance_attack``); ``own``: the originals' two nearest
    originals."""
    if len(orig) < 2:
        return {"share": None, "count": None, "n": int(dcr.size)}
    first_is_self = own.indices[:, 0] == np.arange(len(orig))
    other = np.where(first_is_self, own.distances[:, 1], own.distances[:, 0])
    closer = dcr < other[nearest]
    return {"share": _share(closer), "count": int(closer.sum()), "n": int(dcr.size)}


def _paired_difference(control: np.ndarray, training: np.ndarray) -> dict:
    """``mean NNDR(control) − mean NNDR(training)`` over the same synthetic rows, with the
    standard error of the paired differences (sd with n − 1 over √n)."""
    diff = control - training
    se = float(np.std(diff, ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else None
    return {"difference": _float(diff.mean()), "standard_error": se, "n": int(diff.size)}


def _overfitting(dcr_train: np.ndarray, dcr_control: np.ndarray) -> dict:
    """DCROverfittingProtection: ``p`` = share of synthetic rows strictly closer to the
    training data than to the holdout, score ``min(2·(1 − p), 1)``, with p's Wilson interval."""
    closer = int(np.sum(dcr_train < dcr_control))
    n = int(dcr_train.size)
    p = closer / n if n else None
    return {
        "p": p,
        "closer_to_training": closer,
        "n": n,
        "p_interval": wilson_interval(closer, n),
        "score": None if p is None else min(2 * (1 - p), 1.0),
    }


def _balanced_overfitting(prep: Preparation, syn: Encoded, orig: Encoded, ctrl: Encoded, dcr_train: np.ndarray,
                          dcr_control: np.ndarray, repeats: int, seed: np.random.SeedSequence) -> dict:
    """DCROverfittingProtection on equal-size files (see ``distance_attack``): with unequal
    sizes the larger file is subsampled ``repeats`` times, p is the mean over the repeats and its
    interval the Wilson interval of that share over the synthetic rows."""
    unbalanced = _overfitting(dcr_train, dcr_control)
    if len(orig) == len(ctrl) or repeats == 0:
        return {**unbalanced, "method": "equal sizes" if len(orig) == len(ctrl) else "unbalanced",
                "unbalanced": None}
    larger, size = ("training", len(ctrl)) if len(orig) > len(ctrl) else ("control", len(orig))
    rng = np.random.default_rng(seed)
    shares = []
    for _ in range(repeats):
        if larger == "training":
            rows = np.sort(rng.choice(len(orig), size=size, replace=False))
            closer = search(prep, syn, orig.take(rows), 1).distances[:, 0] < dcr_control
        else:
            rows = np.sort(rng.choice(len(ctrl), size=size, replace=False))
            closer = dcr_train < search(prep, syn, ctrl.take(rows), 1).distances[:, 0]
        shares.append(float(np.mean(closer)))
    p, n = float(np.mean(shares)), int(dcr_train.size)
    return {
        "p": p, "closer_to_training": None, "n": n, "p_interval": wilson_interval(p * n, n),
        "score": min(2 * (1 - p), 1.0), "method": "balanced", "subsampled": larger, "subsample_size": size,
        "repeats": repeats, "p_repeats": shares, "unbalanced": unbalanced,
    }


def _baseline(dcr_synthetic: np.ndarray, dcr_random: np.ndarray, seed: int) -> dict:
    """DCRBaselineProtection: ``min(median DCR(synthetic) / median DCR(random), 1)``;
    undefined when the random median is 0."""
    med_s = float(np.median(dcr_synthetic)) if dcr_synthetic.size else None
    med_r = float(np.median(dcr_random)) if dcr_random.size else None
    ratio = med_s / med_r if med_s is not None and med_r else None
    return {
        "median_dcr_synthetic": med_s,
        "median_dcr_random": med_r,
        "n_random": int(dcr_random.size),
        "ratio": ratio,
        "score": None if ratio is None else min(ratio, 1.0),
        "random_data": "uniform over training numeric ranges and observed categories, seeded",
        "seed": seed,
    }


def _seed003(prep: Preparation, summary: DcrSummary) -> dict:
    """Papavasiliou's (2020) min and mean nearest-neighbour distance: the synthetic→original DCR min
    and mean when the preparation is Euclidean on dummy-coded rows; otherwise not reported."""
    applies = prep.metric == "euclidean" and prep.categorical_mode == "dummy"
    return {
        "min": summary.min if applies else None,
        "mean": summary.mean if applies else None,
        "applies": applies,
        "note": "synthetic→original DCR, Euclidean distance on dummy-coded rows, "
        f"scaling {prep.scaling!r}",
    }


def _copies(
    prep: Preparation,
    against: str,
    real: Encoded,
    syn_all: Encoded,
    dcr_syn_to_real: np.ndarray,
    dcr_real_to_syn: np.ndarray,
    near_fraction: float,
    gamma: float | None,
) -> CopyCounts:
    """Exact copies (distance 0 under the preparation), near copies and γ copies."""
    exact = int(np.sum(dcr_syn_to_real == 0))
    reproduced = int(np.sum(dcr_real_to_syn == 0))
    near = int(near_hits(prep, real, syn_all, near_fraction=near_fraction).sum())
    gam = int(near_hits(prep, real, syn_all, gamma=gamma).sum()) if gamma is not None else None
    n = len(real)
    return CopyCounts(
        against=against,
        n_rows=n,
        exact_copies=exact,
        exact_copy_share=_share(dcr_syn_to_real == 0),
        reproduced=reproduced,
        reproduced_share=reproduced / n,
        near_copies=near,
        near_copy_share=near / n,
        gamma_copies=gam,
        gamma_copy_share=None if gam is None else gam / n,
    )


def near_hits(
    prep: Preparation,
    real: Encoded,
    synthetic: Encoded,
    *,
    near_fraction: float | None = None,
    gamma: float | None = None,
) -> np.ndarray:
    """Which real rows are hit by some synthetic row (docs/method/synthetic-attacks.md): equal categories and,
    per numeric column, ``|s − o| ≤ near_fraction · range`` (SynthEval's hit rate; zero range:
    equal values) or, with ``gamma``, ``|s − o| / |o| < γ`` (``o = 0``: ``s = 0``). A missing
    value matches only a missing value and only with ``na_equal``.

    Exact: a KD-tree in the maximum norm on per-column coordinates (range-scaled values, or
    ``log|x|`` shifted to centre the asymmetric γ interval) proposes the nearest synthetic row of
    the same categories, value signs and missing pattern; the rule is then checked on the raw
    values, and rows near the boundary check every synthetic row within reach.
    """
    if gamma is not None:
        radius = float(0.5 * (np.log1p(gamma) - np.log1p(-gamma)))
    elif near_fraction is not None:
        radius = float(near_fraction)
    else:
        raise InputError("near_hits needs near_fraction or gamma")
    coords: list[np.ndarray] = []
    attrs: list[np.ndarray] = []
    values = np.vstack([real.numeric, synthetic.numeric])
    for j in range(len(prep.numeric)):
        x = values[:, j]
        missing = np.isnan(x)
        if gamma is not None:
            attrs.append(np.sign(np.where(missing, 0.0, x)).astype(np.int64))
            shift = 0.5 * (np.log1p(gamma) + np.log1p(-gamma))
            with np.errstate(divide="ignore"):
                coord = np.where(x != 0, np.log(np.abs(x)), 0.0)
            coord[: len(real)] += np.where(x[: len(real)] != 0, shift, 0.0)
        elif prep.ranges[j] > 0:
            coord = (x - prep.minima[j]) / prep.ranges[j]
        else:
            attrs.append(pd.factorize(x + 0.0)[0])
            continue
        attrs.append(missing.astype(np.int64))
        coord[missing] = 0.0
        coords.append(coord)
    n_real = len(real)
    codes = np.concatenate([real.codes, synthetic.codes])
    usable = np.ones(len(values), dtype=bool)
    if not prep.na_equal:  # a missing value then matches nothing
        usable = ~np.isnan(values).any(axis=1) & ~(codes < 0).any(axis=1)
    hits = np.zeros(n_real, dtype=bool)
    ref_rows = np.flatnonzero(usable[n_real:])
    query_rows = np.flatnonzero(usable[:n_real])
    if ref_rows.size == 0 or query_rows.size == 0:
        return hits
    attrs.extend(codes.T)
    scaled = np.column_stack(coords) if coords else np.zeros((len(values), 0))
    span = float(np.abs(scaled).max(axis=0).sum()) if scaled.shape[1] else 0.0
    big = 4.0 * (2.0 * span + radius + 1.0)
    group = group_ids(np.column_stack(attrs)) if attrs else np.zeros(len(values), dtype=np.int64)
    points = np.column_stack([scaled, group * big])
    tree = cKDTree(points[n_real:][ref_rows])
    margin = 1e-9 * (1.0 + span)
    dist, idx = tree.query(points[query_rows], k=1, p=np.inf, distance_upper_bound=radius + margin,
                           workers=-1)
    found = np.isfinite(dist)
    ok = np.zeros(query_rows.size, dtype=bool)
    ok[found] = _rule(prep, real, synthetic, query_rows[found], ref_rows[idx[found]],
                      near_fraction, gamma)
    unsure = np.flatnonzero(found & ~ok)
    for i in unsure:
        near = np.asarray(tree.query_ball_point(points[query_rows[i]], radius + margin, p=np.inf))
        ok[i] = _rule(prep, real, synthetic, np.full(near.size, query_rows[i]), ref_rows[near],
                      near_fraction, gamma).any()
    hits[query_rows] = ok
    return hits


def _rule(prep: Preparation, real: Encoded, synthetic: Encoded, q: np.ndarray, r: np.ndarray,
          near_fraction: float | None, gamma: float | None) -> np.ndarray:
    """The near-copy rule on raw values for the pairs ``(real q[i], synthetic r[i])``."""
    ok = np.ones(q.size, dtype=bool)
    for j in range(len(prep.numeric)):
        o, s = real.numeric[q, j], synthetic.numeric[r, j]
        both = np.isnan(o) & np.isnan(s)
        if gamma is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                close = np.where(o == 0, s == 0, np.abs(s - o) / np.abs(o) < gamma)
        else:
            assert near_fraction is not None  # near_hits refuses neither rule given
            close = np.abs(s - o) <= prep.ranges[j] / (1.0 / near_fraction)  # range/30 as SynthEval
        ok &= close | (both & prep.na_equal)
    for j in range(len(prep.categorical)):
        o, s = real.codes[q, j], synthetic.codes[r, j]
        ok &= (o == s) & ((o >= 0) | prep.na_equal)
    return ok

