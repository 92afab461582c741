"""Nominal keys: 0 when the categories are equal, 1 otherwise (handbook eq. 13.1)."""

from __future__ import annotations

from typing import Literal

import pandas as pd

from attack.io.readers import code_column
from attack.linkage.distances import CodeComponent, ComponentOptions, factorize_pair
from attack.linkage.keys.key import TERM_FREQUENCY, Key


class Nominal(Key):
    """A categorical key: 0 when equal, 1 otherwise (handbook eq. 13.1)."""

    type: Literal["nominal"] = "nominal"
    tf: bool = TERM_FREQUENCY

    flags = {"tf": ("tf", True)}

    @property
    def weighs_by_frequency(self) -> bool:
        return self.tf

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> CodeComponent:
        """Inequality of the joint category codes."""
        a = code_column(external, self.external_column, required=True)
        b = code_column(release, self.name, required=True)
        ca, cb, _ = factorize_pair(a, b)
        return CodeComponent(ca, cb, kind="nominal")

    def _described(self) -> dict:
        return {"tf": True} if self.tf else {}

    def _options(self) -> list[str]:
        return ["tf"] if self.tf else []
