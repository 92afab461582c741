"""The structure of a certificate file, checked before any figure in it is trusted.

Each kind (``run``, ``demo``, ``synthetic``) is a pydantic model: every figure the verdict
depends on must be present and of its type (a boolean is not a number, a string is not an
object), no list the verdict rests on may be empty (runs, cells, checks) and every τ in the
figures must be the scenario's τ. ``structure_problems`` returns one line per violation; an
empty list means the structure holds. What the checks mean is listed in
``docs/reference/certificate.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from attack.errors import dotted

Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Count = Annotated[int, Field(ge=0)]
Tau = Annotated[float, Field(gt=0, le=1)]
Risks = Annotated[dict[str, Annotated[float, Field(ge=0, le=1)] | None], Field(min_length=1)]
Label = dict[str, str]


class _Part(BaseModel):
    """Strict types (no number from a boolean or a string); other entries are allowed."""

    model_config = ConfigDict(strict=True, extra="allow")


class Tool(_Part):
    name: Literal["attack"]
    version: str


class Input(_Part):
    role: str
    sha256: Hex64
    path: str | None = None
    source: str | None = None
    options: dict[str, Any] | None = None
    made_by: str | None = None

    @model_validator(mode="after")
    def _one_origin(self) -> Input:
        if sum(v is not None for v in (self.path, self.source, self.made_by)) != 1:
            raise ValueError("an input names exactly one of path, source (generated) or made_by")
        return self


class Signature(_Part):
    model_config = ConfigDict(strict=True, extra="forbid")
    algorithm: str
    public_key_fingerprint: str
    value: str


class _Figures(_Part):
    n_verifiable: Count
    disclosure_risk: Risks
    n_correct: Count | None = None
    n_false: Count | None = None
    n_none: Count | None = None
    reidentification_rate: float | None = None
    false_match_rate: float | None = None
    usefulness: dict[str, float | None] | None = None


class Cell(_Figures):
    cell: Label
    passed: bool
    identity_passed: bool | None = None


class Overall(_Figures):
    passed: bool | None = None


class IdentityRule(_Part):
    rule: str
    limit: Annotated[float, Field(gt=0, le=1)] | None
    on: str


class JudgedOn(_Part):
    """What a run's verdict rests on (``attack.risk.basis``)."""

    targets: dict[str, dict[str, Any]]
    identity: IdentityRule
    min_scored: Annotated[int, Field(ge=1)]
    n_scored_units: Count
    n_scored_links: Count
    links_are: str
    direct_identifiers: list[str]
    harmless: list[str]
    reasons: list[str]


class Run(_Part):
    name: str
    intruder: str
    release: str
    tau: Tau
    passed: bool
    overall: Overall
    cells: list[Cell] = Field(min_length=1)
    judged_on: JudgedOn | None = None

    @model_validator(mode="after")
    def _judged_cells(self) -> Run:
        if self.judged_on is not None and self.judged_on.identity.limit is not None:
            for i, cell in enumerate(self.cells):
                if cell.reidentification_rate is None or cell.identity_passed is None:
                    raise ValueError(f"cells[{i}] needs reidentification_rate and identity_passed: "
                                     "identity is judged")
        return self


class Combined(_Part):
    lam: Annotated[float, Field(ge=0, le=1)]
    tau: Tau
    cells: list[Cell] = Field(min_length=1)
    passed: bool


class UnitRisk(_Part):
    tau: Tau
    n_targets: Count
    n_endangered: Count
    by_reason: dict[str, Count]


class CertifiedSingleAttack(_Part):
    unit_risk: UnitRisk


class CertifiedNaturalProtection(_Part):
    intruder: str
    release_name: str
    formal: dict[str, Any]
    release: dict[str, Any]


class CertifiedEvaluation(_Part):
    tau: Tau
    gamma: list[float] = Field(min_length=1)


class CertifiedIntruder(_Part):
    name: str
    linkage: dict[str, Any]


class AttackScenario(_Part):
    title: str
    intruders: list[CertifiedIntruder] = Field(min_length=1)
    evaluation: CertifiedEvaluation
    lam: Annotated[float, Field(ge=0, le=1)] | None


class FailingCell(_Part):
    model_config = ConfigDict(strict=True, extra="forbid")
    run: str
    cell: Label


class AttackVerdict(_Part):
    factually_anonymous: bool
    statement: str
    failing_cells: list[FailingCell]
    endangered_targets: Count
    scope: str


class _Header(_Part):
    certificate_version: Literal[2]
    tool: Tool
    environment: dict[str, str]
    created: str
    rerun: dict[str, Any]
    seeds: dict[str, Any]
    inputs: list[Input] = Field(min_length=1)
    digest: Hex64
    signature: Signature | None = None


