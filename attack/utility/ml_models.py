"""The models of the machine-learning utility (docs/method/ml-utility.md): which scikit-learn
estimators, their fixed hyper-parameters, the preprocessing in front of them and the scores
they are judged by.

Every hyper-parameter lives in ``HYPERPARAMETERS`` (reported in the JSON) so that a run is
described completely by its settings and seed. Numeric features are mean-imputed and
standardised, categorical features one-hot encoded (a missing value is a category of its own,
a category the training file lacks is all zeros), inside one pipeline fitted on the training
rows only (categories enter as integer codes, ``model_inputs``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from attack.io.readers import code_column, numeric_column

REGRESSION, CLASSIFICATION = "regression", "classification"
MODELS = ("linear", "forest", "boosting", "mlp")
METRICS = {REGRESSION: ("rmse", "mae", "r2"),
           CLASSIFICATION: ("accuracy", "balanced_accuracy", "auc")}
DEFAULT_METRIC = {REGRESSION: "rmse", CLASSIFICATION: "balanced_accuracy"}
LOWER_IS_BETTER = frozenset({"rmse", "mae"})
#: Metrics that may decide the verdict (a ratio of R² is not meaningful near 0).
VERDICT_METRICS = {REGRESSION: ("rmse", "mae"),
                   CLASSIFICATION: ("accuracy", "balanced_accuracy", "auc")}

#: Fixed hyper-parameters per model, the same for regression and classification. ``linear`` is
#: ordinary least squares or an L2-penalised logistic regression; ``forest`` draws bootstrap
#: samples of at most ``max_samples`` rows per tree (every training row can enter some tree);
#: ``boosting`` keeps scikit-learn's defaults (100 iterations, early stopping on a 10 %
#: validation part above 10,000 rows); ``mlp`` has two hidden layers of 32 and 16 units trained
#: by Adam in batches of at most 2,048 rows, with early stopping on a 10 % validation part
#: (the regression target standardised).
HYPERPARAMETERS: dict[str, dict[str, Any]] = {
    "linear": {"C": 1.0, "max_iter": 1000},
    "forest": {"n_estimators": 30, "max_depth": 10, "min_samples_leaf": 5,
               "max_features": "sqrt", "max_samples": 10_000},
    "boosting": {"max_iter": 100, "learning_rate": 0.1, "max_leaf_nodes": 31,
                 "early_stopping": "auto"},
    "mlp": {"hidden_layer_sizes": [32, 16], "alpha": 1e-4, "batch_size": 2048,
            "learning_rate_init": 0.01, "max_iter": 200, "early_stopping": True,
            "n_iter_no_change": 3},
}


def model_inputs(original: pd.DataFrame, release: pd.DataFrame, features: Sequence[str],
                 categorical: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Both files' features as float matrices in the order of ``features``: numbers as they
    are (NaN missing); a categorical feature as the code of its text in the sorted union of
    both files' labels, a missing value as one more code of its own."""
    out = (np.empty((len(original), len(features))), np.empty((len(release), len(features))))
    for j, name in enumerate(features):
        if name not in categorical:
            out[0][:, j], out[1][:, j] = numeric_column(original, name), numeric_column(release, name)
            continue
        texts = [code_column(frame, name, warn=False) for frame in (original, release)]
        labels = np.unique(np.concatenate([t[~pd.isna(t)] for t in texts]).astype(str))
        for matrix, t in zip(out, texts, strict=True):
            present = ~pd.isna(t)
            matrix[:, j] = labels.size
            matrix[present, j] = np.searchsorted(labels, t[present].astype(str))
    return out


def _preprocessing(numeric: Sequence[int], categorical: Sequence[int]) -> ColumnTransformer:
    parts = []
    if numeric:
        parts.append(("numeric", make_pipeline(SimpleImputer(strategy="mean"), StandardScaler()),
                      list(numeric)))
    if categorical:
        parts.append(("categorical", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                      list(categorical)))
    return ColumnTransformer(parts)


