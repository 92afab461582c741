"""Local suppression of categorical key values (docs/method/frequency-risk.md, protection).

``local_suppression`` sets the fewest key values it can find to missing so that every record's
key combination is shared by at least ``k`` records, a missing value matching any value (the
frequencies of sdcMicro's ``freqCalc`` with ``alpha = 1``). It follows sdcMicro's ``kAnon``
heuristic: in passes until no record is below ``k``, the records below ``k`` are visited from
the rarest combination on; for each, the records that differ from it in the fewest observed keys
are its candidates, and the record's value is suppressed in the least important key in which
some candidate differs. sdcMicro suppresses a value of every record listed at the start of a
pass; the variant that skips records an earlier suppression of the pass already made
``k``-anonymous usually needs fewer. By default both are run and the one with fewer
suppressions is kept, so no more values are suppressed than sdcMicro's ``kAnon`` would on the
same data and importance.

``risk_suppression`` suppresses one key of every record whose individual risk exceeds a
threshold (sdcMicro's ``localSupp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from attack._loops import njit
from attack.errors import InputError
from attack.protect.registry import REQUIRED, Param, protection_method
from attack.protect.validated import validated
from attack.risk.frequencies import key_codes, key_frequencies
from attack.risk.frequency import frequency_risk

Variant = Literal["best", "sdcmicro"]


@dataclass(frozen=True)
class Suppression:
    """A release with suppressed key values and where they are."""

    data: pd.DataFrame = field(repr=False)
    keys: tuple[str, ...]
    suppressed: dict[str, int]
    settings: dict

    @property
    def total(self) -> int:
        return sum(self.suppressed.values())

    def to_dict(self) -> dict:
        return {"keys": list(self.keys), "suppressed": dict(self.suppressed), "total": self.total,
                **self.settings}


@validated
@protection_method(
    "local-suppression", family="reduction", numeric=False, seeded=False,
    summary="suppress the fewest key values so that every key combination is shared by k records "
            "(missing matches any value; sdcMicro kAnon-style)",
    params={"k": Param("int", 2, help="minimum frequency of every key combination", ge=1),
            "importance": Param("ints", None, help="rank per key, 1 = most important (suppressed last), e.g. 1|3|2"),
            "combs": Param("ints", None, help="sizes of key subsets to protect in turn, e.g. 3|2 (default: all keys)"),
            "variant": Param("str", "best", ("best", "sdcmicro"),
                             "sdcmicro: kAnon's passes exactly; best: also a variant, the fewer suppressions kept")})
def local_suppression(
    data: pd.DataFrame,
    columns: Sequence[str],
    k: int = 2,
    importance: Sequence[int] | None = None,
    combs: Sequence[int] | None = None,
    variant: Variant = "best",
) -> Suppression:
    """k-anonymity of the key ``columns`` by suppressing values (module docstring).

    Parameters
    ----------
    data:
        The file; only ``columns`` change.
    columns:
        Categorical key variables.
    k:
        Every key combination must be shared by at least ``k`` records.
    importance:
        Rank of each key, ``1`` = most important (suppressed last), as sdcMicro's ``importance``;
        default: keys with fewer categories are more important.
    combs:
        Sizes of key subsets: k-anonymity is reached in turn for every subset of each size
        (all keys at once when not given).
    variant:
        ``sdcmicro`` repeats kAnon's passes exactly; ``best`` also runs the passes that skip a
        record an earlier suppression of the same pass made k-anonymous and keeps whichever
        suppresses fewer values (never more than sdcMicro).
    """
    keys = list(columns)
    if k > len(data):
        raise InputError(f"k = {k} is larger than the number of records ({len(data)})")
    codes = key_codes(data, keys)
    m = len(keys)
    rank = _importance(codes, [int(x) for x in importance] if importance is not None else None, m)
    sizes = None if combs is None else [int(c) for c in combs]
    if sizes is not None and any(s < 1 or s > m for s in sizes):
        raise InputError(f"every size in combs must lie between 1 and the number of keys ({m})")
    before = codes < 0
    tried = {skip: _suppressed(codes.copy(), rank, k, sizes, skip)
             for skip in ((False, True) if variant == "best" else (False,))}
    skip = min(tried, key=lambda s: (int((tried[s] < 0).sum()), not s))
    new = (tried[skip] < 0) & ~before
    out = data.copy()
    for j, key in enumerate(keys):
        _suppress(out, key, new[:, j])
    settings = {"k": k, "importance": [int(x) for x in rank], "combs": sizes, "variant": variant,
                "passes": "skip resolved records" if skip else "sdcmicro"}
    return Suppression(out, tuple(keys), {key: int(new[:, j].sum()) for j, key in enumerate(keys)}, settings)


def _suppressed(codes: np.ndarray, rank: np.ndarray, k: int, sizes: list[int] | None, skip: bool) -> np.ndarray:
    """``codes`` after k-anonymising all keys or, in turn, every subset of each size in ``sizes``."""
    m = codes.shape[1]
    if sizes is None:
        _k_anonymise(codes, list(range(m)), rank, k, skip)
    else:
        for size in sizes:
            for subset in combinations(range(m), size):
                _k_anonymise(codes, list(subset), rankdata(rank[list(subset)], method="min"), k, skip)
    return codes


def _importance(codes: np.ndarray, importance: list[int] | None, m: int) -> np.ndarray:
    if importance is None:
        categories = [len(np.unique(codes[codes[:, j] >= 0, j])) for j in range(m)]
        order = np.argsort(categories, kind="stable")  # fewest categories = most important = 1
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(1, m + 1)
        return rank
    if len(importance) != m or not all(1 <= x <= m for x in importance):
        raise InputError(f"importance needs one rank from 1 to {m} per key, got {importance}")
    return np.asarray(importance, dtype=np.int64)


def _k_anonymise(codes: np.ndarray, subset: list[int], rank: np.ndarray, k: int, skip_resolved: bool) -> None:
    """Suppress values of ``codes[:, subset]`` in place until every record has ``f_k ≥ k``."""
    view = codes[:, subset]
    # least important first; among equal ranks the earlier key first (sdcMicro's order)
    try_order = np.argsort(-rank, kind="stable")
    while True:
        fk = key_frequencies(view)[0]
        problems = np.flatnonzero(fk < k)
        if not len(problems):
            break
        problems = problems[np.argsort(fk[problems], kind="stable")]
        for i in problems.tolist():
            compatible, nearest_differs = _scan(view, i)
            if skip_resolved and compatible >= k:
                continue
            view[i, next(j for j in try_order if nearest_differs[j])] = -1
    codes[:, subset] = view


@njit()
def _scan(view: np.ndarray, i: int) -> tuple[int, np.ndarray]:
    """For record ``i``: its f_k by sdcMicro's rule with alpha = 1 (the records it is compatible
    with, where a complete record of two or more keys does not count records whose keys are all
    missing; ``attack.risk.frequencies``), and the keys in which one of its nearest records
    differs from it (nearest: fewest keys observed in both and different, at least one); when
    only compatible records exist, every key it observes."""
    n, m = view.shape
    row = view[i]
    complete = m > 1
    for j in range(m):
        if row[j] < 0:
            complete = False
    distance = np.empty(n, dtype=np.int64)
    compatible = 0
    nearest = m + 1
    for r in range(n):
        d = 0
        observed = False
        for j in range(m):
            v = view[r, j]
            if v >= 0:
                observed = True
                if row[j] >= 0 and v != row[j]:
                    d += 1
        distance[r] = d
        if d == 0:
            if observed or not complete:
                compatible += 1
        elif d < nearest:
            nearest = d
    differs = np.zeros(m, dtype=np.bool_)
    if nearest > m:  # only compatible records: give up its least important key
        for j in range(m):
            differs[j] = row[j] >= 0
        return compatible, differs
    for r in range(n):
        if distance[r] == nearest:
            for j in range(m):
                if row[j] >= 0 and view[r, j] >= 0 and view[r, j] != row[j]:
                    differs[j] = True
    return compatible, differs


@validated
@protection_method(
    "risk-suppression", family="reduction", numeric=False, seeded=False,
    summary="suppress one key where the individual (Benedetti-Franconi) risk exceeds a threshold (sdcMicro localSupp)",
    params={"threshold": Param("float", REQUIRED, help="individual risk above which the value is suppressed"),
            "variable": Param("str", None, help="key to suppress (default: the one with most categories)"),
            "weight": Param("str", None, help="sampling weight column (default: risk 1/f_k)"),
            "method": Param("str", "approx", ("approx", "exact"))})
def risk_suppression(
    data: pd.DataFrame,
    columns: Sequence[str],
    threshold: float,
    variable: str | None = None,
    weight: str | None = None,
    method: Literal["approx", "exact"] = "approx",
) -> Suppression:
    """Suppress ``variable`` (default: the key with the most categories) in every record whose
    individual risk on the key ``columns`` exceeds ``threshold`` (sdcMicro's ``localSupp``)."""
    keys = list(columns)
    if variable is None:
        codes = key_codes(data, keys)
        variable = keys[int(np.argmax([len(np.unique(codes[codes[:, j] >= 0, j])) for j in range(len(keys))]))]
    if variable not in keys:
        raise InputError(f"the variable to suppress must be one of the keys, got {variable!r}")
    risk = frequency_risk(data, keys, weight=weight, method=method, suda=False, check_keys=False).risk
    hit = (risk > threshold) & data[variable].notna().to_numpy()
    out = data.copy()
    _suppress(out, variable, hit)
    settings = {"threshold": threshold, "variable": variable, "weight": weight, "method": method}
    return Suppression(out, tuple(keys), {key: int(hit.sum()) if key == variable else 0 for key in keys}, settings)


def _suppress(frame: pd.DataFrame, column: str, mask: np.ndarray) -> None:
    """Set ``frame[column]`` missing where ``mask`` holds (in place)."""
    if mask.any():
        frame[column] = frame[column].mask(pd.Series(mask, index=frame.index))
