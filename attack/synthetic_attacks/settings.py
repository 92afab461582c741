"""The settings of the attacks on a synthetic release (``attack synth``; docs/method/synthetic-attacks.md)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from attack.defaults import SYNTHETIC_TAU
from attack.errors import InputError

if TYPE_CHECKING:
    from attack.synthetic_attacks.cap import Binning

__all__ = ["DEFAULT_SYNTH_TAU", "SynthSpec", "categorical_mode_for", "check_roles",
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


@dataclass(frozen=True)
class SynthSpec:
    """What to attack and how.

    ``columns`` (default: every column both files share, minus ``exclude``) feed the distance
    attacks and singling out; ``keys`` are what the intruder knows, ``targets`` what he wants.
    ``categorical`` adds numeric columns (codes) to the non-numeric ones. Numeric keys and
    targets are grouped for the table measures by ``bins`` (default: quintiles of the original).
    The preparation (``metric``, ``scaling``, ``categorical_mode``) is fitted on the
    original only. ``options`` holds the settings of further attack families, one mapping per
    family name, each validated by the family's own model."""

    keys: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    columns: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    categorical: tuple[str, ...] | None = None
    gammas: tuple[float, ...] = (0.10,)
    tau: float = DEFAULT_SYNTH_TAU
    metric: str = "gower_mean"
    scaling: str = "minmax_range"
    categorical_mode: str = "mismatch"
    n_attacks: int = 500
    seed: int = 0
    bins: Mapping[str, Binning] = field(default_factory=dict)
    membership: Mapping[str, Any] | None = None
    holdout_share: float = 0.0
    membership_family: Mapping[str, Any] | None = None
    decide: bool = False
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def describe(self) -> dict:
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
            **({"options": _loggable(self.options)} if self.options else {}),
            "decision": "every check's upper 95% bound < tau (docs/method/synthetic-attacks.md)",
        }


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


def _loggable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _loggable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_loggable(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)


def spec_from(settings: Mapping[str, Any]) -> SynthSpec:
    names = {f.name for f in fields(SynthSpec)}
    unknown = sorted(set(settings) - names)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(names), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(sorted(names))}"
        raise InputError(f"unknown setting {unknown[0]!r}{hint}", field=unknown[0])
    tuples = {k: tuple(v) for k, v in settings.items()
              if k in ("keys", "targets", "columns", "exclude", "categorical", "gammas") and v is not None}
    for key, value in settings.items():
        if key in tuples and isinstance(value, str):
            raise InputError(f"expected a list, got {value!r}", field=key)
    return SynthSpec(**{**settings, **tuples})


