"""Attribute inference with the intruder's confidence: precision at a recall against a baseline
trained on non-members (docs/method/synthetic-attacks.md, "Inference with confidence";
Francis & Wagner 2025).

The intruder knows a target's keys and wants its ``target`` value. From the ``k`` records of a
file nearest on the keys he takes the value most of their weight agrees with (weights
``1/(d + η)``; numeric values agree within γ of the candidate) and a **score**: the agreeing
weight over the total weight plus one pseudo-neighbour at the file's typical k-th distance,
which disagrees. Close, concordant neighbours give a score near 1; an exact copy dominates.
His **confidence** is the score calibrated on his own file: every record of a sample of it is
guessed from its other records (leave one out), and an isotonic regression maps score to the
share of correct guesses. The calibration error on the targets (whose truth we know and he does
not) is the expected calibration error over ten equal-width bins.

He then guesses on his most confident targets first. **Recall** is the share of targets he
guesses on (the coverage), **precision** the share of those guesses that are correct (Wilson
interval). The same intruder trained on the holdout — real records of the population the
generator never saw — guesses on the same members: the **baseline**. The **advantage** at a
recall is the residual risk ``(p − p_b)/(1 − p_b)`` of the two precisions with its interval;
the check at the declared recall (default 10 %) passes when its upper bound is below τ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import pandas as pd
from annotated_types import Ge, Gt, Le

from attack.errors import InputError
from attack.io.readers import code_column, numeric_column
from attack.io.rules import Seed, checked
from attack.report.notebook import one_line, result_html
from attack.risk.stats import Estimate, Rate, residual_risk, success_rate
from attack.synthetic_attacks.anonymeter import correct_guesses
from attack.synthetic_attacks.evaluator import AttackEvaluation, Check, Space, register
from attack.synthetic_attacks.family_options import CURVE_RECALLS, DEFAULT_RECALL, ConfidenceOptions
from attack.synthetic_attacks.settings import SynthSpec
from attack.synthetic_attacks.space import Preparation, nearest_neighbours, prepare
from attack.verdict import below_tau

__all__ = ["CURVE_RECALLS", "DEFAULT_RECALL", "ConfidenceOptions", "ConfidentInference", "ConfidentInferenceAttack",
           "PrecisionPoint",
           "confident_inference", "expected_calibration_error"]

#: A point of the curve resting on fewer guesses is not reported (small groups).
MIN_GUESSES = 3
CALIBRATION_BINS = 10


@dataclass(frozen=True)
class PrecisionPoint:
    """Precision of the attack and of the baseline on their most confident ``guesses`` targets."""

    recall: float
    guesses: int
    main: Rate
    baseline: Rate
    advantage: Estimate | None

    def to_dict(self) -> dict[str, Any]:
        return {"recall": self.recall, "guesses": self.guesses,
                "precision": self.main.k / self.guesses, "main": self.main.to_dict(),
                "baseline_precision": self.baseline.k / self.guesses, "baseline": self.baseline.to_dict(),
                "advantage": None if self.advantage is None else self.advantage.to_dict()}


@dataclass(frozen=True)
class ConfidentInference:
    """One target (and γ): the precision–recall curve of the attack and of the baseline, the
    calibration errors and the advantage at the declared recall."""

    target: str
    gamma: float | None
    n_targets: int
    n_synthetic: int
    n_baseline: int
    neighbours: int
    calibration_error: float
    baseline_calibration_error: float
    declared_recall: float
    tau: float
    points: tuple[PrecisionPoint, ...]
    suppressed: tuple[float, ...] = ()

    def at(self, recall: float) -> PrecisionPoint | None:
        """The point of the curve at ``recall`` (None when it was not computed or is suppressed)."""
        return next((p for p in self.points if math.isclose(p.recall, recall)), None)

    @property
    def declared(self) -> PrecisionPoint | None:
        return self.at(self.declared_recall)

    @property
    def passed(self) -> bool:
        """True when the upper bound of the advantage at the declared recall is below τ."""
        point = self.declared
        return below_tau(None if point is None or point.advantage is None else point.advantage.high, self.tau)

    def table(self) -> pd.DataFrame:
        """The curve: one row per recall."""
        return pd.DataFrame([{"recall": p.recall, "guesses": p.guesses, "precision": p.main.k / p.guesses,
                              "baseline": p.baseline.k / p.guesses,
                              "advantage": None if p.advantage is None else p.advantage.value,
                              "advantage_high": None if p.advantage is None else p.advantage.high}
                             for p in self.points])

    def to_dict(self) -> dict[str, Any]:
        point = self.declared
        return {
            "target": self.target, "gamma": self.gamma, "n_targets": self.n_targets,
            "n_synthetic": self.n_synthetic, "n_baseline": self.n_baseline, "neighbours": self.neighbours,
            "calibration_error": {"attack": self.calibration_error, "baseline": self.baseline_calibration_error,
                                  "measure": f"expected calibration error, {CALIBRATION_BINS} equal-width bins"},
            "curve": [p.to_dict() for p in self.points],
            "suppressed_recalls": list(self.suppressed),
            "declared_recall": self.declared_recall, "tau": self.tau,
            "advantage": None if point is None or point.advantage is None else point.advantage.to_dict(),
            "passed": self.passed,
            "baseline": "the same intruder trained on the holdout (non-members), guessing on the same members",
            "recall": "share of the targets guessed on, most confident first",
        }

    def __repr__(self) -> str:
        p = self.declared
        facts = [f"target {self.target!r}"]
        if p is not None:
            facts.append(f"precision {p.main.k / p.guesses:.3g} against {p.baseline.k / p.guesses:.3g} "
                         f"at recall {p.recall:g}")
        return one_line("ConfidentInference", self.passed, *facts)

    def _repr_html_(self) -> str:
        return result_html(f"Inference with confidence: {self.target}", self.passed,
                           [f"advantage at recall {self.declared_recall:g} against τ = {self.tau:g}",
                            f"calibration error {self.calibration_error:.3f}"], self.table())


def expected_calibration_error(confidence: np.ndarray, correct: np.ndarray, bins: int = CALIBRATION_BINS) -> float:
    """Σ_b (n_b/n)·|accuracy_b − mean confidence_b| over equal-width bins of the confidence."""
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    if confidence.size == 0:
        raise InputError("no guesses to measure the calibration on")
    which = np.minimum((confidence * bins).astype(int), bins - 1)
    total = 0.0
    for b in np.unique(which):
        inside = which == b
        total += inside.sum() * abs(correct[inside].mean() - confidence[inside].mean())
    return float(total / confidence.size)


@dataclass(frozen=True)
class _Guesses:
    value: np.ndarray
    score: np.ndarray
    nearest: np.ndarray


def _values(frame: pd.DataFrame, column: str, numeric: bool) -> np.ndarray:
    return numeric_column(frame, column) if numeric else np.asarray(code_column(frame, column, warn=False), object)


def _agree(a: np.ndarray, b: np.ndarray, numeric: bool, gamma: float) -> np.ndarray:
    """Whether ``a`` lies within γ of ``b`` (numbers) or equals it (codes), elementwise."""
    return correct_guesses(a.ravel(), b.ravel(), numeric=numeric, gamma=gamma).reshape(a.shape)


def _guess(distances: np.ndarray, values: np.ndarray, scale: float, numeric: bool, gamma: float) -> _Guesses:
    """The weighted-agreement guess and its score from each row's neighbours (ascending)."""
    eta = 1e-3 * scale + 1e-12
    weights = 1.0 / (distances + eta)
    k = values.shape[1]
    # agreement[i, j, l]: neighbour l agrees with candidate j
    agreement = _agree(np.repeat(values[:, None, :], k, axis=1), np.repeat(values[:, :, None], k, axis=2),
                       numeric, gamma)
    support = (agreement * weights[:, None, :]).sum(axis=2)
    best = np.argmax(support, axis=1)  # ties: the nearer candidate
    rows = np.arange(len(values))
    score = support[rows, best] / (weights.sum(axis=1) + 1.0 / (scale + 1e-12))
    return _Guesses(values[rows, best], score, distances[:, 0])


