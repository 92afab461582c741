"""The result of one mass attack: figures per cell and γ, the verdict, and the record-level links.

``AttackResult`` is what ``attack.mass_attack`` returns and what a scenario run holds per
release and intruder. Its ``to_dict`` is the only producer of the attack's JSON
(layout ``schema_version`` 2, see ``docs/reference/json-results.md``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from attack.io.jsonio import SCHEMA_VERSION
from attack.io.writers import write_text_atomic
from attack.report.attack import MIN_CELL_COUNT, render_html, render_markdown
from attack.report.notebook import figures_of, one_line, result_html, suppress_small_cells
from attack.report.terminal import render_summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Columns of ``AttackResult.links``, one row per linked external record; every intruder's links
#: add ``match_probability`` (docs/method/intruder-confidence.md).
LINK_COLUMNS = ("external_id", "release_id", "distance", "n_best", "correct")


@dataclass(frozen=True)
class Proportion:
    """A proportion (a hit rate, a disclosure risk) and its Wilson 95% interval (None when no
    case is behind it)."""

    value: float | None
    interval: tuple[float, float] | None

    @classmethod
    def of(cls, value: float | None, interval: Sequence[float] | None) -> Proportion:
        return cls(None if value is None else float(value),
                   None if interval is None else (float(interval[0]), float(interval[1])))

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "interval": None if self.interval is None else list(self.interval)}


@dataclass(frozen=True)
class CellRisk:
    """The figures one cell's verdict rests on: its disclosure risk per γ (label) with its
    interval, and the counts behind it (None for a combined measure, which has no counts)."""

    cell: Mapping[str, str]
    passed: bool
    disclosure_risk: Mapping[str, Proportion]
    n_verifiable: int | None = None
    n_correct: int | None = None
    reidentification_rate: Proportion | None = None

    @classmethod
    def from_figures(cls, figures: Mapping[str, Any]) -> CellRisk:
        """The typed view of one entry of the JSON ``cells`` list."""
        intervals = figures.get("disclosure_risk_ci") or {}
        rate = figures.get("reidentification_rate")
        return cls(
            cell=dict(figures["cell"]),
            passed=bool(figures["passed"]),
            disclosure_risk={g: Proportion.of(v, intervals.get(g)) for g, v in figures["disclosure_risk"].items()},
            n_verifiable=figures.get("n_verifiable"),
            n_correct=figures.get("n_correct"),
            reidentification_rate=None if rate is None else Proportion.of(rate, figures.get("reidentification_rate_ci")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "cell": dict(self.cell), "passed": self.passed,
            "disclosure_risk": {g: e.to_dict() for g, e in self.disclosure_risk.items()},
            "n_verifiable": self.n_verifiable, "n_correct": self.n_correct,
            "reidentification_rate": None if self.reidentification_rate is None
            else self.reidentification_rate.to_dict(),
        }


@dataclass(frozen=True, eq=False)
class CombinedRisk:
    """The combined measure λ·P_worst + (1 − λ)·mean(P_realistic) of one release, per cell
    (``attack.risk.combine``): the verdict's figures typed, ``to_dict`` the JSON block."""

    figures: Mapping[str, Any] = field(repr=False)
    lam: float = field(init=False)
    tau: float = field(init=False)
    passed: bool = field(init=False)
    n_failing_cells: int = field(init=False)
    cells: tuple[CellRisk, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _set(self, lam=float(self.figures["lam"]), tau=float(self.figures["tau"]),
             passed=bool(self.figures["passed"]), n_failing_cells=int(self.figures["n_failing_cells"]),
             cells=tuple(CellRisk.from_figures(c) for c in self.figures["cells"]))

    def to_dict(self) -> dict[str, Any]:
        """The ``combined`` block of a scenario's JSON (a deep copy)."""
        return copy.deepcopy(dict(self.figures))


@dataclass(frozen=True)
class RiskSummary:
    """Hit rate and disclosure risk per γ of one attack, for side-by-side tables."""

    n_verifiable: int
    reidentification_rate: float
    disclosure_risk: Mapping[str, float]

    @classmethod
    def from_figures(cls, figures: Mapping[str, Any]) -> RiskSummary:
        return cls(int(figures["n_verifiable"]), float(figures["reidentification_rate"]),
                   dict(figures["disclosure_risk"]))


@dataclass(frozen=True, eq=False)
class NaturalProtectionResult:
    """One realistic intruder against the FORMAL file beside a release, with the agreement
    tables of the overlap variables (``attack.risk.natural_protection``); ``to_dict`` is the
    JSON entry."""

    figures: Mapping[str, Any] = field(repr=False)
    intruder: str = field(init=False)
    release_name: str = field(init=False)
    formal: RiskSummary = field(init=False)
    release: RiskSummary = field(init=False)

    def __post_init__(self) -> None:
        _set(self, intruder=str(self.figures["intruder"]), release_name=str(self.figures["release_name"]),
             formal=RiskSummary.from_figures(self.figures["formal"]),
             release=RiskSummary.from_figures(self.figures["release"]))

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.figures))


