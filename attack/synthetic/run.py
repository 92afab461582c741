"""All attacks on a synthetic release in one run, with the τ verdict (docs/method/synthetic-attacks.md).

``attack_synthetic`` runs, on the columns the original and the synthetic file share:

* the distance attacks (DCR, NNDR, exact and near copies, SDMetrics' baselines and the
  holdout comparison) — diagnostics, reported without a τ decision;
* singling out on all those columns;
* with two or more keys, linkability between two halves of the keys;
* with keys and targets, per target: the synthpop table measures and SDMetrics' CAP trio, Papavasiliou (2020) inverse-distance kNN attribution and, per γ, the
  inference attack;
* with ``membership`` settings, shadow-model membership inference against the synthesiser
  (``attack.synthetic.membership``), decided on the largest upper bound of the advantage;
* with ``membership_family`` settings and a holdout (given, or ``holdout_share`` of the original),
  the data-only membership attacks (``attack.synthetic.mia_family``), decided on the upper
  bound of the maximum over attacks of the TPR at the chosen false-positive rate.

Decisions: singling out, linkability and every inference are judged on the
upper bound of their risk interval (the residual risk over the holdout when one is given, else
the attack's own success rate); DiSCO and repU on the upper Wilson bound of their share of
original records. Every check must stay below τ. The DCR statistics carry no τ because the
sources define none.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from attack._version import __version__
from attack.defaults import SYNTHETIC_TAU
from attack.errors import InputError
from attack.io.columns import warn_unshared
from attack.io.writers import files_read
from attack.risk.stats import wilson_interval
from attack.synthetic.anonymeter import inference, linkability, singling_out
from attack.synthetic.cap import Binning, cap_scores, knn_attribution, table_measures
from attack.synthetic.distance import distance_attack
from attack.synthetic.membership import membership_inference
from attack.synthetic.mia_family import membership_family
from attack.synthetic.mia_game import holdout_mask
from attack.synthetic.results import SyntheticResult
from attack.synthetic.space import prepare

__all__ = ["DEFAULT_SYNTH_TAU", "SynthSpec", "attack_synthetic", "categorical_mode_for", "parse_binning"]

#: Columns per multivariate singling-out query (Anonymeter's default; fewer when the files have fewer).
SINGLING_OUT_COLUMNS = 3
DEFAULT_SYNTH_TAU = SYNTHETIC_TAU  # why 0.1 and why the upper bound: attack/defaults.py


@dataclass(frozen=True)
class SynthSpec:
    """What to attack and how.

    ``columns`` (default: every column both files share, minus ``exclude``) feed the distance
    attacks and singling out; ``keys`` are what the intruder knows, ``targets`` what he wants.
    ``categorical`` adds numeric columns (codes) to the non-numeric ones. Numeric keys and
    targets are grouped for the table measures by ``bins`` (default: quintiles of the original).
    The preparation (``metric``, ``scaling``, ``categorical_mode``) is fitted on the
    original only."""

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
            "decision": "every check's upper 95% bound < tau (docs/method/synthetic-attacks.md)",
        }


def categorical_mode_for(metric: str) -> str:
    """How categories enter a distance: mismatch (0/1) for the Gower metrics, dummy coding for
    the Euclidean and L1 ones."""
    return "mismatch" if metric.startswith("gower") else "dummy"


def parse_binning(text: str) -> tuple[str, Binning]:
    """``VAR=quantile:K``, ``VAR=equal_width:K`` or ``VAR=breaks:B1,B2,...``."""
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


def _columns(original: pd.DataFrame, synthetic: pd.DataFrame, spec: SynthSpec) -> list[str]:
    if spec.columns is not None:
        return list(spec.columns)
    return [c for c in original.columns if c in synthetic.columns and c not in spec.exclude]


def _check(family: str, measure: str, value: float | None, upper: float | None, tau: float,
           **where) -> dict:
    passed = upper is not None and upper < tau
    return {"family": family, "measure": measure, **where, "value": value, "upper": upper,
            "tau": tau, "passed": passed}


#: Most attacks per check that ``decide`` runs.
MAX_DECIDING_ATTACKS = 50_000


def decision(result: dict, tau: float, available: int | None) -> dict:
    """Whether the risk interval of one attack decides at τ (it lies wholly below τ or reaches
    it from above: ``high < τ`` or ``low ≥ τ``), and if not, about how many attacks would: the
    half-width shrinks as 1/√n, so ``n · (error / |τ − estimate|)²`` if the (unclipped) estimate
    stayed where it is. ``available``: the most attacks the files allow (records per attacked set; None when
    unknown)."""
    risk = result["risk"]
    n = result["main"]["n"]
    if risk is not None and (risk["high"] < tau or risk["low"] >= tau):
        return {"decided": True, "attacks": n, "attacks_needed": None, "attacks_available": available}
    # the unclipped estimate: the interval is estimate ± error, clipped to [0, 1]
    centre = None if risk is None else (risk["high"] - risk["error"] if 0 < risk["high"] < 1 else risk["value"])
    gap = None if risk is None else abs(tau - centre)
    needed = None if not gap else int(np.ceil(n * (risk["error"] / gap) ** 2))
    return {"decided": False, "attacks": n, "attacks_needed": needed, "attacks_available": available}


def _attack_check(family: str, result: dict, tau: float, **where) -> dict:
    risk = result["risk"]
    measure = "residual risk" if result["risk_basis"] == "residual" else "success rate"
    return _check(family, measure, None if risk is None else risk["value"],
                  None if risk is None else risk["high"], tau, **where)


def _share_check(measure: str, pct: float | None, n: int, tau: float, **where) -> dict:
    """A table measure given in % of the n original records, judged on its Wilson bound."""
    if pct is None:
        return _check("attribute", measure, None, None, tau, **where)
    interval = wilson_interval(round(pct / 100 * n), n)
    return _check("attribute", measure, pct / 100, interval[1] if interval else None, tau, **where)


def attack_synthetic(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    spec: SynthSpec | None = None,
    *,
    reference: pd.DataFrame | None = None,
    title: str = "Attacks on a synthetic release",
    **settings: Any,
) -> SyntheticResult:
    """Run every attack on a synthetic release the inputs allow and decide against τ.

    ``control`` is a holdout of real records not used for synthesis (it gives the baselines of
    the distance and Anonymeter-style attacks); ``holdout_share`` instead draws it from the
    original (the draw of a scenario's ``synthesis.holdout_share`` with the same seed).
    ``reference``: the intruder's population sample for the membership family (default: part
    of the holdout, see ``docs/method/membership-family.md``). The settings are a
    ``SynthSpec`` or its fields as keywords (``keys``, ``targets``, ``tau``, ``n_attacks``,
    ``seed``, ``membership_family`` …). The attacks are explained in
    ``docs/method/synthetic-attacks.md``.
    """
    if spec is None:
        spec = _spec_from(settings)
    elif settings:
        raise InputError(f"give either spec or settings, not both (got {', '.join(settings)})")
    holdout = control
    member_rows = np.arange(len(original))
    if spec.holdout_share:
        if control is not None:
            raise InputError("give a holdout file or a holdout share, not both", field="holdout_share")
        held = holdout_mask(len(original), spec.holdout_share, spec.seed)
        member_rows = np.flatnonzero(~held)
        original, holdout = original[~held].reset_index(drop=True), original[held].reset_index(drop=True)
    if spec.membership_family is not None and holdout is None:
        raise InputError("the membership family needs non-members: a holdout file or a holdout share",
                         field="membership_family")
    if reference is not None and spec.membership_family is None:
        raise InputError("a reference sample is used by the membership family only", field="reference")
    if spec.columns is None:
        warn_unshared(original, synthetic, "synthetic",
                      [c for c in original.columns if c not in spec.exclude])
    columns = _columns(original, synthetic, spec)
    if not columns:
        raise InputError("the original and the synthetic file share no column")
    for role, frame in (("synthetic", synthetic), ("holdout", holdout), ("reference", reference)):
        if frame is None:
            continue
        missing = [c for c in [*columns, *spec.keys, *spec.targets] if c not in frame.columns]
        if missing:
            raise InputError(f"column not found in the {role} file", file=frame.attrs.get("source"),
                             column=missing[0])
    overlap = set(spec.keys) & set(spec.targets)
    if overlap:
        raise InputError(f"{sorted(overlap)[0]!r} cannot be both a key and a target")
    if spec.targets and not spec.keys:
        raise InputError("attribute attacks need --key as well as --target")
    prep = prepare(original, columns, categorical=spec.categorical, scaling=spec.scaling,
                   categorical_mode=spec.categorical_mode, metric=spec.metric)
    categorical = list(prep.categorical)
    tau, seed = spec.tau, spec.seed
    document: dict = {
        "kind": "synthetic",
        "tool": f"attack {__version__}",
        "settings": spec.describe(),
        "n_original": len(original), "n_synthetic": len(synthetic),
        "n_holdout": None if holdout is None else len(holdout),
        "preparation": prep.as_dict(),
        "distance": distance_attack(original, synthetic, prep, control=holdout,
                                    seed=seed).as_dict(),
    }
    checks = []
    single = singling_out(original, synthetic, holdout, columns=columns, categorical=categorical,
                          n_attacks=spec.n_attacks, n_cols=min(SINGLING_OUT_COLUMNS, len(columns)),
                          tau=tau, seed=seed).as_dict()
    single["decision"] = decision(single, tau, None)
    document["singling_out"] = single
    checks.append(_attack_check("singling_out", single, tau))
    available = len(original) if holdout is None else min(len(original), len(holdout))
    if len(spec.keys) >= 2:
        halves = (list(spec.keys[::2]), list(spec.keys[1::2]))
        link = linkability(original, synthetic, holdout, aux_columns=halves,
                           n_attacks=spec.n_attacks, space=prep.subset(list(spec.keys)),
                           categorical=[c for c in categorical if c in spec.keys],
                           tau=tau, seed=seed).as_dict()
        link["decision"] = decision(link, tau, available)
        document["linkability"] = link
        checks.append(_attack_check("linkability", link, tau))
    document["attribute"] = {}
    for target in spec.targets:
        entry, new_checks = _attribute(original, synthetic, holdout, target, prep, spec, available)
        document["attribute"][target] = entry
        checks += new_checks
    if spec.membership is not None:
        game = dict(spec.membership)
        member = membership_inference(original, columns=columns, release=synthetic, tau=tau, seed=seed, **game)
        document["membership"] = member.to_dict()
        checks.append(_membership_check(member, tau))
    exposed = None
    if spec.membership_family is not None:
        options = dict(spec.membership_family)
        synthesis = (spec.membership or {}).get("synthesis")
        family = membership_family(
            original, holdout, synthetic, reference, columns=columns, categorical=spec.categorical,
            metric=spec.metric, scaling=spec.scaling, categorical_mode=spec.categorical_mode,
            synthesis=None if callable(synthesis) else synthesis, tau=tau, seed=seed, **options)
        document["membership_family"] = family.to_dict()
        verdict = document["membership_family"]["verdict"]
        checks.append(_check("membership_family", f"max TPR at FPR {family.verdict_fpr:g}", verdict["value"],
                             verdict["upper"], tau, target=family.worst[family.verdict_metric]))
        if family.exposed is not None:
            exposed = family.exposed.assign(member_row=member_rows[family.exposed["member_row"].to_numpy()])
            exposed = exposed.rename(columns={"member_row": "original_row"})
    document["checks"] = checks
    document["tau"] = tau
    document["passed"] = all(c["passed"] for c in checks)
    more = _attacks_to_decide(document, spec.n_attacks) if spec.decide else None
    if more is not None:  # once more with enough attacks for every undecided check the files allow
        again = attack_synthetic(original, synthetic, holdout, replace(spec, n_attacks=more, decide=False,
                                                                        holdout_share=0.0),
                                 reference=reference, title=title)
        figures = {**again.figures, "settings": replace(spec, n_attacks=more).describe(),
                   "decide": {"first_n_attacks": spec.n_attacks, "n_attacks": more}}
        exposed = None if again.exposed is None else again.exposed.assign(
            original_row=member_rows[again.exposed["original_row"].to_numpy()])
        return SyntheticResult(figures, title, exposed, inputs=files_read(original, synthetic, holdout))
    return SyntheticResult(document, title, exposed, inputs=files_read(original, synthetic, holdout))


def _attacks_to_decide(document: Mapping[str, Any], n_attacks: int) -> int | None:
    """The attacks per check that the undecided checks need (capped by what the files allow and
    by ``MAX_DECIDING_ATTACKS``), or None when that is no more than were run."""
    results = [document["singling_out"], *([document["linkability"]] if "linkability" in document else []),
               *[r for entry in document["attribute"].values() for r in entry["inference"].values()]]
    wanted = []
    for r in results:
        d = r["decision"]
        if not d["decided"] and d["attacks_needed"] is not None:
            cap = MAX_DECIDING_ATTACKS if d["attacks_available"] is None else min(d["attacks_available"],
                                                                                    MAX_DECIDING_ATTACKS)
            wanted.append(min(d["attacks_needed"], cap))
    more = max(wanted, default=0)
    return more if more > n_attacks else None


def _membership_check(member, tau: float) -> dict:
    """One decision over all targets: the largest advantage and its largest upper bound."""
    worst = max(member.targets, key=lambda t: (t.advantage_interval[1], t.advantage))
    return _check("membership", "advantage", worst.advantage, worst.advantage_interval[1], tau,
                  target=worst.label)


def _loggable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _loggable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_loggable(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)


def _spec_from(settings: Mapping[str, Any]) -> SynthSpec:
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


def _attribute(original, synthetic, holdout, target: str, prep, spec: SynthSpec,
               available: int) -> tuple[dict, list]:
    """Table measures, CAP trio, kNN attribution and inference for one target."""
    keys = list(spec.keys)
    if not set([*keys, target]) <= set(prep.columns):  # keys or target left out of --columns
        prep = prepare(original, [*keys, target], categorical=spec.categorical)
    numeric = set(prep.numeric)
    bins = {c: spec.bins.get(c, Binning.quantile(5)) for c in [*keys, target] if c in numeric}
    target_numeric = target in numeric
    tables = table_measures(original, synthetic, keys, target, binning=bins)
    caps = cap_scores(original, synthetic, keys, target, binning=bins)
    knn = knn_attribution(
        original, synthetic, keys, target,
        target_type="numeric" if target_numeric else "categorical",
        categorical=[c for c in keys if c not in numeric],
        k=min(10, len(synthetic)), n_attacks=spec.n_attacks, seed=spec.seed,
        gamma=spec.gammas[0],
    )
    n = len(original)
    checks = [
        _share_check("DiSCO", tables.disco_pct, n, spec.tau, target=target),
        _share_check("repU", tables.repu_pct, n, spec.tau, target=target),
    ]
    inferences = {}
    for gamma in spec.gammas:
        result = inference(
            original, synthetic, holdout, aux_columns=keys, secret=target,
            n_attacks=spec.n_attacks, gamma=gamma, space=prep.subset(keys),
            categorical=[c for c in [*keys, target] if c not in numeric],
            tau=spec.tau, seed=spec.seed,
        ).as_dict()
        result["decision"] = decision(result, spec.tau, available)
        inferences[f"{gamma:g}"] = result
        checks.append(_attack_check("inference", result, spec.tau, target=target,
                                    gamma=gamma if target_numeric else None))
        if not target_numeric:
            break  # γ does not apply to a categorical secret
    return {
        "type": "numeric" if target_numeric else "categorical",
        "table_measures": tables.as_dict(),
        "cap": caps.as_dict(),
        "knn_attribution": knn.as_dict(),
        "inference": inferences,
    }, checks
