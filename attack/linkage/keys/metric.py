"""Metric keys: squared or absolute difference of numbers, optionally of ``log(1 + x)``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field

from attack.errors import InputError
from attack.io.readers import numeric_column, source_name
from attack.linkage.distances import ComponentOptions, MetricComponent
from attack.linkage.keys.key import Key
from attack.linkage.outliers import check_key_values


class Metric(Key):
    """A numeric key: squared or absolute difference, optionally of ``log(1 + x)``."""

    type: Literal["metric"] = "metric"
    log: bool = False
    metric_distance: Literal["squared", "absolute"] | None = Field(default=
        None, description="Squared or absolute difference; None takes the run's default.")

    flags = {"log": ("log", True), "squared": ("metric_distance", "squared"),
             "absolute": ("metric_distance", "absolute")}
    reads_codes = False

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> MetricComponent:
        """Differences of the values (of their ``log(1 + x)`` with ``log``), screened for values
        that alone span the range (``attack.linkage.outliers``)."""
        ext_col, rel_col = self.external_column, self.name
        a = numeric_column(external, ext_col, required=True)
        b = numeric_column(release, rel_col, required=True)
        if self.log:
            for values, frame, column in ((a, external, ext_col), (b, release, rel_col)):
                negative = np.flatnonzero(values < 0)
                if negative.size:
                    raise InputError("the log transform needs non-negative values", file=source_name(frame),
                                     column=column, row=int(negative[0]) + 1)
            a, b = np.log1p(a), np.log1p(b)
        notes = []
        if options.screen is not None:
            checked = []
            for values, name, column in ((a, options.files[0], ext_col), (b, options.files[1], rel_col)):
                values, changed = check_key_values(values, file=name, column=column,
                                                   winsorise=options.screen == "winsorise")
                checked.append(values)
                if changed:
                    notes.append(f"{changed} value(s) in {Path(name).name} winsorised: each alone spanned the range")
            a, b = checked
        power = 2 if (self.metric_distance or options.metric_distance) == "squared" else 1
        component = MetricComponent(a, b, power)
        component.notes = tuple(notes)
        return component

    def _described(self) -> dict:
        out: dict = {"log": self.log}
        if self.metric_distance:
            out["metric_distance"] = self.metric_distance
        return out

    def _options(self) -> list[str]:
        return (["log"] if self.log else []) + ([self.metric_distance] if self.metric_distance else [])
