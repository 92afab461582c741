"""PRAM — post-randomisation of categorical variables (docs/method/protection.md; handbook §6.1.2, Ch. 20).

Convention: a transition matrix is a square DataFrame labelled by category on both axes and is
**row-stochastic**, ``P[i, j] = P(released j | original i)``; the expected released counts are
``Pᵀ T``. Categories are compared as text (``1``, ``1.0`` and ``"1"`` are the same code); for
joint PRAM of several columns the categories are tuples of text, one entry per column.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.readers import code_column
from attack.protect.noise import column_list, seeded_streams
from attack.protect.registry import Param, protection_method
from attack.protect.validated import validated

__all__ = [
    "BinaryEstimate",
    "binary_estimator",
    "category_frequencies",
    "estimate_original",
    "expected_counts",
    "invariant_matrix",
    "pram",
    "regressor_bias",
    "simple_matrix",
]

ROW_SUM_TOLERANCE = 1e-9


def _text(label: Hashable) -> Hashable:
    """A category label as text; tuples element by element; integral floats without ``.0``."""
    if isinstance(label, tuple):
        return tuple(_text(part) for part in label)
    if isinstance(label, (float, np.floating)) and float(label).is_integer():
        return str(int(label))
    return str(label)


def _labelled(values: Mapping | pd.Series | Sequence[float], what: str) -> pd.Series:
    """Non-negative finite numbers labelled by category text."""
    series = pd.Series(values, dtype="float64") if not isinstance(values, pd.Series) \
        else values.astype("float64")
    series.index = pd.Index([_text(label) for label in series.index], tupleize_cols=False)
    if series.index.has_duplicates:
        raise InputError(f"{what}: category {series.index[series.index.duplicated()][0]!r} "
                         "appears twice")
    if not np.isfinite(series.to_numpy()).all() or (series < 0).any():
        raise InputError(f"{what} must be finite and non-negative")
    return series


def _checked_matrix(matrix: pd.DataFrame) -> pd.DataFrame:
    """The matrix with text labels and columns in row order; rejects anything not row-stochastic."""
    if not isinstance(matrix, pd.DataFrame):
        raise InputError("the PRAM matrix must be a DataFrame labelled by category")
    rows = [_text(label) for label in matrix.index]
    cols = [_text(label) for label in matrix.columns]
    if len(set(rows)) != len(rows) or set(rows) != set(cols) or len(cols) != len(rows):
        raise InputError("the PRAM matrix must be square with the same categories, each once, "
                         "as row and column labels")
    p = pd.DataFrame(matrix.to_numpy(dtype="float64"),
                     index=pd.Index(rows, tupleize_cols=False),
                     columns=pd.Index(cols, tupleize_cols=False))
    p = p.loc[:, p.index]
    values = p.to_numpy()
    if not np.isfinite(values).all() or (values < 0).any():
        raise InputError("the PRAM matrix must hold finite probabilities >= 0")
    sums = values.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if off.size:
        raise InputError(f"row {p.index[off[0]]!r} of the PRAM matrix sums to {sums[off[0]]!r}, "
                         "not 1 (rows are the original categories: row-stochastic)")
    return p


def invariant_matrix(frequencies: Mapping | pd.Series, lam: float) -> pd.DataFrame:
    """Invariant PRAM matrix ``P = λI + (1 − λ)·1θᵀ`` (docs/method/protection.md; handbook eq. 6.10).

    ``frequencies`` are counts or shares per category (normalised to ``θ``); ``λ`` in (0, 1) is
    the probability that a unit is not redrawn. Then ``Pᵀθ = θ`` (eq. 6.11) and category i
    switches with probability ``(1 − λ)(1 − θ_i)``.
    """
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.number)) or not 0 < lam < 1:
        raise InputError(f"λ must lie in (0, 1), got {lam!r}")
    counts = _labelled(frequencies, "frequencies")
    if not counts.sum() > 0:
        raise InputError("frequencies must not all be zero")
    theta = counts.to_numpy() / counts.sum()
    p = lam * np.eye(theta.size) + (1.0 - lam) * np.outer(np.ones(theta.size), theta)
    return pd.DataFrame(p, index=counts.index, columns=counts.index)


def simple_matrix(pi: float, categories: tuple[Hashable, Hashable] = ("0", "1")) -> pd.DataFrame:
    """Simple binary PRAM ``[[π, 1 − π], [1 − π, π]]`` (handbook eq. 6.3)."""
    if isinstance(pi, bool) or not isinstance(pi, (int, float, np.number)) or not 0 <= pi <= 1:
        raise InputError(f"π must lie in [0, 1], got {pi!r}")
    labels = pd.Index([_text(c) for c in categories], tupleize_cols=False)
    return pd.DataFrame([[pi, 1.0 - pi], [1.0 - pi, pi]], index=labels, columns=labels)


def _categories(data: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, list[Hashable]]:
    """Category number per row (−1 when a listed value is missing) and the category labels
    (text, or tuples of text for several columns), numbered in sorted label order."""
    parts = []
    for name in names:
        codes = pd.Series(code_column(data, name), dtype=object)
        number, uniques = pd.factorize(codes, sort=True, use_na_sentinel=True)
        parts.append((number, np.asarray(uniques, dtype=object)))
    present = np.logical_and.reduce([number >= 0 for number, _ in parts])
    # Number the combinations column by column (mixed radix, renumbered after each step so the
    # key stays below n · categories); ``first`` keeps one row per combination for its labels.
    key = np.zeros(int(present.sum()), dtype=np.int64)
    for number, uniques in parts:
        key = key * len(uniques) + number[present]
        _, first, key = np.unique(key, return_index=True, return_inverse=True)
    category = np.full(len(data), -1, dtype=np.int64)
    category[present] = key
    rows = np.flatnonzero(present)[first]
    texts = [uniques[number[rows]] for number, uniques in parts]
    labels = list(texts[0]) if len(names) == 1 else list(zip(*texts, strict=True))
    return category, labels


def category_frequencies(data: pd.DataFrame, columns: str | Sequence[str]) -> pd.Series:
    """Counts per category (composite categories for several columns); missing values left out."""
    category, labels = _categories(data, column_list(data, columns))
    counts = np.bincount(category[category >= 0], minlength=len(labels))
    return pd.Series(counts, index=pd.Index(labels, dtype=object, tupleize_cols=False),
                     name="count")


def _released_column(original: pd.Series, codes: np.ndarray) -> pd.Series:
    """Released codes in the original column's type: numbers for numeric columns, else text."""
    if pd.api.types.is_numeric_dtype(original) and not pd.api.types.is_bool_dtype(original):
        numbers = pd.to_numeric(pd.Series(codes, index=original.index, dtype=object))
        nullable = isinstance(original.dtype, pd.api.extensions.ExtensionDtype)
        if pd.api.types.is_integer_dtype(original) and (nullable or not numbers.isna().any()):
            return numbers.astype(original.dtype)
        return numbers.astype("float64")
    return pd.Series(codes, index=original.index, dtype="str")