def _intruder(prep: Preparation, known: pd.DataFrame, targets: pd.DataFrame, target: str, numeric: bool,
              gamma: float, k: int, calibration_rows: int, rng: np.random.Generator) -> tuple[_Guesses, np.ndarray]:
    """The guesses on ``targets`` from the file ``known`` and their calibrated confidences."""
    from sklearn.isotonic import IsotonicRegression

    k = min(k, len(known) - 1)
    if k < 1:
        raise InputError("the intruder's file needs at least two records")
    secrets = _values(known, target, numeric)
    sample = np.sort(rng.choice(len(known), min(calibration_rows, len(known)), replace=False))
    own = nearest_neighbours(prep, known.iloc[sample], known, k + 1)
    keep = own.indices != sample[:, None]
    keep[keep.all(axis=1), -1] = False  # the record itself fell outside its k + 1 (duplicates)
    d_own = own.distances[keep].reshape(len(sample), k)
    i_own = own.indices[keep].reshape(len(sample), k)
    scale = float(np.median(d_own[:, -1]))
    fitted = _guess(d_own, secrets[i_own], scale, numeric, gamma)
    right = correct_guesses(fitted.value, secrets[sample], numeric=numeric, gamma=gamma)
    calibration = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(fitted.score, right.astype(float))
    found = nearest_neighbours(prep, targets, known, k)
    guesses = _guess(found.distances, secrets[found.indices], scale, numeric, gamma)
    return guesses, np.asarray(calibration.predict(guesses.score), float)


