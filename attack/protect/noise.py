"""Noise ("stochastische Überlagerung") for metric variables (docs/method/protection.md; handbook §6.2.3).

Every method takes a frame, the metric columns, its parameters and a ``seed`` and returns a new
frame: the input is untouched, rows keep their order, other columns are unchanged and the listed
columns become float. Missing values stay missing. Random numbers come from child streams of
``SeedSequence(seed)`` spawned in a fixed order (docs/method/protection.md): one stream per listed column,
in the order given, preceded by one record-level stream for the methods that draw per record.

The small helpers ``seeded_streams``, ``column_list`` and ``checked_numeric`` are
shared with the PRAM, swapping and recoding modules.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from attack.errors import InputError
from attack.protect.registry import REQUIRED, Param, protection_method
from attack.protect.validated import validated

__all__ = [
    "additive_noise",
    "checked_numeric",
    "column_list",
    "controlled_noise",
    "controlled_values",
    "hoehne_noise",
    "kim_transform",
    "lognormal_noise",
    "mixture_noise",
    "moment_correction",
    "seeded_streams",
    "uniform_noise",
]

CONTROLLED_ATTEMPTS = 100

_CORRECT = Param("str", "none", ("none", "trans", "trans_grupp"),
                 "moment correction afterwards: whole file (_trans) or blocks of 100")
_F = Param("float", REQUIRED, help="shift f of the factor mixture, e.g. 0.08 (both bases 1 ± f positive)",
           gt=0, lt=1)
_S = Param("float", REQUIRED, help="standard deviation s of each component, e.g. 0.02", ge=0)


# --- shared helpers -------------------------------------------------------------------------------


def seeded_streams(seed: int, count: int) -> list[np.random.Generator]:
    """``count`` independent generators spawned from ``SeedSequence(seed)`` (docs/method/protection.md)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    children = np.random.SeedSequence(int(seed)).spawn(count)
    return [np.random.default_rng(child) for child in children]


def column_list(data: pd.DataFrame, columns: str | Sequence[str]) -> list[str]:
    """The listed columns as a list (a single name is allowed); each must exist, once."""
    names = [columns] if isinstance(columns, str) else list(columns)
    if not names:
        raise InputError("no column given")
    for name in names:
        if name not in data.columns:
            raise InputError("column not found", column=name)
    if len(set(names)) != len(names):
        raise InputError("a column is listed twice", column=names[0])
    return names


def checked_numeric(
    data: pd.DataFrame, columns: str | Sequence[str], method: str
) -> tuple[list[str], np.ndarray]:
    """Column names and their values as an n × p float matrix (NaN = missing).

    Rejects unknown, repeated, non-numeric, boolean and infinite columns with an
    ``InputError`` naming the column (and the row of the first infinite value).
    """
    names = column_list(data, columns)
    blocks = []
    for name in names:
        series = data[name]
        if not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            raise InputError(f"{method} needs a numeric column, got dtype {series.dtype}",
                             column=name)
        values = series.to_numpy(dtype="float64", na_value=np.nan)
        infinite = np.flatnonzero(np.isinf(values))
        if infinite.size:
            raise InputError(f"{method} cannot handle infinite values", column=name,
                             row=int(infinite[0]) + 1)
        blocks.append(values)
    return names, np.column_stack(blocks) if blocks else np.empty((len(data), 0))


