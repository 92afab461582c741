"""One function per synthesis method: synthetic values of one column given its predictors.

docs/method/synthesis.md. Each method receives a ``Task`` (the observed values of the
column, its predictors on the observed and the synthetic rows, the random generator and the
parameters) and returns one value per synthetic row:

* ``sample``: draws from the observed values;
* ``cart``: a classification or regression tree (minimum leaf size ``minbucket``, complexity
  ``cp``); each synthetic row takes the observed value of a random member of its leaf
  (Reiter 2005);
* ``rf``: a random forest of ``ntree`` trees; each synthetic row takes a random member of its
  leaf in one tree drawn at random;
* ``norm``: linear regression, prediction plus a normal residual (Bayesian draw of the
  coefficients and σ when ``proper``; Rubin 1987, p. 167);
* ``normrank``: ``norm`` on the normal scores of the ranks, back to observed values by rank;
* ``logreg``, ``polyreg``: logistic and multinomial regression, a category drawn from the
  predicted probabilities.

With ``proper`` the model is fitted to a bootstrap sample of the observed rows. ``smoothing =
"density"`` replaces each drawn number by a draw from a Gaussian kernel around it (synthpop's
``syn.smooth``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from attack.errors import InputError
from attack.generation.predictors import Feature, linear_design, tree_design

NUMERIC, CATEGORICAL = "numeric", "categorical"


@dataclass(frozen=True)
class Task:
    """Everything a method needs to synthesise one column (see the module docstring)."""

    column: str
    kind: str
    observed: np.ndarray
    features: Sequence[Feature]
    n: int
    rng: np.random.Generator
    minbucket: int = 5
    cp: float = 1e-4
    ntree: int = 10
    smoothing: str = "none"
    proper: bool = False
    decimals: int = 0

    def bootstrap(self) -> tuple[np.ndarray, list[Feature]]:
        """The observed values and features, resampled with replacement when ``proper``."""
        if not self.proper:
            return self.observed, list(self.features)
        rows = self.rng.integers(0, len(self.observed), len(self.observed))
        return self.observed[rows], [Feature(f.kind, f.observed[rows], f.synthetic) for f in self.features]

    def seed(self) -> int:
        return int(self.rng.integers(2**31 - 1))


def sample(task: Task) -> np.ndarray:
    y, _ = task.bootstrap()
    drawn = y[task.rng.integers(0, len(y), task.n)]
    return _smoothed(task, drawn, y)


def cart(task: Task) -> np.ndarray:
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    y, features = task.bootstrap()
    if not features:
        return sample(task)
    x_obs, x_new = tree_design(features, y)
    numeric = task.kind == NUMERIC
    model = (DecisionTreeRegressor if numeric else DecisionTreeClassifier)(
        min_samples_leaf=task.minbucket, min_samples_split=max(2, 3 * task.minbucket),
        min_impurity_decrease=task.cp * _root_impurity(y, numeric), random_state=task.seed(),
    )
    model.fit(x_obs, y.astype(float) if numeric else _labels(y))
    drawn = _leaf_donors(model.apply(x_obs), model.apply(x_new), y, task.rng)
    return _smoothed(task, drawn, y)


def rf(task: Task) -> np.ndarray:
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    y, features = task.bootstrap()
    if not features:
        return sample(task)
    x_obs, x_new = tree_design(features, y)
    numeric = task.kind == NUMERIC
    model = (RandomForestRegressor if numeric else RandomForestClassifier)(
        n_estimators=task.ntree, min_samples_leaf=task.minbucket, random_state=task.seed(), n_jobs=1,
    )
    model.fit(x_obs, y.astype(float) if numeric else _labels(y))
    leaves_obs, leaves_new = model.apply(x_obs), model.apply(x_new)
    tree = task.rng.integers(0, task.ntree, task.n)
    drawn = np.empty(task.n, dtype=y.dtype)
    for t in range(task.ntree):
        rows = np.flatnonzero(tree == t)
        if len(rows):
            drawn[rows] = _leaf_donors(leaves_obs[:, t], leaves_new[rows, t], y, task.rng)
    return _smoothed(task, drawn, y)


def norm(task: Task) -> np.ndarray:
    _needs(task, NUMERIC)
    y, features = task.bootstrap()
    x_obs, x_new = _with_intercept(features, len(y), task.n)
    beta, sigma = _regression(y.astype(float), x_obs, task)
    out = x_new @ beta + task.rng.standard_normal(task.n) * sigma
    return np.round(out, task.decimals)


def normrank(task: Task) -> np.ndarray:
    _needs(task, NUMERIC)
    y, features = task.bootstrap()
    n = len(y)
    z = ndtri(pd.Series(y).rank().to_numpy() / (n + 1))
    x_obs, x_new = _with_intercept(features, n, task.n)
    beta, sigma = _regression(z, x_obs, task)
    predicted = x_new @ beta + task.rng.standard_normal(task.n) * sigma
    position = np.clip(np.round(ndtr(predicted) * (n + 1)).astype(int), 1, n)
    return np.sort(y.astype(float))[position - 1]


def logreg(task: Task) -> np.ndarray:
    _needs(task, CATEGORICAL)
    if len(pd.unique(task.observed)) > 2:
        raise InputError(f"column {task.column!r}: logreg needs two categories; use polyreg or cart")
    return polyreg(task)


def polyreg(task: Task) -> np.ndarray:
    from sklearn.linear_model import LogisticRegression

    _needs(task, CATEGORICAL)
    y, features = task.bootstrap()
    levels = pd.unique(y)
    if len(levels) == 1 or not features:
        return sample(task)
    x_obs, x_new = linear_design(features)
    model = LogisticRegression(C=1e4, max_iter=500, random_state=task.seed())
    model.fit(x_obs, _labels(y))
    probabilities = model.predict_proba(x_new)
    u = task.rng.random(task.n)
    index = np.minimum((probabilities.cumsum(axis=1) < u[:, None]).sum(axis=1), len(model.classes_) - 1)
    lookup = dict(zip(_labels(levels), levels, strict=True))
    return np.array([lookup[c] for c in model.classes_[index]], dtype=object)


#: The methods by name; ``passive`` (a formula) is handled where the sequence is run.
METHODS: dict[str, Callable[[Task], np.ndarray]] = {
    "sample": sample, "cart": cart, "rf": rf, "norm": norm, "normrank": normrank,
    "logreg": logreg, "polyreg": polyreg,
}


def _needs(task: Task, kind: str) -> None:
    if task.kind != kind:
        raise InputError(f"column {task.column!r} is {task.kind}; this method needs a {kind} column")


def _labels(y: np.ndarray) -> np.ndarray:
    """Categories as text for scikit-learn (which refuses mixed types)."""
    return np.array([f"{type(v).__name__}:{v}" for v in y], dtype=object)


def _root_impurity(y: np.ndarray, numeric: bool) -> float:
    if numeric:
        return float(np.var(y.astype(float)))
    _, counts = np.unique(_labels(y), return_counts=True)
    p = counts / counts.sum()
    return float(1.0 - (p * p).sum())


def _leaf_donors(leaf_obs: np.ndarray, leaf_new: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For every synthetic row, the value of a random observed row in the same leaf."""
    order = np.argsort(leaf_obs, kind="stable")
    leaves, start, count = np.unique(leaf_obs[order], return_index=True, return_counts=True)
    at = np.searchsorted(leaves, leaf_new)
    pick = start[at] + np.floor(rng.random(len(leaf_new)) * count[at]).astype(np.int64)
    return y[order[pick]]


