"""The result of one mass attack: figures per cell and γ, the verdict, and the record-level links.

``AttackResult`` is what ``attack.mass_attack`` returns and what a scenario run holds per
release and intruder. Its ``to_dict`` is the only producer of the attack's JSON
(layout ``schema_version`` 2, see ``docs/reference/json-results.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import pandas as pd

from attack.io.jsonio import SCHEMA_VERSION
from attack.io.serial import ABSENT, Serialised, figure
from attack.io.writers import write_text_atomic
from attack.report.attack import MIN_CELL_COUNT, render_html, render_markdown
from attack.report.notebook import figures_of, one_line, result_html, suppress_small_cells
from attack.report.terminal import render_summary
from attack.verdict import below_tau

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Columns of ``AttackResult.links``, one row per linked external record; every intruder's links
#: add ``match_probability`` (docs/method/intruder-confidence.md).
LINK_COLUMNS = ("external_id", "release_id", "distance", "n_best", "correct")

T = TypeVar("T")

#: How the combined measure is made, as its JSON states it (``attack.risk.combine``).
COMBINED_FORMULA = "lam * P_worst + (1 - lam) * mean(P_realistic); uncovered cells take P_worst"


@dataclass(frozen=True)
class Proportion(Serialised):
    """A proportion (a hit rate, a disclosure risk) and its Wilson 95% interval (None when no
    case is behind it)."""

    value: float | None
    interval: tuple[float, float] | None

    @classmethod
    def of(cls, value: float | None, interval: Sequence[float] | None) -> Proportion:
        """The proportion with its interval as a pair (as ``wilson_interval`` gives it)."""
        return cls(value, None if interval is None else (interval[0], interval[1]))


@dataclass(frozen=True, kw_only=True)
class GroupRisk(Serialised):
    """The scored figures of one group of verifiable records (a cell, or all of them): counts,
    rates with their intervals, usefulness and disclosure risk per γ label, and the τ decision.
    A figure a document does not carry is None (and has no key)."""

    n_verifiable: int | None = figure(default=None, omit_none=True)
    n_matched: int | None = figure(default=None, omit_none=True)
    n_correct: int | None = figure(default=None, omit_none=True)
    n_false: int | None = figure(default=None, omit_none=True)
    n_none: int | None = figure(default=None, omit_none=True)
    reidentification_rate: Proportion | None = figure(default=None, omit_none=True, split=True)
    false_match_rate: Proportion | None = figure(default=None, omit_none=True, split=True)
    precision: Proportion | None = figure(default=None, omit_none=True, split=True)
    usefulness: Mapping[str, Proportion] | None = figure(default=None, omit_none=True, split=True)
    disclosure_risk: Mapping[str, Proportion] = figure(default_factory=dict, split=True)
    passed: bool = False
    #: The verdict passes on the estimate, but the upper bound of some γ's interval reaches τ.
    upper_bound_exceeds_tau: bool | None = figure(default=None, omit_none=True)

    @property
    def gammas(self) -> list[str]:
        """The γ settings as labels (``repr(γ)``), the keys of every per-γ figure."""
        return list(self.disclosure_risk)


@dataclass(frozen=True)
class Confident(Serialised):
    """The links at or above one match-probability threshold P (docs/method/intruder-confidence.md)."""

    n_confident: int
    n_confident_correct: int
    confident_rate: Proportion = figure(split=True)
    precision: Proportion = figure(split=True)


@dataclass(frozen=True, kw_only=True)
class CellRisk(GroupRisk):
    """One cell's figures (``GroupRisk``) with its values and label; ``identity_passed`` when the
    cell's re-identification rate is judged too (docs/method/roles.md), the confident links per
    threshold when the links carry a match probability."""

    json_lead: ClassVar[tuple[str, ...]] = ("cell", "label")

    cell: Mapping[str, str]
    label: str | None = figure(default=None, omit_none=True)
    identity_passed: bool | None = figure(default=None, omit_none=True)
    confident: Mapping[str, Confident] | None = figure(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class AttackFigures(GroupRisk):
    """The figures of a scored attack (``attack.risk.evaluation.score``): overall as a
    ``GroupRisk`` (``passed`` is the verdict), per cell, and the blocks the attack adds beside
    them. A block the attack does not carry is None (and has no key)."""

    json_lead: ClassVar[tuple[str, ...]] = ("n_external",)

    n_external: int | None = figure(default=None, omit_none=True)
    #: With a complete truth: external records whose unit is not in the release, and how many got a link.
    n_no_counterpart: int | None = figure(default=None, omit_none=True)
    n_linked_no_counterpart: int | None = figure(default=None, omit_none=True)
    confident: Mapping[str, Confident] | None = figure(default=None, omit_none=True)
    #: When several external records name one unit: the units behind them and those re-identified.
    n_units_verifiable: int | None = figure(default=None, omit_none=True)
    n_units_reidentified: int | None = figure(default=None, omit_none=True)
    tau: float = 0.0
    n_failing_cells: int = 0
    usefulness_by_variable: Mapping[str, Mapping[str, float | None]] | None = figure(default=None, omit_none=True)
    cells: tuple[CellRisk, ...] = ()
    evaluation: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    judged_on: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    roles: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    population_reidentifications: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    #: Distances of the assigned pairs, correct and false (null when nothing was linked).
    distance_histogram: Mapping[str, list[float]] | None = figure(default=ABSENT)
    structure: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    frequency_risk: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    linkage: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    truth: str | None = figure(default=None, omit_none=True)
    reading: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    attack_version: str | None = figure(default=None, omit_none=True)
    learned_weights: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    panel: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    attribution: Mapping[str, float] | None = figure(default=None, omit_none=True)
    explanation: Mapping[str, Any] | None = figure(default=None, omit_none=True)
    context: Mapping[str, Any] | None = figure(default=None, omit_none=True)

    @property
    def reasons(self) -> list[str]:
        """Why the verdict could not rest on the figures (``judged_on``), empty when it could."""
        return list((self.judged_on or {}).get("reasons") or [])


@dataclass(frozen=True, kw_only=True)
class CombinedCell(Serialised):
    """One cell of the combined measure: its risk per γ label, the parts it is made of and the
    rule that made it (docs/method/intruders.md); with an identity limit, the combined
    re-identification rate and its own decision."""

    cell: Mapping[str, str]
    disclosure_risk: Mapping[str, float | None]
    worst: Mapping[str, float] | None = None
    realistic_mean: Mapping[str, float] | None = None
    n_realistic: int = 0
    #: The largest count behind the cell (for suppression).
    n_verifiable: int | None = None
    rule: str = ""
    reidentification_rate: float | None = figure(default=ABSENT)
    identity_passed: bool = figure(default=ABSENT)
    passed: bool = False

    @property
    def risk(self) -> CellRisk:
        """The figures this cell's verdict rests on, as an attack's cell carries them."""
        rate = self.reidentification_rate
        return CellRisk(cell=self.cell, passed=self.passed, n_verifiable=self.n_verifiable,
                        disclosure_risk={g: Proportion(v, None) for g, v in self.disclosure_risk.items()},
                        reidentification_rate=None if rate is ABSENT or rate is None else Proportion(rate, None))


@dataclass(frozen=True, kw_only=True)
class CombinedRisk(Serialised):
    """The combined measure λ·P_worst + (1 − λ)·mean(P_realistic) of one release, per cell
    (``attack.risk.combine``); ``to_dict`` is the ``combined`` block of a scenario's JSON."""

    lam: float
    tau: float
    formula: str = COMBINED_FORMULA
    combined_cells: tuple[CombinedCell, ...] = figure(name="cells", repr=False)
    n_failing_cells: int = 0
    passed: bool = False

    @property
    def cells(self) -> tuple[CellRisk, ...]:
        """Per cell, the figures its verdict rests on."""
        return tuple(c.risk for c in self.combined_cells)


