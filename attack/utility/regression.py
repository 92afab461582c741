"""Reference regression models fitted on the original and on the release (docs/method/utility.md).

Estimators: OLS (classical or HC1 robust standard errors), logit and probit (maximum likelihood by
Newton–Raphson with step halving; standard errors from the observed information, or with ``hc1``
the sandwich ``H⁻¹ (Σ s_i s_iᵀ) H⁻¹ · n/(n − k)``). p-values: t(n − k) for OLS, normal otherwise.
Everything is numpy/scipy; no statsmodels.

Formula grammar (R-like, deliberately small)::

    formula  := term "~" rhs
    rhs      := item (("+" | "-") item)*
    item     := "1" | "0" | term
    term     := name | "log(" name ")"
    name     := identifier [A-Za-z_][A-Za-z0-9_.]*  |  `any text in backquotes`

The intercept is included unless the right-hand side contains ``0`` or ``- 1``. ``log`` is the
natural logarithm; a row whose logged value is ≤ 0 is dropped from the estimation sample, like a
row with a missing value (listwise), and both counts are reported (docs/method/utility.md, log-domain
coverage).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special, stats

from attack.errors import InputError
from attack.io.readers import Table, frame_of, numeric_column, source_name

INTERCEPT = "intercept"
ESTIMATORS = ("ols", "logit", "probit")
SE_TYPES = ("classical", "hc1")
BANDS: tuple[tuple[float, str], ...] = ((0.01, "<0.01"), (0.05, "<0.05"), (0.10, "<0.10"))
LAST_BAND = ">=0.10"
MAX_ITERATIONS = 100

_TOKEN = re.compile(r"\s*(?:(`[^`]*`)|([A-Za-z_][A-Za-z0-9_.]*)|(\d+)|([~+\-()]))")


def _number(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Term:
    """A column, optionally logged."""

    column: str
    log: bool = False

    @property
    def name(self) -> str:
        return f"log({self.column})" if self.log else self.column


@dataclass(frozen=True)
class Formula:
    """A parsed model formula (grammar in the module docstring)."""

    text: str
    response: Term
    regressors: tuple[Term, ...]
    intercept: bool

    @property
    def coefficient_names(self) -> tuple[str, ...]:
        names = tuple(t.name for t in self.regressors)
        return ((INTERCEPT,) if self.intercept else ()) + names

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.column for t in (self.response, *self.regressors)))


def parse_formula(text: str) -> Formula:
    """Parse ``"y ~ x1 + log(x2) - 1"``; raises ``InputError`` on a syntax error."""
    tokens = _tokenize(text)
    pos = 0

    def fail(what: str) -> InputError:
        return InputError(f"model formula {text!r}: {what}")

    def term() -> Term:
        nonlocal pos
        if pos >= len(tokens):
            raise fail("a term is missing at the end")
        kind, value = tokens[pos]
        if kind != "name":
            raise fail(f"expected a column name, found {value!r}")
        if pos + 1 < len(tokens) and tokens[pos + 1] == ("op", "("):
            if value != "log":
                raise fail(f"unknown function {value!r}; only log(...) is supported")
            if (
                pos + 3 >= len(tokens)
                or tokens[pos + 2][0] != "name"
                or (tokens[pos + 3] != ("op", ")"))
            ):
                raise fail("expected log(column)")
            pos += 4
            return Term(tokens[pos - 2][1], log=True)
        pos += 1
        return Term(value)

    response = term()
    if pos >= len(tokens) or tokens[pos] != ("op", "~"):
        raise fail("expected '~' after the response")
    pos += 1
    intercept, regressors, sign = True, [], "+"
    while True:
        if pos < len(tokens) and tokens[pos][0] == "number":
            if tokens[pos][1] not in ("0", "1"):
                raise fail(f"only 0 or 1 may stand alone, found {tokens[pos][1]!r}")
            intercept = (tokens[pos][1] == "1") == (sign == "+")
            pos += 1
        elif sign == "-":
            raise fail("only '- 1' (no intercept) may be subtracted")
        else:
            regressors.append(term())
        if pos == len(tokens):
            break
        if tokens[pos][0] != "op" or tokens[pos][1] not in "+-":
            raise fail(f"expected '+' or '-', found {tokens[pos][1]!r}")
        sign = tokens[pos][1]
        pos += 1
    names = [t.name for t in regressors]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise fail(f"term given twice: {', '.join(duplicated)}")
    if not regressors and not intercept:
        raise fail("the model has no regressor")
    return Formula(text, response, tuple(regressors), intercept)


def _tokenize(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise InputError(f"model formula {text!r}: cannot read {text[pos:].strip()!r}")
        quoted, name, number, op = match.groups()
        if quoted is not None:
            out.append(("name", quoted[1:-1]))
        elif name is not None:
            out.append(("name", name))
        elif number is not None:
            out.append(("number", number))
        else:
            out.append(("op", op))
        pos = match.end()
    return out


@dataclass(frozen=True)
class Model:
    """A reference model: formula, estimator (ols/logit/probit), standard errors (classical/hc1)
    and, for a jointly microaggregated release, its group size (t correction, docs/method/utility.md)."""

    formula: str
    estimator: str = "ols"
    se: str = "classical"
    ma_group_size: int | None = None
    parsed: Formula = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.estimator not in ESTIMATORS:
            raise InputError(f"estimator must be one of {', '.join(ESTIMATORS)}")
        if self.se not in SE_TYPES:
            raise InputError(f"standard errors must be one of {', '.join(SE_TYPES)}")
        if self.ma_group_size is not None and self.ma_group_size < 2:
            raise InputError("the microaggregation group size must be at least 2")
        object.__setattr__(self, "parsed", parse_formula(self.formula))

    @property
    def label(self) -> str:
        return f"{self.estimator}: {self.formula}"


@dataclass(frozen=True)
class Design:
    """Estimation data of one file: ``rows`` are the used row positions (listwise);
    ``log_defined`` flags, per file row, that every logged value is > 0 (or missing)."""

    y: np.ndarray
    x: np.ndarray
    rows: np.ndarray
    n_missing: int
    n_log_undefined: int
    log_defined: np.ndarray


def build_design(frame: Table | pd.DataFrame, formula: Formula) -> Design:
    """Response and regressor matrix; rows with a missing value or a logged value ≤ 0 dropped.

    Raises ``InputError`` naming every formula column the frame lacks.
    """
    missing = [c for c in formula.columns if c not in frame_of(frame).columns]
    if missing:
        raise InputError(
            f"model {formula.text!r} uses columns the file lacks: {', '.join(missing)}",
            file=source_name(frame),
            column=missing[0],
        )
    raw = {c: numeric_column(frame, c) for c in formula.columns}
    n = len(frame)
    present = np.ones(n, dtype=bool)
    log_defined = np.ones(n, dtype=bool)
    for t in (formula.response, *formula.regressors):
        column = raw[t.column]
        present &= ~np.isnan(column)
        if t.log:
            log_defined &= ~(column <= 0)
    used = present & log_defined
    rows = np.flatnonzero(used)

    def values(t: Term) -> np.ndarray:
        v = raw[t.column][rows]
        return np.log(v) if t.log else v

    columns = ([np.ones(rows.size)] if formula.intercept else []) + [
        values(t) for t in formula.regressors
    ]
    return Design(
        y=values(formula.response),
        x=np.column_stack(columns),
        rows=rows,
        n_missing=int((~present).sum()),
        n_log_undefined=int((present & ~log_defined).sum()),
        log_defined=log_defined,
    )


@dataclass(frozen=True)
class Fit:
    """Estimates of one model on one file (``statistic`` is t for OLS, z for logit/probit)."""

    names: tuple[str, ...]
    coef: np.ndarray
    se: np.ndarray
    statistic: np.ndarray
    p: np.ndarray
    n_used: int
    n_missing: int
    n_log_undefined: int
    iterations: int = 0

    def to_dict(self) -> dict:
        return {
            "n_used": self.n_used,
            "n_missing_dropped": self.n_missing,
            "n_log_undefined_dropped": self.n_log_undefined,
            "iterations": self.iterations,
            "coefficients": {
                name: {
                    "b": _number(self.coef[i]),
                    "se": _number(self.se[i]),
                    "statistic": _number(self.statistic[i]),
                    "p": _number(self.p[i]),
                }
                for i, name in enumerate(self.names)
            },
        }


def singular_terms(x: np.ndarray, names: Sequence[str], tol: float = 1e-10) -> list[str]:
    """Names of the columns that are (numerically) linear combinations of the columns before
    them: the QR diagonal is at most ``tol`` times the column's norm (or the column is 0)."""
    diagonal = np.abs(np.diag(np.linalg.qr(x, mode="r")))
    norms = np.linalg.norm(x, axis=0)
    return [names[j] for j in range(x.shape[1]) if not diagonal[j] > tol * norms[j]]


