"""The settings of the attacks on a synthetic release, declared once (``attack synth``, the
``[attacks]`` table of a synthetic-release scenario; docs/method/synthetic-attacks.md).

``Attacks`` is what a scenario file writes; ``SynthSpec`` is the same table plus what only the
command line or a Python call gives (the compared columns, membership inference, a holdout
share, further attack families). Both check their rules when they are made."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from attack.defaults import SYNTHETIC_TAU
from attack.errors import InputError, from_validation
from attack.linkage.settings import SettingsTable
from attack.synthetic_attacks.choices import METRICS, SCALINGS
from attack.synthetic_attacks.family_options import FamilyOptions

if TYPE_CHECKING:
    from attack.synthetic_attacks.cap import Binning

__all__ = ["DEFAULT_SYNTH_TAU", "Attacks", "SynthSpec", "categorical_mode_for", "check_roles",
           "parse_binning", "spec_from"]

DEFAULT_SYNTH_TAU = SYNTHETIC_TAU  # why 0.1 and why the upper bound: attack/defaults.py


def check_roles(keys: Sequence[str], targets: Sequence[str], gammas: Sequence[float] = (0.10,)) -> None:
    """The rules every attack setting obeys: targets need keys, no column is both, γ > 0."""
    if targets and not keys:
        raise InputError("targets need keys: attribute attacks need --key as well as --target", field="keys")
    both = sorted(set(keys) & set(targets))
    if both:
        raise InputError(f"{both[0]!r} cannot be both a key and a target", field="targets")
    if any(not 0 < g for g in gammas):
        raise InputError("every γ must be positive", field="gammas")


def categorical_mode_for(metric: str) -> str:
    """How categories enter a distance: mismatch (0/1) for the Gower metrics, dummy coding for
    the Euclidean and L1 ones."""
    return "mismatch" if metric.startswith("gower") else "dummy"


def parse_binning(text: str) -> tuple[str, Binning]:
    """``VAR=quantile:K``, ``VAR=equal_width:K`` or ``VAR=breaks:B1,B2,...``."""
    from attack.synthetic_attacks.cap import Binning  # here: the command line starts without SciPy

    name, sep, rule = text.partition("=")
    kind, _, arg = rule.partition(":")
    try:
        if not sep or not name or not arg:
            raise ValueError
        if kind == "quantile":
            return name, Binning.quantile(int(arg))
        if kind == "equal_width":
            return name, Binning.equal_width(int(arg))
        if kind == "breaks":
            return name, Binning.breaks([float(b) for b in arg.split(",")])
    except ValueError:
        pass
    raise InputError(f"--bins {text!r}: expected VAR=quantile:K, VAR=equal_width:K or "
                     "VAR=breaks:B1,B2,...")


def _binning_class() -> type:
    from attack.synthetic_attacks.cap import Binning  # here: the command line starts without SciPy

    return Binning


class Attacks(SettingsTable):
    """The attacks and their decision (``attack synth``; docs/method/synthetic-attacks.md)."""

    keys: list[str] = Field(default_factory=list, description="Variables the intruder knows.")
    targets: list[str] = Field(default_factory=list, description="Variables he wants to learn (needs keys).")
    gammas: list[float] = Field(default_factory=lambda: [0.10], min_length=1,
                                description="Relative tolerance γ of numeric targets.")
    tau: float = Field(default=DEFAULT_SYNTH_TAU, gt=0, le=1, description="Risk limit of every check.")
    exclude: list[str] = Field(default_factory=list, description="Columns left out of the distance attacks.")
    categorical: list[str] = Field(default_factory=list, description="Numeric columns treated as categories.")
    metric: Literal[METRICS] = METRICS[0]  # type: ignore[valid-type]
    scaling: Literal[SCALINGS] = SCALINGS[0]  # type: ignore[valid-type]
    bins: dict[str, Any] = Field(default_factory=dict, description=(
        "Grouping of a numeric key or target: 'quantile:K', 'equal_width:K' or 'breaks:B1,B2,...'."))
    n_attacks: int = Field(default=500, ge=1, strict=True)
    seed: int = Field(default=0, strict=True, ge=0)
    options: FamilyOptions = Field(default_factory=lambda: FamilyOptions.model_validate({}), description=(
        "Settings of further attack families, one table per family name."))

    @field_validator("bins")
    @classmethod
    def _rules(cls, bins: dict[str, Any]) -> dict[str, Any]:
        for column, rule in bins.items():
            if isinstance(rule, str):
                try:
                    parse_binning(f"{column}={rule}")
                except InputError:
                    raise InputError("expected 'quantile:K', 'equal_width:K' or 'breaks:B1,B2,...'",
                                     field=column) from None
            elif not isinstance(rule, _binning_class()):
                raise InputError(f"expected a rule or a Binning, got {rule!r}", field=column)
        return bins

    @model_validator(mode="after")
    def _roles(self) -> Attacks:
        check_roles(self.keys, self.targets, self.gammas)
        return self

    def binnings(self) -> dict[str, Binning]:
        """The grouping of each numeric key or target named in ``bins``."""
        return {column: parse_binning(f"{column}={rule}")[1] if isinstance(rule, str) else rule
                for column, rule in self.bins.items()}


class SynthSpec(Attacks):
    """What to attack and how: the ``[attacks]`` table plus the settings a command or a Python
    call adds.

    ``columns`` (default: every column both files share, minus ``exclude``) feed the distance
    attacks and singling out; ``keys`` are what the intruder knows, ``targets`` what he wants.
    ``categorical`` adds numeric columns (codes) to the non-numeric ones. Numeric keys and
    targets are grouped for the table measures by ``bins`` (default: quintiles of the original).
    The preparation (``metric``, ``scaling``, ``categorical_mode``, by default the coding the
    metric implies) is fitted on the original only. ``options`` holds the settings of further
    attack families, one table per family name, each validated by the family's own model.
    A setting that breaks a rule is an ``InputError`` naming the field."""

    columns: list[str] | None = None
    categorical_mode: Literal["mismatch", "dummy"] = Field(
        "mismatch", description="Coding of categories in a distance (default: the one the metric implies).")
    membership: dict[str, Any] | None = None
    holdout_share: float = Field(default=0.0, ge=0, lt=1)
    membership_family: dict[str, Any] | None = None
    decide: bool = False
    privacy_claim: dict[str, Any] | None = None

    def __init__(self, **settings: Any) -> None:
        try:
            super().__init__(**settings)
        except ValidationError as exc:
            raise from_validation(exc, model=SynthSpec) from None

    @field_validator("privacy_claim")
    @classmethod
    def _claim(cls, claim: dict[str, Any] | None) -> dict[str, Any] | None:
        if claim is None:
            return None
        from attack.synthetic_attacks.privacy_claim import (
            PrivacyClaim,  # here: the command line starts lean
        )

        return PrivacyClaim.model_validate(claim).model_dump()

    @model_validator(mode="before")
    @classmethod
    def _coding(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("categorical_mode") is None:
            return {**data, "categorical_mode": categorical_mode_for(str(data.get("metric", METRICS[0])))}
        return data

    def to_dict(self) -> dict[str, Any]:
        """The settings as the result's JSON shows them (the decision rule included)."""
        return {
            "keys": list(self.keys), "targets": list(self.targets), "exclude": list(self.exclude),
            "gammas": list(self.gammas), "tau": self.tau, "metric": self.metric,
            "scaling": self.scaling, "categorical_mode": self.categorical_mode,
            "n_attacks": self.n_attacks, "seed": self.seed,
            "membership": None if self.membership is None else _loggable(self.membership),
            **({"holdout_share": self.holdout_share} if self.holdout_share else {}),
            **({"membership_family": _loggable(self.membership_family)}
               if self.membership_family is not None else {}),
            **({"decide": True} if self.decide else {}),
            **({"options": _loggable(given)} if (given := self.options.given()) else {}),
            **({"privacy_claim": _loggable(self.privacy_claim)} if self.privacy_claim is not None else {}),
            "decision": "every check's upper 95% bound < tau (docs/method/synthetic-attacks.md)",
        }


def _loggable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _loggable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_loggable(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)


def spec_from(settings: Mapping[str, Any]) -> SynthSpec:
    """The spec of ``attack_synthetic``'s keyword settings; a list given as one string is refused."""
    for key in ("keys", "targets", "columns", "exclude", "categorical", "gammas"):
        if isinstance(settings.get(key), str):
            raise InputError(f"expected a list, got {settings[key]!r}", field=key)
    return SynthSpec(**settings)
