"""Membership inference with shadow models (docs/method/synthetic-attacks.md).

Stadler, Oprisanu & Troncoso (2022), as in their TAPAS toolbox: the intruder holds a reference
sample of the population and knows how the release was synthesised. For one target record it
synthesises many **shadow** files from training sets drawn from the reference, half of them with
the target added ("in") and half without ("out"), computes features of each synthetic file, and
trains a classifier to tell "in" from "out". The data holder plays this game with the original as
the reference (the strongest intruder: one who holds the population itself):

* targets: the ``isolated`` records of the original (largest distance to their nearest other
  record, Gower distance) and a ``random`` sample of the others;
* every shadow training set has ``shadow_size`` records of the reference without the targets;
  an "in" set swaps one of them for the target; the "out" sets are shared by all targets;
* features of a synthetic file for target t: the distances from t to its nearest synthetic
  records (smallest, mean of the 5 smallest), the share of synthetic records within 1 %, 5 % and
  10 % of the distance range, exact copies of t, the share of synthetic records equal to t in each
  categorical column and within 5 % of t in each numeric column, and the mean and standard
  deviation of every numeric column;
* a random forest is trained on ``shadow_sets`` games and scored on ``test_sets`` other games
  (fresh training sets and seeds; the "out" files again shared), so the guesses of the test games
  are independent trials and the Wilson interval applies.

Per target: accuracy (correct guesses over games) with its Wilson interval and the advantage
over guessing, 2·accuracy − 1, with the interval mapped the same way. A target **exceeds τ** when
the upper bound of its advantage does (the project's rule: decide on the upper bound).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from attack.defaults import SYNTHETIC_TAU
from attack.errors import InputError
from attack.generation.sequential import synthesize
from attack.risk.stats import wilson_interval
from attack.synthetic_attacks.space import (
    Preparation,
    distances,
    encode,
    nearest_neighbours,
    prepare,
)
from attack.verdict import below_tau

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Synthesizer = Callable[[pd.DataFrame, int], pd.DataFrame]


@dataclass(frozen=True)
class TargetRisk:
    """The membership game for one target (``label``: "isolated 1", "random 3", …)."""

    label: str
    kind: str
    nn_distance: float
    games: int
    correct: int
    accuracy: float
    accuracy_interval: tuple[float, float]
    advantage: float
    advantage_interval: tuple[float, float]
    exceeds_tau: bool
    release_score: float | None = None

    def to_dict(self) -> dict:
        return {
            "label": self.label, "kind": self.kind, "nn_distance": self.nn_distance, "games": self.games,
            "correct": self.correct, "accuracy": self.accuracy, "accuracy_interval": list(self.accuracy_interval),
            "advantage": self.advantage, "advantage_interval": list(self.advantage_interval),
            "exceeds_tau": self.exceeds_tau, "release_score": self.release_score,
        }


@dataclass(frozen=True)
class MembershipResult:
    """Membership inference on every target; ``passed`` when no target exceeds τ."""

    targets: tuple[TargetRisk, ...]
    tau: float
    settings: dict = field(default_factory=dict)

    @property
    def share_exceeding(self) -> float:
        """Share of targets whose advantage's upper bound exceeds τ."""
        return float(np.mean([t.exceeds_tau for t in self.targets])) if self.targets else 0.0

    @property
    def passed(self) -> bool:
        return not any(t.exceeds_tau for t in self.targets)

    @property
    def table(self) -> pd.DataFrame:
        return pd.DataFrame([t.to_dict() for t in self.targets])

    def to_dict(self) -> dict:
        """Aggregates per target (labels, not record identities) and the verdict."""
        return {
            "tau": self.tau,
            "share_exceeding": self.share_exceeding,
            "share_advantage_estimate_above_tau": float(np.mean([t.advantage > self.tau for t in self.targets]))
            if self.targets else 0.0,
            "passed": self.passed,
            "targets": [t.to_dict() for t in self.targets],
            "settings": dict(self.settings),
        }


