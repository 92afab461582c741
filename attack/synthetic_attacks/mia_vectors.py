"""The scored records, the synthetic file and the reference as real vectors, and what the
density attacks read off them in one pass (docs/method/membership-family.md).

Encoding: numeric columns standardised by the mean and standard deviation of the scored records
(members and non-members together; a missing value sits at the mean), categorical columns
one-hot with the indicators scaled by 1/√2 so that a mismatch adds 1 to the squared distance,
like one standard deviation of a number (a column with more than ``MAX_LEVELS`` values keeps
its most frequent values and pools the rest). The squared Euclidean distance in this space is
that of the project's ``euclidean`` metric with z-scores and half the dummy-coding mismatch cost.

``neighbourhood`` scans the scored records against one file in blocks of at most
``BLOCK_BYTES`` (never the full matrix) and returns per scored record the Gaussian kernel
sum and the distance to the k-th nearest record of the file.
"""

from __future__ import annotations

import numpy as np

from attack.synthetic_attacks.mia_game import Game

#: Most indicator columns of one categorical column.
MAX_LEVELS = 64
#: Largest block of squared distances held at once.
BLOCK_BYTES = 64 * 2**20


def vectors(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scored records, synthetic file and reference as real vectors (computed once per game)."""
    return game.memo("vectors", lambda: _encode(game))


def bandwidth(game: Game) -> float:
    """Scott's factor ``n^(−1/(p+4))`` for ``p`` columns and ``n`` the smaller of the synthetic
    file and the reference; one bandwidth for both densities."""
    n = min(len(game.synthetic), len(game.reference))
    return n ** (-1.0 / (len(game.prep.columns) + 4))


def neighbourhood(game: Game, which: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per scored record, against ``which`` ("synthetic" or "reference"): the log of the mean
    Gaussian kernel ``mean_j exp(−‖x − y_j‖² / 2h²)`` and the distance to the k-th nearest
    record (computed once per game, file and k)."""
    def compute() -> tuple[np.ndarray, np.ndarray]:
        scored, synthetic, reference = vectors(game)
        return scan(scored, synthetic if which == "synthetic" else reference, bandwidth(game), k)
    return game.memo(f"neighbourhood {which} {k}", compute)


def scan(query: np.ndarray, points: np.ndarray, h: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Log mean kernel and k-th nearest distance of every query row, in bounded blocks. The
    blocks are single precision (``‖q‖² + ‖p‖² − 2 q·p``, clipped at 0): about 7 significant
    digits of a squared distance, enough to rank records and five times faster than double."""
    k = min(k, len(points))
    log_mean, kth = np.empty(len(query)), np.empty(len(query))
    points32 = points.astype(np.float32)
    norms = np.einsum("ij,ij->i", points, points).astype(np.float32)
    step = max(1, BLOCK_BYTES // (4 * max(len(points), 1)))
    scale = np.float32(-1.0 / (2.0 * h * h))
    for start in range(0, len(query), step):
        q = query[start:start + step]
        sq = q.astype(np.float32) @ points32.T
        sq *= np.float32(-2.0)
        sq += np.einsum("ij,ij->i", q, q).astype(np.float32)[:, None]
        sq += norms[None, :]
        np.maximum(sq, np.float32(0.0), out=sq)
        kth[start:start + step] = np.sqrt(np.partition(sq, k - 1, axis=1)[:, k - 1])
        nearest = sq.min(axis=1)
        sq -= nearest[:, None]
        sq *= scale
        np.exp(sq, out=sq)
        log_mean[start:start + step] = np.log(sq.sum(axis=1, dtype=np.float64)) + scale * nearest.astype(np.float64)
    return log_mean - np.log(len(points)), kth


def _encode(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    files = (game.scored, game.synthetic, game.reference)
    num = game.scored.numeric
    with np.errstate(all="ignore"):
        centre = np.nan_to_num(np.nanmean(num, axis=0)) if num.shape[1] else np.zeros(0)
        spread = np.nanstd(num, axis=0) if num.shape[1] else np.zeros(0)
    spread = np.where(np.isfinite(spread) & (spread > 0), spread, 1.0)
    parts: list[list[np.ndarray]] = [[np.nan_to_num((f.numeric - centre) / spread)] for f in files]
    for j in range(game.scored.codes.shape[1]):
        kept, pooled = _kept_levels([f.codes[:, j] for f in files])
        for part, f in zip(parts, files, strict=True):
            part.append(_one_hot(f.codes[:, j], kept, pooled))
    scored, synthetic, reference = (np.hstack(p) for p in parts)
    return scored, synthetic, reference


def _kept_levels(columns: list[np.ndarray]) -> tuple[np.ndarray, bool]:
    """The codes that get an indicator — all, or the ``MAX_LEVELS`` − 1 most frequent — and
    whether the others are pooled."""
    codes, counts = np.unique(np.concatenate(columns), return_counts=True)
    if codes.size <= MAX_LEVELS:
        return codes, False
    order = np.lexsort((codes, -counts))
    return np.sort(codes[order[: MAX_LEVELS - 1]]), True


def _one_hot(codes: np.ndarray, kept: np.ndarray, pooled: bool) -> np.ndarray:
    """Indicators (scaled 1/√2) of the kept codes, plus one for the pooled others."""
    pos = np.searchsorted(kept, codes)
    found = (pos < kept.size) & (kept[np.minimum(pos, kept.size - 1)] == codes)
    out = np.zeros((codes.size, kept.size + int(pooled)))
    out[np.arange(codes.size), np.where(found, pos, kept.size)] = np.sqrt(0.5)
    return out


__all__ = ["BLOCK_BYTES", "MAX_LEVELS", "bandwidth", "neighbourhood", "scan", "vectors"]
