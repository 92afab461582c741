"""Machine-learning utility of a release (docs/method/ml-utility.md): does a model trained on the
release predict the original as well as one trained on the original?

For each repetition the original's rows are split at random into a training and a test part.
One model is trained on the original's training part (the reference), one on the release —
without the release rows of the test units when the release is aligned with the original (by
unit id, or row by row), the whole release otherwise (e.g. a synthetic file) — and both predict
the **original** test part. Per model the scores of both, the ratio release/reference of the
verdict metric with an interval over the repetitions, and the permutation importance of every
feature on both (Breiman 2001) with the rank correlation of the two orders. The release keeps
its ML utility for a model when the mean ratio is at most ``1 + tolerance`` (errors) or at least
``1 − tolerance`` (scores). This verdict stands beside the risk verdict and is never merged with
it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.exceptions import ConvergenceWarning
from sklearn.inspection import permutation_importance
from threadpoolctl import threadpool_limits

from attack.errors import InputError
from attack.io.columns import is_number
from attack.io.jsonio import json_float
from attack.io.notices import gathered
from attack.io.readers import code_column, id_column, numeric_column, require_columns
from attack.io.rules import Count, Seed, Share, checked
from attack.report.notebook import one_line, result_html
from attack.utility.ml_models import (
    CLASSIFICATION,
    DEFAULT_METRIC,
    HYPERPARAMETERS,
    LOWER_IS_BETTER,
    METRICS,
    MODELS,
    REGRESSION,
    VERDICT_METRICS,
    build_model,
    model_inputs,
    scorer,
    scores,
)

__all__ = ["DEFAULT_TOLERANCE", "NO_HOLDOUT_WARNING", "Importance", "MlUtility", "ModelUtility", "Spread",
           "ml_utility"]

DEFAULT_TOLERANCE = 0.10
#: A numeric target with at most this many distinct values is taken as categorical.
MAX_CLASSES = 10
SLACK = 1e-12
#: Native threads per fit: one. On a shared machine the spinning OpenMP threads of the
#: gradient boosting cost several times what they gain (measured 1.7 s single-threaded against
#: 12.6 s with two threads on a busy 2-core machine, 75,000 rows).
THREADS = 1
ALIGNMENTS = ("auto", "rows", "none")


@dataclass(frozen=True)
class Spread:
    """Mean over the repetitions and its 95 % interval (corrected resampled t, Nadeau & Bengio
    2003: the variance of the mean is ``s² (1/B + n_test/n_train)``); no interval for B = 1."""

    mean: float | None
    low: float | None
    high: float | None

    def to_dict(self) -> dict:
        return {"mean": json_float(self.mean), "low": json_float(self.low),
                "high": json_float(self.high)}


def _spread(values: Sequence[float], test_over_train: float) -> Spread:
    x = np.asarray(values, dtype=float)
    if not np.isfinite(x).all():
        return Spread(None, None, None)
    mean = float(x.mean())
    if x.size < 2:
        return Spread(mean, None, None)
    half = stats.t.ppf(0.975, x.size - 1) * math.sqrt(
        float(x.var(ddof=1)) * (1 / x.size + test_over_train))
    return Spread(mean, mean - half, mean + half)


@dataclass(frozen=True)
class Importance:
    """Permutation importance of one feature (mean over repetitions of the mean fall of the
    verdict metric, oriented so that larger is more important) and its rank (1 = most
    important) for the reference and the release model."""

    variable: str
    original: float
    release: float
    rank_original: float
    rank_release: float

    @property
    def change(self) -> float:
        return self.release - self.original

    def to_dict(self) -> dict:
        return {"variable": self.variable, "original": json_float(self.original),
                "release": json_float(self.release), "change": json_float(self.change),
                "rank_original": self.rank_original, "rank_release": self.rank_release}


@dataclass(frozen=True)
class ModelUtility:
    """One model: scores of the reference and the release model on the original test parts,
    the ratio of the verdict metric and the importances."""

    model: str
    metric: str
    tolerance: float
    original: dict[str, Spread]
    release: dict[str, Spread]
    ratios: tuple[float, ...]
    ratio: Spread
    importance: tuple[Importance, ...]
    importance_spearman: float | None
    most_changed: tuple[str, ...]

    @property
    def loss(self) -> float | None:
        """Relative loss of the verdict metric: ``ratio − 1`` for errors, ``1 − ratio`` for
        scores (positive = the release model predicts worse)."""
        if self.ratio.mean is None:
            return None
        return self.ratio.mean - 1 if self.metric in LOWER_IS_BETTER else 1 - self.ratio.mean

    @property
    def passed(self) -> bool | None:
        loss = self.loss
        return None if loss is None else loss <= self.tolerance + SLACK

    def to_dict(self) -> dict:
        return {
            "model": self.model, "metric": self.metric, "tolerance": self.tolerance,
            "original": {k: v.to_dict() for k, v in self.original.items()},
            "release": {k: v.to_dict() for k, v in self.release.items()},
            "ratio": self.ratio.to_dict(), "ratios": [json_float(r) for r in self.ratios],
            "loss": json_float(self.loss), "passed": self.passed,
            "importance": [i.to_dict() for i in self.importance],
            "importance_spearman": json_float(self.importance_spearman),
            "most_changed": list(self.most_changed),
        }


@dataclass(frozen=True)
class MlUtility:
    """Machine-learning utility of a release for one target (docs/method/ml-utility.md)."""

    target: str
    task: str
    metric: str
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    alignment: str
    n_original: int
    n_release: int
    repetitions: int
    test_share: float
    importance_rows: int
    importance_repeats: int
    seed: int
    models: tuple[ModelUtility, ...]
    hyperparameters: dict = field(default_factory=dict)
    n_holdout: int | None = None
    warnings: tuple[str, ...] = ()

    @property
    def test_rows(self) -> str:
        """Which rows every score was measured on: ``holdout`` (real rows the generator or the
        protection never saw) or ``original`` (held-out parts of the original)."""
        return "original" if self.n_holdout is None else "holdout"

    @property
    def passed(self) -> bool | None:
        """True when every model keeps its utility, False when one does not."""
        verdicts = [m.passed for m in self.models]
        if any(v is False for v in verdicts):
            return False
        return None if any(v is None for v in verdicts) else True

    def table(self) -> pd.DataFrame:
        """One row per model: verdict, relative loss of the verdict metric and its tolerance."""
        return pd.DataFrame([{"passed": m.passed, "model": m.model, "metric": m.metric, "loss": m.loss,
                              "tolerance": m.tolerance} for m in self.models])

    def __repr__(self) -> str:
        lost = [m.model for m in self.models if m.passed is False]
        return one_line("MlUtility", self.passed, f"target {self.target!r}", f"{len(self.models)} models",
                        f"utility lost: {', '.join(lost)}" if lost else "no model lost utility")

    def _repr_html_(self) -> str:
        table = self.table()
        return result_html(f"Machine-learning utility for {self.target}", self.passed,
                           [f"{self.task}, {self.repetitions} splits", "loss: relative loss of the metric "
                            "(lower is better); a model passes when its loss is within the tolerance"],
                           table, failing=[m.passed is False for m in self.models])

    def to_dict(self) -> dict:
        return {
            "target": self.target, "task": self.task, "metric": self.metric,
            "features": {"numeric": list(self.numeric), "categorical": list(self.categorical)},
            "alignment": self.alignment, "n_original": self.n_original,
            "n_release": self.n_release, "repetitions": self.repetitions,
            "test_share": self.test_share, "importance_rows": self.importance_rows,
            "importance_repeats": self.importance_repeats, "seed": self.seed,
            "hyperparameters": self.hyperparameters,
            "passed": self.passed,
            "models": [m.to_dict() for m in self.models],
            "note": "ML utility is reported beside the risk verdict, never merged with it",
            "test_rows": {"source": self.test_rows, "n_holdout": self.n_holdout, "measured_on": _MEASURED_ON[self.test_rows]},
            "warnings": list(self.warnings),
        }


_MEASURED_ON = {
    "holdout": "every model predicts the holdout: real rows the generator or the protection never saw; "
               "the reference model trains on the whole original",
    "original": "every model predicts held-out rows of the original (random splits)",
}
#: The warning of a release tested without a holdout and not aligned by unit id (it may be synthetic).
NO_HOLDOUT_WARNING = ("no holdout was given and the release is not aligned by unit id: if it is synthetic, the "
                      "test rows are original rows its generator saw, so the release model can score better than "
                      "it deserves; give real rows kept out of synthesis as the holdout")


# --- settings ------------------------------------------------------------------------------------


def _task(original: pd.DataFrame, target: str, task: str) -> str:
    if task in (REGRESSION, CLASSIFICATION):
        return task
    if is_number(original, target) and pd.Series(numeric_column(original, target)).nunique() > MAX_CLASSES:
        return REGRESSION
    return CLASSIFICATION


def _tolerances(tolerance: float | Mapping[str, float], models: Sequence[str]) -> dict[str, float]:
    given = dict(tolerance) if isinstance(tolerance, Mapping) else {"default": tolerance}
    unknown = set(given) - {"default", *MODELS}
    if unknown:
        raise InputError(f"tolerance for an unknown model {sorted(unknown)[0]!r}; "
                         f"expected one of {', '.join(MODELS)} or default")
    out = {m: given.get(m, given.get("default", DEFAULT_TOLERANCE)) for m in models}
    for m, value in out.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0 <= value < math.inf:
            raise InputError(f"the tolerance of model {m} must be a finite number >= 0, "
                             f"got {value!r}")
    return {m: float(v) for m, v in out.items()}


def _partners(original: pd.DataFrame, release: pd.DataFrame, alignment: str,
              ids: tuple[str, str] | None) -> tuple[np.ndarray | None, str]:
    """For each release row the original row of its unit (−1 none), or None when the release
    is not aligned; and the alignment used."""
    if ids is not None and alignment != "none":
        position = pd.Index(id_column(original, ids[0])).get_indexer(id_column(release, ids[1]))
        return position.astype(np.int64), "id"
    if alignment == "none" or (alignment == "auto" and len(release) != len(original)):
        return None, "none"
    if len(release) != len(original):
        raise InputError(f"alignment rows needs files of equal length; original "
                         f"{len(original)} rows, release {len(release)}")
    return np.arange(len(release), dtype=np.int64), "rows"


def _target(frame: pd.DataFrame, target: str, task: str) -> tuple[np.ndarray, np.ndarray]:
    """Target values and the mask of rows that have one."""
    if task == REGRESSION:
        y = numeric_column(frame, target)
        return y, ~np.isnan(y)
    y = code_column(frame, target, warn=False)
    present = ~pd.isna(y)
    return np.where(present, y, "").astype(str), present


# --- the runs ------------------------------------------------------------------------------------


@dataclass
class _Collected:
    """Per model and side: scores and importances of every repetition."""

    scores: dict[str, list[dict[str, float]]]
    importance: dict[str, list[np.ndarray]]


@dataclass(frozen=True)
class _Data:
    """Both files as model inputs: features, target, rows with a target, and the original row
    of each release row (None: not aligned)."""

    task: str
    metric: str
    numeric: list[int]
    categorical: list[int]
    x_o: np.ndarray
    y_o: np.ndarray
    has_o: np.ndarray
    x_r: np.ndarray
    y_r: np.ndarray
    has_r: np.ndarray
    partners: np.ndarray | None


def _split(data: _Data, rng: np.random.Generator, n_test: int, importance_rows: int,
           holdout: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training rows of the original and of the release, test rows of the original and the
    importance sample among them. Release rows of test units are never training rows. With a
    holdout (its rows appended to the original's arrays) the test rows are the holdout's."""
    n = len(data.y_o)
    is_test = np.zeros(n, dtype=bool)
    if holdout is not None:
        is_test[holdout] = True
    else:
        is_test[rng.permutation(n)[:n_test]] = True
    train_o = np.flatnonzero(~is_test & data.has_o)
    of_test = np.zeros(len(data.y_r), dtype=bool)
    if data.partners is not None:
        linked = data.partners >= 0
        of_test[linked] = is_test[data.partners[linked]]
    train_r = np.flatnonzero(~of_test & data.has_r)
    test = np.flatnonzero(is_test & data.has_o)
    if train_o.size < 2 or train_r.size < 2 or test.size < 1:
        raise InputError("too few rows with a target value to train and test the models")
    sample = np.sort(rng.choice(test, min(importance_rows, test.size), replace=False))
    return train_o, train_r, test, sample


