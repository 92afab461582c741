"""The result of the attacks on a synthetic release: every check against τ and the verdict."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from attack.io.jsonio import SCHEMA_VERSION
from attack.io.writers import write_text_atomic
from attack.report.synthetic import render_synth_html, render_synth_markdown


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
        return pd.DataFrame(list(self.figures["checks"]))

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
        verdict = "passed" if self.passed else "NOT PASSED"
        return f"<p><strong>{self.title}</strong>: {verdict}</p>" + self.checks.to_html(index=False)