def ols(y: np.ndarray, x: np.ndarray, se: str = "classical") -> tuple[np.ndarray, np.ndarray]:
    """OLS coefficients and their covariance matrix (classical or HC1, MacKinnon–White)."""
    n, k = x.shape
    q, r = np.linalg.qr(x)
    coef = np.linalg.solve(r, q.T @ y)
    resid = y - x @ coef
    r_inv = np.linalg.inv(r)
    xtx_inv = r_inv @ r_inv.T
    if se == "classical":
        cov = xtx_inv * (resid @ resid / (n - k))
    else:
        meat = (x * resid[:, None] ** 2).T @ x
        cov = xtx_inv @ meat @ xtx_inv * (n / (n - k))
    return coef, cov


def _binary_terms(eta: np.ndarray, y: np.ndarray, estimator: str) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, per-unit score factor and per-unit negative Hessian weight."""
    if estimator == "logit":
        p = special.expit(eta)
        loglik = float(np.sum(y * eta - np.logaddexp(0.0, eta)))
        return loglik, y - p, p * (1 - p)
    q = 2 * y - 1
    log_cdf = stats.norm.logcdf(q * eta)
    lam = q * np.exp(stats.norm.logpdf(eta) - log_cdf)
    return float(log_cdf.sum()), lam, lam * (lam + eta)


def binary_mle(
    y: np.ndarray, x: np.ndarray, estimator: str, se: str = "classical"
) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """Logit or probit by Newton–Raphson with step halving; returns coefficients, covariance
    (inverse observed information, or its HC1 sandwich), convergence flag and iterations."""
    n, k = x.shape
    coef = np.zeros(k)
    loglik, score, weight = _binary_terms(x @ coef, y, estimator)
    converged, iteration = False, 0
    while iteration < MAX_ITERATIONS:
        iteration += 1
        info = (x * weight[:, None]).T @ x
        try:
            step = np.linalg.solve(info, x.T @ score)
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(step)):
            break
        if np.max(np.abs(step)) < 1e-9 * (1 + np.max(np.abs(coef))):
            converged = True
            break
        size = 1.0
        new = _binary_terms(x @ (coef + step), y, estimator)
        while not new[0] >= loglik - 1e-12 * (1 + abs(loglik)) and size > 1e-8:
            size /= 2
            new = _binary_terms(x @ (coef + size * step), y, estimator)
        coef = coef + size * step
        loglik, score, weight = new
    if not converged:
        return coef, np.full((k, k), np.nan), False, iteration
    cov = np.linalg.inv((x * weight[:, None]).T @ x)
    if se == "hc1":
        scores = x * score[:, None]
        cov = cov @ (scores.T @ scores) @ cov * (n / (n - k))
    return coef, cov, True, iteration


def fit_model(frame: Table | pd.DataFrame, model: Model) -> tuple[Fit, Design]:
    """Fit ``model`` on one file. Raises ``InputError`` when the design is not estimable
    (too few rows, collinear terms, a non-binary response for logit/probit)."""
    formula = model.parsed
    design = build_design(frame, formula)
    names = formula.coefficient_names
    n, k = design.x.shape
    name = source_name(frame)
    if n <= k:
        raise InputError(
            f"model {formula.text!r} has {n} usable rows for {k} coefficients "
            f"({design.n_missing} with missing values, {design.n_log_undefined} with log ≤ 0)",
            file=name,
        )
    bad = singular_terms(design.x, names)
    if bad:
        raise InputError(
            f"model {formula.text!r}: term(s) {', '.join(bad)} are constant or collinear",
            file=name,
        )
    if model.estimator == "ols":
        coef, cov = ols(design.y, design.x, model.se)
        iterations = 0
    else:
        if not np.isin(design.y, (0.0, 1.0)).all():
            raise InputError(
                f"{model.estimator} needs a 0/1 response", file=name, column=formula.response.column
            )
        coef, cov, converged, iterations = binary_mle(design.y, design.x, model.estimator, model.se)
        if not converged:
            raise InputError(
                f"{model.estimator} model {formula.text!r} did not converge in {iterations} "
                "iterations (perfect separation?)",
                file=name,
            )
    se = np.sqrt(np.diag(cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = coef / se
    if model.estimator == "ols":
        p = 2 * stats.t.sf(np.abs(statistic), n - k)
    else:
        p = 2 * stats.norm.sf(np.abs(statistic))
    fit = Fit(
        names, coef, se, statistic, p, n, design.n_missing, design.n_log_undefined, iterations
    )
    return fit, design


def significance_band(p: float | None) -> str | None:
    """Band of a p-value: <0.01, <0.05, <0.10 or >=0.10 (docs/method/utility.md)."""
    if p is None or not math.isfinite(p):
        return None
    for limit, label in BANDS:
        if p < limit:
            return label
    return LAST_BAND


def joint_ma_t_factor(n: int, k: int, groups: int) -> float:
    """Correction factor ``sqrt((M − K)/(n − K))`` for t-values after joint microaggregation
    (handbook :L5954; docs/reference/worked-examples.md F-U-6)."""
    if not n > k or not groups > k:
        raise InputError(f"t correction needs n > K and M > K (n={n}, K={k}, M={groups})")
    return math.sqrt((groups - k) / (n - k))


def relative_deviations(original: ArrayLike, release: ArrayLike) -> np.ndarray:
    """``|b^a − b| / |b|`` per coefficient, NaN where the original is 0 (docs/reference/worked-examples.md F-U-4)."""
    b = np.asarray(original, dtype=float)
    a = np.asarray(release, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, np.abs(a - b) / np.abs(b), np.nan)


def mean_relative_deviation(original: ArrayLike, release: ArrayLike) -> float | None:
    """Mean of ``relative_deviations`` over the coefficients with a non-zero original,
    intercept included (handbook Table 25.2 "Durchschnitt")."""
    rd = relative_deviations(original, release)
    rd = rd[np.isfinite(rd)]
    return float(rd.mean()) if rd.size else None


def ci_overlap(low_o: float, high_o: float, low_r: float, high_r: float) -> float | None:
    """Karr, Kohnen, Oganian, Reiter & Sanil (2006): the mean of the shares of each 95 % interval
    covered by their intersection, ½ [(U − L)/(Uₒ − Lₒ) + (U − L)/(Uᵣ − Lᵣ)] with L = max(Lₒ, Lᵣ),
    U = min(Uₒ, Uᵣ); 1 for identical intervals, 0 when they touch, negative (how far apart) when
    they do not overlap. None when an interval has no width."""
    low, high = max(low_o, low_r), min(high_o, high_r)
    if not (high_o > low_o and high_r > low_r) or not all(map(math.isfinite, (low_o, high_o, low_r, high_r))):
        return None
    return 0.5 * ((high - low) / (high_o - low_o) + (high - low) / (high_r - low_r))


def _interval(fit: Fit, i: int, estimator: str) -> tuple[float, float]:
    """The 95 % confidence interval of coefficient ``i`` (t quantile for OLS, normal otherwise)."""
    q = stats.t.ppf(0.975, fit.n_used - len(fit.names)) if estimator == "ols" else stats.norm.ppf(0.975)
    return float(fit.coef[i] - q * fit.se[i]), float(fit.coef[i] + q * fit.se[i])


@dataclass(frozen=True)
class CoefficientComparison:
    """One coefficient on both files (docs/method/utility.md)."""

    term: str
    original: float | None
    release: float | None
    deviation: float | None
    sign_change: bool | None
    p_original: float | None
    p_release: float | None
    band_original: str | None
    band_release: str | None
    t_original: float | None
    t_release: float | None
    t_deviation: float | None
    t_release_corrected: float | None
    ci_overlap: float | None = None

    @property
    def band_change(self) -> bool | None:
        if self.band_original is None or self.band_release is None:
            return None
        return self.band_original != self.band_release

    def to_dict(self) -> dict:
        return {**self.__dict__, "band_change": self.band_change}


@dataclass(frozen=True)
class ModelComparison:
    """A reference model fitted on both files. ``release_error`` says why the release fit
    failed (its coefficients are then None); log coverage needs aligned units."""

    model: Model
    original: Fit
    release: Fit | None
    release_error: str | None
    coefficients: tuple[CoefficientComparison, ...]
    mean_relative_deviation: float | None
    t_factor: float | None
    log_lost: int | None
    log_gained: int | None

    def to_dict(self) -> dict:
        return {
            "model": self.model.label,
            "formula": self.model.formula,
            "estimator": self.model.estimator,
            "se": self.model.se,
            "original": self.original.to_dict(),
            "release": None if self.release is None else self.release.to_dict(),
            "release_error": self.release_error,
            "coefficients": [c.to_dict() for c in self.coefficients],
            "mean_relative_deviation": self.mean_relative_deviation,
            "mean_ci_overlap": _mean([c.ci_overlap for c in self.coefficients]),
            "ma_group_size": self.model.ma_group_size,
            "t_correction_factor": self.t_factor,
            "log_coverage": {
                "original_log_undefined": self.original.n_log_undefined,
                "release_log_undefined": (
                    None if self.release is None else self.release.n_log_undefined
                ),
                "units_losing_defined_log": self.log_lost,
                "units_gaining_defined_log": self.log_gained,
            },
        }


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(np.mean(known)) if known else None


def _release_fit(release: Table | pd.DataFrame, model: Model) -> tuple[Fit | None, Design | None, str | None]:
    """The model fitted on the release, or why it cannot be: a release missing one of the
    model's columns is an input error, any other failure is recorded."""
    try:
        fit_r, design_r = fit_model(release, model)
    except InputError as exc:
        if any(c not in frame_of(release).columns for c in model.parsed.columns):
            raise
        return None, None, exc.message
    return fit_r, design_r, None