@dataclass(frozen=True, eq=False)
class SingleAttackRisk:
    """The targeted attacks of a scenario run (``attack.risk.single``) and, when computed, the
    per-unit risk R(u) of the targets in aggregate; ``to_dict`` is the JSON block."""

    figures: Mapping[str, Any] = field(repr=False)
    #: Targets whose R(u) reaches τ (None without the per-unit risk); any fails the verdict.
    n_endangered: int | None = field(init=False)
    tau: float | None = field(init=False)

    def __post_init__(self) -> None:
        unit_risk = self.figures.get("unit_risk") or {}
        endangered, tau = unit_risk.get("n_endangered"), unit_risk.get("tau")
        _set(self, n_endangered=None if endangered is None else int(endangered),
             tau=None if tau is None else float(tau))

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.figures))


def _set(result: object, **values: Any) -> None:
    """Set the typed fields a frozen result derives from its figures."""
    for name, value in values.items():
        object.__setattr__(result, name, value)


@dataclass(frozen=True, eq=False)
class AttackResult:
    """One intruder's mass attack on one release, scored against the ground truth.

    Attributes
    ----------
    name:
        The run's name (the intruder's name in a scenario, the file names for ``attack link``).
    intruder:
        ``{"name", "role", "file"}``: who attacked; role ``worst``, ``realistic`` or empty.
    release:
        ``{"name", "file"}``: the candidate release attacked.
    figures:
        The scored attack in its serialised form (what ``to_dict`` writes): counts, rates with
        Wilson intervals, usefulness and disclosure risk per γ, overall and per cell, the linkage
        and evaluation settings. The figures the verdict rests on are the typed fields below.
    links:
        Record-level links (``LINK_COLUMNS``), kept in memory and written only on request:
        they pair confidential release records with external identities.
    timings:
        Wall seconds per stage; not part of ``to_dict`` unless asked for.
    inputs:
        The files the attack read; the writers never replace them.
    units:
        Record-level outcome per verifiable external record (unit, cell, correct; in memory
        only), for the maximum over intruders of a scenario run.
    records:
        Record-level outcome per release record (``attack.risk.records.RECORD_COLUMNS``,
        disclosed targets per γ, frequency risk; in memory only), when asked for
        (``mass_attack(records=True)``).
    passed, tau:
        The verdict (every cell's disclosure risk below τ for every γ) and τ.
    n_external, n_verifiable, n_correct, reidentification_rate:
        The overall counts and the hit rate with its interval.
    disclosure_risk:
        The overall disclosure risk per γ with its interval.
    cell_risks:
        Per cell, the figures its verdict rests on (``CellRisk``).
    """

    name: str
    intruder: Mapping[str, str]
    release: Mapping[str, str]
    figures: Mapping[str, Any]
    links: pd.DataFrame = field(repr=False)
    timings: Mapping[str, float] = field(default_factory=dict, repr=False)
    inputs: tuple[str, ...] = field(default=(), repr=False)
    units: pd.DataFrame | None = field(default=None, repr=False)
    records: pd.DataFrame | None = field(default=None, repr=False)
    passed: bool = field(init=False)
    tau: float = field(init=False)
    n_external: int = field(init=False)
    n_verifiable: int = field(init=False)
    n_correct: int = field(init=False)
    reidentification_rate: Proportion = field(init=False)
    disclosure_risk: Mapping[str, Proportion] = field(init=False)
    cell_risks: tuple[CellRisk, ...] = field(init=False)

    @property
    def gammas(self) -> list[str]:
        """The γ settings as labels (``repr(γ)``), the keys of every per-γ figure."""
        return list(self.figures["disclosure_risk"])

    def __post_init__(self) -> None:
        f = self.figures
        intervals = f.get("disclosure_risk_ci") or {}
        _set(self, passed=bool(f["passed"]), tau=float(f["tau"]),
             n_external=int(f["n_external"]), n_verifiable=int(f["n_verifiable"]), n_correct=int(f["n_correct"]),
             reidentification_rate=Proportion.of(f["reidentification_rate"], f.get("reidentification_rate_ci")),
             disclosure_risk={g: Proportion.of(v, intervals.get(g)) for g, v in f["disclosure_risk"].items()},
             cell_risks=tuple(CellRisk.from_figures(c) for c in f["cells"]))

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell and γ: the cell's values, counts, hit rate with its interval,
        usefulness share, disclosure risk P_γ with its interval and the cell's verdict."""
        return cell_table(self.figures["cells"], self.gammas, self.tau)

    def to_dict(self, *, timings: bool = False) -> dict[str, Any]:
        """The JSON document ``attack link`` writes (a deep copy)."""
        out = {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "intruder": dict(self.intruder),
            "release": dict(self.release),
            **copy.deepcopy(dict(self.figures)),
        }
        if timings:
            out["timings"] = dict(self.timings)
        return out

    def to_markdown(self, title: str | None = None) -> str:
        """The Markdown summary, verdict first."""
        return render_markdown([run_record(self)], title=title or self.name)

    def to_summary(self, files: tuple[str, ...] = ()) -> str:
        """The terminal summary (at most about 30 lines); ``files`` are where the full tables are."""
        return render_summary([run_record(self)], title=self.name, files=files)

    def to_html(self, path: str | Path | None = None, title: str | None = None) -> str:
        """The self-contained HTML report; written atomically to ``path`` when given."""
        text = render_html([run_record(self)], title=title or self.name)
        if path is not None:
            write_text_atomic(Path(path), text, inputs=self.inputs)
        return text

    def _repr_html_(self) -> str:
        return attack_html(self.name, self.figures)

    def __repr__(self) -> str:
        return attack_repr("AttackResult", self.name, self.figures)

    def plot(self) -> list[Figure]:
        """The figures of the HTML report (heat maps per γ, risk against γ, distances), as
        matplotlib figures, in page order."""
        return figures_of(lambda: render_html([run_record(self)], title=self.name))