def _curve(order_main: np.ndarray, right_main: np.ndarray, order_base: np.ndarray, right_base: np.ndarray,
           recalls: Sequence[float]) -> tuple[list[PrecisionPoint], list[float]]:
    n = right_main.size
    hits_main = np.cumsum(right_main[order_main])
    hits_base = np.cumsum(right_base[order_base])
    points, suppressed = [], []
    for recall in recalls:
        guesses = max(1, math.ceil(recall * n - 1e-9))
        if guesses < MIN_GUESSES:
            suppressed.append(float(recall))
            continue
        main = success_rate(int(hits_main[guesses - 1]), guesses)
        base = success_rate(int(hits_base[guesses - 1]), guesses)
        points.append(PrecisionPoint(float(recall), guesses, main, base,
                                     None if base.rate >= 1 else residual_risk(main, base)))
    return points, suppressed


@checked
def confident_inference(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    *,
    keys: Sequence[str],
    target: str,
    space: Preparation,
    numeric: bool,
    gamma: Annotated[float, Ge(0)] = 0.10,
    options: ConfidenceOptions | None = None,
    tau: Annotated[float, Gt(0), Le(1)] = 0.1,
    seed: Seed = 0,
) -> ConfidentInference:
    """The inference with confidence on ``target`` (see the module docstring): members of
    ``original`` attacked through ``synthetic``, the baseline through ``control``; ``space``:
    the distance preparation of the ``keys``; ``numeric``: whether the target is a number
    (then a guess within γ of the truth is correct)."""
    options = options or ConfidenceOptions.model_validate({})
    if len(control) < 2 or len(synthetic) < 2:
        raise InputError("inference with confidence needs at least two synthetic and two holdout records")
    prep = space.subset(list(keys))
    pick, main_rng, base_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    rows = np.sort(pick.choice(len(original), min(options.n_targets, len(original)), replace=False))
    targets = original.iloc[rows]
    truth = _values(targets, target, numeric)
    found = {}
    for role, known, rng in (("main", synthetic, main_rng), ("baseline", control, base_rng)):
        guesses, confidence = _intruder(prep, known, targets, target, numeric, gamma, options.neighbours,
                                        options.calibration_rows, rng)
        right = correct_guesses(guesses.value, truth, numeric=numeric, gamma=gamma)
        # most confident first; among equal confidences the higher score, then the closer match
        order = np.lexsort((guesses.nearest, -guesses.score, -confidence))
        found[role] = (order, right, expected_calibration_error(confidence, right))
    recalls = sorted(set(options.recalls) | {options.recall})
    points, suppressed = _curve(found["main"][0], found["main"][1], found["baseline"][0], found["baseline"][1],
                                recalls)
    return ConfidentInference(
        target=target, gamma=float(gamma) if numeric else None, n_targets=len(rows), n_synthetic=len(synthetic),
        n_baseline=len(control), neighbours=min(options.neighbours, len(synthetic) - 1, len(control) - 1),
        calibration_error=found["main"][2], baseline_calibration_error=found["baseline"][2],
        declared_recall=float(options.recall), tau=float(tau), points=tuple(points), suppressed=tuple(suppressed))


@register
@dataclass(frozen=True, eq=False)
class ConfidentInferenceAttack:
    """Per target (and γ): inference with confidence against the holdout-trained baseline, decided
    on the upper bound of the advantage at the declared recall. Runs when targets and a holdout
    are given."""

    family = "inference_confidence"
    order = 65
    space: Space
    settings: SynthSpec
    options: ConfidenceOptions

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> ConfidentInferenceAttack | None:
        if not settings.targets:
            return None
        return cls(space, settings, settings.options.inference_confidence or ConfidenceOptions.model_validate({}))

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        spec = self.settings
        if control is None:
            return AttackEvaluation(self.family, {"skipped": "needs a holdout: the baseline intruder is trained on "
                                                             "real records the generator never saw"})
        targets: dict[str, Any] = {}
        section: dict[str, Any] = {"declared_recall": self.options.recall, "options": self.options.model_dump(),
                                   "targets": targets}
        checks = []
        for target in spec.targets:
            prep = self.space.preparation
            if not set([*spec.keys, target]) <= set(prep.columns):  # keys or target left out of --columns
                prep = prepare(original, [*spec.keys, target], categorical=spec.categorical)
            numeric = target in set(prep.numeric)
            per_gamma = {}
            for gamma in spec.gammas if numeric else spec.gammas[:1]:
                found = confident_inference(original, synthetic, control, keys=spec.keys, target=target, space=prep,
                                            numeric=numeric, gamma=gamma, options=self.options, tau=spec.tau,
                                            seed=seed)
                per_gamma[f"{gamma:g}"] = found.to_dict()
                point = found.declared
                advantage = None if point is None else point.advantage
                checks.append(Check(self.family, f"advantage at recall {self.options.recall:g}",
                                    None if advantage is None else advantage.value,
                                    None if advantage is None else advantage.high, spec.tau,
                                    {"target": target, "gamma": gamma if numeric else None}))
            targets[target] = per_gamma
        return AttackEvaluation(self.family, section, tuple(checks))