def _t_factor(fit_r: Fit | None, model: Model) -> float | None:
    """The t correction after joint microaggregation of groups of ``ma_group_size`` (None
    without it, or with too few groups)."""
    if fit_r is None or model.ma_group_size is None:
        return None
    k = len(fit_r.names)
    groups = fit_r.n_used // model.ma_group_size
    return joint_ma_t_factor(fit_r.n_used, k, groups) if groups > k else None


def _coefficient(fit_o: Fit, fit_r: Fit | None, i: int, factor: float | None,
                 estimator: str) -> CoefficientComparison:
    """Coefficient ``i`` on both files."""
    b = float(fit_o.coef[i])
    a = None if fit_r is None else float(fit_r.coef[i])
    t_o, p_o = _number(fit_o.statistic[i]), _number(fit_o.p[i])
    t_r = None if fit_r is None else _number(fit_r.statistic[i])
    p_r = None if fit_r is None else _number(fit_r.p[i])
    return CoefficientComparison(
        term=fit_o.names[i],
        original=b,
        release=a,
        deviation=None if a is None or b == 0 else abs(a - b) / abs(b),
        sign_change=None if a is None else b * a < 0,
        p_original=p_o,
        p_release=p_r,
        band_original=significance_band(p_o),
        band_release=significance_band(p_r),
        t_original=t_o,
        t_release=t_r,
        t_deviation=None if t_r is None or not t_o else abs(t_r - t_o) / abs(t_o),
        t_release_corrected=None if t_r is None or factor is None else t_r * factor,
        ci_overlap=None if fit_r is None else ci_overlap(*_interval(fit_o, i, estimator),
                                                         *_interval(fit_r, i, estimator)),
    )


