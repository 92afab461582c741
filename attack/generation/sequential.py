"""Sequential conditional synthesis (docs/method/synthesis.md; Nowok, Raab & Dibben 2016).

Columns are synthesised one after another in the **visit sequence**: the first is drawn from its
observed values, every later one from a model fitted on the original that predicts it from the
columns synthesised before it (its row of the **predictor matrix**), applied to the synthetic
values of those columns. A passive column (method ``"~ expression"``) is computed from
synthesised columns instead. Stratified synthesis runs the whole sequence separately within each
stratum; ``m`` copies use independent random streams of one seed.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from annotated_types import Ge, Lt

from attack._version import __version__
from attack.errors import InputError
from attack.generation.columns import MISSING_CATEGORY, VALUE, SynthColumn, describe
from attack.generation.methods import CATEGORICAL, METHODS, NUMERIC, Task
from attack.generation.predictors import Feature
from attack.io.notices import gathered
from attack.io.rules import Count, Seed, checked
from attack.io.writers import (
    check_outputs,
    json_file,
    record_file,
    write_files_atomic,
)
from attack.report.notebook import one_line, result_html

DEFAULT_METHOD = "cart"
SMOOTHING = ("none", "density")
#: The method used for the missing/special-code state of a numeric column, by the column's method.
_STATE_METHOD = {"norm": "polyreg", "normrank": "polyreg"}


@dataclass(frozen=True)
class Synthesis:
    """Synthetic copies of a file and how they were made.

    ``copies`` holds ``m`` frames with the original's columns (minus those left out), dtypes and
    categories; ``methods`` the method of each column, ``visit_sequence`` the order of synthesis,
    ``predictors`` the columns each model used. ``frame`` is the first copy.
    """

    copies: tuple[pd.DataFrame, ...]
    methods: dict[str, str]
    visit_sequence: tuple[str, ...]
    predictors: dict[str, tuple[str, ...]]
    settings: dict = field(default_factory=dict)

    @property
    def frame(self) -> pd.DataFrame:
        return self.copies[0]

    def __repr__(self) -> str:
        return one_line("Synthesis", None, f"{len(self.copies)} copies of {len(self.frame)} rows",
                        f"{len(self.methods)} columns in the order {', '.join(self.visit_sequence)}")

    def _repr_html_(self) -> str:
        table = pd.DataFrame([{"column": c, "method": self.methods.get(c),
                               "predictors": ", ".join(self.predictors.get(c, ()))} for c in self.visit_sequence])
        return result_html("Synthetic copies (not yet attacked)", None,
                           [f"{len(self.copies)} copies of {len(self.frame)} rows"], table, full=".to_dict()")

    def to_dict(self) -> dict:
        """The log of the synthesis (no data): methods, sequence, predictors, settings."""
        return {
            "methods": dict(self.methods),
            "visit_sequence": list(self.visit_sequence),
            "predictors": {k: list(v) for k, v in self.predictors.items()},
            **self.settings,
        }

    def write(self, out: str | Path, *, log: str | Path | None = None, original: str | Path | None = None) -> list[Path]:
        """Write the copies (record-level, owner-only: ``out``, or ``out_1``, ``out_2`` … for
        several) and the log (default ``out`` with ``.synthesis.json``), all or none of them,
        never over the ``original``. Returns the copies' paths."""
        targets = copy_paths(out, len(self.copies))
        log_path = Path(log) if log is not None else Path(out).with_suffix(".synthesis.json")
        check_outputs([*targets, log_path], [original])
        document = {"original": None if original is None else Path(original).name,
                    "outputs": [p.name for p in targets], **self.to_dict(), "tool": f"attack {__version__}"}
        files: dict[Path, tuple[str | bytes, int | None]] = {
            p: record_file(frame, p) for p, frame in zip(targets, self.copies, strict=True)}
        files[log_path] = json_file(document)
        write_files_atomic(files, inputs=[original])
        return targets


def copy_paths(out: str | Path, m: int) -> list[Path]:
    """Where ``m`` synthetic copies go: ``out`` itself for one, ``out_1`` … ``out_m`` for several."""
    out = Path(out)
    return [out] if m == 1 else [out.with_name(f"{out.stem}_{i}{out.suffix}") for i in range(1, m + 1)]


