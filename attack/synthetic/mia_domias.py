"""The density-ratio attack on membership, in the spirit of DOMIAS (docs/method/membership-family.md).

van Breugel, Sun, Qian & van der Schaar (2023): a generator that overfits puts more density at
its training records than the population has, so the intruder scores a record by the ratio of
the synthetic file's density to the population's, ``p_S(x) / p_R(x)``, both estimated from data.
Here both are Gaussian kernel densities in one encoded space:

* numeric columns standardised by the mean and standard deviation of the scored records
  (members and non-members together; a missing value sits at the mean), categorical columns
  one-hot with the indicators scaled by 1/√2 so that a mismatch adds 1 to the squared distance,
  like one standard deviation of a number (columns with more than :data:`MAX_LEVELS` values keep
  their most frequent values and pool the rest);
* one isotropic bandwidth ``h = n^(−1/(p+4))`` (Scott's factor for ``p`` columns, ``n`` the
  smaller of the two files) for both densities, so the ratio has no kernel constant:
  ``score(x) = log mean_S exp(−‖x−s‖²/2h²) − log mean_R exp(−‖x−r‖²/2h²)``.

Memory stays bounded: the kernel sums run over blocks of scored records against one file, each
block at most :data:`BLOCK_BYTES`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from attack.synthetic.mia_game import Game

#: Most indicator columns of one categorical column.
MAX_LEVELS = 64
#: Largest block of squared distances held at once.
BLOCK_BYTES = 64 * 2**20


class DensityRatioAttack:
    """Log ratio of the synthetic and reference kernel densities at each scored record."""

    name = "density_ratio"
    assumes = "the synthetic file and a reference sample of the population"

    def score(self, game: Game) -> np.ndarray:
        scored, synthetic, reference = _vectors(game)
        n = min(len(synthetic), len(reference))
        h = n ** (-1.0 / (len(game.prep.columns) + 4))
        return log_kernel_mean(scored, synthetic, h) - log_kernel_mean(scored, reference, h)


def log_kernel_mean(query: np.ndarray, points: np.ndarray, h: float) -> np.ndarray:
    """``log mean_j exp(−‖q − p_j‖² / 2h²)`` for every query row, in bounded blocks."""
    out = np.empty(len(query))
    norms = np.einsum("ij,ij->i", points, points)
    step = max(1, BLOCK_BYTES // (8 * max(len(points), 1)))
    for start in range(0, len(query), step):
        q = query[start:start + step]
        sq = np.einsum("ij,ij->i", q, q)[:, None] + norms[None, :] - 2.0 * (q @ points.T)
        np.maximum(sq, 0.0, out=sq)
        sq *= -1.0 / (2.0 * h * h)
        out[start:start + step] = logsumexp(sq, axis=1)
    return out - np.log(len(points))


def _vectors(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scored records, the synthetic file and the reference as real vectors (see the module docstring)."""
    files = (game.scored, game.synthetic, game.reference)
    num = game.scored.numeric
    with np.errstate(all="ignore"):
        centre = np.nanmean(num, axis=0) if num.shape[1] else np.zeros(0)
        spread = np.nanstd(num, axis=0) if num.shape[1] else np.zeros(0)
    centre = np.nan_to_num(centre)
    spread = np.where(np.isfinite(spread) & (spread > 0), spread, 1.0)
    parts: list[list[np.ndarray]] = [[np.nan_to_num((f.numeric - centre) / spread)] for f in files]
    for j in range(game.scored.codes.shape[1]):
        kept, pooled = _kept_levels([f.codes[:, j] for f in files])
        for part, f in zip(parts, files):
            part.append(_one_hot(f.codes[:, j], kept, pooled))
    return tuple(np.hstack(p) for p in parts)  # type: ignore[return-value]


def _kept_levels(columns: list[np.ndarray]) -> tuple[np.ndarray, bool]:
    """The codes that get an indicator — all, or the :data:`MAX_LEVELS` − 1 most frequent — and
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


__all__ = ["DensityRatioAttack", "log_kernel_mean"]