@validated
@protection_method(
    "pram", family="categorical", numeric=False,
    summary="post-randomisation; invariant PRAM with lam, or a given matrix",
    params={"lam": Param("float", None, help="probability of keeping the category", gt=0, lt=1),
            "matrix": Param("matrix", None, help="CSV transition matrix, first column = category")})
def pram(
    data: pd.DataFrame, columns: str | Sequence[str], matrix: pd.DataFrame | None = None,
    lam: float | None = None, seed: int = 0,
) -> pd.DataFrame:
    """Post-randomise one categorical column, or several jointly (docs/method/protection.md).

    Each unit's released category is drawn from its row of ``matrix``
    (``P(released j | original i)``); or, given ``lam`` instead, from the invariant matrix built
    on the observed frequencies (``invariant_matrix`` of ``category_frequencies``, which
    is also what must be published). Several columns are randomised as one composite variable
    (their cross-classification, labels are tuples) so their cross-table is kept in expectation.
    Units with a missing value in a listed column are left unchanged; a category absent from the
    matrix is an ``InputError``. Numeric code columns stay numeric. One random stream (the
    first child of ``seed``), one uniform number per unit with all values present.
    """
    names = column_list(data, columns)
    if (matrix is None) == (lam is None):
        raise InputError("give exactly one of a PRAM matrix and λ")
    category, labels = _categories(data, names)
    if lam is not None:  # exactly one of matrix and lam is given
        counts = np.bincount(category[category >= 0], minlength=len(labels))
        matrix = invariant_matrix(
            pd.Series(counts, index=pd.Index(labels, dtype=object, tupleize_cols=False)), lam)
    p = _checked_matrix(matrix)
    if len(names) > 1 and not all(isinstance(c, tuple) and len(c) == len(names) for c in p.index):
        raise InputError(f"joint PRAM of {len(names)} columns needs a matrix labelled by tuples "
                         f"of {len(names)} codes")
    position = p.index.get_indexer(pd.Index(labels, dtype=object, tupleize_cols=False))
    present = np.flatnonzero(category >= 0)
    original = position[category[present]]
    unknown = np.flatnonzero(original < 0)
    if unknown.size:
        row = int(present[unknown[0]])
        raise InputError(f"category {labels[category[row]]!r} is not in the PRAM matrix",
                         column=", ".join(names), row=row + 1)

    (rng,) = seeded_streams(seed, 1)
    u = rng.random(present.size)
    cumulative = np.cumsum(p.to_numpy(), axis=1)
    released = np.empty(present.size, dtype=np.int64)
    order = np.argsort(original, kind="stable")
    bounds = np.searchsorted(original[order], np.arange(len(p) + 1))
    for k in range(len(p)):
        idx = order[bounds[k]:bounds[k + 1]]
        released[idx] = np.searchsorted(cumulative[k], u[idx] * cumulative[k, -1], side="right")

    result = data.copy()
    for j, name in enumerate(names):
        texts = np.array([c if len(names) == 1 else c[j] for c in p.index], dtype=object)
        column = code_column(data, name)
        column[present] = texts[released]
        result[name] = _released_column(data[name], column)
    return result