def _check_range(name: str, value: float, low: float, high: float, *,
                 low_open: bool = True, high_open: bool = True) -> float:
    """``value`` as float if it lies in the interval; an ``InputError`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"parameter {name} must be a number, got {value!r}")
    x = float(value)
    above = x > low if low_open else x >= low
    below = x < high if high_open else x <= high
    if not (above and below):
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise InputError(f"parameter {name} must lie in {interval}, got {value!r}")
    return x


def _released(data: pd.DataFrame, names: list[str], values: np.ndarray) -> pd.DataFrame:
    """Copy of ``data`` with the listed columns replaced by the float columns of ``values``."""
    result = data.copy()
    for j, name in enumerate(names):
        result[name] = values[:, j]
    return result


# --- additive noise and Kim–Winkler log-normal noise ----------------------------------------------


def _covariance_root(x: np.ndarray, names: list[str], what: str) -> np.ndarray:
    """Upper Cholesky factor ``C``, ``C'C`` = sample covariance of the complete rows of ``x``."""
    complete = x[~np.isnan(x).any(axis=1)]
    if complete.shape[0] < 2:
        raise InputError(f"{what} needs at least two records without missing values")
    cov = np.atleast_2d(np.cov(complete, rowvar=False))
    try:
        return np.linalg.cholesky(cov).T
    except np.linalg.LinAlgError:
        constant = np.flatnonzero(~(np.diag(cov) > 0))
        if constant.size:
            raise InputError(f"{what}: the column is constant, so its noise would be zero; "
                             "leave it out", column=names[constant[0]]) from None
        raise InputError(f"{what}: the columns are collinear (covariance matrix singular); "
                         f"leave one of {names} out") from None


def _correlated_normal(n: int, root: np.ndarray, d: float,
                       streams: list[np.random.Generator]) -> np.ndarray:
    """n × p noise ``V · sqrt(d) · C``, column j of ``V`` drawn from ``streams[j]`` (eq. 6.17)."""
    v = np.column_stack([rng.standard_normal(n) for rng in streams])
    return math.sqrt(d) * (v @ root)


def kim_transform(x_noisy: np.ndarray, d: float, mu: np.ndarray | float) -> np.ndarray:
    """Kim's correction after proportional additive noise (handbook eq. 6.20; docs/reference/worked-examples.md F-N-14):
    ``x / sqrt(1 + d) + (1 − 1/sqrt(1 + d)) · μ`` with ``μ`` the original means."""
    scale = 1.0 / math.sqrt(1.0 + d)
    return np.asarray(x_noisy, dtype="float64") * scale + (1.0 - scale) * np.asarray(mu)


@validated
@protection_method("additive-noise", family="noise", summary="correlated additive noise d·Σ, Kim's correction by default",
                   params={"d": Param("float", REQUIRED, help="noise covariance as a share of the data's", gt=0), "kim_correction": Param("bool", True), "correct": _CORRECT})
def additive_noise(
    data: pd.DataFrame, columns: Sequence[str], d: float, kim_correction: bool = True,
    seed: int = 0,
) -> pd.DataFrame:
    """Proportional additive noise ``X + W``, ``W ~ N(0, d·Σ_xx)``, optionally Kim-corrected
    (docs/method/protection.md; handbook eq. 6.13–6.20).

    ``Σ_xx`` is the sample covariance (n − 1) of the records complete in all listed columns; the
    noise is ``V · sqrt(d) · C`` with ``C`` its upper Cholesky factor, so correlations are kept and
    the released covariance is ``(1 + d)·Σ_xx`` in expectation. The Kim correction (default) then
    rescales towards the column means (each column's mean over its present values) and restores
    means and covariance in expectation.
    """
    names, x = checked_numeric(data, columns, "additive noise")
    root = _covariance_root(x, names, "additive noise")
    noisy = x + _correlated_normal(x.shape[0], root, d, seeded_streams(seed, len(names)))
    if kim_correction:
        noisy = kim_transform(noisy, d, np.nanmean(x, axis=0))
    return _released(data, names, noisy)


@validated
@protection_method("lognormal-noise", family="noise", summary="Kim-Winkler log-normal noise",
                   params={"d": Param("float", REQUIRED, help="noise covariance as a share of that of ln(X + c)", gt=0, lt=1),
                           "shift": Param("float", 0.0, help="constant c added before the logarithm"), "correct": _CORRECT})