@gathered
@checked
def synthesize(
    frame: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    method: str | Mapping[str, str] = DEFAULT_METHOD,
    default_method: str = DEFAULT_METHOD,
    visit_sequence: Sequence[str] | None = None,
    predictors: Mapping[str, Sequence[str]] | None = None,
    minbucket: Count = 5,
    cp: Annotated[float, Ge(0), Lt(1)] = 1e-4,
    ntree: Count = 10,
    smoothing: Literal[SMOOTHING] = "none",  # type: ignore[valid-type]
    proper: bool = False,
    special_codes: Sequence[float] = (),
    strata: Sequence[str] = (),
    keep: Sequence[str] = (),
    m: Count = 1,
    rows: Count | None = None,
    seed: Seed = 0,
) -> Synthesis:
    """Synthesise ``frame`` column by column (docs/method/synthesis.md).

    ``columns``: the columns to synthesise (default all; leave identifiers out). ``method``: one
    method for every column or a mapping column → method (``sample``, ``cart``, ``rf``, ``norm``,
    ``normrank``, ``logreg``, ``polyreg``, or ``"~ expression"`` for a passive column computed from
    others, e.g. ``"~ turnover - costs"``); columns a mapping does not name get ``default_method``,
    and the first column of the visit sequence ``sample`` unless named, as in synthpop. ``visit_sequence``: the order (default the
    column order). ``predictors``: column → the columns its model uses (default: every column
    before it). ``minbucket``, ``cp``: minimum leaf size and complexity of CART; ``ntree``: trees
    of ``rf``; ``smoothing="density"``: Gaussian kernel smoothing of numbers drawn by ``sample``,
    ``cart`` and ``rf``; ``proper``: fit every model to a bootstrap sample. ``special_codes``:
    numbers that are codes, not values (e.g. ``-8``), synthesised as categories. ``strata``:
    synthesise separately within each stratum. ``keep``: columns kept as they are, row by row
    (partially synthetic data); they predict every synthesised column unless ``predictors`` says
    otherwise, except identifier-like columns (every value different). ``m`` copies of ``rows``
    rows (default as many as the original; with ``keep`` always so). Same input and seed, same
    copies.
    """
    methods: Mapping[str, str] = {} if isinstance(method, str) else method
    if isinstance(method, str):
        default_method = method
    plan = _plan(frame, columns, methods, default_method, visit_sequence, predictors, strata, keep)
    if len(frame) == 0:
        raise InputError("the original has no rows to synthesise from")
    if plan.keep and rows not in (None, len(frame)):
        raise InputError("partially synthetic data (keep) have as many rows as the original", field="rows")
    described = describe(frame, [*plan.keep, *(c for c in plan.visit if not plan.passive.get(c))], special_codes)
    options = dict(minbucket=minbucket, cp=cp, ntree=ntree, smoothing=smoothing, proper=proper)
    n_rows = len(frame) if rows is None else rows
    copies = []
    for stream in np.random.SeedSequence(seed).spawn(m):
        parts = []
        strata_groups = _strata(frame, plan.strata, n_rows)
        for (key, index, size), child in zip(strata_groups, stream.spawn(len(strata_groups)), strict=True):
            part = _run(frame.iloc[index], size, plan, described, options, np.random.default_rng(child))
            for name, value in zip(plan.strata, key, strict=True):
                part[name] = pd.Series([value] * size, dtype=frame[name].dtype)
            parts.append(part)
        out = pd.concat(parts, ignore_index=True) if parts else frame.iloc[:0].copy()
        copies.append(out[[c for c in frame.columns if c in plan.visit or c in plan.strata or c in plan.keep]])
    settings = {
        "minbucket": minbucket, "cp": cp, "ntree": ntree, "smoothing": smoothing, "proper": proper,
        "special_codes": [float(c) for c in special_codes], "strata": list(plan.strata),
        "keep": list(plan.keep), "m": m,
        "rows": n_rows, "seed": seed,
    }
    return Synthesis(tuple(copies), dict(plan.methods), plan.visit, plan.predictors, settings)


#: The settings in a synthesis log (``Synthesis.to_dict``) that ``synthesize`` takes back.
_RERUN = ("minbucket", "cp", "ntree", "smoothing", "proper", "special_codes", "strata", "keep")


