"""Synthesis as a protection step: the listed variables replaced by synthetic values.

docs/method/synthesis.md. The other variables stay as they are, row by row (partially synthetic
data, Drechsler 2011), so a mass attack on the result is scored like any other release; each
synthesised variable is predicted by the kept variables and by the ones synthesised before it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from attack.generation.sequential import synthesize
from attack.protect.registry import Param, protection_method


@protection_method(
    "synthesis", family="synthesis", numeric=False,
    summary="replace the listed variables by sequential synthesis (synthpop's cart and others), the rest kept",
    params={"method": Param("str", "cart", ("cart", "rf", "norm", "normrank", "logreg", "polyreg", "sample")),
            "minbucket": Param("int", 5, help="minimum leaf size of CART", ge=1),
            "cp": Param("float", 1e-4, help="complexity parameter of CART", ge=0, lt=1),
            "smoothing": Param("str", "none", ("none", "density")),
            "proper": Param("bool", False, help="fit the models to a bootstrap sample"),
            "special_codes": Param("numbers", [], help="numbers that are codes, e.g. -8|-9")},
)
def synthesis(data: pd.DataFrame, columns: Sequence[str], *, method: str = "cart", minbucket: int = 5,
              cp: float = 1e-4, smoothing: str = "none", proper: bool = False,
              special_codes: Sequence[str] = (), seed: int = 0) -> pd.DataFrame:
    """``data`` with ``columns`` synthesised in their order by ``method`` (docs/method/synthesis.md)."""
    kept = [c for c in data.columns if c not in columns]
    result = synthesize(data, columns=list(columns), method={c: method for c in columns}, keep=kept,
                        minbucket=minbucket, cp=cp, smoothing=smoothing, proper=proper,
                        special_codes=[float(c) for c in special_codes], seed=seed)
    return result.frame[list(data.columns)]


__all__ = ["synthesis"]
