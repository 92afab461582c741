"""Every release column's role, declared or inferred by one conservative rule
(docs/method/roles.md).

The roles are ``COLUMN_ROLES``: the unit id (ground truth, hidden from the intruder), a direct
identifier, a key (what the intruder holds), a target (what he wants to learn), a weight, a
cluster id (household, enterprise), a stratum, other. A declared role always wins; an
undeclared column gets the first rule that applies:

1. the id columns of the attack are the unit id; the declared targets are targets;
2. the intruder's key and blocking columns are keys;
3. a direct identifier: named like one (``ssn``, ``passport``, ``email``, ``phone``,
   ``given_name``, ...), or named like an identifier (``rec_id``, ``person_nr``) and unique
   per record, or unique per record and agreeing with the external file's identifiers;
4. a weight: named like one (``weight``, ``wgt``, ``gewicht``, ``expansion``);
5. a cluster id: named like an identifier but shared by several records, or named like a
   cluster (``household``, ``hid``, ``psu``, ``enterprise``);
6. a stratum: named like one (``stratum``, ``strata``);
7. other: an unbinned cell variable, codes or text, whole numbers with few values (at most
   ``CODE_VALUES`` distinct values, each used ten times on average: numeric codes), a column
   absent from the original;
8. a target: every other number column (the handbook's "all metric variables").

Ids, weights, cluster ids and strata are never scored; a released direct identifier keeps the
verdict from PASSED unless declared harmless.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.columns import code_column, is_number, numeric_column
from attack.io.table import Table, frame_of, source_name
from attack.risk.targets import Target

#: Whole-number columns with at most this many distinct values are taken for codes.
CODE_VALUES = 12
#: Share of records a column must tell apart to count as unique per record.
UNIQUE_SHARE = 0.95
#: Share of a unique column's values found among the external identifiers that makes it one.
AGREEMENT_SHARE = 0.5

_DIRECT_NAMES = re.compile(r"^(ssn|soc_sec(_id)?|social_security(_number|_id)?|passport(_no|_nr|_number)?|e_?mail|"
                           r"(tele)?phone(_number)?|mobile|iban|tax_?id|given_name|first_name|forename|full_name|"
                           r"vorname|svnr|steuer_?id)$")
_ID_TOKENS = {"id", "ids", "nr", "no", "ident", "identifier", "idnr", "recid", "uid", "pid", "hid", "hhid"}
_CLUSTER_TOKENS = {"hid", "hhid", "household", "hh", "family", "enterprise", "firm", "company", "establishment",
                   "cluster", "psu"}
_WEIGHT_TOKENS = {"weight", "weights", "wgt", "wght", "gewicht", "expansion", "hrf", "pweight", "fweight", "wt"}
_STRATUM_TOKENS = {"stratum", "strata", "strat"}


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()) if t]


@dataclass(frozen=True)
class ColumnRole:
    """One release column's role, whether it was inferred, and why."""

    column: str
    role: str
    inferred: bool
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"role": self.role, "inferred": self.inferred, "reason": self.reason}


@dataclass(frozen=True)
class ColumnRoles:
    """The role of every release column and the targets scored."""

    columns: tuple[ColumnRole, ...]
    targets: tuple[Target, ...]
    harmless: tuple[str, ...] = ()
    by_name: Mapping[str, ColumnRole] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {c.column: c for c in self.columns})

    @property
    def direct_identifiers(self) -> tuple[str, ...]:
        """Released direct identifiers, harmless or not."""
        return tuple(c.column for c in self.columns if c.role == "direct_identifier")

    @property
    def blocking_identifiers(self) -> tuple[str, ...]:
        """Released direct identifiers not declared harmless: each keeps the verdict from PASSED."""
        return tuple(c for c in self.direct_identifiers if c not in self.harmless)

    def to_dict(self) -> dict[str, object]:
        return {
            "columns": {c.column: c.to_dict() for c in self.columns},
            "inferred": [c.column for c in self.columns if c.inferred],
            "direct_identifiers": list(self.direct_identifiers),
            "harmless": list(self.harmless),
        }