def settings_from_log(log: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``synthesize`` that made a logged synthesis (without
    ``columns``, ``m``, ``rows`` and ``seed``): how an intruder who knows the method repeats it."""
    try:
        settings = {
            "method": dict(log["methods"]),
            "visit_sequence": list(log["visit_sequence"]),
            "predictors": {k: list(v) for k, v in log["predictors"].items() if v},
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"not a synthesis log: {exc} is missing or malformed") from None
    settings.update({k: log[k] for k in _RERUN if k in log})
    return settings


@dataclass(frozen=True)
class _Plan:
    visit: tuple[str, ...]
    methods: dict[str, str]
    predictors: dict[str, tuple[str, ...]]
    passive: dict[str, str]
    strata: tuple[str, ...]
    keep: tuple[str, ...]


def _plan(frame: pd.DataFrame, columns: Sequence[str] | None, method: Mapping[str, str], default_method: str,
          visit_sequence: Sequence[str] | None, predictors: Mapping[str, Sequence[str]] | None,
          strata: Sequence[str], keep: Sequence[str]) -> _Plan:
    strata, keep = tuple(strata), tuple(keep)
    visit = _visit(frame, columns, visit_sequence, strata, keep)
    given = dict(method)
    _known(frame, list(given), "method", allowed=visit)
    usable = tuple(c for c in keep if frame[c].nunique(dropna=False) < len(frame))
    # the first column has nothing to predict it from unless a kept column does: drawn from its values
    methods = {name: _method(name, given.get(name, "sample" if i == 0 and not usable else default_method))
               for i, name in enumerate(visit)}
    passive = {c: m[1:].strip() for c, m in methods.items() if m.startswith("~")}
    before = {name: usable + visit[:i] for i, name in enumerate(visit)}
    chosen_predictors = {}
    for name in visit:
        wanted = tuple((predictors or {}).get(name, before[name]))
        _known(frame, wanted, f"predictors.{name}", allowed=keep + visit[:visit.index(name)])
        chosen_predictors[name] = () if methods[name] == "sample" or name in passive else wanted
    _check_passive(frame, visit, passive, before)
    return _Plan(visit, methods, chosen_predictors, passive, strata, keep)


def _visit(frame: pd.DataFrame, columns: Sequence[str] | None, visit_sequence: Sequence[str] | None,
           strata: tuple[str, ...], keep: tuple[str, ...]) -> tuple[str, ...]:
    """The visit sequence: the given one or the chosen columns less strata and kept columns,
    every column of the file, none twice, none a stratum or kept."""
    _known(frame, strata, "strata")
    _known(frame, keep, "keep")
    if set(keep) & set(strata):
        raise InputError("a column cannot be both kept and a stratum", field="keep")
    chosen = [c for c in (columns if columns is not None else frame.columns) if c not in strata and c not in keep]
    _known(frame, chosen, "columns")
    visit = tuple(visit_sequence) if visit_sequence is not None else tuple(chosen)
    _known(frame, visit, "visit_sequence")
    if len(set(visit)) != len(visit):
        raise InputError("visit_sequence: a column is listed twice", field="visit_sequence")
    if set(visit) & (set(strata) | set(keep)):
        raise InputError("visit_sequence: a stratum or kept column cannot be synthesised", field="visit_sequence")
    return visit


def _method(name: str, method: str) -> str:
    """The method of column ``name``: a known one or a passive ``~ formula``."""
    method = method.strip()
    if not method.startswith("~") and method not in METHODS:
        hint = difflib.get_close_matches(method, list(METHODS), n=1)
        raise InputError(
            f"unknown synthesis method {method!r}"
            + (f"; did you mean {hint[0]!r}?" if hint else f"; expected one of {', '.join(METHODS)} or '~ formula'"),
            field=f"method.{name}",
        )
    return method


def _check_passive(frame: pd.DataFrame, visit: tuple[str, ...], passive: Mapping[str, str],
                   before: Mapping[str, tuple[str, ...]]) -> None:
    """Refuse a passive column whose formula uses a column synthesised after it."""
    for name, expression in passive.items():
        used = [c for c in frame.columns if c in expression]
        late = [c for c in used if c in visit and c not in before[name]]
        if late:
            raise InputError(f"the passive column {name!r} uses {late}, which come later in the visit sequence",
                             field=f"method.{name}")


def _known(frame: pd.DataFrame, names: Sequence[str], field_name: str, allowed: Sequence[str] | None = None) -> None:
    pool = list(frame.columns) if allowed is None else list(allowed)
    for name in names:
        if name not in pool:
            hint = difflib.get_close_matches(str(name), pool, n=1)
            where = "a column of the file" if allowed is None else "among the columns allowed here"
            raise InputError(f"{name!r} is not {where}" + (f"; did you mean {hint[0]!r}?" if hint else ""),
                             field=field_name)


def _strata(frame: pd.DataFrame, strata: tuple[str, ...], n_rows: int) -> list[tuple[tuple, np.ndarray, int]]:
    """``(stratum values, original rows, synthetic rows)``; sizes proportional to the original's
    (largest remainders), summing to ``n_rows``."""
    if not strata:
        return [((), np.arange(len(frame)), n_rows)]
    groups = frame.groupby(list(strata), sort=True, dropna=False).indices
    keys = list(groups)
    counts = np.array([len(groups[k]) for k in keys], dtype=float)
    exact = counts * n_rows / counts.sum()
    sizes = np.floor(exact).astype(int)
    remainder = n_rows - sizes.sum()
    sizes[np.argsort(-(exact - sizes), kind="stable")[:remainder]] += 1
    return [((k if isinstance(k, tuple) else (k,)), groups[k], int(s)) for k, s in zip(keys, sizes, strict=True) if s > 0]


def _run(original: pd.DataFrame, n: int, plan: _Plan, described: dict[str, SynthColumn], options: dict,
         rng: np.random.Generator) -> pd.DataFrame:
    """One pass of the visit sequence over one stratum: ``n`` synthetic rows."""
    observed: dict[str, dict[str, np.ndarray]] = {}
    synthetic: dict[str, dict[str, np.ndarray]] = {}
    out: dict[str, pd.Series] = {}
    for name in plan.keep:
        observed[name] = synthetic[name] = _parts(described[name], original[name])
        out[name] = original[name]
    for name in plan.visit:
        if name in plan.passive:
            frame = pd.DataFrame({k: v.reset_index(drop=True) for k, v in out.items()})
            out[name] = _passive(frame, name, plan.passive[name], n)
            continue
        column = described[name]
        observed[name] = _parts(column, original[name])
        features = [f for p in plan.predictors[name] for f in _features(described[p], observed[p], synthetic[p])]
        method = plan.methods[name]
        task = dict(column=name, n=n, rng=rng, decimals=column.decimals, **options)
        if column.kind == CATEGORICAL:
            values = METHODS[method](Task(kind=CATEGORICAL, observed=observed[name]["category"], features=features, **task))
            synthetic[name] = {"category": values}
            out[name] = column.restore(values)
            continue
        state = None
        known_obs = np.ones(len(original), dtype=bool)
        known_syn = np.ones(n, dtype=bool)
        if column.has_state:
            state_method = METHODS[_STATE_METHOD.get(method, method)]
            state = state_method(Task(kind=CATEGORICAL, observed=observed[name]["state"], features=features, **task))
            known_obs = observed[name]["state"] == VALUE
            known_syn = state == VALUE
        values = np.full(n, np.nan)
        if known_syn.any() and known_obs.any():
            inside = [Feature(f.kind, f.observed[known_obs], f.synthetic[known_syn]) for f in features]
            task["n"] = int(known_syn.sum())
            values[known_syn] = METHODS[method](
                Task(kind=NUMERIC, observed=observed[name]["number"][known_obs], features=inside, **task))
        synthetic[name] = {"number": values} | ({"state": state} if state is not None else {})
        out[name] = column.restore(values, state)
    return pd.DataFrame({name: series.reset_index(drop=True) for name, series in out.items()})


def _parts(column: SynthColumn, series: pd.Series) -> dict[str, np.ndarray]:
    if column.kind == CATEGORICAL:
        return {"category": column.categories(series)}
    parts = {"number": column.numbers(series)}
    if column.has_state:
        parts["state"] = column.state(series)
    return parts


def _features(column: SynthColumn, observed: dict, synthetic: dict) -> list[Feature]:
    """A synthesised column as predictor(s): its categories, or its numbers plus its state."""
    if column.kind == CATEGORICAL:
        return [Feature(CATEGORICAL, observed["category"], synthetic["category"])]
    features = [Feature(NUMERIC, observed["number"], synthetic["number"])]
    if column.has_state:
        features.append(Feature(CATEGORICAL, observed["state"], synthetic["state"]))
    return features


def _passive(frame: pd.DataFrame, name: str, expression: str, n: int) -> pd.Series:
    try:
        values = frame.eval(expression, engine="python")
    except Exception as exc:  # pandas raises many types for a bad formula
        raise InputError(f"the passive formula {expression!r} cannot be computed: {exc}", field=f"method.{name}") from None
    return pd.Series(np.broadcast_to(np.asarray(values), (n,)), name=name)


__all__ = ["DEFAULT_METHOD", "MISSING_CATEGORY", "Synthesis", "copy_paths", "settings_from_log", "synthesize"]