@dataclass(frozen=True)
class RiskSummary(Serialised):
    """Hit rate and disclosure risk per γ of one attack (and of each of its cells), for
    side-by-side tables."""

    n_verifiable: int
    reidentification_rate: float
    disclosure_risk: Mapping[str, float]
    cells: tuple[CellSummary, ...] = ()

    @classmethod
    def of(cls, figures: AttackFigures) -> RiskSummary:
        """The summary of a scored attack."""
        return cls(_known(figures.n_verifiable), _known(_known(figures.reidentification_rate).value),
                   _values(figures.disclosure_risk),
                   tuple(CellSummary(c.cell, _known(c.n_verifiable), _known(_known(c.reidentification_rate).value),
                                     _values(c.disclosure_risk)) for c in figures.cells))


@dataclass(frozen=True)
class CellSummary(Serialised):
    """One cell's line of a ``RiskSummary``."""

    cell: Mapping[str, str]
    n_verifiable: int
    reidentification_rate: float
    disclosure_risk: Mapping[str, float]


@dataclass(frozen=True)
class NaturalProtectionResult(Serialised):
    """One realistic intruder against the FORMAL file beside a release, with the agreement
    tables of the overlap variables (``attack.risk.natural_protection``); ``to_dict`` is the
    JSON entry."""

    intruder: str
    release_name: str
    formal: RiskSummary
    release: RiskSummary
    agreement: Mapping[str, Any] = figure(repr=False)


