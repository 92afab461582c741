"""One named protection step applied to a file: the method catalogue behind ``attack protect``.

Every method of docs/method/protection.md is registered here under its command-line name with its typed
parameters. ``protect`` validates the parameters, converts the columns a method needs to
numbers (CSV files are read as text), runs the method on the whole file or separately within
each group of ``by`` (docs/method/protection.md, within-cell application) and returns the release with a
log: method, parameters, seed, the child seed of each group, counts of changed values and the
warnings the method raised.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
)

from attack._version import __version__
from attack.errors import InputError, from_validation
from attack.io.readers import numeric_column
from attack.protect import (
    formal,
    microaggregation,
    multivariate_ma,
    noise,
    pram,
    recoding,
    simulation,
    suppression,
    swapping,
    synthesis,
)
from attack.report.notebook import one_line, result_html

__all__ = ["METHODS", "Method", "Param", "Protected", "params_model", "parse_params", "protect"]


@dataclass(frozen=True)
class Param:
    """A method parameter: its type (``int``, ``float``, ``str``, ``bool``, ``list``, or a file:
    ``mapping`` (CSV from,to) or ``matrix`` (CSV transition matrix)) and default (``REQUIRED`` when the user must give it)."""

    kind: str
    default: Any = None
    choices: tuple[str, ...] = ()
    help: str = ""


REQUIRED = object()


@dataclass(frozen=True)
class Method:
    """A registered protection method.

    ``function`` is called as ``function(data, <columns>, **params[, seed=...])`` where ``columns`` is passed as
    ``columns=[...]`` (``column_mode="list"``), one at a time as ``column=...``
    (``"each"``), or not at all (``"none"``).
    """

    name: str
    function: Callable[..., Any]
    family: str
    summary: str
    params: Mapping[str, Param] = field(default_factory=dict)
    column_mode: str = "list"
    numeric: bool = True
    seeded: bool = True


def _ma(name, function, summary, params=None, seeded=True):
    return Method(name, function, "microaggregation", summary, params or {}, seeded=seeded)


_CORRECT = Param("str", "none", ("none", "trans", "trans_grupp"),
                 "moment correction afterwards: whole file (_trans) or blocks of 100")


def _noise(name, function, summary, params):
    return Method(name, function, "noise", summary, {**params, "correct": _CORRECT})


_K = Param("int", 3, help="group size (>= 3)")
_F = Param("float", REQUIRED, help="shift f of the factor mixture, e.g. 0.08")
_S = Param("float", REQUIRED, help="standard deviation s of each component, e.g. 0.02")

METHODS: dict[str, Method] = {m.name: m for m in [
    Method("formal", formal.formal_release, "reduction",
           "drop direct identifiers and shuffle the rows (FORMAL, docs/method/protection.md)",
           {"identifiers": Param("list", [], help="direct identifier columns to drop")},
           column_mode="none", numeric=False),
    Method("coarsen", recoding.coarsen, "reduction",
           "hierarchical codes to a prefix length, explicit merges or a preset",
           {"level": Param("int", None, help="keep this many leading characters"),
            "merges": Param("mapping", None, help="CSV with columns from,to"),
            "preset": Param("str", None, ("kse_suf", "ehs_suf"), "Part XI industry map")},
           column_mode="each", numeric=False, seeded=False),
    Method("recode", recoding.recode, "reduction",
           "categories through a mapping file with columns from,to",
           {"mapping": Param("mapping", REQUIRED, help="CSV with columns from,to"),
            "default": Param("str", None, help="code for values not in the mapping (default: keep)")},
           column_mode="each", numeric=False, seeded=False),
    Method("top-code", recoding.top_code, "reduction",
           "cap large values or replace them by their mean",
           {"cut": Param("float", None), "quantile": Param("float", None),
            "largest": Param("int", None),
            "replace": Param("str", "censor", ("censor", "mean"))},
           column_mode="each", seeded=False),
    Method("bottom-code", recoding.bottom_code, "reduction",
           "raise small values or replace them by their mean",
           {"cut": Param("float", None), "quantile": Param("float", None),
            "smallest": Param("int", None, help="number of smallest units"),
            "replace": Param("str", "censor", ("censor", "mean"))},
           column_mode="each", seeded=False),
    Method("drop", recoding.drop_columns, "reduction",
           "delete the listed variables", {}, numeric=False, seeded=False),
    Method("drop-units", recoding.drop_units_where, "reduction",
           "delete the units matching a filter, e.g. \"employees >= 250\"",
           {"which": Param("str", REQUIRED, help="pandas filter expression")},
           column_mode="none", numeric=False, seeded=False),
    Method("local-suppression", suppression.local_suppression, "reduction",
           "suppress the fewest key values so that every key combination is shared by k records "
           "(missing matches any value; sdcMicro kAnon-style)",
           {"k": Param("int", 2, help="minimum frequency of every key combination"),
            "importance": Param("list", None, help="rank per key, 1 = most important (suppressed last), e.g. 1|3|2"),
            "combs": Param("list", None, help="sizes of key subsets to protect in turn, e.g. 3|2 (default: all keys)"),
            "variant": Param("str", "best", ("best", "sdcmicro"),
                             "sdcmicro: kAnon's passes exactly; best: also a variant, the fewer suppressions kept")},
           numeric=False, seeded=False),
    Method("risk-suppression", suppression.risk_suppression, "reduction",
           "suppress one key where the individual (Benedetti-Franconi) risk exceeds a threshold (sdcMicro localSupp)",
           {"threshold": Param("float", REQUIRED, help="individual risk above which the value is suppressed"),
            "variable": Param("str", None, help="key to suppress (default: the one with most categories)"),
            "weight": Param("str", None, help="sampling weight column (default: risk 1/f_k)"),
            "method": Param("str", "approx", ("approx", "exact"))},
           numeric=False, seeded=False),
    _ma("separate-ma", microaggregation.separate_microaggregation,
        "each variable separately, groups of k, last group k..2k-1",
        {"k": _K, "min_gap": Param("float", 0.0, help="minimum relative gap between group means")}),
    _ma("hoehne-ma", microaggregation.hoehne_microaggregation,
        "Höhne's variance-preserving one-dimensional MA (Höhne (2008))",
        {"m": Param("int", 3, help="(initial) group size"),
         "variable_size": Param("bool", False, help="search the size in [m, 2m-1]"),
         "variant": Param("str", "hoehne", ("hoehne", "documented")),
         "remainder": Param("str", None, ("merge_last", "own_group"),
                            "default: merge_last, own_group for the documented variant")}),
    _ma("mdav", microaggregation.mdav,
        "joint MA of all listed variables by MDAV on z-scores, as sdcMicro", {"k": _K}),
    _ma("pca-ma", multivariate_ma.pca_microaggregation,
        "joint MA of consecutive records in the order of the first principal component (sdcMicro pca)",
        {"k": _K}),
    _ma("rmd-ma", multivariate_ma.rmd_microaggregation,
        "joint MA around the records with the largest robust Mahalanobis distance (sdcMicro rmd)",
        {"k": _K}),
    _ma("grouped-ma", microaggregation.grouped_microaggregation,
        "joint MA within variable groups; correlation triples when no groups are given",
        {"k": _K, "groups": Param("list", None, help="groups as a|b|c;d|e")}),
    _ma("random-ma", microaggregation.random_microaggregation,
        "joint MA of random groups (MA1G_stoch)", {"k": _K}),
    _ma("bootstrap-ma", microaggregation.bootstrap_microaggregation,
        "each unit averaged with two units drawn with replacement (MA1G_BS)", {}),
    _ma("punctual-ma", microaggregation.punctual_microaggregation,
        "joint mean of the k market leaders per cell, with a flag",
        {"by": Param("list", REQUIRED, help="cell variables, e.g. nace|east_west"),
         "rank_by": Param("str", REQUIRED, help="defining variable, e.g. turnover"),
         "k": _K, "flag": Param("str", "punctual_ma")}),
    _noise("additive-noise", noise.additive_noise,
           "correlated additive noise d·Σ, Kim's correction by default",
           {"d": Param("float", REQUIRED), "kim_correction": Param("bool", True)}),
    _noise("mult-noise", noise.mixture_noise,
           "one mixture factor per record, Mult_f_s", {"f": _F, "s": _S}),
    _noise("hoehne-noise", noise.hoehne_noise,
           "Höhne's multiplicative noise Hoe_f_s", {"f": _F, "s": _S}),
    _noise("lognormal-noise", noise.lognormal_noise,
           "Kim-Winkler log-normal noise",
           {"d": Param("float", REQUIRED), "shift": Param("float", 0.0)}),
    _noise("controlled-noise", noise.controlled_noise,
           "sum-preserving multiplicative noise",
           {"f": _F, "s": _S, "hoehne_start": Param("bool", False)}),
    Method("pram", pram.pram, "categorical",
           "post-randomisation; invariant PRAM with lam, or a given matrix",
           {"lam": Param("float", None, help="probability of keeping the category"),
            "matrix": Param("matrix", None, help="CSV transition matrix, first column = category")},
           numeric=False),
    Method("rank-swap", swapping.rank_swap, "swapping",
           "swap values between ranks at most p% apart", {"p": Param("float", REQUIRED)}),
    Method("lhs", simulation.latin_hypercube, "synthesis",
           "Latin hypercube sample of the listed variables with the original rank correlations "
           "restored (Iman-Conover); use --by for subpopulations", {}),
    Method("kernel-resampling", simulation.kernel_resampling, "synthesis",
           "smoothed bootstrap: records drawn with replacement plus Gaussian kernels of Silverman's "
           "bandwidth times a factor, mean and variance kept (Gottschalk)",
           {"factor": Param("float", 1.0, help="bandwidth factor (the handbook tried up to 2.1)"),
            "variant": Param("str", "correlation", ("correlation", "univariate"),
                             "kernels with the original correlations, or independent"),
            "adaptive": Param("bool", True, help="narrower bandwidths where a non-negative variable "
                                                 "would turn negative (Gottschalk)")}),
    Method("synthesis", synthesis.synthesis, "synthesis",
           "replace the listed variables by sequential synthesis (synthpop's cart and others), the rest kept",
           {"method": Param("str", "cart", ("cart", "rf", "norm", "normrank", "logreg", "polyreg", "sample")),
            "minbucket": Param("int", 5, help="minimum leaf size of CART"),
            "cp": Param("float", 1e-4, help="complexity parameter of CART"),
            "smoothing": Param("str", "none", ("none", "density")),
            "proper": Param("bool", False, help="fit the models to a bootstrap sample"),
            "special_codes": Param("list", [], help="numbers that are codes, e.g. -8|-9")},
           numeric=False),
]}
"""Protection methods by command-line name."""


def parse_params(method: Method, pairs: Sequence[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Typed parameters of ``method`` from ``key=value`` strings (or a mapping of already typed
    values, as in a scenario file), with the defaults filled in, validated by the method's
    schema (``params_model``); unknown or missing ones fail with the parameter named."""
    given: dict[str, Any] = {}
    if isinstance(pairs, Mapping):
        given = dict(pairs)
    else:
        for pair in pairs:
            if "=" not in pair:
                raise InputError(f"--param must look like key=value, got {pair!r}")
            key, value = pair.split("=", 1)
            given[key.strip()] = value.strip()
    model = params_model(method.name)
    try:
        return dict(model.model_validate(given))
    except ValidationError as exc:
        error = from_validation(exc, model=model)
    message = error.message.replace("unknown field", "unknown parameter").replace("this field", "this parameter")
    raise InputError(f"method {method.name}, parameter {error.field}: {message}")