def _aligned(counts: Mapping | pd.Series, matrix: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """Checked matrix and the counts in its category order (categories absent count 0)."""
    p = _checked_matrix(matrix)
    t = _labelled(counts, "counts")
    unknown = [label for label in t.index if label not in p.index]
    if unknown:
        raise InputError(f"category {unknown[0]!r} is not in the PRAM matrix")
    return p, t.reindex(p.index, fill_value=0.0).to_numpy()


def expected_counts(counts: Mapping | pd.Series, matrix: pd.DataFrame) -> pd.Series:
    """Expected released counts ``E[T^a] = Pᵀ T`` (docs/method/protection.md; docs/reference/worked-examples.md F-P-4, F-P-5)."""
    p, t = _aligned(counts, matrix)
    return pd.Series(p.to_numpy().T @ t, index=p.index)


def estimate_original(counts: Mapping | pd.Series, matrix: pd.DataFrame) -> pd.Series:
    """Unbiased estimate of the original counts (or shares) ``(Pᵀ)⁻¹ T^a`` from released ones."""
    p, t = _aligned(counts, matrix)
    try:
        return pd.Series(np.linalg.solve(p.to_numpy().T, t), index=p.index)
    except np.linalg.LinAlgError:
        raise InputError("the PRAM matrix is singular; the original distribution cannot be "
                         "recovered") from None


@dataclass(frozen=True)
class BinaryEstimate:
    """De-biased share of category 1 after binary PRAM and its per-observation variance
    (divide by n for the variance of the estimated share)."""

    theta: float
    variance: float

    def to_dict(self) -> dict:
        return {"theta": self.theta, "variance": self.variance}


def _probability(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
            or not 0 <= value <= 1:
        raise InputError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def binary_estimator(released_share: float, pi: float, pi0: float | None = None) -> BinaryEstimate:
    """Estimate the original share θ of category 1 from the released share (handbook eq. 20.3,
    20.6–20.8; docs/reference/worked-examples.md F-P-6).

    ``pi = P(1 → 1)``, ``pi0 = P(0 → 0)`` (default ``pi``: symmetric):
    ``θ̂ = (T^a − (1 − π_0)) / (π_1 + π_0 − 1)``, per-observation variance
    ``[θ(π_1(1 − π_1) − π_0(1 − π_0)) + π_0(1 − π_0)] / (π_1 + π_0 − 1)²`` with θ̂ clipped to
    [0, 1] (the printed eq. 20.8 lacks the square; symmetric case ``π(1 − π)/(2π − 1)²``).
    """
    share = _probability("released share", released_share)
    pi1 = _probability("π", pi)
    pi0 = pi1 if pi0 is None else _probability("π_0", pi0)
    denominator = pi1 + pi0 - 1.0
    if abs(denominator) < 1e-12:
        raise InputError("π_1 + π_0 = 1: the released share carries no information on θ")
    theta = (share - (1.0 - pi0)) / denominator
    t = min(max(theta, 0.0), 1.0)
    variance = (t * (pi1 * (1 - pi1) - pi0 * (1 - pi0)) + pi0 * (1 - pi0)) / denominator**2
    return BinaryEstimate(theta=theta, variance=variance)


def regressor_bias(theta: float | np.ndarray, pi: float | np.ndarray) -> float | np.ndarray:
    """Relative bias (share of the coefficient lost) of a binary regressor after simple PRAM
    with switching ``1 − π`` and share θ (docs/reference/worked-examples.md F-P-1, reproduces handbook Table 28.3):
    ``(1 − π)[2θ(1 − θ) + (2θ − 1)²π] / (π(1 − π) + (2π − 1)²θ(1 − θ))``, 0 < θ < 1, π in [0, 1].
    """
    t = np.asarray(theta, dtype="float64")
    p = np.asarray(pi, dtype="float64")
    if not ((t > 0) & (t < 1)).all() or not ((p >= 0) & (p <= 1)).all():
        raise InputError("regressor_bias needs 0 < θ < 1 and 0 <= π <= 1")
    bias = (1 - p) * (2 * t * (1 - t) + (2 * t - 1) ** 2 * p) / (
        p * (1 - p) + (2 * p - 1) ** 2 * t * (1 - t))
    return float(bias) if bias.ndim == 0 else bias