@dataclass(frozen=True)
class UnitRiskSummary(Serialised):
    """The per-unit risk R(u) = max(R_E, R_M) of the targets of the single attacks, in aggregate."""

    gamma: str
    tau: float
    mass_risk: str
    n_targets: int
    #: Targets whose R(u) reaches τ; any fails the verdict.
    n_endangered: int
    by_reason: Mapping[str, int]
    n_single_only: int


@dataclass(frozen=True)
class SingleAttackRisk(Serialised):
    """The targeted attacks of a scenario run (``attack.risk.single``) and, when computed, the
    per-unit risk R(u) of the targets in aggregate; ``to_dict`` is the JSON block."""

    window: float
    window_rule: str
    delta: float
    delta_rule: str
    summary: Mapping[str, Any]
    notes: tuple[str, ...]
    by_group: Mapping[str, Any] = figure(default=ABSENT, repr=False)
    knowledge: Mapping[str, Any] | None = figure(default=None, omit_none=True, repr=False)
    unit_risk: UnitRiskSummary | None = figure(default=None, omit_none=True)

    @property
    def n_endangered(self) -> int | None:
        """Targets whose R(u) reaches τ (None without the per-unit risk)."""
        return None if self.unit_risk is None else self.unit_risk.n_endangered

    @property
    def tau(self) -> float | None:
        return None if self.unit_risk is None else self.unit_risk.tau


def _known(value: T | None) -> T:
    """A figure every scored attack carries (a document without it is not an attack's)."""
    if value is None:
        raise ValueError("a scored attack's figure is missing")
    return value


def _values(risks: Mapping[str, Proportion]) -> dict[str, Any]:
    return {g: p.value for g, p in risks.items()}


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
    scored:
        The scored attack (``AttackFigures``): counts, rates with Wilson intervals, usefulness
        and disclosure risk per γ, overall and per cell, the verdict and τ, the linkage and
        evaluation settings; ``to_dict`` writes them after the name, intruder and release, and
        ``figures`` is their JSON form.
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

    The verdict's figures are read through: ``passed`` and ``tau``, the counts ``n_external``,
    ``n_verifiable``, ``n_correct``, the hit rate ``reidentification_rate`` and the overall
    ``disclosure_risk`` per γ with their intervals, and per cell ``cell_risks``.
    """

    name: str
    intruder: Mapping[str, str]
    release: Mapping[str, str]
    scored: AttackFigures
    links: pd.DataFrame = field(repr=False)
    timings: Mapping[str, float] = field(default_factory=dict, repr=False)
    inputs: tuple[str, ...] = field(default=(), repr=False)
    units: pd.DataFrame | None = field(default=None, repr=False)
    records: pd.DataFrame | None = field(default=None, repr=False)

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> AttackResult:
        """The attack read back from the JSON ``attack link`` writes (no record-level tables)."""
        return cls(name=str(document["name"]), intruder=dict(document["intruder"]),
                   release=dict(document["release"]), scored=AttackFigures.from_dict(document),
                   links=pd.DataFrame(columns=list(LINK_COLUMNS)))

    @property
    def figures(self) -> dict[str, Any]:
        """The scored attack's JSON (what ``to_dict`` writes after the name, intruder and
        release), derived from ``scored``: a fresh copy on every call."""
        return self.scored.to_dict()

    @property
    def gammas(self) -> list[str]:
        """The γ settings as labels (``repr(γ)``), the keys of every per-γ figure."""
        return self.scored.gammas

    @property
    def passed(self) -> bool:
        """The verdict: every cell's disclosure risk below τ for every γ (and nothing unjudged)."""
        return self.scored.passed

    @property
    def tau(self) -> float:
        return self.scored.tau

    @property
    def n_external(self) -> int:
        return _known(self.scored.n_external)

    @property
    def n_verifiable(self) -> int:
        return _known(self.scored.n_verifiable)

    @property
    def n_correct(self) -> int:
        return _known(self.scored.n_correct)

    @property
    def reidentification_rate(self) -> Proportion:
        return _known(self.scored.reidentification_rate)

    @property
    def disclosure_risk(self) -> Mapping[str, Proportion]:
        return self.scored.disclosure_risk

    @property
    def cell_risks(self) -> tuple[CellRisk, ...]:
        """Per cell, the figures its verdict rests on."""
        return self.scored.cells

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell and γ: the cell's values, counts, hit rate with its interval,
        usefulness share, disclosure risk P_γ with its interval and the cell's verdict."""
        return cell_table(self.cell_risks, self.gammas, self.tau)

    def to_dict(self, *, timings: bool = False) -> dict[str, Any]:
        """The JSON document ``attack link`` writes: the layout's version, the name, intruder and
        release, then the figures (derived from the fields)."""
        out = {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "intruder": dict(self.intruder),
            "release": dict(self.release),
            **self.scored.to_dict(),
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
        rate = self.scored.reidentification_rate
        return attack_html(self.name, self.cell_risks, self.tau, self.passed, None if rate is None else rate.value)

    def __repr__(self) -> str:
        rate = self.scored.reidentification_rate
        return one_line("AttackResult", self.passed, repr(self.name), f"τ = {self.tau:g}",
                        f"{self.scored.n_failing_cells} of {len(self.cell_risks)} cells failing",
                        "re-identification rate " + ("–" if rate is None or rate.value is None
                                                     else f"{rate.value:.4f}"))

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
        "result": result.scored.to_dict(),
    }


