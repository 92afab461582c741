"""One named protection step applied to a file: the method catalogue behind ``attack protect``.

Every method of docs/method/protection.md declares itself next to its function
(``attack.protect.registry.protection_method``) with its command-line name and typed, bounded
parameters; ``METHODS`` (an ``attack.io.plugins.Registry``) imports every module of
``attack.protect`` when it is first read, so a method module needs no import line anywhere.
``protect`` validates the parameters, converts the columns a method needs to
numbers (CSV files are read as text), runs the method on the whole file or separately within
each group of ``by`` (docs/method/protection.md, within-cell application) and returns the release with a
log: method, parameters, seed, the child seed of each group, counts of changed values and the
warnings the method raised.
"""

from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.errors import InputError, did_you_mean
from attack.io.columns import key_information
from attack.io.notices import gathered
from attack.io.readers import Table, frame_of, numeric_column
from attack.io.rules import Seed, checked
from attack.io.table import IN_MEMORY, file_name
from attack.protect.params import params_model, parse_params
from attack.protect.registry import METHODS, REQUIRED, Method, Param, protection_method
from attack.report.notebook import one_line, result_html

__all__ = ["FAMILIES", "METHODS", "Method", "Param", "Protected", "listing", "params_model", "parse_params", "protect",
           "protection_method"]

FAMILIES = ("reduction", "microaggregation", "noise", "categorical", "swapping", "synthesis")
"""Order of the families in ``listing``; a method of another family is listed after them."""


def listing() -> str:
    """The catalogue as ``attack protect --list-methods`` prints it: one line per method (name
    and summary), grouped by family, followed by one indented line per parameter (kind, default,
    bounds and meaning)."""
    order = {family: i for i, family in enumerate(FAMILIES)}
    lines = []
    for name, method in sorted(METHODS.items(), key=lambda item: order.get(item[1].family, len(FAMILIES))):
        lines.append(f"{name:18} {method.summary}")
        for param_name, param in method.params.items():
            default = ("required" if param.default is REQUIRED else "optional" if param.default is None
                       else f"default {param.default!r}")
            choices = f" one of {'|'.join(param.choices)}," if param.choices else ""
            meaning = f": {param.description}" if param.description else ""
            lines.append(f"{'':20}{param_name} ({param.kind},{choices} {default}){meaning}")
    return "\n".join(lines)



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

    def to_dict(self) -> dict:
        """The protection log (what ``attack protect --log`` writes): method, parameters, rows
        and changed values. The release itself is record-level data and stays in ``.release``."""
        return copy.deepcopy(self.log)