def lognormal_noise(
    data: pd.DataFrame, columns: Sequence[str], d: float, shift: float = 0.0, seed: int = 0
) -> pd.DataFrame:
    """Kim–Winkler log-normal noise, ``X^a = (X + c)·exp(W) − c`` with ``W ~ N(0, d·Σ_vv)``
    (docs/method/protection.md; handbook eq. 6.60–6.68; "Mult_Wink", EHS used d = 0.0005).

    ``Σ_vv`` is the sample covariance of ``V = ln(X + c)`` over complete records, ``0 < d < 1``.
    Every present value must satisfy ``X + c > 0``. With a shift ``c ≠ 0`` zeros are no longer
    exact zeros; a warning says so. Users estimate ``σ_w² = var(ln X^a)·d/(1 + d)`` (eq. 6.66).
    """
    names, x = checked_numeric(data, columns, "log-normal noise")
    shifted = x + shift
    for j, name in enumerate(names):
        bad = np.flatnonzero(shifted[:, j] <= 0)
        if bad.size:
            raise InputError(f"log-normal noise needs value + shift > 0 (shift {shift}), got "
                             f"{x[bad[0], j]}; pass a shift", column=name, row=int(bad[0]) + 1)
    if shift != 0.0 and (x == 0).any():
        warnings.warn(f"log-normal noise with shift {shift}: zeros are no longer exact zeros",
                      stacklevel=2)
    logs = np.log(shifted)
    root = _covariance_root(logs, names, "log-normal noise")
    w = _correlated_normal(x.shape[0], root, d, seeded_streams(seed, len(names)))
    return _released(data, names, shifted * np.exp(w) - shift)


# --- multiplicative noise -------------------------------------------------------------------------


def _positive_factors(base: np.ndarray, s: float, rng: np.random.Generator) -> np.ndarray:
    """``base + s·Z`` per entry, redrawing ``Z`` where the factor is ≤ 0 (docs/method/protection.md).

    ``base`` must be positive, so each draw succeeds with probability at least 1/2.
    """
    factors = base + s * rng.standard_normal(base.size)
    bad = np.flatnonzero(factors <= 0)
    while bad.size:
        factors[bad] = base[bad] + s * rng.standard_normal(bad.size)
        bad = bad[factors[bad] <= 0]
    return factors


def _record_bases(n: int, f: float, rng: np.random.Generator) -> np.ndarray:
    """``1 − f`` or ``1 + f`` per record, each with probability 1/2."""
    return np.where(rng.random(n) < 0.5, 1.0 - f, 1.0 + f)


@validated
@protection_method("mult-noise", family="noise", summary="one mixture factor per record, Mult_f_s",
                   params={"f": _F, "s": _S, "correct": _CORRECT})
def mixture_noise(
    data: pd.DataFrame, columns: Sequence[str], f: float, s: float, seed: int = 0
) -> pd.DataFrame:
    """Multiplicative mixture noise with one factor per record, Mult_f_s (docs/method/protection.md).

    Each record gets ``W = 1 ± f + s·Z`` (sign with probability 1/2, redrawn while ``W ≤ 0``)
    and all its listed values are multiplied by it: ratios within a record, signs and zeros are
    kept. Uses the record-level stream only.
    """
    names, x = checked_numeric(data, columns, "multiplicative noise")
    (rng,) = seeded_streams(seed, 1)
    factors = _positive_factors(_record_bases(x.shape[0], f, rng), s, rng)
    return _released(data, names, x * factors[:, None])


@validated
@protection_method("hoehne-noise", family="noise", summary="Höhne's multiplicative noise Hoe_f_s",
                   params={"f": _F, "s": _S, "correct": _CORRECT})