def _estimator(model: str, task: str, seed: int, n_train: int) -> Any:
    h = HYPERPARAMETERS[model]
    regression = task == REGRESSION
    if model == "linear":
        return LinearRegression() if regression else LogisticRegression(
            C=h["C"], max_iter=h["max_iter"])
    if model == "forest":
        kind = RandomForestRegressor if regression else RandomForestClassifier
        options = {k: v for k, v in h.items() if k != "max_samples"}
        return kind(**options, max_samples=min(h["max_samples"], n_train), random_state=seed)
    if model == "boosting":
        kind = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
        return kind(**h, random_state=seed)
    options = {**h, "hidden_layer_sizes": tuple(h["hidden_layer_sizes"]),
               "batch_size": min(h["batch_size"], n_train - math.ceil(0.1 * n_train))}
    if regression:
        return TransformedTargetRegressor(MLPRegressor(**options, random_state=seed),
                                          transformer=StandardScaler())
    return MLPClassifier(**options, random_state=seed)


def build_model(model: str, task: str, numeric: Sequence[int], categorical: Sequence[int],
                seed: int, n_train: int) -> Pipeline:
    """An unfitted pipeline: preprocessing of the numeric and categorical columns (positions in
    the ``model_inputs`` matrix), then the model with its fixed hyper-parameters and
    ``seed`` as its random state."""
    return Pipeline([("prepare", _preprocessing(numeric, categorical)),
                     ("model", _estimator(model, task, seed, n_train))])


def regression_scores(y: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """RMSE, MAE and R² ``1 − SSE/SST`` (NaN when the test target is constant)."""
    error = y - predicted
    sst = float(np.sum((y - y.mean()) ** 2))
    return {"rmse": math.sqrt(float(np.mean(error**2))),
            "mae": float(np.mean(np.abs(error))),
            "r2": 1.0 - float(np.sum(error**2)) / sst if sst > 0 else math.nan}


def _auc(positive: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve by the rank-sum formula (ties count one half)."""
    from scipy.stats import rankdata

    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    ranks = rankdata(score)
    return (float(ranks[positive].sum()) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def classification_scores(y: np.ndarray, predicted: np.ndarray,
                          probabilities: np.ndarray | None, classes: np.ndarray) -> dict[str, float]:
    """Accuracy, balanced accuracy (mean recall over the classes of ``y``) and AUC (the mean of
    one-against-the-rest AUCs over the classes of ``y`` that have both outcomes; a class the
    model never saw scores 0 for every row). ``probabilities`` has one column per ``classes``;
    without them the AUC is NaN."""
    present = np.unique(y)
    recall = [float(np.mean(predicted[y == c] == c)) for c in present]
    column = {c: j for j, c in enumerate(classes)}
    aucs = []
    if probabilities is not None:
        for c in present:
            positive = y == c
            if not positive.all():
                aucs.append(_auc(positive, probabilities[:, column[c]] if c in column else np.zeros(y.size)))
    return {"accuracy": float(np.mean(predicted == y)),
            "balanced_accuracy": float(np.mean(recall)),
            "auc": float(np.mean(aucs)) if aucs else math.nan}


def scores(pipeline: Pipeline, task: str, x: np.ndarray, y: np.ndarray,
           auc: bool = True) -> dict[str, float]:
    """The task's three scores of a fitted pipeline on ``x``, ``y`` (``auc=False`` skips the
    class probabilities: AUC NaN)."""
    if task == REGRESSION:
        return regression_scores(y, pipeline.predict(x))
    probabilities = pipeline.predict_proba(x) if auc else None
    return classification_scores(y, pipeline.predict(x), probabilities, pipeline.classes_)


def scorer(task: str, metric: str) -> Callable[[Pipeline, np.ndarray, np.ndarray], float]:
    """``scorer(pipeline, x, y)``: ``metric`` oriented so that greater is better (RMSE and MAE
    negated), for permutation importance."""
    sign = -1.0 if metric in LOWER_IS_BETTER else 1.0

    def score(pipeline: Pipeline, x: np.ndarray, y: np.ndarray) -> float:
        return sign * scores(pipeline, task, x, np.asarray(y), auc=metric == "auc")[metric]

    return score
