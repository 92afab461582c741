"""Information-loss measures of a release (docs/method/utility.md): reported beside the checks, never merged
with risk into one figure (docs/method/utility.md).

* IL1s on per-record pairs (``il1s``);
* §4.2 the handbook's Score I / Score II (``information_loss_scores``);
* descriptive extras without thresholds: dispersion and concentration (``describe``,
  ``gini``, ``concentration_ratio``, ``herfindahl``) and entropy-based loss of a
  categorical variable (``shannon_entropy``, ``conditional_entropy``,
  ``categorical_loss``).

The threshold checks of docs/method/utility.md live in ``attack.utility``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attack.errors import InputError
from attack.io.jsonio import json_float

DEFAULT_CR = (3, 5)




# --- per-record measures: IL1s and Score I/II (docs/method/utility.md) ---------------------------


def il1s(
    original: np.ndarray, release: np.ndarray, ddof: int = 1
) -> tuple[float | None, list[int]]:
    """IL1s ``1/(n·p) Σ_j Σ_i |x_ij − x*_ij| / (√2 σ_j)`` over complete rows (docs/method/utility.md;
    docs/reference/worked-examples.md F-U-IL1s); σ_j with ``ddof`` (1 sample, 0 population). Columns with σ_j = 0 are
    left out and returned as the second value."""
    x = np.asarray(original, dtype=float)
    xa = np.asarray(release, dtype=float)
    n = x.shape[0]
    if n <= ddof:
        return None, []
    sigma = x.std(axis=0, ddof=ddof)
    keep = sigma > 0
    skipped = [int(j) for j in np.flatnonzero(~keep)]
    if not keep.any():
        return None, skipped
    terms = np.abs(x[:, keep] - xa[:, keep]).sum(axis=0) / (math.sqrt(2) * sigma[keep])
    return float(terms.sum() / (n * keep.sum())), skipped


@dataclass(frozen=True)
class Scores:
    """Handbook Score I / Score II and their five terms (docs/method/utility.md)."""

    cov_range: str
    t_val: float
    t_mean: float
    t_cov: float
    t_var: float
    t_corr: float
    skipped: dict[str, int]

    @property
    def score_i(self) -> float:
        return 100 * (self.t_val + self.t_mean + self.t_cov + self.t_var + self.t_corr)

    @property
    def score_ii(self) -> float:
        return 100 * (
            self.t_val + 0.5 * (self.t_mean + self.t_var) + 0.5 * (self.t_cov + self.t_corr)
        )

    def to_dict(self) -> dict:
        out = {k: json_float(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}
        return {**out, "score_i": json_float(self.score_i), "score_ii": json_float(self.score_ii)}


def _relative_sum(o: np.ndarray, r: np.ndarray) -> tuple[float, int]:
    """Σ |r − o| / |o| over the entries with o ≠ 0 and the number of skipped zero entries."""
    nonzero = o != 0
    total = np.sum(np.abs(r[nonzero] - o[nonzero]) / np.abs(o[nonzero]))
    return float(total), int((~nonzero).sum())


def information_loss_scores(
    original: np.ndarray, release: np.ndarray, cov_range: str = "i<j"
) -> Scores:
    """Score I and II on complete rows of d variables. ``cov_range="i<j"`` is the printed form
    (sum over i < j, divided by d(d+1)/2); ``"i<=j"`` includes the variances in the sum. Terms
    with a zero original are skipped (contribute 0) and counted."""
    if cov_range not in ("i<j", "i<=j"):
        raise InputError('cov_range must be "i<j" (printed form) or "i<=j"')
    x = np.asarray(original, dtype=float)
    xa = np.asarray(release, dtype=float)
    m, d = x.shape
    if m < 2 or d == 0:
        raise InputError("Score I/II need at least 2 complete rows and 1 variable")
    t_val, zero_val = _relative_sum(x, xa)
    t_mean, zero_mean = _relative_sum(x.mean(axis=0), xa.mean(axis=0))
    cov = np.atleast_2d(np.cov(x, rowvar=False))
    cov_a = np.atleast_2d(np.cov(xa, rowvar=False))
    upper = np.triu_indices(d, k=0 if cov_range == "i<=j" else 1)
    t_cov, zero_cov = _relative_sum(cov[upper], cov_a[upper])
    t_var, zero_var = _relative_sum(np.diag(cov), np.diag(cov_a))
    strict = np.triu_indices(d, k=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.atleast_2d(np.corrcoef(x, rowvar=False))[strict]
        corr_a = np.atleast_2d(np.corrcoef(xa, rowvar=False))[strict]
    defined = np.isfinite(corr) & np.isfinite(corr_a)
    pairs = d * (d - 1) / 2
    return Scores(
        cov_range=cov_range,
        t_val=t_val / (m * d),
        t_mean=t_mean / d,
        t_cov=t_cov / (d * (d + 1) / 2),
        t_var=t_var / d,
        t_corr=float(np.abs(corr - corr_a)[defined].sum() / pairs) if pairs else 0.0,
        skipped={
            "values": zero_val,
            "means": zero_mean,
            "covariances": zero_cov,
            "variances": zero_var,
            "correlations": int((~defined).sum()),
        },
    )


# --- descriptive extras without thresholds (docs/method/utility.md) ----------------------------------


def _sorted_values(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return np.sort(x[~np.isnan(x)])


def _concentrable(s: np.ndarray) -> bool:
    """Concentration measures need sorted non-negative values with a positive total."""
    return s.size > 0 and s[0] >= 0 and s[-1] > 0


def _gini_sorted(s: np.ndarray) -> float | None:
    if not _concentrable(s):
        return None
    n, total = s.size, s.sum()
    return float((2 * np.dot(np.arange(1, n + 1), s) - (n + 1) * total) / (n * total))


def _cr_sorted(s: np.ndarray, k: int) -> float | None:
    return float(s[-k:].sum() / s.sum()) if _concentrable(s) else None


def _herfindahl_sorted(s: np.ndarray) -> float | None:
    return float(np.sum((s / s.sum()) ** 2)) if _concentrable(s) else None


def gini(x: np.ndarray) -> float | None:
    """Gini ``(2 Σ i x_(i) − (n+1) Σ x) / (n Σ x)``, ascending order, missing values left out;
    None for negative values or a zero total (docs/method/utility.md; docs/reference/worked-examples.md F-MA-10)."""
    return _gini_sorted(_sorted_values(x))


def concentration_ratio(x: np.ndarray, k: int) -> float | None:
    """CR_k: share of the total held by the k largest values (non-negative data only)."""
    return _cr_sorted(_sorted_values(x), k)


def herfindahl(x: np.ndarray) -> float | None:
    """Herfindahl index ``Σ (x_i / Σ x)²`` (non-negative data only)."""
    return _herfindahl_sorted(_sorted_values(x))


@dataclass(frozen=True)
class Description:
    """Dispersion and concentration of one variable in one file (no thresholds)."""

    n: int
    mean: float | None
    median: float | None
    sd: float | None
    cv: float | None
    robust_cv: float | None
    gini: float | None
    concentration: tuple[tuple[int, float | None], ...]
    herfindahl: float | None

    def to_dict(self) -> dict:
        out = {k: json_float(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}
        out["concentration"] = {f"CR{k}": json_float(v) for k, v in self.concentration}
        return out


def describe(x: np.ndarray, ks: Sequence[int] = DEFAULT_CR) -> Description:
    """CV = sd/mean, robust CV = IQR/median, Gini, CR_k and Herfindahl of the non-missing
    values (docs/method/utility.md); a ratio with a zero denominator is None."""
    x = _sorted_values(x)
    n = x.size
    if n == 0:
        return Description(
            0, None, None, None, None, None, None, tuple((k, None) for k in ks), None
        )
    mean, median = float(x.mean()), float(np.median(x))
    sd = float(x.std(ddof=1)) if n > 1 else None
    q1, q3 = np.quantile(x, [0.25, 0.75])
    return Description(
        n=n,
        mean=mean,
        median=median,
        sd=sd,
        cv=sd / mean if sd is not None and mean != 0 else None,
        robust_cv=float(q3 - q1) / median if median != 0 else None,
        gini=_gini_sorted(x),
        concentration=tuple((k, _cr_sorted(x, k)) for k in ks),
        herfindahl=_herfindahl_sorted(x),
    )


def shannon_entropy(codes: np.ndarray) -> float | None:
    """Shannon entropy in bits of the category distribution (missing values left out)."""
    codes = np.asarray(codes)
    codes = codes[codes >= 0]
    if codes.size == 0:
        return None
    p = np.bincount(codes) / codes.size
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum()) + 0.0


def conditional_entropy(original: np.ndarray, release: np.ndarray) -> float | None:
    """``H(X | X^a)`` in bits over aligned units with both codes present: the uncertainty about
    the original category left after seeing the released one (entropy-based loss, Kooiman et
    al. 1997)."""
    ok = (original >= 0) & (release >= 0)
    if not ok.any():
        return None
    a, b = original[ok], release[ok]
    radix = int(a.max()) + 1
    cells, joint = np.unique(b * radix + a, return_inverse=True)
    joint_p = np.bincount(joint) / a.size
    given = (np.bincount(b) / a.size)[cells // radix]
    return float(np.sum(joint_p * np.log2(given / joint_p))) + 0.0


@dataclass(frozen=True)
class CategoricalLoss:
    """A categorical variable: entropies in both files and, with unit identity, the share of
    changed values and ``H(original | release)`` (docs/method/utility.md)."""

    variable: str
    entropy_original: float | None
    entropy_release: float | None
    aligned: int | None = None
    changed: int | None = None
    conditional_entropy: float | None = None

    @property
    def changed_share(self) -> float | None:
        return self.changed / self.aligned if self.aligned and self.changed is not None else None

    def to_dict(self) -> dict:
        return {**self.__dict__, "changed_share": json_float(self.changed_share)}


def categorical_loss(
    variable: str,
    original: np.ndarray,
    release: np.ndarray,
    rows: tuple[np.ndarray, np.ndarray] | None = None,
) -> CategoricalLoss:
    """Entropy loss of one categorical variable from each file's category codes (−1 missing);
    ``rows`` = aligned row positions (original, release) adds the changed values and
    ``H(original | release)`` over units with both codes present (docs/method/utility.md)."""
    entropies = shannon_entropy(original), shannon_entropy(release)
    if rows is None:
        return CategoricalLoss(variable, *entropies)
    a, b = original[rows[0]], release[rows[1]]
    both = (a >= 0) & (b >= 0)
    return CategoricalLoss(variable, *entropies, aligned=int(both.sum()), changed=int((a[both] != b[both]).sum()),
                           conditional_entropy=conditional_entropy(a, b))
