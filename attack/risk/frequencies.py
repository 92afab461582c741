"""Sample and population frequencies of key combinations, with missing key values matching any
value (docs/method/frequency-risk.md).

``f_k`` is the number of sample records that share a record's key combination, ``F_k`` the sum
of their sampling weights (the estimated population frequency; ``F_k = f_k`` without weights).
A missing key value is treated as sdcMicro's ``freqCalc`` treats it (version 5.8): two
combinations are *compatible* when they agree on every key that both observe, and

* a complete combination adds ``alpha`` times the records of every compatible combination with
  missing values,
* a combination with missing values adds ``alpha`` times the records of every other compatible
  combination with missing values and (unweighted by ``alpha``) the records of every compatible
  complete combination,
* a combination with every key missing gets the whole sample (``f_k = n``, ``F_k = ΣW``) and,
  with two or more keys, adds nothing to complete combinations.

With ``alpha = 1`` this is the number of records compatible with the record; ``alpha = 0`` counts
only exact matches for complete combinations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.io.columns import key_information
from attack.io.readers import require_columns
from attack.io.table import Table, frame_of, source_name
from attack.risk.key_cells import category_codes


def key_codes(data: Table | pd.DataFrame, keys: Sequence[str], *, informative: bool = False) -> np.ndarray:
    """Integer codes of the key variables, one column per key, ``-1`` for a missing value. With
    ``informative`` (keys a user named), a key missing in every row is an ``InputError`` and a key
    with one value is warned of (``attack.io.columns.key_information``); without it the codes
    follow sdcMicro's arithmetic for such keys too (its published cases include one, and a
    suppression may leave a key missing throughout)."""
    frame = frame_of(data)
    if not keys:
        raise InputError("at least one key variable is needed")
    require_columns(frame, keys)
    codes = np.empty((len(frame), len(keys)), dtype=np.int64)
    for j, key in enumerate(keys):
        codes[:, j] = category_codes(frame, key, warn=False)[0]
        if informative:
            present = codes[:, j][codes[:, j] >= 0]
            key_information(source_name(data), key, codes[:, j] < 0, len(np.unique(present)))
    return codes


def row_groups(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an integer matrix (``-1`` = missing) and each row's group number.

    Rows are packed into one integer per row when the code ranges allow it (fast on a million
    records), else grouped by pandas."""
    n, m = codes.shape
    if m == 0:
        return np.zeros((1 if n else 0, 0), dtype=np.int64), np.zeros(n, dtype=np.int64)
    sizes = codes.max(axis=0, initial=-1) + 2
    if float(np.prod(sizes.astype(float))) < 2.0**62:
        packed = np.zeros(n, dtype=np.int64)
        for j in range(m):
            packed = packed * sizes[j] + (codes[:, j] + 1)
        _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    else:
        inverse = pd.DataFrame(codes).groupby(list(range(m)), sort=True).ngroup().to_numpy()
        first = np.unique(inverse, return_index=True)[1]
    return codes[first], inverse.reshape(-1)


def key_frequencies(codes: np.ndarray, weights: np.ndarray | None = None,
                    alpha: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Per record ``f_k`` and ``F_k`` of its key combination (module docstring for missing values).

    Parameters
    ----------
    codes:
        ``(n, m)`` integer key codes, ``-1`` for missing (``key_codes``).
    weights:
        Sampling weights (``None``: every record weighs 1, ``F_k = f_k``).
    alpha:
        Share in ``[0, 1]`` with which a combination with missing values counts for the
        combinations it is compatible with (sdcMicro's ``alpha``).
    """
    if not 0.0 <= alpha <= 1.0:
        raise InputError(f"alpha must lie in [0, 1], got {alpha}")
    n, m = codes.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    cells, inverse = row_groups(codes)
    f = np.bincount(inverse, minlength=len(cells)).astype(float)
    big_f = np.bincount(inverse, weights=w, minlength=len(cells))
    missing = cells < 0
    partial = missing.any(axis=1)
    if not partial.any():
        return f[inverse], big_f[inverse]
    add_f, add_big_f = np.zeros_like(f), np.zeros_like(big_f)
    complete = np.flatnonzero(~partial)
    patterns, pattern_of = row_groups(missing[partial].astype(np.int64))
    groups = [np.flatnonzero(partial)[pattern_of == p] for p in range(len(patterns))]
    for p, cells_p in enumerate(groups):
        seen_p = ~patterns[p].astype(bool)
        if seen_p.any() or m == 1:
            # complete <-> missing: the missing cell takes the complete counts in full, the
            # complete cell takes the missing ones times alpha
            _spread(cells, seen_p, complete, cells_p, f, big_f, add_f, add_big_f, 1.0)
            _spread(cells, seen_p, cells_p, complete, f, big_f, add_f, add_big_f, alpha)
        for q, cells_q in enumerate(groups):
            both = seen_p & ~patterns[q].astype(bool)
            _spread(cells, both, cells_q, cells_p, f, big_f, add_f, add_big_f, alpha)
        add_f[cells_p] -= alpha * f[cells_p]          # a cell is not its own partner
        add_big_f[cells_p] -= alpha * big_f[cells_p]
    fk, big_fk = f + add_f, big_f + add_big_f
    everything = missing.all(axis=1)
    fk[everything], big_fk[everything] = float(n), float(w.sum())
    return fk[inverse], big_fk[inverse]


def _spread(cells: np.ndarray, on: np.ndarray, sources: np.ndarray, targets: np.ndarray, f: np.ndarray,
            big_f: np.ndarray, add_f: np.ndarray, add_big_f: np.ndarray, share: float) -> None:
    """Add ``share`` times the counts of the ``sources`` cells that agree with each target cell
    on the keys ``on`` to that target."""
    if not len(sources) or not len(targets):
        return
    if not on.any():
        add_f[targets] += share * f[sources].sum()
        add_big_f[targets] += share * big_f[sources].sum()
        return
    both = np.concatenate([sources, targets])
    _, group = row_groups(cells[np.ix_(both, np.flatnonzero(on))])
    source_group, target_group = group[: len(sources)], group[len(sources):]
    size = int(group.max()) + 1
    add_f[targets] += share * np.bincount(source_group, weights=f[sources], minlength=size)[target_group]
    add_big_f[targets] += share * np.bincount(source_group, weights=big_f[sources], minlength=size)[target_group]
