"""Frequency-risk measures as plug-ins: each module of this package is one measure of
``attack.frequency_risk`` (docs/contributing/add-a-frequency-risk-measure.md).

A measure is a subclass of ``FrequencyMeasure`` registered with ``@measure(name)``, which adds it
to ``MEASURES`` and its report lines to ``attack.report.frequency.REPORT_LINES`` (both
``attack.io.plugins.Registry``, the one mechanism of every plug-in). It declares its options
(an options class whose fields are keywords of ``frequency_risk`` or, for a measure added
later, the entries of ``frequency_risk(options={name: {...}})``), computes its section from the
key cells every measure shares (``Cells``), writes its entries of the JSON document and its
record-level columns (``entries`` and ``columns`` of its section) and its report lines
(``overview`` rows of the first table, its own ``tables``). ``frequency_risk`` runs the
registered measures in their ``order``; the JSON lists their entries in that order.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from attack.io.plugins import Registry
from attack.report.attack import ReportTable
from attack.report.frequency import REPORT_LINES

if TYPE_CHECKING:
    from attack.io.readers import Table
    from attack.risk.release_context import ReleaseContext

__all__ = ["MEASURES", "Cells", "measure", "unregister", "FrequencyMeasure", "NoOptions", "quantiles"]


@dataclass(frozen=True)
class Cells:
    """What every measure reads: the file and its roles, the key codes, the sampling weights and
    the per-record frequencies and individual risk of the core (``frequency_risk``)."""

    table: Table
    keys: tuple[str, ...]
    codes: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(repr=False)
    fk: np.ndarray = field(repr=False)
    big_fk: np.ndarray = field(repr=False)
    risk: np.ndarray = field(repr=False)
    method: str
    threshold: float
    household: str | None = None
    households: np.ndarray | None = field(default=None, repr=False)
    sensitive: str | None = None
    context: ReleaseContext | None = None


@dataclass(frozen=True)
class NoOptions:
    """The options of a measure that takes none."""


class FrequencyMeasure(ABC):
    """A frequency-risk measure (module docstring). ``options`` is its options class, built from
    the keywords of ``frequency_risk`` named like its fields (or from its entry of ``options``)."""

    name: ClassVar[str]
    order: ClassVar[int]
    options: ClassVar[type] = NoOptions

    @classmethod
    def settings(cls, options: Any, cells: Cells) -> dict[str, Any]:
        """Its entries of the result's ``settings``."""
        return {}

    @classmethod
    @abstractmethod
    def compute(cls, options: Any, cells: Cells) -> Any:
        """Its section, or None when the options or the file do not call for it (every measure
        defines it; ``measure`` refuses a class that does not)."""

    @classmethod
    def entries(cls, section: Any) -> dict[str, Any]:
        """Its entries of the JSON document (aggregates only)."""
        return {}

    @classmethod
    def columns(cls, section: Any) -> dict[str, np.ndarray]:
        """Its record-level columns (``FrequencyRisk.records``)."""
        return {}

    @classmethod
    def overview(cls, document: Mapping[str, Any]) -> list[list[str]]:
        """Its rows of the report's first table (``figure``, ``value``)."""
        return []

    @classmethod
    def tables(cls, document: Mapping[str, Any]) -> list[tuple[ReportTable, str]]:
        """Its own report tables with their captions."""
        return []


MEASURES: Registry[type[FrequencyMeasure]] = Registry(
    "frequency-risk measure", "attack.risk.measures", order=lambda name, measure: (measure.order, name))
"""Every measure by name, in ``order``; reading it imports every module of this package."""

M = TypeVar("M", bound=type[FrequencyMeasure])


def measure(name: str) -> Callable[[M], M]:
    """Class decorator: register a measure under ``name``, for the run and for the reports."""

    def add(cls: M) -> M:
        if inspect.isabstract(cls):
            raise TypeError(f"frequency-risk measure {name!r} ({cls.__qualname__}) does not define compute")
        MEASURES.add(name, cls)
        REPORT_LINES.add(name, cls)
        return cls

    return add


def unregister(name: str) -> None:
    """Forget the measure ``name`` (tests that register a toy measure clean up with this)."""
    MEASURES.remove(name)
    REPORT_LINES.remove(name)


def quantiles(values: np.ndarray) -> dict[str, float] | None:
    """The median, 90th and 99th percentile of a per-record risk (None without records)."""
    if not values.size:
        return None
    points = (0.5, 0.9, 0.99)
    return {str(p): float(q) for p, q in zip(points, np.quantile(values, points), strict=True)}