def hoehne_noise(
    data: pd.DataFrame, columns: Sequence[str], f: float, s: float, seed: int = 0
) -> pd.DataFrame:
    """Höhne's multiplicative noise, Hoe_f_s (docs/method/protection.md; handbook :L1359).

    Each record gets a base ``1 − f`` or ``1 + f`` (record-level stream); each of its values gets
    its own factor ``base + s·Z`` (one stream per column, redrawn while ≤ 0). Warns when
    ``s > f/2``, outside the handbook's constraint.
    """
    if s > f / 2:
        warnings.warn(f"Höhne noise with s = {s} > f/2 = {f / 2}: records may move against "
                      "their base direction", stacklevel=2)
    names, x = checked_numeric(data, columns, "Höhne noise")
    record, *per_column = seeded_streams(seed, 1 + len(names))
    base = _record_bases(x.shape[0], f, record)
    factors = np.column_stack([_positive_factors(base, s, rng) for rng in per_column])
    return _released(data, names, x * factors)


def uniform_noise(
    data: pd.DataFrame, columns: Sequence[str], low: float = 0.5, high: float = 1.5,
    seed: int = 0,
) -> pd.DataFrame:
    """Multiplicative noise with independent ``U(low, high)`` factors per value, for comparison
    only (docs/method/protection.md, rejected by the handbook); ``0 <= low < high``."""
    low = _check_range("low", low, 0.0, math.inf, low_open=False)
    high = _check_range("high", high, low, math.inf)
    names, x = checked_numeric(data, columns, "uniform noise")
    factors = np.column_stack([rng.uniform(low, high, x.shape[0])
                               for rng in seeded_streams(seed, len(names))])
    return _released(data, names, x * factors)


# --- controlled (sum-preserving) noise ------------------------------------------------------------


def controlled_values(x_sorted: ArrayLike, w: ArrayLike) -> np.ndarray:
    """Released values of controlled multiplicative noise for values sorted descending
    (handbook eq. 6.71–6.74; docs/reference/worked-examples.md F-N-11).

    The largest is shrunk by ``W_1``; each following one (but the last) is shrunk when the
    released running sum exceeds the original one and enlarged otherwise; the last absorbs the
    residual so that the total is kept. ``w`` holds ``W_1 … W_{m−1}``.
    """
    x = np.asarray(x_sorted, dtype="float64")
    weights = np.asarray(w, dtype="float64")
    m = x.size
    if weights.size != max(m - 1, 0):
        raise InputError(f"controlled noise needs {max(m - 1, 0)} factors W for {m} values, "
                         f"got {weights.size}")
    out = np.empty(m)
    if m == 0:
        return out
    excess = 0.0                                   # Σ_{k<i} (x^a_k − x_k)
    values, factors = x.tolist(), weights.tolist()
    for i in range(m - 1):
        change = factors[i] * values[i]
        if i == 0 or excess > 0:
            change = -change
        out[i] = values[i] + change
        excess += change
    out[m - 1] = values[m - 1] - excess
    return out


def _truncated_normal(size: int, f: float, s: float, rng: np.random.Generator) -> np.ndarray:
    """``N(f, s²)`` draws redrawn until they lie in (0, 1) (docs/method/protection.md [Proposal])."""
    w = f + s * rng.standard_normal(size)
    bad = np.flatnonzero((w <= 0) | (w >= 1))
    while bad.size:
        w[bad] = f + s * rng.standard_normal(bad.size)
        bad = bad[(w[bad] <= 0) | (w[bad] >= 1)]
    return w


@validated
@protection_method("controlled-noise", family="noise", summary="sum-preserving multiplicative noise",
                   params={"f": _F, "s": _S, "hoehne_start": Param("bool", False), "correct": _CORRECT})