def assign_roles(
    release: Table | pd.DataFrame,
    truth: Table | pd.DataFrame,
    *,
    declared: Mapping[str, str],
    targets: Sequence[Target] | None,
    id_columns: Collection[str],
    key_columns: Collection[str],
    code_columns: Collection[str],
    cell_columns: Collection[str],
    external_ids: np.ndarray | None = None,
    harmless: Sequence[str] = (),
) -> ColumnRoles:
    """The role of every column of ``release`` (module docstring) and the targets: the declared
    ones plus the columns declared as targets, or else every column inferred as a target."""
    frame = frame_of(release)
    for name in [*declared, *harmless]:
        if name not in frame.columns:
            raise InputError("a column given a role (or declared harmless) is not in the release",
                             file=source_name(release), column=name)
    named = {t.name: t for t in targets or ()}
    external = None if external_ids is None else pd.unique(pd.Series(external_ids, dtype=object).dropna())
    columns = []
    for column in frame.columns:
        if column in declared:
            columns.append(ColumnRole(column, declared[column], False, "declared"))
        elif column in id_columns:
            columns.append(ColumnRole(column, "unit_id", False, "the attack's unit id column (ground truth)"))
        elif column in named:
            columns.append(ColumnRole(column, "target", False, "declared target"))
        elif column in key_columns:
            columns.append(ColumnRole(column, "key", False, "the intruder's key or blocking variable"))
        else:
            role, reason = _inferred(release, truth, column, code_columns, cell_columns, external)
            columns.append(ColumnRole(column, role, True, reason))
    declared_targets = [Target(c.column) for c in columns if c.role == "target" and c.reason == "declared"
                        and c.column not in named]
    if targets is not None or declared_targets:
        chosen = tuple([*(targets or ()), *declared_targets])
    else:
        chosen = tuple(Target(c.column) for c in columns if c.role == "target")
    return ColumnRoles(tuple(columns), chosen, tuple(harmless))


def _inferred(release: Table | pd.DataFrame, truth: Table | pd.DataFrame, column: str,
              codes: Collection[str], cells: Collection[str], external: np.ndarray | None) -> tuple[str, str]:
    """The role and reason of an undeclared column: rules 3 to 8 of the module docstring."""
    return _by_name(release, column, external) or _by_content(release, truth, column, codes, cells)


def _by_name(release: Table | pd.DataFrame, column: str, external: np.ndarray | None) -> tuple[str, str] | None:
    """Rules 3 to 6: a direct identifier, a weight, a cluster id or a stratum, from the column's
    name (and, for an identifier, its uniqueness); None when none applies."""
    tokens = _tokens(column)
    lower = "_".join(tokens)
    if _DIRECT_NAMES.match(lower):
        return "direct_identifier", "named like a direct identifier"
    idlike = bool(tokens) and (tokens[-1] in _ID_TOKENS or lower in ("rec_id", "record_id"))
    unique = _unique(release, column)
    if idlike and unique:
        return "direct_identifier", "named like an identifier and unique per record"
    if unique and external is not None and external.size and _agrees(release, column, external):
        return "direct_identifier", "unique per record and agrees with the external file's identifiers"
    if set(tokens) & _WEIGHT_TOKENS or any(t.startswith("weight") for t in tokens):
        return "weight", "named like a weight"
    if idlike or set(tokens) & _CLUSTER_TOKENS:
        return "cluster_id", "named like an identifier or a cluster (household, enterprise) and shared by records"
    if set(tokens) & _STRATUM_TOKENS:
        return "stratum", "named like a stratum"
    return None


def _by_content(release: Table | pd.DataFrame, truth: Table | pd.DataFrame, column: str,
                codes: Collection[str], cells: Collection[str]) -> tuple[str, str]:
    """Rules 7 and 8: other (cell variables, codes, text, numeric codes, columns the original
    lacks) or a target (every other number column)."""
    frame = frame_of(release)
    if column in cells:
        return "other", "a cell variable (codes)"
    if column not in frame_of(truth).columns:
        return "other", "not in the original"
    if not is_number(frame, column, codes) or not is_number(frame_of(truth), column, codes):
        return "other", "codes or text (declare it as a target to score it)"
    numbers = numeric_column(release, column)
    present = numbers[~np.isnan(numbers)]
    distinct = np.unique(present).size
    if present.size and np.all(present == np.round(present)) and distinct <= CODE_VALUES \
            and distinct * 10 <= present.size:
        return "other", f"numeric codes ({distinct} whole-number values)"
    return "target", "a number column (every metric variable, the handbook's default)"


def _unique(release: Table | pd.DataFrame, column: str) -> bool:
    """Whether the column tells (nearly) every record apart."""
    values = frame_of(release)[column]
    return bool(values.notna().sum() >= 3 and values.nunique() >= UNIQUE_SHARE * len(values))


def _agrees(release: Table | pd.DataFrame, column: str, external: np.ndarray) -> bool:
    """Whether at least ``AGREEMENT_SHARE`` of the column's values are external identifiers (a
    column of fractional numbers never is)."""
    values = frame_of(release)[column].dropna()
    if pd.api.types.is_float_dtype(values.dtype) and not bool((values == np.round(values)).all()):
        return False
    codes = pd.Series(code_column(release, column, warn=False), dtype=object).dropna()
    return bool(len(codes) and codes.isin(external).mean() >= AGREEMENT_SHARE)


__all__ = ["ColumnRole", "ColumnRoles", "assign_roles"]
