"""The schema of synthetic-release scenario files (``kind = "synthetic"``).

A synthetic-release scenario names the confidential original, the synthetic file (or how to
make it: the ``[synthesis]`` table), an optional holdout, the attacks and their τ, optionally
shadow-model membership inference and a tuning grid. Like the linkage scenarios it is checked
completely before any data file is read; errors name the file and the dotted field. The format
is described in ``docs/reference/scenario-file.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from attack.errors import InputError
from attack.generation.methods import METHODS as SYNTHESIS_METHODS
from attack.linkage.settings import SettingsTable, parses
from attack.study.settings import (
    TITLE_LIMIT,
    DemoOptions,
    DemoSource,
    Outputs,
    ScenarioFile,
    Source,
)
from attack.study.synthesis_tuning import GRID_KEYS, grid_type
from attack.synthetic_attacks.settings import Attacks
from attack.utility.propensity import MODELS


class SyntheticEntry(Source):
    """A file (``path``) or a generated demo set (``demo``); no identifier is needed."""

    demo: DemoSource = None


class SyntheticData(SettingsTable):
    original: SyntheticEntry = Field(description="The confidential original (training data of the synthesiser).")
    synthetic: SyntheticEntry | None = Field(
        None, description="The synthetic release; without it the [synthesis] table makes it from the original.")
    holdout: SyntheticEntry | None = Field(
        None, description="Original records the synthesiser did not see (control set of the attacks).")
    demo: DemoOptions | None = None


def _method(value: str) -> str:
    if not value.startswith("~") and value not in SYNTHESIS_METHODS:
        raise InputError(f"expected one of {', '.join(SYNTHESIS_METHODS)} or '~ expression', got {value!r}")
    return value


class SynthesisSettings(SettingsTable):
    """How the synthetic file is (or was) made: the settings of ``attack synthesize``
    (docs/method/synthesis.md). Membership inference assumes the intruder knows them."""

    columns: list[str] | None = Field(None, description="Columns to synthesise (default: all but drop, keep, strata).")
    drop: list[str] = Field(default_factory=list, description="Columns left out, e.g. the unit id.")
    keep: list[str] = Field(default_factory=list, description="Columns kept row by row (partial synthesis).")
    method: dict[str, Any] = Field(default_factory=dict, description="Column -> method, e.g. {turnover = 'normrank'}.")
    default_method: Literal[tuple(SYNTHESIS_METHODS)] = "cart"  # type: ignore[valid-type]
    visit_sequence: list[str] | None = None
    predictors: dict[str, list[str]] | None = None
    minbucket: int = Field(5, ge=1, strict=True)
    cp: float = Field(1e-4, ge=0, lt=1)
    ntree: int = Field(10, ge=1, strict=True)
    smoothing: Literal["none", "density"] = "none"
    proper: bool = False
    special_codes: list[float] = Field(default_factory=list)
    strata: list[str] = Field(default_factory=list)
    rows: int | None = Field(None, ge=1, strict=True)
    holdout_share: float = Field(0.0, ge=0, lt=1, description=(
        "Share of the original's records kept out of synthesis as the holdout (0: none); "
        "only when the synthetic file is made here and [data] names no holdout."))
    seed: int = Field(0, strict=True, ge=0)

    @model_validator(mode="after")
    def _methods(self) -> SynthesisSettings:
        for column, value in self.method.items():
            try:
                _method(str(value))
            except InputError as exc:
                raise InputError(exc.message, field=f"method.{column}") from None
        return self

    def keywords(self) -> dict[str, Any]:
        """The keyword arguments of ``attack.synthesize`` (without columns, rows, seed)."""
        return {"method": dict(self.method), "default_method": self.default_method,
                "visit_sequence": self.visit_sequence, "predictors": self.predictors,
                "minbucket": self.minbucket, "cp": self.cp, "ntree": self.ntree, "smoothing": self.smoothing,
                "proper": self.proper, "special_codes": list(self.special_codes), "strata": list(self.strata),
                "keep": list(self.keep)}


class Membership(SettingsTable):
    """Shadow-model membership inference (docs/method/synthetic-attacks.md)."""

    isolated: int = Field(10, ge=0, strict=True, description="Targets: the most isolated records.")
    random: int = Field(10, ge=0, strict=True, description="Targets: records drawn at random.")
    shadow_sets: int = Field(100, ge=4, strict=True, description="Games per target that train the classifier.")
    test_sets: int = Field(100, ge=4, strict=True, description="Games per target that measure it.")
    shadow_size: int | None = Field(None, ge=2, strict=True, description="Records per shadow training set.")
    jobs: int = Field(1, ge=1, strict=True, description="Processes for the shadow syntheses.")

    @model_validator(mode="after")
    def _targets(self) -> Membership:
        if self.isolated + self.random == 0:
            raise InputError("choose at least one target (isolated or random)", field="isolated")
        return self

    def game(self) -> dict[str, Any]:
        return {"n_isolated": self.isolated, "n_random": self.random, "shadow_sets": self.shadow_sets,
                "test_sets": self.test_sets, "shadow_size": self.shadow_size, "jobs": self.jobs}


def _grid(value: Mapping[str, Any]) -> Mapping[str, Any]:
    for key, values in value.items():
        kind = grid_type(key)
        if kind is None:
            raise InputError(f"cannot vary {key!r}; the grid takes {', '.join(GRID_KEYS)}")
        if not isinstance(values, list) or not values:
            raise InputError(f"{key}: expected a non-empty list of values")
        for v in values:
            if kind is float and isinstance(v, (int, float)) and not isinstance(v, bool):
                continue
            if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
                raise InputError(f"{key}: {v!r} is not a valid {kind.__name__}")
            if key.startswith("method") and isinstance(v, str):  # kind is str for a method
                _method(v)
    return value


class SynthesisTune(SettingsTable):
    """The grid of ``attack tune`` for a synthetic release: the most useful candidate (by S_pMSE)
    whose every check passes (docs/howto/synthetic-release.md)."""

    grid: Annotated[dict[str, Any], parses(_grid)] = Field(min_length=1, description=(
        "Setting -> values, e.g. {minbucket = [5, 20, 50], smoothing = ['none', 'density'], "
        "'method.turnover' = ['cart', 'normrank']}."))
    utility_model: Literal[tuple(MODELS)] = "logistic"  # type: ignore[valid-type]
    release: str | None = Field(None, description="Where the chosen synthetic file goes (owner-only).")


class SyntheticOutput(Outputs):
    certificate: str | None = None
    synthetic: str | None = Field(default=None, description="Where a synthetic file made here goes (owner-only).")


class ScenarioMembershipFamily(SettingsTable):
    """The data-only membership attacks (docs/method/membership-family.md); needs a holdout."""

    attacks: list[str] | None = Field(None, description="Attacks to run (default: every data-only attack).")
    verdict_fpr: float = Field(0.01, gt=0, lt=1, description="False-positive rate of the τ check.")


class ScenarioPrivacyClaim(SettingsTable):
    """The generator's differential-privacy claim, checked against the membership family
    (docs/method/privacy-claims.md)."""

    epsilon: float | None = Field(None, gt=0, allow_inf_nan=False, description="Claimed ε of this release.")
    delta: float | None = Field(None, ge=0, lt=1, description="Claimed δ (default 0, or the ledger's total).")
    ledger: str | None = Field(None, description="Budget ledger (TOML), relative to the scenario file.")
    confidence: float | None = Field(None, gt=0, lt=1, description="Confidence of the bound on ε (default 0.95).")

    @model_validator(mode="after")
    def _something_claimed(self) -> ScenarioPrivacyClaim:
        if self.epsilon is None and self.ledger is None:
            raise InputError("a privacy claim needs a claimed epsilon or a ledger", field="epsilon")
        return self


class SyntheticScenarioSettings(ScenarioFile):
    """A synthetic-release scenario file."""

    schema_title: ClassVar[str] = "attack synthetic-release scenario file"

    kind: Literal["synthetic"]
    title: str = Field("attacks on a synthetic release", max_length=TITLE_LIMIT)
    notes: list[str] = Field(default_factory=list)
    data: SyntheticData
    synthesis: SynthesisSettings | None = None
    attacks: Attacks = Field(default_factory=Attacks)
    membership: Membership | None = None
    tune: SynthesisTune | None = None
    output: SyntheticOutput = Field(default_factory=SyntheticOutput)
    membership_family: ScenarioMembershipFamily | None = None
    privacy_claim: ScenarioPrivacyClaim | None = None

    @model_validator(mode="after")
    def _consistent(self) -> SyntheticScenarioSettings:
        if self.data.synthetic is None and self.synthesis is None:
            raise InputError("give the synthetic file, or a [synthesis] table to make it", field="data.synthetic")
        if self.membership is not None and self.synthesis is None:
            raise InputError("membership inference needs the [synthesis] table: the intruder repeats the "
                             "synthesis the release was made with", field="membership")
        if self.synthesis is not None and self.synthesis.holdout_share and (
                self.data.synthetic is not None or self.data.holdout is not None):
            raise InputError("holdout_share splits the original only when the synthetic file is made here "
                             "and [data] names no holdout", field="synthesis.holdout_share")
        if self.privacy_claim is not None and self.membership_family is None:
            raise InputError("a privacy claim is checked against the membership family: add a "
                             "[membership_family] table", field="privacy_claim")
        if self.tune is not None and self.data.synthetic is not None:
            raise InputError("tuning makes the synthetic files itself; leave [data] synthetic out",
                             field="tune")
        return self


#: The validated settings of a parsed synthetic-release scenario file.
validate_synthetic = SyntheticScenarioSettings.validated
#: The JSON Schema of synthetic-release scenario files.
synthetic_json_schema = SyntheticScenarioSettings.file_schema