@gathered
@checked
def protect(
    data: Table | pd.DataFrame,
    method: str,
    params: Sequence[str] | Mapping[str, Any] = (),
    columns: Sequence[str] = (),
    by: Sequence[str] = (),
    seed: Seed = 0,
) -> Protected:
    """Apply one protection method to ``data`` (docs/method/protection.md).

    ``columns`` are the variables the method changes; ``by`` runs it separately within each
    group of those categorical variables, each group with its own child seed of
    ``SeedSequence(seed)`` in sorted group order. The result keeps the row order of ``data``
    except for ``formal`` (which shuffles) and methods that delete units.
    """
    step = _planned(data, method, params, columns, by)
    data = frame_of(data)
    work = _prepared(step, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        details: dict = {}
        if step.by:
            release, seeds = _within_groups(work, step.spec, step.columns, step.typed, step.by, seed)
        else:
            release, seeds = _call(step.spec, work, step.columns, step.typed, seed, details), None
    release = input_types(data, release)
    log = {
        "method": method,
        "family": step.spec.family,
        "params": {k: _loggable(v) for k, v in step.given.items()},
        "columns": step.columns,
        "by": step.by,
        "seed": seed if step.spec.seeded else None,
        "group_seeds": seeds,
        "rows_in": len(data),
        "rows_out": len(release),
        "changed_values": _changed(work, release, step.columns),
        "warnings": sorted({str(w.message) for w in caught}),
        "details": details,
        "tool": f"attack {__version__}",
    }
    return Protected(release.reset_index(drop=True), log)


@dataclass(frozen=True)
class _Step:
    """A checked protection step: the method, its parameters as given and as the function takes
    them (tables as frames), the protected columns, the grouping variables and the input's name."""

    spec: Method
    given: dict[str, Any]
    typed: dict[str, Any]
    columns: list[str]
    by: list[str]
    source: str | None


def _planned(data: Table | pd.DataFrame, method: str, params: Sequence[str] | Mapping[str, Any],
             columns: Sequence[str], by: Sequence[str]) -> _Step:
    """The step ``protect`` will carry out, refused here when the method, a parameter or a
    column does not fit."""
    if method not in METHODS:
        raise InputError(f"unknown protection method {method!r}; expected one of {', '.join(METHODS)}")
    spec = METHODS[method]
    given = parse_params(spec, params)
    typed = {k: frame_of(v) if isinstance(v, Table) else v for k, v in given.items()}
    step = _Step(spec, given, typed, list(columns), list(by), file_name(data))
    _check_columns(step, frame_of(data))
    return step


def _check_columns(step: _Step, data: pd.DataFrame) -> None:
    method, columns, by = step.spec.name, step.columns, step.by
    if step.spec.column_mode != "none" and not columns:
        raise InputError(f"method {method} needs --columns")
    if step.spec.column_mode == "none" and columns:
        raise InputError(f"method {method} takes no --columns")
    for column in [*columns, *by]:
        if column not in data.columns:
            raise InputError(f"column not found in the input{did_you_mean(column, data.columns)}", file=step.source,
                             column=column)
    if by and step.spec.column_mode == "none":
        raise InputError(f"method {method} cannot run within groups (--by)")
    if set(by) & set(columns):
        raise InputError("a --by variable cannot also be protected in the same step")


def _prepared(step: _Step, data: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``data`` ready for the method: key columns named with the file, the columns of
    a numeric method (and its ``rank_by``) as numbers."""
    work = data.copy()
    if step.spec.name in KEYED:  # the columns are key variables: named with the file before the method runs
        for column in step.columns:
            values = work[column]
            key_information(step.source or IN_MEMORY, column, values.isna().to_numpy(), int(values.nunique()))
    if step.spec.numeric:
        for column in [*step.columns, *([step.typed["rank_by"]] if step.typed.get("rank_by") else [])]:
            if column not in work.columns:
                raise InputError(f"column not found in the input{did_you_mean(column, work.columns)}",
                                 file=step.source, column=column)
            work[column] = numeric_column(work, column)
    return work


#: Methods whose columns are categorical key variables (refused when missing throughout).
KEYED = ("local-suppression", "risk-suppression")

#: A whole number written as text, without a leading zero (which an integer would lose).
_WHOLE = re.compile(r"-?(?:0|[1-9][0-9]*)")


def input_types(data: pd.DataFrame, release: pd.DataFrame) -> pd.DataFrame:
    """``release`` with each column in its input's type wherever the protected values allow it:
    an integer column (codes, counts) whose values are still whole numbers stays integer —
    nullable ``Int64`` where the method left missing values (a suppressed code is missing, not
    ``4.0``) — and a text column stays text. A column whose values the method made non-whole
    (the means of microaggregation, noise) keeps its numbers with decimals: rounding them would
    change the release. Integer codes a method wrote as text (recoded, coarsened to leading
    digits) are integers again when every one is a whole number without a leading zero."""
    out = release.copy()
    for column in out.columns.intersection(data.columns):
        before, values = data[column].dtype, out[column]
        if values.dtype == before:
            continue
        if pd.api.types.is_integer_dtype(before) and pd.api.types.is_numeric_dtype(values.dtype) \
                and not pd.api.types.is_bool_dtype(values.dtype):
            present = pd.to_numeric(values, errors="coerce").dropna().astype(float)
            if bool(np.isfinite(present).all()) and bool((present == np.round(present)).all()) \
                    and (present.abs() < 2**53).all():
                missing = bool(values.isna().any()) or isinstance(before, pd.api.extensions.ExtensionDtype)
                out[column] = values.astype("Int64" if missing else before)
        elif pd.api.types.is_integer_dtype(before) and not pd.api.types.is_numeric_dtype(values.dtype) \
                and values.dropna().map(lambda v: isinstance(v, str) and _WHOLE.fullmatch(v) is not None).all():
            out[column] = pd.to_numeric(values).astype("Int64" if values.isna().any() else before)
        elif isinstance(before, pd.StringDtype) and values.dtype == object \
                and values.map(lambda v: isinstance(v, str) or pd.isna(v)).all():
            out[column] = values.astype(before)
    return out


def _call(spec: Method, data: pd.DataFrame, columns: list[str], params: dict[str, Any], seed: int,
          details: dict[str, Any] | None = None) -> pd.DataFrame:
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
        details[column or "all"] = result.to_dict()
    return result.data


def _within_groups(data: pd.DataFrame, spec: Method, columns: list[str], params: dict[str, Any],
                   by: Sequence[str], seed: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """Run the method in every group of ``by``; child seeds follow the sorted group keys."""
    keys = data[list(by)].astype("string").fillna("(missing)")
    groups = keys.groupby(list(by)).indices  # group key -> row positions
    children: np.ndarray | list[int] = np.random.SeedSequence(seed).generate_state(len(groups)) if groups else []
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
    if isinstance(value, (Table, pd.DataFrame)):
        return {"source": file_name(value), "matrix": frame_of(value).astype(float).to_dict()}
    return value