def attack_html(title: str, cells: Sequence[CellRisk], tau: float, passed: bool, rate: float | None) -> str:
    """The notebook display of one attack's (or a combined measure's) cells; ``rate`` is the
    overall re-identification rate (None: not shown)."""
    gammas = cells[0].gammas if cells else []
    table = cell_table(cells, gammas, tau)
    failing = (~table["below_tau"]).tolist() if len(table) else []
    shown = suppress_small_cells(table, [c for c in table.columns if c not in _FIGURE_COLUMNS], MIN_CELL_COUNT)
    facts = [f"τ = {float(tau):g}", f"γ = {', '.join(gammas)}",
             f"{sum(not c.passed for c in cells)} of {len(cells)} cells failing"]
    if rate is not None:
        facts.append(f"re-identification rate {rate:.4f}")
    facts.append(f"figures of cells with fewer than {MIN_CELL_COUNT} verifiable units suppressed")
    return result_html(title, passed, facts, shown, failing=failing, full=".cells")


#: The columns of ``cell_table`` a small cell's row does not show (as in the reports).
_FIGURE_COLUMNS = ("disclosure_risk", "disclosure_risk_low", "disclosure_risk_high", "n_verifiable", "n_correct",
                   "reidentification_rate", "reidentification_rate_low", "reidentification_rate_high",
                   "usefulness")


def cell_table(cells: Sequence[CellRisk], gammas: list[str], tau: float) -> pd.DataFrame:
    """Per-cell figures as a long table, one row per cell and γ, the verdict first: ``passed``
    judges the cell over every γ, ``below_tau`` that γ alone; then the cell, γ, the disclosure
    risk with its interval and the counts. A column without a value in any row (e.g. the counts
    of a combined measure) is left out. A cell variable's column is named after the variable
    (``employees`` for ``employees:bins=50,250``) unless two cell variables share it."""
    labels = list(cells[0].cell) if cells else []
    names = [label.split(":", 1)[0] for label in labels]
    header = dict(zip(labels, names, strict=True)) if len(set(names)) == len(names) else {}
    rows = []
    for cell in cells:
        rate = cell.reidentification_rate or Proportion(None, None)
        rate_ci = rate.interval or (None, None)
        for g in gammas:
            risk = cell.disclosure_risk[g]
            risk_ci = risk.interval or (None, None)
            use = (cell.usefulness or {}).get(g)
            rows.append({
                "passed": cell.passed,
                "below_tau": below_tau(risk.value, tau),
                **{header.get(k, k): v for k, v in cell.cell.items()},
                "gamma": float(g),
                "disclosure_risk": risk.value,
                "disclosure_risk_low": risk_ci[0],
                "disclosure_risk_high": risk_ci[1],
                "n_verifiable": cell.n_verifiable,
                "n_correct": cell.n_correct,
                "reidentification_rate": rate.value,
                "reidentification_rate_low": rate_ci[0],
                "reidentification_rate_high": rate_ci[1],
                "usefulness": None if use is None else use.value,
            })
    frame = pd.DataFrame(rows)
    return frame.loc[:, frame.notna().any()] if len(frame) else frame