class AttackCertificate(_Header):
    """A certificate of ``attack run`` on a scenario file (``run``) or of ``attack demo``."""

    kind: Literal["run", "demo"]
    scenario: AttackScenario
    results: list[Run] = Field(min_length=1)
    combined: Combined | None
    natural_protection: list[CertifiedNaturalProtection] | None
    single_attack: CertifiedSingleAttack | None
    verdict: AttackVerdict

    @model_validator(mode="after")
    def _one_tau_and_gammas(self) -> AttackCertificate:
        tau, gammas = self.scenario.evaluation.tau, len(self.scenario.evaluation.gamma)
        figures: list[tuple[str, float, Sequence[_Figures]]] = [
            (f"results[{i}]", run.tau, [run.overall, *run.cells]) for i, run in enumerate(self.results)]
        if self.combined is not None:
            figures.append(("combined", self.combined.tau, self.combined.cells))
        problems = []
        for where, own_tau, parts in figures:
            if own_tau != tau:
                problems.append(f"{where}.tau is {own_tau}, the scenario's τ is {tau}")
            if any(len(p.disclosure_risk) != gammas for p in parts):
                problems.append(f"{where}: a disclosure risk without one value per γ of the scenario ({gammas})")
        if self.single_attack is not None and self.single_attack.unit_risk.tau != tau:
            problems.append(f"single_attack.unit_risk.tau is {self.single_attack.unit_risk.tau}, "
                            f"the scenario's τ is {tau}")
        if (self.combined is None) != (self.scenario.lam is None):
            problems.append("scenario.lam and combined disagree on whether there is a combined measure")
        elif self.combined is not None and self.combined.lam != self.scenario.lam:
            problems.append(f"combined.lam is {self.combined.lam}, the scenario's λ is {self.scenario.lam}")
        if problems:
            raise ValueError("; ".join(problems))
        return self


class SyntheticSettings(_Part):
    tau: Tau
    keys: list[str]
    targets: list[str]
    gammas: list[float] = Field(min_length=1)
    seed: int
    n_attacks: Annotated[int, Field(ge=1)]
    membership: dict[str, Any] | None


class CertifiedSyntheticScenario(_Part):
    settings: SyntheticSettings
    n_original: Count
    n_synthetic: Count
    n_holdout: Count | None


class SyntheticCheck(_Part):
    family: str
    measure: str
    value: float | None
    upper: float | None
    tau: Tau
    passed: bool


class SyntheticVerdict(_Part):
    factually_anonymous: bool
    statement: str
    failing_checks: list[dict[str, Any]]
    scope: str


class SyntheticCertificate(_Header):
    """A certificate of the attacks on a synthetic release (``attack synth`` or a scenario)."""

    kind: Literal["synthetic"]
    scenario: CertifiedSyntheticScenario
    results: list[SyntheticCheck] = Field(min_length=1)
    verdict: SyntheticVerdict

    @model_validator(mode="after")
    def _checks_of_the_settings(self) -> SyntheticCertificate:
        settings = self.scenario.settings
        problems = [f"results[{i}].tau is {c.tau}, the settings' τ is {settings.tau}"
                    for i, c in enumerate(self.results) if c.tau != settings.tau]
        families = [c.family for c in self.results]
        expected = {"singling_out": True, "linkability": len(settings.keys) >= 2,
                    "membership": settings.membership is not None}
        for family, wanted in expected.items():
            if (family in families) != wanted:
                problems.append(f"the settings {'ask for' if wanted else 'do not ask for'} a {family} check, "
                                f"the results {'lack it' if wanted else 'carry one'}")
        attacked = {getattr(c, "target", None) for c in self.results if c.family not in expected}
        problems += [f"no check of the settings' target {t!r}" for t in settings.targets if t not in attacked]
        if problems:
            raise ValueError("; ".join(problems))
        return self


MODELS: dict[str, type[_Header]] = {"run": AttackCertificate, "demo": AttackCertificate,
                                    "synthetic": SyntheticCertificate}


def structure_problems(certificate: dict[str, Any]) -> list[str]:
    """One line per way ``certificate`` breaks the structure of its kind (empty: it holds)."""
    kind = certificate.get("kind")
    model = MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        return [f"kind is {certificate.get('kind')!r}; expected one of {', '.join(MODELS)}"]
    return _problems(model, certificate)


class ResultFigures(_Part):
    """The verdict-bearing figures of a result of ``attack run``, ``demo`` or ``link`` in a
    certificate's layout (``attack.study.certificate.certified_results``): one τ throughout."""

    results: list[Run] = Field(min_length=1)
    combined: Combined | None
    single_attack: CertifiedSingleAttack | None

    @model_validator(mode="after")
    def _one_tau(self) -> ResultFigures:
        taus = {run.tau for run in self.results}
        taus |= {self.combined.tau} if self.combined is not None else set()
        taus |= {self.single_attack.unit_risk.tau} if self.single_attack is not None else set()
        if len(taus) > 1:
            raise ValueError(f"the runs, the combined measure and the single attacks give different τ: "
                             f"{', '.join(map(str, sorted(taus)))}")
        return self


class SyntheticFigures(_Part):
    """The checks of a result of ``attack synth`` with the τ of its settings."""

    tau: Tau
    results: list[SyntheticCheck] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_tau(self) -> SyntheticFigures:
        wrong = [f"checks[{i}].tau is {c.tau}, the settings' τ is {self.tau}"
                 for i, c in enumerate(self.results) if c.tau != self.tau]
        if wrong:
            raise ValueError("; ".join(wrong))
        return self


def figure_problems(model: type[BaseModel], figures: dict[str, Any]) -> list[str]:
    """One line per way the figures of a result document break ``model`` (``ResultFigures`` or
    ``SyntheticFigures``; empty: they hold)."""
    return _problems(model, figures)


def _problems(model: type[BaseModel], data: dict[str, Any]) -> list[str]:
    try:
        model.model_validate(data)
    except ValidationError as exc:
        return [_line(error) for error in exc.errors(include_url=False)]
    return []


def _line(error: ErrorDetails) -> str:
    where = dotted(tuple(error["loc"])) or "the certificate"
    if error["type"] in ("model_type", "model_attributes_type", "dict_type"):
        return f"{where}: expected an object, found {_json_type(error['input'])}"
    if error["type"] == "list_type":
        return f"{where}: expected a list, found {_json_type(error['input'])}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}"


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")
