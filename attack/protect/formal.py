"""Protection methods that turn an original file into a candidate release (docs/method/protection.md).

One public function per method. Each returns a new frame and leaves its input untouched. The
``unit_id`` column is kept as hidden provenance (docs/method/risk.md); separating it from what the
intruder sees is the caller's job. Microaggregation lives in ``attack.microaggregation``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attack.errors import InputError
from attack.protect.registry import Param, protection_method
from attack.protect.validated import validated

__all__ = ["formal_release"]


@validated
@protection_method(
    "formal", family="reduction", column_mode="none", numeric=False,
    summary="drop direct identifiers and shuffle the rows (FORMAL, docs/method/protection.md)",
    params={"identifiers": Param("list", [], help="direct identifier columns to drop")})
def formal_release(
    original: pd.DataFrame, seed: int, identifiers: Sequence[str] = ()
) -> pd.DataFrame:
    """FORMAL release: direct identifiers dropped, rows seeded-shuffled (docs/method/protection.md).

    Every other column, including ``unit_id``, is kept unchanged; the index is reset.
    """
    missing = [name for name in identifiers if name not in original.columns]
    if missing:
        raise InputError("identifier column not found in the original", column=missing[0])
    order = np.random.default_rng(np.random.SeedSequence(seed)).permutation(len(original))
    return original.drop(columns=list(identifiers)).iloc[order].reset_index(drop=True)
