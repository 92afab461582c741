"""The result of the attacks on a synthetic release: every check against τ and the verdict."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from attack.io.jsonio import SCHEMA_VERSION
from attack.io.writers import write_text_atomic
from attack.report.notebook import figures_of, one_line, result_html
from attack.report.synthetic import render_synth_html, render_synth_markdown

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True, eq=False)
class SyntheticResult:
    """What ``attack.attack_synthetic`` returns.

    Attributes
    ----------
    figures:
        The JSON-ready document: ``preparation``, ``distance``, ``singling_out``,
        ``linkability``, ``attribute`` (per target), ``checks`` and ``passed``.
    title:
        The heading of the reports.
    exposed:
        Record-level, only when the membership family was asked for it: the original's rows
        (``original_row``, 0-based) that some attack flags at the verdict's false-positive rate,
        with the share of non-members scoring as high per attack. Never in ``to_dict``.
    inputs:
        The files the attacks read; the writers never replace them.
    """

    figures: Mapping[str, Any]
    title: str = "Attacks on a synthetic release"
    exposed: pd.DataFrame | None = field(default=None, repr=False)
    inputs: tuple[str, ...] = field(default=(), repr=False)

    @property
    def passed(self) -> bool:
        """True when the upper 95% bound of every check is below τ."""
        return bool(self.figures["passed"])

    @property
    def checks(self) -> pd.DataFrame:
        """One row per decision: attack family, measure, value, upper bound, τ, verdict."""
        frame = pd.DataFrame(list(self.figures["checks"]))
        return frame[["passed", *(c for c in frame.columns if c != "passed")]] if len(frame) else frame

    def to_dict(self) -> dict:
        """The JSON document ``attack synth`` writes (a deep copy)."""
        return {"schema_version": SCHEMA_VERSION, **copy.deepcopy(dict(self.figures))}

    def to_markdown(self) -> str:
        return render_synth_markdown(self.figures, self.title)

    def to_html(self, path: str | Path | None = None) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given."""
        text = render_synth_html(self.figures, self.title)
        if path is not None:
            write_text_atomic(Path(path), text, inputs=self.inputs)
        return text

    def _repr_html_(self) -> str:
        checks = self.checks
        failing = (~checks["passed"]).tolist() if len(checks) else []
        return result_html(self.title, self.passed,
                           [f"{sum(failing)} of {len(checks)} checks not passed",
                            "a check passes when the upper 95% bound is below τ"],
                           checks, failing=failing, full=".checks")

    def __repr__(self) -> str:
        checks = self.figures["checks"]
        failing = sum(not c["passed"] for c in checks)
        return one_line("SyntheticResult", self.passed, repr(self.title), f"{failing} of {len(checks)} checks not passed")

    def plot(self) -> list[Figure]:
        """The figures of the HTML report (the attacks' success rates), as matplotlib figures."""
        return figures_of(lambda: render_synth_html(self.figures, self.title))