def _with_intercept(features: Sequence[Feature], n_obs: int, n_new: int) -> tuple[np.ndarray, np.ndarray]:
    if not features:
        return np.ones((n_obs, 1)), np.ones((n_new, 1))
    x_obs, x_new = linear_design(features)
    return np.hstack([np.ones((n_obs, 1)), x_obs]), np.hstack([np.ones((n_new, 1)), x_new])


def _regression(y: np.ndarray, x: np.ndarray, task: Task, ridge: float = 1e-5) -> tuple[np.ndarray, float]:
    """Least squares with a small ridge; with ``proper`` a draw from the posterior of β and σ."""
    xtx = x.T @ x
    v = np.linalg.inv(xtx + np.diag(ridge * np.diag(xtx)))
    coef = v @ (x.T @ y)
    residual = y - x @ coef
    dof = max(len(y) - x.shape[1], 1)
    if not task.proper:
        return coef, float(np.sqrt(residual @ residual / max(dof - 1, 1)))
    sigma = float(np.sqrt(residual @ residual / task.rng.chisquare(dof)))
    chol = np.linalg.cholesky((v + v.T) / 2)
    return coef + chol @ task.rng.standard_normal(x.shape[1]) * sigma, sigma


def _smoothed(task: Task, drawn: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Gaussian kernel smoothing of drawn numbers (synthpop's ``syn.smooth``), when asked for.

    Left as drawn: the most frequent value when it makes up more than 70 % of the draws, and the
    top value when the data look top-coded. Bandwidth: Silverman's rule of thumb. Smoothed
    values stay within [min, max + bandwidth] of the observed values (max when top-coded) and
    are rounded to the observed decimals.
    """
    if task.smoothing != "density" or task.kind != NUMERIC or len(drawn) < 2:
        return drawn
    x = drawn.astype(float).copy()
    values, counts = np.unique(x, return_counts=True)
    smooth = np.ones(len(x), dtype=bool)
    if counts.max() > 0.7 * len(x):
        smooth &= x != values[counts.argmax()]
    upper = None
    if len(counts) > 1 and 10 * counts[-2] < counts[-1] - counts[-2]:
        smooth &= x != observed.max()
        upper = float(observed.max())
    if smooth.sum() < 2:
        return drawn
    bandwidth = _silverman(x[smooth])
    upper = float(observed.max()) + bandwidth if upper is None else upper
    x[smooth] = np.clip(task.rng.normal(x[smooth], bandwidth), float(observed.min()), upper)
    x[smooth] = np.round(x[smooth], task.decimals)
    return x


def _silverman(x: np.ndarray) -> float:
    """0.9 · min(sd, IQR / 1.34) · n^(−1/5) (R's ``bw.nrd0``)."""
    sd = float(np.std(x, ddof=1))
    iqr = float(np.subtract(*np.percentile(x, [75, 25])))
    spread = min(sd, iqr / 1.34) if iqr > 0 else sd
    spread = spread if spread > 0 else (abs(float(x[0])) or 1.0)
    return 0.9 * spread * len(x) ** -0.2


__all__ = ["CATEGORICAL", "METHODS", "NUMERIC", "Task"]