def membership_inference(
    original: pd.DataFrame,
    *,
    synthesis: Mapping[str, Any] | Synthesizer | None = None,
    columns: Sequence[str] | None = None,
    reference: pd.DataFrame | None = None,
    release: pd.DataFrame | None = None,
    n_isolated: int = 10,
    n_random: int = 10,
    shadow_sets: int = 100,
    test_sets: int = 100,
    shadow_size: int | None = None,
    tau: float = SYNTHETIC_TAU,
    seed: int = 0,
    jobs: int = 1,
) -> MembershipResult:
    """Shadow-model membership inference against a synthesiser (see the module docstring).

    ``synthesis``: the settings of ``attack.synthesize`` the release was made with (a mapping,
    e.g. ``{"minbucket": 10}``), or a function ``(training frame, seed) -> synthetic frame``.
    ``columns``: the columns synthesised and compared (default all). ``reference``: the intruder's
    population sample (default: the original without the targets). ``release``: the actual
    synthetic file, scored by each target's classifier (``release_score``: the probability it
    gives to "in"). Per target, ``shadow_sets`` games train the classifier and ``test_sets``
    other games measure it (half with the target each) on training sets of ``shadow_size``
    records (default min(2000, half the reference)). ``jobs`` processes synthesise in parallel
    (settings only, not a function); the result does not depend on it.
    """
    columns = list(original.columns if columns is None else columns)
    _check(original, columns, n_isolated, n_random, shadow_sets, test_sets, tau, jobs)
    settings = _settings(synthesis)
    rng = np.random.default_rng(seed)
    data = original[columns].reset_index(drop=True)
    prep = prepare(data, columns)
    targets, kinds, nn = _targets(prep, data, n_isolated, n_random, rng)
    pool = (data.drop(index=targets) if reference is None else reference[columns]).reset_index(drop=True)
    size = shadow_size or min(2000, len(pool) // 2)
    if not 2 <= size < len(pool):
        raise InputError(f"shadow_size must lie between 2 and the {len(pool)} reference records, got {size}",
                         field="shadow_size")
    train, test = shadow_sets // 2, test_sets // 2
    labels = np.r_[np.ones(train), np.zeros(train)]
    test_labels = np.r_[np.ones(test), np.zeros(test)]
    with _Synthesiser(synthesis if callable(synthesis) else None, settings, columns, jobs) as run:
        outs = run([(_draw(pool, size, rng), _seed(rng), None) for _ in range(train + test)])
        results = []
        counters = {"isolated": 0, "random": 0}
        for row, kind, distance in zip(targets, kinds, nn, strict=True):
            target = data.iloc[[row]]
            ins = run([(_draw(pool, size, rng), _seed(rng), (int(rng.integers(size)), target))
                       for _ in range(train + test)])
            features = np.vstack([_features(prep, target, frame) for frame in [*ins, *outs]])
            fit_rows = np.r_[np.arange(train), train + test + np.arange(train)]
            test_rows = np.r_[train + np.arange(test), 2 * train + test + np.arange(test)]
            model = _classifier(int(rng.integers(2**31 - 1))).fit(features[fit_rows], labels)
            correct = int(np.sum(model.predict(features[test_rows]) == test_labels))
            score = None
            if release is not None:
                score = float(model.predict_proba(_features(prep, target, release[columns])[None, :])[0, 1])
            counters[kind] += 1
            results.append(_risk(f"{kind} {counters[kind]}", kind, float(distance), correct, 2 * test, tau, score))
    recorded = {
        "n_isolated": n_isolated, "n_random": n_random, "shadow_sets": 2 * train, "test_sets": 2 * test,
        "shadow_size": size, "seed": seed, "reference": "original without targets" if reference is None else "given",
        "synthesis": "custom" if callable(synthesis) else settings,
    }
    return MembershipResult(tuple(results), tau, recorded)


class _Synthesiser:
    """Runs shadow syntheses, in ``jobs`` processes when the synthesiser is given as settings."""

    def __init__(self, function: Synthesizer | None, settings: dict, columns: list[str], jobs: int) -> None:
        self.function, self.settings, self.columns, self.jobs = function, settings, columns, jobs
        self.executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Synthesiser:
        if self.jobs > 1 and self.function is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
            self.executor = ProcessPoolExecutor(self.jobs, mp_context=context)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)

    def __call__(self, tasks: list[tuple]) -> list[pd.DataFrame]:
        """``tasks``: (training set, seed, (position, target) or None) → synthetic frames, in order."""
        if self.function is not None:
            return [self.function(_with_target(frame, insert), seed) for frame, seed, insert in tasks]
        jobs = [(self.settings, self.columns, frame, seed, insert) for frame, seed, insert in tasks]
        if self.executor is None:
            return [_shadow(job) for job in jobs]
        return list(self.executor.map(_shadow, jobs, chunksize=max(1, len(jobs) // (4 * self.jobs))))


def _shadow(job: tuple) -> pd.DataFrame:
    settings, columns, frame, seed, insert = job
    return synthesize(_with_target(frame, insert), columns=columns, seed=seed, **settings).frame


def _with_target(frame: pd.DataFrame, insert: tuple[int, pd.DataFrame] | None) -> pd.DataFrame:
    """The training set with the target in place of the record at ``position`` ("in" games)."""
    if insert is None:
        return frame
    position, target = insert
    return pd.concat([frame.iloc[:position], target, frame.iloc[position + 1:]], ignore_index=True)


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**31 - 1))


def _check(original: pd.DataFrame, columns: Sequence[str], n_isolated: int, n_random: int, shadow_sets: int,
           test_sets: int, tau: float, jobs: int) -> None:
    missing = [c for c in columns if c not in original.columns]
    if missing:
        raise InputError(f"columns not in the original: {missing}", field="columns")
    if n_isolated < 0 or n_random < 0 or n_isolated + n_random == 0:
        raise InputError("expected at least one target (n_isolated + n_random >= 1)", field="n_isolated")
    for name, value in (("shadow_sets", shadow_sets), ("test_sets", test_sets)):
        if value < 4:
            raise InputError(f"expected at least 4 games, got {value}", field=name)
    if not 0 < tau < 1:
        raise InputError(f"expected τ in (0, 1), got {tau}", field="tau")
    if jobs < 1:
        raise InputError(f"expected at least 1 job, got {jobs}", field="jobs")


def _settings(synthesis: Mapping[str, Any] | Synthesizer | None) -> dict:
    """The keyword arguments of ``synthesize`` for the shadow files (empty for a function)."""
    if callable(synthesis):
        return {}
    settings = dict(synthesis or {})
    for name in ("seed", "m", "columns", "rows"):
        if name in settings:
            raise InputError(f"the membership attack sets {name!r} itself", field=f"synthesis.{name}")
    return settings


def _targets(prep: Preparation, data: pd.DataFrame, n_isolated: int, n_random: int,
             rng: np.random.Generator) -> tuple[list[int], list[str], np.ndarray]:
    """Row positions of the isolated and random targets, their kinds and nearest-other distances."""
    if n_isolated + n_random >= len(data) // 2:
        raise InputError(f"{n_isolated + n_random} targets leave too few of the {len(data)} records for shadow sets",
                         field="n_isolated")
    nn = nearest_neighbours(prep, data, data, k=2).distances[:, 1]
    isolated = list(np.argsort(-nn, kind="stable")[:n_isolated])
    rest = np.setdiff1d(np.arange(len(data)), isolated)
    chosen = list(rng.choice(rest, size=n_random, replace=False)) if n_random else []
    rows = [int(r) for r in isolated + chosen]
    return rows, ["isolated"] * n_isolated + ["random"] * n_random, nn[rows]


def _draw(pool: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    return pool.iloc[rng.choice(len(pool), size=size, replace=False)].reset_index(drop=True)


def _features(prep: Preparation, target: pd.DataFrame, synthetic: pd.DataFrame) -> np.ndarray:
    t, s = encode(prep, target, synthetic)
    d = np.sort(distances(prep, t, s, np.array([0]), np.arange(len(s)), pairs=False)[0])
    span = max(float(d[-1]), 1e-12)
    near = [float(np.mean(d <= q * span)) for q in (0.01, 0.05, 0.10)]
    parts = [d[0], d[:5].mean(), *near, float(np.sum(d == 0))]
    for j in range(len(prep.categorical)):
        parts.append(float(np.mean(s.codes[:, j] == t.codes[0, j])))
    for j in range(len(prep.numeric)):
        column, value = s.numeric[:, j], t.numeric[0, j]
        scale = max(abs(value), 1e-12)
        parts += [float(np.mean(np.abs(column - value) <= 0.05 * scale)), float(np.nanmean(column)),
                  float(np.nanstd(column))]
    return np.nan_to_num(np.asarray(parts, dtype=float))


def _classifier(seed: int) -> Any:  # sklearn is untyped
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, min_samples_leaf=2, random_state=seed, n_jobs=1)


def _risk(label: str, kind: str, nn: float, correct: int, games: int, tau: float,
          score: float | None) -> TargetRisk:
    interval = wilson_interval(correct, games)
    assert interval is not None  # _check requires test_sets >= 4, so games > 0
    low, high = interval
    accuracy = correct / games
    return TargetRisk(label, kind, nn, games, correct, accuracy, (low, high), 2 * accuracy - 1,
                      (2 * low - 1, 2 * high - 1), not below_tau(2 * high - 1, tau), score)


__all__ = ["MembershipResult", "TargetRisk", "membership_inference"]
