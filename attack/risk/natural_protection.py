"""Natural protection: agreement tables on the verifiable pairs.

docs/method/intruders.md requires, for FORMAL and every realistic scenario, *agreement tables* that compare
each verifiable external record with its true original unit, as in handbook Table 36.4 (USt vs KSE)
and Tables 37.1–37.2 (EHS vs MARKUS); reference values are in docs/method/validation.md:

* hierarchical codes (WZ/NACE): share identical at each prefix depth (4-, 3-, 2-, 1-digit);
* plain categorical codes (BBR9, legal form): share identical;
* metric keys: distribution of the relative deviation ``|e − o| / |o|`` (o = original value) in the
  classes < 1%, 1–5%, 5–10%, 10–25%, 25–50%, ≥ 50% (left-closed), and the cumulative shares below
  1%, 5%, 10%, 25%, 50% (strict ``<``).

A pair is *verifiable* if the external record's id occurs among the original unit ids; external
records without an id are not verifiable and are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.io.readers import Table, code_column, id_column, numeric_column, require_columns

DEFAULT_LEVELS: tuple[int, ...] = (4, 3, 2, 1)
EDGES: tuple[float, ...] = (0.01, 0.05, 0.10, 0.25, 0.50)
CLASS_LABELS: tuple[str, ...] = ("< 1%", "1–5%", "5–10%", "10–25%", "25–50%", "≥ 50%")
BELOW_LABELS: tuple[str, ...] = ("1%", "5%", "10%", "25%", "50%")


def _share(count: int, n: int) -> float | None:
    return round(count / n, 4) if n else None


def _verifiable_pairs(
    external: Table | pd.DataFrame, external_id: str, original: Table | pd.DataFrame, original_id: str
) -> tuple[np.ndarray, np.ndarray]:
    """Row positions (external, original) of the verifiable pairs, in external row order."""
    ext_ids = id_column(external, external_id, allow_missing=True)
    orig_ids = id_column(original, original_id)
    position = {uid: i for i, uid in enumerate(orig_ids)}
    ext_rows, orig_rows = [], []
    for i, uid in enumerate(ext_ids):
        if uid is None or pd.isna(uid):
            continue
        j = position.get(uid)
        if j is not None:
            ext_rows.append(i)
            orig_rows.append(j)
    return np.asarray(ext_rows, dtype=np.int64), np.asarray(orig_rows, dtype=np.int64)


def _hierarchical(e: np.ndarray, o: np.ndarray, levels: Sequence[int]) -> dict:
    out = {}
    for k in levels:
        same = n = 0
        for a, b in zip(e, o, strict=True):
            if a is None or b is None or len(a) < k or len(b) < k:
                continue
            n += 1
            same += a[:k] == b[:k]
        out[str(k)] = {"same": int(same), "n": int(n), "share": _share(int(same), n)}
    return out


def _categorical(e: np.ndarray, o: np.ndarray) -> dict:
    missing = same = n = 0
    for a, b in zip(e, o, strict=True):
        if a is None or b is None:
            missing += 1
            continue
        n += 1
        same += a == b
    return {
        "same": int(same),
        "different": int(n - same),
        "missing": int(missing),
        "n": int(n),
        "share_same": _share(int(same), n),
    }


def _metric(e: np.ndarray, o: np.ndarray) -> dict:
    defined = np.isfinite(e) & np.isfinite(o) & (o != 0)
    dev = np.abs(e[defined] - o[defined]) / np.abs(o[defined])
    n = int(dev.size)
    index = np.searchsorted(np.asarray(EDGES), dev, side="right")  # left-closed classes
    counts = np.bincount(index, minlength=len(CLASS_LABELS))
    classes = {
        label: {"count": int(c), "share": _share(int(c), n)} for label, c in zip(CLASS_LABELS, counts, strict=True)
    }
    below = {}
    for label, edge in zip(BELOW_LABELS, EDGES, strict=True):
        c = int(np.count_nonzero(dev < edge))
        below[label] = {"count": c, "share": _share(c, n)}
    return {"n": n, "undefined": int(e.size - n), "classes": classes, "below": below}


def agreement_profile(
    external: Table | pd.DataFrame,
    external_id: str,
    original: Table | pd.DataFrame,
    original_id: str,
    *,
    hierarchical: Sequence[str] = (),
    categorical: Sequence[str] = (),
    metric: Sequence[str] = (),
    levels: Sequence[int] | None = None,
) -> dict:
    """Agreement tables between external records and their true original units (docs/method/intruders.md).

    Reproduces the layout of handbook Table 36.4 and Tables 37.1–37.2. Returns a JSON-ready dict::

        {"n_pairs": int,
         "hierarchical": {col: {"4": {"same", "n", "share"}, "3": ..., ...}},
         "categorical": {col: {"same", "different", "missing", "n", "share_same"}},
         "metric": {col: {"n", "undefined",
                          "classes": {"< 1%": {"count", "share"}, ..., "≥ 50%": ...},
                          "below": {"1%": {"count", "share"}, ..., "50%": ...}}}}

    Hierarchical level ``k`` counts only pairs whose codes both have at least ``k`` characters and
    compares ``code[:k]``. Categorical pairs with a missing side are counted as ``missing`` and
    excluded from ``n``. Metric pairs with a missing value or an original value of 0 are
    ``undefined`` and excluded. Shares are rounded to 4 decimals (``None`` if ``n`` is 0).
    """
    levels = tuple(int(k) for k in (DEFAULT_LEVELS if levels is None else levels))
    require_columns(external, [external_id, *hierarchical, *categorical, *metric])
    require_columns(original, [original_id, *hierarchical, *categorical, *metric])
    ext_rows, orig_rows = _verifiable_pairs(external, external_id, original, original_id)

    profile: dict = {"n_pairs": int(ext_rows.size), "levels": list(levels)}
    profile["hierarchical"] = {
        col: _hierarchical(
            code_column(external, col)[ext_rows], code_column(original, col)[orig_rows], levels
        )
        for col in hierarchical
    }
    profile["categorical"] = {
        col: _categorical(code_column(external, col)[ext_rows], code_column(original, col)[orig_rows])
        for col in categorical
    }
    profile["metric"] = {
        col: _metric(
            numeric_column(external, col)[ext_rows], numeric_column(original, col)[orig_rows]
        )
        for col in metric
    }
    return profile