def run_record(result: AttackResult) -> dict[str, Any]:
    """The run record the report renderers and certificates take: name, intruder, release and
    the figures."""
    return {
        "name": result.name,
        "intruder": result.intruder["role"] or result.intruder["file"],
        "release": result.release["name"],
        "result": dict(result.figures),
    }


def attack_repr(kind: str, name: str, figures: Mapping[str, Any]) -> str:
    """One line: verdict, τ, failing cells and the overall re-identification rate."""
    rate = figures.get("reidentification_rate")
    return one_line(kind, bool(figures["passed"]), repr(name), f"τ = {figures['tau']:g}",
                    f"{figures['n_failing_cells']} of {len(figures['cells'])} cells failing",
                    "re-identification rate " + ("–" if rate is None else f"{rate:.4f}"))


def attack_html(title: str, figures: Mapping[str, Any]) -> str:
    """The notebook display of one attack's (or a combined measure's) cells."""
    gammas = list(figures["cells"][0]["disclosure_risk"]) if figures["cells"] else []
    table = cell_table(list(figures["cells"]), gammas, float(figures["tau"]))
    failing = (~table["below_tau"]).tolist() if len(table) else []
    shown = suppress_small_cells(table, [c for c in table.columns if c not in _FIGURE_COLUMNS], MIN_CELL_COUNT)
    rate = figures.get("reidentification_rate")
    facts = [f"τ = {float(figures['tau']):g}", f"γ = {', '.join(gammas)}",
             f"{sum(not c['passed'] for c in figures['cells'])} of {len(figures['cells'])} cells failing"]
    if rate is not None:
        facts.append(f"re-identification rate {rate:.4f}")
    facts.append(f"figures of cells with fewer than {MIN_CELL_COUNT} verifiable units suppressed")
    return result_html(title, bool(figures["passed"]), facts, shown, failing=failing, full=".cells")


#: The columns of ``cell_table`` a small cell's row does not show (as in the reports).
_FIGURE_COLUMNS = ("disclosure_risk", "disclosure_risk_low", "disclosure_risk_high", "n_verifiable", "n_correct",
                   "reidentification_rate", "reidentification_rate_low", "reidentification_rate_high",
                   "usefulness")


def cell_table(cells: list[Mapping[str, Any]], gammas: list[str], tau: float) -> pd.DataFrame:
    """Per-cell figures as a long table, one row per cell and γ, the verdict first: ``passed``
    judges the cell over every γ, ``below_tau`` that γ alone; then the cell, γ, the disclosure
    risk with its interval and the counts. A column without a value in any row (e.g. the counts
    of a combined measure) is left out. A cell variable's column is named after the variable
    (``employees`` for ``employees:bins=50,250``) unless two cell variables share it."""
    labels = list(cells[0]["cell"]) if cells else []
    names = [label.split(":", 1)[0] for label in labels]
    header = dict(zip(labels, names, strict=True)) if len(set(names)) == len(names) else {}
    rows = []
    for cell in cells:
        rate_ci = cell.get("reidentification_rate_ci") or [None, None]
        for g in gammas:
            risk = cell["disclosure_risk"][g]
            risk_ci = (cell.get("disclosure_risk_ci") or {}).get(g) or [None, None]
            rows.append({
                "passed": cell["passed"],
                "below_tau": risk is not None and risk < tau,
                **{header.get(k, k): v for k, v in cell["cell"].items()},
                "gamma": float(g),
                "disclosure_risk": risk,
                "disclosure_risk_low": risk_ci[0],
                "disclosure_risk_high": risk_ci[1],
                "n_verifiable": cell.get("n_verifiable"),
                "n_correct": cell.get("n_correct"),
                "reidentification_rate": cell.get("reidentification_rate"),
                "reidentification_rate_low": rate_ci[0],
                "reidentification_rate_high": rate_ci[1],
                "usefulness": (cell.get("usefulness") or {}).get(g),
            })
    frame = pd.DataFrame(rows)
    return frame.loc[:, frame.notna().any()] if len(frame) else frame