def _log_coverage(design_o: Design, design_r: Design | None,
                  aligned: tuple[np.ndarray, np.ndarray] | None) -> tuple[int | None, int | None]:
    """Aligned units that lose and that gain a defined logarithm in the release."""
    if aligned is None or design_r is None:
        return None, None
    o_ok = design_o.log_defined[aligned[0]]
    r_ok = design_r.log_defined[aligned[1]]
    return int((o_ok & ~r_ok).sum()), int((~o_ok & r_ok).sum())


def compare_model(
    original: Table | pd.DataFrame,
    release: Table | pd.DataFrame,
    model: Model,
    aligned: tuple[np.ndarray, np.ndarray] | None = None,
) -> ModelComparison:
    """Fit ``model`` on both files and compare coefficient by coefficient.

    ``aligned`` = (original rows, release rows) of the units present in both files; with it the
    units that lose or gain a defined logarithm are counted. A model that cannot be estimated on
    the original raises ``InputError``; on the release the failure is recorded instead.
    """
    fit_o, design_o = fit_model(original, model)
    fit_r, design_r, error = _release_fit(release, model)
    factor = _t_factor(fit_r, model)
    rows = tuple(_coefficient(fit_o, fit_r, i, factor, model.estimator) for i in range(len(fit_o.names)))
    lost, gained = _log_coverage(design_o, design_r, aligned)
    mean_rd = None if fit_r is None else mean_relative_deviation(fit_o.coef, fit_r.coef)
    return ModelComparison(model, fit_o, fit_r, error, rows, mean_rd, factor, lost, gained)
