"""A single value that alone stretches a metric key's range, found before it silently changes a
verdict.

Max–min, range and standard-deviation standardisation divide every distance of a key by a scale
taken from the data. One planted or mistyped value (``1e15`` among turnovers of a few million)
makes that scale so large that every other distance of the key becomes about 0: the key stops
counting and the attack, and the verdict, change without a sign. A value *dominates* a key when
the gap between it and the next value is at least ``DOMINANCE`` times the spread of all the
other values of its file (the remaining values then fill at most 1 % of the range). Such a value
stops the run with the file, column, row and value, unless the user winsorises: each dominant
value is then set to the nearest value that does not dominate, and the result records it.
"""

from __future__ import annotations

import numpy as np

from attack.errors import InputError

#: Gap to the next value, in spreads of the remaining values, from which one value dominates.
DOMINANCE = 100.0
#: Fewest values of a key in a file for the rule to apply (in a handful of values a wide gap is
#: ordinary, and a person can see every value).
MIN_VALUES = 20


def dominant_rows(values: np.ndarray) -> list[int]:
    """Rows of the values that dominate ``values`` (missing values ignored; none among fewer than
    ``MIN_VALUES``), outermost first:
    repeatedly the largest or smallest value whose gap to the next is at least
    ``DOMINANCE`` times the spread (not zero) of the values left once it is set aside."""
    present = np.flatnonzero(~np.isnan(values))
    if present.size < MIN_VALUES:
        return []
    order = present[np.argsort(values[present], kind="stable")]
    low, high, out = 0, len(order) - 1, []
    while high - low >= 2:
        v = values[order]
        top_gap, bottom_gap = v[high] - v[high - 1], v[low + 1] - v[low]
        top_rest, bottom_rest = v[high - 1] - v[low], v[high] - v[low + 1]
        if top_gap >= bottom_gap and top_rest > 0 and top_gap >= DOMINANCE * top_rest:
            out.append(int(order[high]))
            high -= 1
        elif bottom_rest > 0 and bottom_gap >= DOMINANCE * bottom_rest:
            out.append(int(order[low]))
            low += 1
        else:
            break
    return out


def check_key_values(values: np.ndarray, *, file: str, column: str, winsorise: bool) -> tuple[np.ndarray, int]:
    """``values`` unchanged when no value dominates, else: with ``winsorise`` the dominant values
    set to the nearest non-dominant one (returned with their count), without it an
    ``InputError`` naming the row and the value."""
    rows = dominant_rows(values)
    if not rows:
        return values, 0
    if not winsorise:
        row = rows[0]
        rest = np.delete(values, rows)
        rest = rest[~np.isnan(rest)]
        raise InputError(
            f"the value {values[row]:.6g} alone spans the key's range (the other values lie between "
            f"{rest.min():.6g} and {rest.max():.6g}); under the standardisation it would make every other "
            "distance of this key about 0 and change the verdict. Correct the value, or let the run "
            "winsorise such values (--winsorise, or winsorise = true in [linkage])",
            file=file, column=column, row=row + 1)
    kept = np.ones(values.size, dtype=bool)
    kept[rows] = False
    kept &= ~np.isnan(values)
    lo, hi = values[kept].min(), values[kept].max()
    return np.clip(values, lo, hi), len(rows)