def _run(data: _Data, model: str, side: str, rows: tuple[np.ndarray, ...], seed: int,
         repeats: int, into: _Collected) -> None:
    """Fit ``model`` on one side's training rows; score it on the original test rows and
    measure the permutation importance on the sample."""
    train_o, train_r, test, sample = rows
    x, y, train = (data.x_o, data.y_o, train_o) if side == "original" else (data.x_r, data.y_r, train_r)
    if data.task == CLASSIFICATION and np.unique(y[train]).size < 2:
        raise InputError(f"the {side}'s training rows hold one class of the target only; "
                         "a classifier needs two")
    pipeline = build_model(model, data.task, data.numeric, data.categorical, seed, train.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipeline.fit(x[train], y[train])
    into.scores[model].append(scores(pipeline, data.task, data.x_o[test], data.y_o[test]))
    importance = permutation_importance(
        pipeline, data.x_o[sample], data.y_o[sample], scoring=scorer(data.task, data.metric),
        n_repeats=repeats, random_state=seed)
    into.importance[model].append(np.asarray(importance.importances_mean, dtype=float))


def _chosen_models(models: Sequence[str]) -> list[str]:
    """The models to train, once each (the numbers of the runs are checked by their rules)."""
    chosen = list(dict.fromkeys(models))
    if not chosen or set(chosen) - set(MODELS):
        raise InputError(f"models must be among {', '.join(MODELS)}, got {chosen}")
    return chosen


def _verdict_metric(task: str, metric: str | None) -> str:
    metric = metric or DEFAULT_METRIC[task]
    if metric not in VERDICT_METRICS[task]:
        raise InputError(f"the verdict metric of a {task} must be one of "
                         f"{', '.join(VERDICT_METRICS[task])}, got {metric!r}")
    return metric


def _features(original: pd.DataFrame, release: pd.DataFrame, target: str, ids: tuple[str, str] | None,
              features: Sequence[str] | None, holdout: pd.DataFrame | None) -> list[str]:
    """The predictors: the named ones, or every other column both files share, ids left out."""
    excluded = {target, *(ids or ())}
    if features is None:
        features = [c for c in original.columns if c in release.columns and c not in excluded]
    chosen = list(dict.fromkeys(features))
    if not chosen or excluded & set(chosen):
        raise InputError("the models need at least one feature other than the target and ids")
    require_columns(original, chosen)
    require_columns(release, chosen)
    if holdout is not None:
        require_columns(holdout, [target, *chosen])
        if len(holdout) == 0:
            raise InputError("the holdout has no rows")
    return chosen


@dataclass(frozen=True)
class _MlPlan:
    """One ML utility run, checked: the models and their tolerances, the features by encoding,
    how the files are aligned, the model inputs, the holdout's rows among the tested original
    rows (None: random splits) and the number of test rows per split."""

    target: str
    models: tuple[str, ...]
    tolerances: dict[str, float]
    features: list[str]
    numeric: list[str]
    categorical: list[str]
    aligned: str
    data: _Data
    held: np.ndarray | None
    n_test: int

    @property
    def task(self) -> str:
        return self.data.task

    @property
    def metric(self) -> str:
        return self.data.metric


def _ml_plan(original: pd.DataFrame, release: pd.DataFrame, target: str, models: list[str], *,
             features: Sequence[str] | None, categorical: Sequence[str], task: str, metric: str | None,
             test_share: float, tolerance: float | Mapping[str, float], alignment: str,
             ids: tuple[str, str] | None, holdout: pd.DataFrame | None) -> _MlPlan:
    """Check ``ml_utility``'s settings against both files and build the model inputs."""
    require_columns(original, [target])
    require_columns(release, [target])
    task = _task(original, target, task)
    metric = _verdict_metric(task, metric)
    tolerances = _tolerances(tolerance, models)
    partners, aligned = _partners(original, release, alignment, ids)
    features = _features(original, release, target, ids, features, holdout)
    numeric = [f for f in features if f not in categorical
               and is_number(original, f) and is_number(release, f)]
    cats = [f for f in features if f not in numeric]
    tested = original if holdout is None else pd.concat([original[[target, *features]],
                                                          holdout[[target, *features]]], ignore_index=True)
    x_o, x_r = model_inputs(tested, release, features, cats)
    if holdout is not None:  # release rows of original units stay training rows: no unit is in both
        partners = None
    data = _Data(task, metric, [features.index(f) for f in numeric],
                 [features.index(f) for f in cats], x_o, *_target(tested, target, task),
                 x_r, *_target(release, target, task), partners)
    n = len(original)
    n_test = len(holdout) if holdout is not None else min(max(1, round(test_share * n)), n - 1)
    return _MlPlan(target, tuple(models), tolerances, features, numeric, cats, aligned, data,
                   None if holdout is None else np.arange(n, len(tested)), n_test)


def _repetitions(plan: _MlPlan, seed: int, repetitions: int, importance_rows: int,
                 importance_repeats: int) -> tuple[dict[str, _Collected], dict[str, list[float]]]:
    """Train and score every model on both sides in each repetition: the scores and importances
    per side, and the ratio release/reference of the verdict metric per model."""
    collected = {side: _Collected({m: [] for m in plan.models}, {m: [] for m in plan.models})
                 for side in ("original", "release")}
    ratios: dict[str, list[float]] = {m: [] for m in plan.models}
    with threadpool_limits(limits=THREADS):
        for child in np.random.SeedSequence(seed).spawn(repetitions):
            split_seq, model_seq = child.spawn(2)
            rows = _split(plan.data, np.random.default_rng(split_seq), plan.n_test, importance_rows, plan.held)
            model_seed = int(model_seq.generate_state(1)[0])
            for model in plan.models:
                for side in ("original", "release"):
                    _run(plan.data, model, side, rows, model_seed, importance_repeats, collected[side])
                o = collected["original"].scores[model][-1][plan.metric]
                r = collected["release"].scores[model][-1][plan.metric]
                ratios[model].append(1.0 if r == o else (r / o if o != 0 else math.inf))
    return collected, ratios


@gathered
@checked
def ml_utility(
    original: pd.DataFrame,
    release: pd.DataFrame,
    target: str,
    *,
    features: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
    task: Literal["auto", "regression", "classification"] = "auto",
    models: Sequence[str] = MODELS,
    metric: str | None = None,
    repetitions: Count = 5,
    test_share: Share = 0.25,
    tolerance: float | Mapping[str, float] = DEFAULT_TOLERANCE,
    alignment: Literal[ALIGNMENTS] = "auto",  # type: ignore[valid-type]
    ids: tuple[str, str] | None = None,
    importance_rows: Count = 1000,
    importance_repeats: Count = 3,
    holdout: pd.DataFrame | None = None,
    seed: Seed = 0,
) -> MlUtility:
    """Train each model on the release and on the original, score both on held-out original rows.

    Parameters
    ----------
    original, release
        The confidential original and the candidate release.
    target
        The variable to predict: regression for a metric target, classification otherwise
        (``task="auto"``: numeric with more than 10 distinct values is metric).
    features
        Predictors (default: every other column both files share, ids left out); those in
        ``categorical`` or not numeric in both files are one-hot encoded.
    models
        Any of ``linear``, ``forest``, ``boosting``, ``mlp`` (fixed hyper-parameters,
        ``attack.utility.ml_models.HYPERPARAMETERS``).
    metric
        The verdict metric: ``rmse`` (default) or ``mae`` for regression; ``balanced_accuracy``
        (default), ``accuracy`` or ``auc`` for classification.
    repetitions, test_share
        Random splits of the original and the share of its rows held out in each.
    tolerance
        Largest relative loss of the verdict metric that keeps the utility: one number, or per
        model (``{"forest": 0.2, "default": 0.1}``).
    alignment, ids
        How release rows belong to original units: by the id columns ``ids`` (original,
        release), ``rows`` (row i is unit i), ``none`` (not aligned: the whole release trains
        every repetition) or ``auto`` (ids if given, else rows when both files have the same
        number of rows, else none). Release rows of test units never enter training.
    importance_rows, importance_repeats
        Permutation importance on at most this many rows of each test part (a fixed random
        sample), each feature permuted this many times.
    holdout
        Real rows the generator or the protection never saw. With it every repetition trains the
        reference model on the whole original and the release model on the whole release, and
        both predict the holdout; the repetitions then differ by the models' random states and
        the importance sample only. Without it, a release not aligned with the original (a
        synthetic file) is tested on original rows its generator saw, and the result warns.
    seed
        Seeds the splits, the models and the permutations.
    """
    chosen = _chosen_models(models)
    plan = _ml_plan(original, release, target, chosen, features=features, categorical=categorical,
                    task=task, metric=metric, test_share=test_share, tolerance=tolerance,
                    alignment=alignment, ids=ids, holdout=holdout)
    collected, ratios = _repetitions(plan, seed, repetitions, importance_rows, importance_repeats)
    # with a holdout every repetition trains on the same rows: no overlap of splits to correct for
    test_over_train = 0.0 if holdout is not None else plan.n_test / (len(original) - plan.n_test)
    results = tuple(_model_result(model, plan.metric, plan.tolerances[model], collected, ratios[model],
                                  plan.features, test_over_train, plan.task) for model in plan.models)
    return MlUtility(
        target=target, task=plan.task, metric=plan.metric, numeric=tuple(plan.numeric),
        categorical=tuple(plan.categorical), alignment=plan.aligned, n_original=len(original),
        n_release=len(release), repetitions=repetitions, test_share=float(test_share),
        importance_rows=importance_rows, importance_repeats=importance_repeats, seed=seed, models=results,
        hyperparameters={m: HYPERPARAMETERS[m] for m in plan.models}, n_holdout=None if holdout is None else len(holdout),
        warnings=(NO_HOLDOUT_WARNING,) if holdout is None and plan.aligned != "id" else (),
    )


def _model_result(model: str, metric: str, tolerance: float, collected: dict[str, _Collected],
                  ratios: list[float], features: list[str], test_over_train: float,
                  task: str) -> ModelUtility:
    summaries = {
        side: {name: _spread([s[name] for s in collected[side].scores[model]], test_over_train)
               for name in METRICS[task]}
        for side in ("original", "release")}
    imp_o = np.mean(collected["original"].importance[model], axis=0)
    imp_r = np.mean(collected["release"].importance[model], axis=0)
    rank_o, rank_r = stats.rankdata(-imp_o), stats.rankdata(-imp_r)
    spearman = None
    if len(features) >= 2 and np.ptp(imp_o) > 0 and np.ptp(imp_r) > 0:
        spearman = float(np.corrcoef(rank_o, rank_r)[0, 1])
    change = np.abs(imp_r - imp_o)
    order = np.argsort(-change, kind="stable")
    return ModelUtility(
        model=model, metric=metric, tolerance=tolerance,
        original=summaries["original"], release=summaries["release"],
        ratios=tuple(ratios), ratio=_spread(ratios, test_over_train),
        importance=tuple(Importance(f, float(imp_o[j]), float(imp_r[j]), float(rank_o[j]),
                                    float(rank_r[j])) for j, f in enumerate(features)),
        importance_spearman=spearman,
        most_changed=tuple(features[j] for j in order[:3] if change[j] > 0),
    )