@cache
def params_model(name: str) -> type[BaseModel]:
    """The pydantic schema of a method's parameters, built from its ``Param`` entries:
    numbers and flags parsed from text as well, a choice among its values, a list from ``a|b``
    (groups ``a|b;c|d``), a mapping or matrix read from a CSV file."""
    method = METHODS[name]
    fields: dict[str, Any] = {}
    for param_name, param in method.params.items():
        annotation = _ANNOTATIONS[param.kind]
        if param.choices:
            annotation = Literal[param.choices]  # type: ignore[valid-type]
        if param.default is not REQUIRED and param.default is None:
            annotation = annotation | None
        default = ... if param.default is REQUIRED else param.default
        fields[param_name] = (annotation, Field(default, description=param.help or None))
    return create_model(f"{name}-parameters", __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True),
                        **fields)


def _listed(value: Any) -> Any:
    if isinstance(value, str):
        nested = [[x.strip() for x in part.split("|") if x.strip()] for part in value.split(";")]
        return nested if ";" in value else nested[0]
    return value


def _mapping(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    from attack.protect.recoding import read_mapping

    return read_mapping(str(value))


def _matrix(value: Any) -> Any:
    if isinstance(value, pd.DataFrame):
        return value
    from attack.io.readers import read_table

    table = read_table(str(value))
    return table.set_index(table.columns[0]).apply(pd.to_numeric, errors="coerce")


def _file_value(read: Callable[[Any], Any]) -> BeforeValidator:
    def check(value: Any) -> Any:
        try:
            return read(value)
        except InputError as exc:
            raise ValueError(exc.message) from None

    return BeforeValidator(check)


_ANNOTATIONS: dict[str, Any] = {
    "int": int,
    "float": Annotated[float, Field(allow_inf_nan=False)],
    "str": str,
    "bool": bool,
    "list": Annotated[list, BeforeValidator(_listed)],
    "mapping": Annotated[dict, _file_value(_mapping)],
    "matrix": Annotated[Any, _file_value(_matrix)],
}


@dataclass(frozen=True)
class Protected:
    """A candidate release and what was done to it (docs/method/protection.md ``log``)."""

    release: pd.DataFrame
    log: dict

    def _facts(self) -> list[str]:
        changed = ", ".join(f"{c} {n}" for c, n in self.log.get("changed_values", {}).items()) or "none"
        return [f"method={self.log.get('method')!r}", f"rows {self.log.get('rows_in')} -> {self.log.get('rows_out')}",
                f"changed values: {changed}"]

    def __repr__(self) -> str:
        return one_line("Protected", None, *self._facts())

    def _repr_html_(self) -> str:
        changed = self.log.get("changed_values", {})
        table = pd.DataFrame({"column": list(changed), "changed values": list(changed.values())})
        return result_html("Candidate release (not yet attacked)", None, self._facts(), table,
                           full=".log; the release itself: .release")


def protect(
    data: pd.DataFrame,
    method: str,
    params: Sequence[str] | Mapping[str, Any] = (),
    columns: Sequence[str] = (),
    by: Sequence[str] = (),
    seed: int = 0,
) -> Protected:
    """Apply one protection method to ``data`` (docs/method/protection.md).

    ``columns`` are the variables the method changes; ``by`` runs it separately within each
    group of those categorical variables, each group with its own child seed of
    ``SeedSequence(seed)`` in sorted group order. The result keeps the row order of ``data``
    except for ``formal`` (which shuffles) and methods that delete units.
    """
    if method not in METHODS:
        raise InputError(f"unknown protection method {method!r}; expected one of {', '.join(METHODS)}")
    spec = METHODS[method]
    typed = parse_params(spec, params)
    columns = list(columns)
    if spec.column_mode != "none" and not columns:
        raise InputError(f"method {method} needs --columns")
    if spec.column_mode == "none" and columns:
        raise InputError(f"method {method} takes no --columns")
    for column in [*columns, *by]:
        if column not in data.columns:
            raise InputError("column not found in the input", file=data.attrs.get("source"),
                             column=column)
    if by and spec.column_mode == "none":
        raise InputError(f"method {method} cannot run within groups (--by)")
    if set(by) & set(columns):
        raise InputError("a --by variable cannot also be protected in the same step")
    work = data.copy()
    if spec.numeric:
        for column in [*columns, *([typed["rank_by"]] if typed.get("rank_by") else [])]:
            if column not in work.columns:
                raise InputError("column not found in the input", file=data.attrs.get("source"),
                                 column=column)
            work[column] = numeric_column(work, column)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        details: dict = {}
        if by:
            release, seeds = _within_groups(work, spec, columns, typed, by, seed)
        else:
            release, seeds = _call(spec, work, columns, typed, seed, details), None
    log = {
        "method": method,
        "family": spec.family,
        "params": {k: _loggable(v) for k, v in typed.items()},
        "columns": columns,
        "by": list(by),
        "seed": seed if spec.seeded else None,
        "group_seeds": seeds,
        "rows_in": len(data),
        "rows_out": len(release),
        "changed_values": _changed(work, release, columns),
        "warnings": sorted({str(w.message) for w in caught}),
        "details": details,
        "tool": f"attack {__version__}",
    }
    release = release.reset_index(drop=True)
    release.attrs = {}
    return Protected(release, log)


def _call(spec: Method, data: pd.DataFrame, columns: list[str], params: dict, seed: int,
          details: dict | None = None):
    """Run the method; methods that return a result object (a recoding with its code map)
    hand over their frame, and the rest of the object goes into ``details``."""
    fn = spec.function
    extra = {"seed": seed} if spec.seeded else {}
    if "correct" in params:
        params = dict(params)
        correct = params.pop("correct")
        noisy = _call(spec, data, columns, params, seed, details)
        if correct == "none":
            return noisy
        from attack.protect.noise import moment_correction

        return moment_correction(data, noisy, columns, block=None if correct == "trans" else 100)
    if spec.column_mode == "none":
        return _frame_of(fn(data, **params, **extra), "", details)
    if spec.column_mode == "each":
        for column in columns:
            data = _frame_of(fn(data, column, **params, **extra), column, details)
        return data
    return _frame_of(fn(data, columns, **params, **extra), "", details)


def _frame_of(result: Any, column: str, details: dict | None) -> pd.DataFrame:
    if isinstance(result, pd.DataFrame):
        return result
    if details is not None:
        details[column or "all"] = result.as_dict()
    return result.data


def _within_groups(data, spec, columns, params, by, seed):
    """Run the method in every group of ``by``; child seeds follow the sorted group keys."""
    keys = data[list(by)].astype("string").fillna("(missing)")
    groups = keys.groupby(list(by)).indices  # group key -> row positions
    children = np.random.SeedSequence(seed).generate_state(len(groups)) if groups else []
    parts, seeds = [], {}
    for key, child in zip(sorted(groups), children, strict=True):
        rows = groups[key]
        group = key if isinstance(key, tuple) else (key,)
        part = data.iloc[rows]
        try:
            done = _call(spec, part, columns, params, int(child))
        except InputError as exc:
            label = ", ".join(f"{b}={v}" for b, v in zip(by, group, strict=True))
            raise InputError(f"in the group {label}: {exc.message}", column=exc.column) from exc
        parts.append(done)
        seeds["|".join(group)] = int(child)
    out = pd.concat(parts)
    return out.loc[data.index[data.index.isin(out.index)]], seeds


def _changed(before: pd.DataFrame, after: pd.DataFrame, columns: list[str]) -> dict[str, int]:
    """Number of values of each protected column that differ from the input (same rows)."""
    out = {}
    common = before.index.intersection(after.index)
    for column in columns:
        if column not in after.columns:
            out[column] = int(len(common))
            continue
        old, new = before.loc[common, column], after.loc[common, column]
        same = (old == new).fillna(False) | (old.isna() & new.isna())
        out[column] = int((~same.astype(bool)).sum())
    return out


def _loggable(value: Any) -> Any:
    if isinstance(value, pd.DataFrame):
        return {"source": value.attrs.get("source"), "matrix": value.astype(float).to_dict()}
    return value