def controlled_noise(
    data: pd.DataFrame, columns: Sequence[str], f: float, s: float,
    hoehne_start: bool = False, seed: int = 0,
) -> pd.DataFrame:
    """Controlled (sum-preserving) multiplicative noise, Höhne 2004a (docs/method/protection.md).

    Per column (own stream): sort the present values descending (ties by a seeded random key),
    draw ``W_i ~ N(f, s²)`` truncated to (0, 1) and apply ``controlled_values``; the column
    total is kept. With ``hoehne_start`` the two largest get the base factors exactly
    (``W_1 = W_2 = f``: ``1 − f`` and ``1 + f``) and the running-sum rule continues. If a column
    without negative values would get a negative last value, all ``W`` are redrawn, up to 100
    times in all, then an ``InputError`` is raised.
    """
    names, x = checked_numeric(data, columns, "controlled noise")
    out = x.copy()
    for j, rng in enumerate(seeded_streams(seed, len(names))):
        rows = np.flatnonzero(~np.isnan(x[:, j]))
        values = x[rows, j]
        order = rows[np.lexsort((rng.random(rows.size), -values))]
        x_sorted = x[order, j]
        nonnegative = not (values < 0).any()
        for _ in range(CONTROLLED_ATTEMPTS):
            w = _truncated_normal(max(rows.size - 1, 0), f, s, rng)
            if hoehne_start:
                w[:2] = f
            released = controlled_values(x_sorted, w)
            if not (nonnegative and released.size and released[-1] < 0):
                break
        else:
            raise InputError(f"controlled noise made the smallest value negative in "
                             f"{CONTROLLED_ATTEMPTS} attempts; lower f or s", column=names[j])
        out[order, j] = released
    return _released(data, names, out)


# --- moment correction ----------------------------------------------------------------------------


def moment_correction(
    original: pd.DataFrame, noisy: pd.DataFrame, columns: Sequence[str], block: int | None = None
) -> pd.DataFrame:
    """Restore mean and SD after multiplicative noise (docs/method/protection.md; handbook eq. 6.70).

    ``x^aR = (σ_x/σ_xa)·(x^a − μ_xa) + μ_x`` per column: over the whole file (``_trans``,
    ``block=None``) or inside blocks of ``block`` units taken from the units sorted by their
    original value, descending (``_trans_grupp``, ``block=100``; ties in file order; the last
    block absorbs the remainder). SDs are population SDs (only their ratio enters); a block whose
    noisy values are all equal is only shifted. ``original`` and ``noisy`` must be row-aligned
    with the same missing values; ``noisy`` is copied, not changed. Not recommended by the
    handbook: it can create negative values and sign changes.
    """
    if block is not None and (isinstance(block, bool) or not isinstance(block, (int, np.integer))
                              or block < 2):
        raise InputError(f"block size must be an integer >= 2 or None, got {block!r}")
    if len(original) != len(noisy):
        raise InputError(f"original has {len(original)} rows but the noisy file {len(noisy)}")
    names, x = checked_numeric(original, columns, "moment correction")
    _, xa = checked_numeric(noisy, names, "moment correction")
    out = xa.copy()
    for j, name in enumerate(names):
        differ = np.flatnonzero(np.isnan(x[:, j]) != np.isnan(xa[:, j]))
        if differ.size:
            raise InputError("original and noisy file differ in which values are missing",
                             column=name, row=int(differ[0]) + 1)
        rows = np.flatnonzero(~np.isnan(x[:, j]))
        if block is None:
            group = np.zeros(rows.size, dtype=np.int64)
        else:
            rows = rows[np.argsort(-x[rows, j], kind="stable")]
            group = np.minimum(np.arange(rows.size) // block, max(rows.size // block - 1, 0))
        mu, sd = _group_moments(x[rows, j], group)
        mu_a, sd_a = _group_moments(xa[rows, j], group)
        ratio = np.divide(sd, sd_a, out=np.ones_like(sd), where=sd_a > 0)
        out[rows, j] = ratio[group] * (xa[rows, j] - mu_a[group]) + mu[group]
    return _released(noisy, names, out)


def _group_moments(values: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population SD of ``values`` per group label."""
    size = np.bincount(group)
    mean = np.bincount(group, weights=values, minlength=size.size) / np.maximum(size, 1)
    deviation = values - mean[group]
    var = np.bincount(group, weights=deviation * deviation, minlength=size.size)
    return mean, np.sqrt(var / np.maximum(size, 1))
