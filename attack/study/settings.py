"""The schema of scenario files: every table and field, checked before any data file is read.

``ScenarioSettings`` is the one description of a scenario file. Loading a file validates it
here first; a bad value raises ``InputError`` naming the file and the
field's dotted path (``evaluation.tau``, ``linkage.keys[1].weight``) with what was expected, and
an unknown field gets a "did you mean". ``attack schema`` prints ``json_schema`` so that an
editor can check a TOML file as it is typed. The file format is described in
``docs/reference/scenario-file.md``.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self

from annotated_types import Ge
from pydantic import Field, ValidationError, model_validator

from attack.datasets.demo import DEMO_SOURCES
from attack.errors import InputError, from_validation
from attack.io.readers import ReadOptions
from attack.io.rules import Seed
from attack.linkage.engines import Engine
from attack.linkage.settings import IntruderLinkage, Linkage, SettingsTable, parses
from attack.protect.catalogue import METHODS as PROTECTION
from attack.protect.catalogue import parse_params
from attack.risk.combine import LAMBDA_PRESETS, ROLES, resolve_lambda
from attack.risk.release_context import ReleaseContext, release_context
from attack.risk.settings import Evaluation

#: Longest title a scenario may carry (it heads every report and certificate), in characters.
TITLE_LIMIT = 200


class Reading(SettingsTable):
    """How a file is read where detection should not decide: the document form of
    ``attack.ReadOptions`` (whose ``build`` takes exactly these fields and resolves them: a tab
    written ``tab``, missing-value codes per column, a sheet index)."""

    sep: str | None = Field(None, description="CSV separator (default: detected); 'tab' for a tab.")
    decimal: Literal[".", ","] | None = Field(None, description="Decimal separator (default: detected).")
    thousands: str | None = Field(None, description="Thousands separator of CSV numbers.")
    encoding: str | None = Field(None, description="Text encoding (default: detected).")
    sheet: str | int | None = Field(None, description="Sheet name or 0-based index (Excel, OpenDocument).")
    na: list[str | int | float] | dict[str, list[str | int | float]] = Field(
        default_factory=list, description="Missing-value codes: a list for every column, or per column.")
    codes: list[str] = Field(default_factory=list,
                             description="Columns holding codes even if they look like numbers (NACE).")

    def read_options(self) -> ReadOptions:
        """How the file is read (None entries are detected). A sheet keeps its TOML type: a
        number is an index, a text a name (also one made of digits, such as "2024")."""
        options = ReadOptions.build(**self.model_dump(include=set(Reading.model_fields)))
        return replace(options, sheet=self.sheet)

    def _check_reading(self) -> None:
        try:
            self.read_options()
        except InputError as exc:
            raise ValueError(exc.message) from None


#: Where a data entry of either kind of scenario may come from instead of a file.
DemoSource = Annotated[Literal[DEMO_SOURCES] | None, Field(  # type: ignore[valid-type]
    description="A data set generated from the [data.demo] population instead of a file.")]


class Source(Reading):
    """The base of a data entry of either kind of scenario: a file (``path``) or a generated
    demo set (``demo``, declared by each kind where its entries place it), never both, with how
    to read it where detection should not decide."""

    #: The error when both or neither source is given.
    one_source: ClassVar[str] = "give either path or demo"

    path: str | None = Field(None, description="File, relative to the scenario file.")
    if TYPE_CHECKING:
        demo: str | None

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if (self.path is None) == (self.demo is None):
            raise ValueError(self.one_source)
        self._check_source()
        self._check_reading()
        return self

    def _check_source(self) -> None:
        """What an entry of this kind needs besides its source (nothing by default)."""


class DataEntry(Source):
    """One data source: a file (``path`` and ``id``) or a generated demo set (``demo``), with
    how to read it where detection should not decide."""

    one_source: ClassVar[str] = "give either path (with id) or demo"

    id: str | None = Field(None, min_length=1, description="Column holding the unit identifier.")
    demo: DemoSource = None
    name: str | None = Field(None, description="Name of a candidate release (in a list of releases).")

    def _check_source(self) -> None:
        if self.path is not None and self.id is None:
            raise ValueError("a file entry needs id, the column holding the unit identifier")


#: The demo's population: the generator needs at least 100 firms.
DemoUnits = Annotated[int, Ge(100)]


class DemoOptions(SettingsTable):
    """The generated population the ``demo`` entries derive from."""

    n_units: DemoUnits = Field(17000, strict=True)
    seed: Seed = Field(1, strict=True)


class Data(SettingsTable):
    external: DataEntry | None = None
    release: DataEntry | list[DataEntry] = Field(
        description="The candidate release, or a list of named candidates compared side by side.")
    original: DataEntry | None = Field(None, description="The confidential original (the truth).")
    demo: DemoOptions | None = None

    @model_validator(mode="after")
    def _named_releases(self) -> Data:
        if isinstance(self.release, list):
            if not self.release:
                raise InputError("give at least one entry", field="release")
            names = [r.name for r in self.release]
            if any(n is None for n in names):
                raise InputError("every entry of a list of releases needs a name", field="release")
            if len(set(names)) != len(names):
                raise InputError("two releases have the same name", field="release")
        return self


class Intruder(SettingsTable):
    name: str | None = None
    role: Literal[ROLES] = "realistic"  # type: ignore[valid-type]
    external: DataEntry
    linkage: IntruderLinkage = Field(default_factory=IntruderLinkage)


class Outputs(SettingsTable):
    """The base of the ``[output]`` table of either kind of scenario: where the JSON result and
    the HTML report go (each kind adds its own files)."""

    json_: str | None = Field(default=None, alias="json")
    html: str | None = None


class Output(Outputs):
    matches: str | None = None
    certificate: str | None = None
    records: str | None = None


class Combine(SettingsTable):
    lam: Annotated[float | str, parses(resolve_lambda)] = Field(
        description="λ in P = λ·P_worst + (1 − λ)·mean(P_realistic) in [0, 1], or a preset: "
        + ", ".join(LAMBDA_PRESETS) + ".")


class NaturalProtection(SettingsTable):
    formal: DataEntry = Field(description="The FORMAL file the realistic intruders also attack.")
    agreement: dict[Literal["hierarchical", "categorical", "metric"], list[str]] | None = None


class SizeTargets(SettingsTable):
    """Targets: the units with ``column`` ≥ ``threshold`` (the handbook's large firms)."""

    column: str = "employees"
    threshold: float = Field(1000, allow_inf_nan=False)


class Leaders(SettingsTable):
    """Targets: the ``top`` units by ``value`` in every group of ``by`` (market leaders)."""

    value: str = "turnover"
    by: list[str] = Field(default_factory=lambda: ["nace", "east_west"])
    top: int = Field(3, ge=1)
    prefix: int | dict[str, int] | None = Field(None, description="Code prefix length of the grouping codes.")


def _size_bounds() -> list[float]:
    return [1000, 5000]  # whole numbers, written back as such


class SizeGroups(SettingsTable):
    """Report groups of the targets by ``column`` between ``bounds``."""

    column: str = "employees"
    bounds: list[float] = Field(default_factory=_size_bounds, min_length=1)


class SingleAttack(SettingsTable):
    """Targeted attacks on chosen units (Destatis handbook, ch. 13 and 36)."""

    size: SizeTargets | None = None
    leaders: Leaders | None = None
    exact: list[str] = Field(default_factory=lambda: ["nace", "east_west"])
    noisy: list[str] = Field(default_factory=lambda: ["employees", "turnover"])
    relative_error: float = Field(0.10, ge=0, allow_inf_nan=False)
    seed: int = Field(0, ge=0)
    window: float = Field(0.10, ge=0, allow_inf_nan=False)
    delta: float = Field(0.5, ge=0, allow_inf_nan=False)
    groups: SizeGroups | None = None

    @model_validator(mode="after")
    def _one_target_rule(self) -> SingleAttack:
        if self.size is not None and self.leaders is not None:
            raise InputError("choose the targets either by size or as market leaders, not both", field="leaders")
        return self


MlModel = Literal["linear", "forest", "boosting", "mlp"]


def _all_models() -> list[MlModel]:
    return ["linear", "forest", "boosting", "mlp"]


class TuneMl(SettingsTable):
    """Machine-learning utility of each candidate (docs/method/ml-utility.md): the keyword
    arguments of `attack.utility.ml.ml_utility`."""

    target: str = Field(description="The variable the models predict.")
    features: list[str] | None = Field(None, description="Predictors (default: every other shared column).")
    categorical: list[str] = Field(default_factory=list, description="Predictors one-hot encoded although numeric.")
    task: Literal["auto", "regression", "classification"] = "auto"
    models: list[MlModel] = Field(default_factory=_all_models, min_length=1)
    metric: Literal["rmse", "mae", "accuracy", "balanced_accuracy", "auc"] | None = None
    repetitions: int = Field(5, ge=1)
    test_share: float = Field(0.25, gt=0, lt=1)
    tolerance: float | dict[str, float] = Field(0.10, description="Largest relative loss, or per model.")
    seed: int = Field(0, ge=0)


class TuneUtility(SettingsTable):
    """Analysis-potential checks of each tuning candidate (docs/method/utility.md)."""

    variables: list[str] | None = None
    by: list[str] = Field(default_factory=list)
    crosses: list[list[str]] = Field(default_factory=list)
    weights: str | None = None
    models: list[str] = Field(default_factory=list)
    ml: TuneMl | None = Field(default=None, description="Machine-learning utility ([tune.utility.ml]).")


class Tune(SettingsTable):
    """The grid of `attack tune`: one protection method, the parameter to vary and its values,
    weak to strong (docs/method/utility.md)."""

    method: str = Field(description="A protection method (`attack protect --list-methods`).")
    parameter: str = Field(description="The parameter that is varied.")
    values: list[Any] = Field(min_length=1, description="Its values, weak to strong.")
    columns: list[str] = Field(default_factory=list, description="Variables the method changes.")
    params: dict[str, Any] = Field(default_factory=dict, description="Fixed parameters.")
    by: list[str] = Field(default_factory=list, description="Run the method within groups of these variables.")
    seeds: list[Annotated[int, Field(ge=0)]] = Field(default_factory=lambda: [0], min_length=1, description="Seed sweep.")
    base: str = Field("release", description="The data entry protected.")
    stop_at_first: bool = False
    release: str | None = Field(None, description="Where the chosen release goes.")
    utility: TuneUtility = Field(default_factory=TuneUtility)

    @model_validator(mode="after")
    def _known_method(self) -> Tune:
        if self.method not in PROTECTION:
            hint = difflib.get_close_matches(self.method, list(PROTECTION), n=1)
            raise InputError(f"unknown protection method {self.method!r}"
                             + (f"; did you mean {hint[0]!r}?" if hint else f"; expected one of {', '.join(PROTECTION)}"),
                             field="method")
        spec = PROTECTION[self.method]
        if self.parameter not in spec.params:
            raise InputError(f"method {self.method} has no parameter {self.parameter!r}; "
                             f"it has {', '.join(spec.params) or 'none'}", field="parameter")
        if self.parameter in self.params:
            raise InputError(f"params must not fix the tuned parameter {self.parameter!r}", field="params")
        for i, value in enumerate(self.values):  # fail before the first attack, not after an hour
            try:
                parse_params(spec, {**self.params, self.parameter: value})
            except InputError as exc:
                raise InputError(exc.message, field=f"values[{i}]") from None
        _listed_in_one_direction(self.values)
        return self


class Remedy(SettingsTable):
    """The ``[remedy]`` table of `attack remedy` (with the scenario's ``[tune]`` table, whose
    method and ladder it applies only where the intruders succeed; docs/method/remedy.md)."""

    variables: list[str] | None = Field(None, description="Variables to change (default: the keys the "
                                        "attribution names among the tune table's columns).")
    max_rounds: int = Field(50, ge=1, description="Most rounds of attack and remedy.")
    compare: bool = Field(True, description="Run attack tune's grid too and report its best uniform setting.")
    release: str | None = Field(None, description="Where the remedied release goes (owner-only).")


def _listed_in_one_direction(values: list[Any]) -> None:
    """The tuning grid is read in the order given, weak to strong: numbers must run in one
    direction without repeats, or "the weakest passing value" would mean nothing."""
    if len(values) < 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        if len({repr(v) for v in values}) < len(values):
            raise InputError("a value is listed twice", field="values")
        return
    steps = [b - a for a, b in itertools.pairwise(values)]
    if not (all(s > 0 for s in steps) or all(s < 0 for s in steps)):
        raise InputError(f"values {values} must run in one direction, weak to strong, without repeats "
                         "(the first passing value in this order is chosen as the weakest)", field="values")


class ScenarioFile(SettingsTable):
    """The base of both kinds of scenario file: validated completely before any data file is
    read, with errors naming the file and the dotted field, and described by a JSON Schema."""

    #: The title of the kind's JSON Schema.
    schema_title: ClassVar[str]

    @classmethod
    def validated(cls, raw: Mapping[str, Any], file: str | None = None) -> Self:
        """The validated settings of a parsed scenario file; an ``InputError`` naming the file
        and the field otherwise."""
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            raise from_validation(exc, model=cls, file=file) from None

    @classmethod
    def file_schema(cls) -> dict[str, Any]:
        """The JSON Schema of this kind of scenario file (draft 2020-12), for editors and CI checks."""
        schema = cls.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = cls.schema_title
        return schema


class ScenarioSettings(ScenarioFile):
    """A scenario file: the data, the intruders, the evaluation, the outputs, the engine."""

    schema_title: ClassVar[str] = "attack scenario file"

    title: str = Field("attack scenario", max_length=TITLE_LIMIT)
    notes: list[str] = Field(default_factory=list)
    data: Data
    linkage: Linkage
    evaluation: Evaluation = Field(default_factory=Evaluation.of)
    output: Output = Field(default_factory=Output)
    engine: Engine = Field(default_factory=Engine)
    intruder: list[Intruder] = Field(default_factory=list)
    combine: Combine | None = None
    natural_protection: NaturalProtection | None = None
    single_attack: SingleAttack | None = None
    tune: Tune | None = Field(None, description="Tuning grid of `attack tune`.")
    remedy: Remedy | None = Field(None, description="Targeted protection of `attack remedy`.")
    context: ReleaseContext | None = Field(None, description="Release-context questionnaire: sets evaluation.tau "
                                                             "(docs/method/release-context.md).")

    @model_validator(mode="before")
    @classmethod
    def _context_sets_tau(cls, raw: Any) -> Any:
        """The [context] answers set the evaluation's τ (which may then not be given too)."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("context"), Mapping):
            return raw
        evaluation = raw.get("evaluation", {})
        try:
            tau = release_context(raw["context"]).tau
        except InputError:
            return raw  # the [context] table's own validation names the bad answer
        if isinstance(evaluation, Mapping) and "tau" in evaluation and evaluation["tau"] != tau:
            raise InputError(f"the [context] questionnaire sets tau = {tau:g}: leave it out of [evaluation]",
                             field="evaluation.tau")
        return {**raw, "evaluation": {**(evaluation if isinstance(evaluation, Mapping) else {}), "tau": tau}}

    @model_validator(mode="after")
    def _consistent(self) -> ScenarioSettings:
        if not self.intruder and self.data.external is None:
            raise InputError("this field is required: the intruder's file (or add [[intruder]] tables)",
                             field="data.external")
        if self.engine.scheduler is not None and self.engine.name != "dask":
            raise InputError("a scheduler needs name = 'dask'", field="engine.scheduler")
        several_releases = isinstance(self.data.release, list) and len(self.data.release) > 1
        if self.combine is None and len(self.intruder) > 1 and not several_releases:
            raise InputError("several [[intruder]] tables need a [combine] table with lam (e.g. 0.2)",
                             field="combine")
        if self.combine is not None and several_releases:
            raise InputError("judges one release; with several releases write one scenario per release",
                             field="combine")
        return self


#: The validated settings of a parsed linkage scenario file.
validate = ScenarioSettings.validated
#: The JSON Schema of linkage scenario files.
json_schema = ScenarioSettings.file_schema
