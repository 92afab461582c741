"""The demo data sets: a synthetic KSE-like population, its releases and intruders' files."""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from attack.datasets.demo_structured import STRUCTURED_SOURCES, structured_source
from attack.datasets.population import (
    make_external,
    make_population,
    worst_case_external,
)
from attack.errors import InputError
from attack.io.table import Table
from attack.linkage.blocking import Block
from attack.linkage.keys import Metric
from attack.linkage.settings import Linkage
from attack.protect.formal import formal_release
from attack.protect.microaggregation import separate_microaggregation

#: Employee size classes of the KSE (Table 35.2) as interval break points.
SIZE_CLASS_BINS = (20.0, 50.0, 100.0, 250.0, 500.0, 1000.0)


DEMO_ID = "unit_id"


DEMO_SOURCES = ("original", "formal", "microaggregated", "worst_case", "external:markus", "external:ust",
                *STRUCTURED_SOURCES)


@lru_cache(maxsize=4)
def _population(n_units: int, seed: int) -> pd.DataFrame:
    return make_population(n_units=n_units, seed=seed)


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """Numeric columns of a demo frame (the ones a release perturbs)."""
    return [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c].dtype)]


def demo_source(name: str, n_units: int = 17000, seed: int = 1) -> tuple[pd.DataFrame, str]:
    """A demo data set by name and its unit-id column; see ``DEMO_SOURCES``.

    All data sets derive from one population generated from ``(n_units, seed)``.
    """
    population = _population(n_units, seed)
    if name == "original":
        frame = population
    elif name == "formal":
        frame = formal_release(population, seed=seed + 100)
    elif name == "microaggregated":
        formal = formal_release(population, seed=seed + 100)
        frame = separate_microaggregation(formal, metric_columns(formal), k=3, seed=seed + 200)
    elif name == "worst_case":
        frame = worst_case_external(population, seed=seed + 300)
    elif name.startswith("external:"):
        frame = make_external(population, profile=name.split(":", 1)[1], seed=seed + 400)
    elif name in STRUCTURED_SOURCES:
        return structured_source(name, population, n_units, seed)
    else:
        raise InputError(f"unknown demo data set {name!r}; expected one of {', '.join(DEMO_SOURCES)}")
    return frame.copy(), DEMO_ID


def demo_table(name: str, n_units: int = 17000, seed: int = 1) -> tuple[Table, str]:
    """``demo_source`` as a table named ``demo:NAME`` (the name results and messages show)."""
    frame, id_column = demo_source(name, n_units, seed)
    return Table(frame, f"demo:{name}"), id_column


def demo_linkage(method: str = "greedy") -> Linkage:
    """The demo intruder: blocks on NACE division × BBR9, distance on turnover and employees."""
    return Linkage(
        keys=[Metric(name="turnover"), Metric(name="employees")],
        block=[Block(name="nace", prefix=2), Block(name="bbr9")],
        method=method,
    )
