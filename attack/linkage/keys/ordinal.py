"""Ordinal keys: rank difference over the number of categories (handbook eq. 13.2)."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field, field_validator

from attack.errors import InputError
from attack.io.readers import code_column
from attack.linkage.distances import CodeComponent, ComponentOptions
from attack.linkage.keys.key import Key


def _natural_key(value: str) -> tuple:
    try:
        return (0, float(value), value)
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


class Ordinal(Key):
    """An ordered categorical key: rank difference over the number of categories (eq. 13.2)."""

    type: Literal["ordinal"] = "ordinal"
    order: tuple[str, ...] | None = Field(default=None, description="The categories from lowest to highest.")

    valued_options = {"order": ("order", lambda text: tuple(text.split("|")))}

    @field_validator("order")
    @classmethod
    def _distinct(cls, order: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if order is not None and len(set(order)) != len(order):
            raise ValueError("an ordinal category is listed twice")
        return order

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> CodeComponent:
        """Ranks in the declared order (by default the natural order of the values present)."""
        a = code_column(external, self.external_column, required=True)
        b = code_column(release, self.name, required=True)
        order = self.order
        if order is None:
            present = pd.unique(np.concatenate([a, b]))
            order = tuple(sorted((v for v in present if v is not None), key=_natural_key))
        codes = []
        for values, file, column in ((a, options.files[0], self.external_column), (b, options.files[1], self.name)):
            ranks = pd.Index(list(order)).get_indexer(values).astype(np.int64)
            unknown = np.flatnonzero((ranks < 0) & ~pd.isna(values))
            if unknown.size:
                raise InputError(f"value {values[unknown[0]]!r} is not one of the declared ordinal categories",
                                 file=file, column=column, row=int(unknown[0]) + 1)
            codes.append(ranks)
        r = max(len(order), 1)
        # eq. 13.2: categories from the smaller up to (excluding) the larger value, over r
        return CodeComponent(codes[0], codes[1], kind="ordinal", divisor=r, scale=(r - 1) / r or 1.0)

    def _described(self) -> dict:
        return {"order": list(self.order)} if self.order is not None else {}

    def _options(self) -> list[str]:
        return [f"order={'|'.join(self.order)}"] if self.order else []
