"""String keys such as firm or person names: normalised edit distance of the (prepared) texts."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field, model_validator

from attack.io.readers import code_column
from attack.linkage.distances import (
    Component,
    ComponentOptions,
    StringComponent,
    SwappedNamesComponent,
)
from attack.linkage.keys.key import TERM_FREQUENCY, Key
from attack.linkage.names import prepare


class String(Key):
    """A text key such as a firm or person name: normalised edit distance."""

    type: Literal["string"] = "string"
    string_method: Literal["levenshtein", "jaro_winkler", "damerau", "token_set"] = "levenshtein"
    normalise: bool = Field(default=False, description="Fold case, diacritics, punctuation and spaces before comparing.")
    encoding: Literal["soundex", "cologne"] | None = Field(default=
        None, description="Compare the phonetic codes of the values (Soundex or Kölner Phonetik).")
    tf: bool = TERM_FREQUENCY
    swap_with: str | None = Field(default=
        None, min_length=1, description="The other name column (given or family name, same name in both "
        "files): the names are compared straight and crossed, the better counts.")

    flags = {**{m: ("string_method", m) for m in ("levenshtein", "jaro_winkler", "damerau", "token_set")},
             "normalise": ("normalise", True), "soundex": ("encoding", "soundex"),
             "cologne": ("encoding", "cologne"), "tf": ("tf", True)}
    valued_options = {"swap": ("swap_with", str)}

    @model_validator(mode="after")
    def _swap_rule(self) -> String:
        if self.swap_with is not None and (self.tf or self.swap_with == self.name):
            raise ValueError("swap_with pairs a string key with another name column (no term-frequency adjustment)")
        return self

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.name, self.swap_with) if self.swap_with else (self.name,)

    @property
    def external_columns(self) -> tuple[str, ...]:
        return (self.external_column, self.swap_with) if self.swap_with else (self.external_column,)

    @property
    def weighs_by_frequency(self) -> bool:
        return self.tf

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> Component:
        """Edit distances of the prepared names; with ``swap_with`` of two names, straight and crossed."""
        a, b = (prepare(code_column(frame, column, required=True), normalise=self.normalise, encoding=self.encoding)
                for frame, column in ((external, self.external_column), (release, self.name)))
        if not self.swap_with:
            return StringComponent(a, b, self.string_method)
        a2, b2 = (prepare(code_column(frame, self.swap_with, required=True), normalise=self.normalise,
                          encoding=self.encoding) for frame in (external, release))
        return SwappedNamesComponent(np.stack([a, a2], axis=1), np.stack([b, b2], axis=1), self.string_method)

    def _described(self) -> dict:
        out: dict = {"string_method": self.string_method}
        if self.normalise:
            out["normalise"] = True
        if self.encoding:
            out["encoding"] = self.encoding
        if self.tf:
            out["tf"] = True
        if self.swap_with:
            out["swap_with"] = self.swap_with
        return out

    def _options(self) -> list[str]:
        return ([self.string_method] if self.string_method != "levenshtein" else []) + (
            ["normalise"] if self.normalise else []) + ([self.encoding] if self.encoding else []) + (
            ["tf"] if self.tf else []) + ([f"swap={self.swap_with}"] if self.swap_with else [])
