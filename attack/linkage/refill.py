"""Refilling one record's candidate list, compiled (``attack.linkage.candidates``).

When the certified candidates of an external record have all been taken, its list is filled
again with more neighbours among the still free release records. Done one record at a time
through SciPy this costs tens of microseconds of call overhead per record; here a k-d tree over
the free release records (median splits, leaves of at most ``LEAF``), the k-nearest query,
the exact distances and their order run in one compiled call.

The exact distances repeat ``attack.linkage.distances.DistanceModel.pair_cost`` operation
by operation for the distances that embed (squared metric differences and nominal mismatches,
no missing value): per key the raw distance, minus its offset when there is one, over its
divisor (0 for a key without spread), times its weight unless that is 1, summed over the keys
in order. The same IEEE operations in the same order give the same bits, so ties are broken
exactly as in the dense matrix.
"""

from __future__ import annotations

import numpy as np

from attack.linkage.distances import DistanceModel
from attack.linkage.distances import MetricComponent as _MetricComponent

LEAF = 8


class ExactCost:
    """The keys of an embeddable model as arrays for the compiled exact distance."""

    def __init__(self, model: DistanceModel) -> None:
        used = [(key, comp, off, scale) for key, comp, off, scale
                in zip(model.keys, model.components, model.offsets, model.scales, strict=True) if key.weight != 0]
        self.metric = np.array([isinstance(comp, _MetricComponent) for _, comp, _, _ in used], dtype=np.bool_)
        n_ext, n_rel = model.sizes
        self.a = np.array([comp.a for _, comp, _, _ in used], dtype=np.float64).reshape(len(used), n_ext)
        self.b = np.array([comp.b for _, comp, _, _ in used], dtype=np.float64).reshape(len(used), n_rel)
        self.offset = np.array([off for _, _, off, _ in used], dtype=np.float64)
        self.scale = np.array([scale for _, _, _, scale in used], dtype=np.float64)
        self.weight = np.array([key.weight for key, _, _, _ in used], dtype=np.float64)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.metric, self.a, self.b, self.offset, self.scale, self.weight


class FreeTree:
    """A compiled k-d tree over the release records ``rows`` (positions in ``points``)."""

    def __init__(self, points: np.ndarray, rows: np.ndarray) -> None:
        from attack.linkage import compiled  # numba, loaded on first use

        self.rows = rows
        self.n = rows.size
        self.points = np.ascontiguousarray(points[rows])
        self.arrays = compiled.build_tree(self.points, LEAF)

    def refill(self, query: np.ndarray, k: int, row: int, exact: ExactCost) -> tuple[np.ndarray, np.ndarray, float]:
        """The ``k`` nearest free release records of external row ``row`` (embedded point
        ``query``) ordered by exact distance, then record: ``(records, distances, the k-th
        embedded squared distance)``."""
        from attack.linkage import compiled

        return compiled.refill(query, k, row, self.points, self.rows, *self.arrays, *exact.arrays())


def first_lists(cols: np.ndarray, exact: ExactCost) -> tuple[np.ndarray, np.ndarray]:
    """Exact distances of every external row to its candidates ``cols`` (n × k, rows in
    order), each row ordered by distance, then record: ``(records, distances)``."""
    from attack.linkage import compiled

    cols = np.ascontiguousarray(cols, dtype=np.int64).copy()
    return cols, compiled.first_lists(cols, *exact.arrays())
