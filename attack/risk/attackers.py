"""The prosecutor, journalist and marketer attacker models as ARX computes them
(``RiskModelSampleSummary``; docs/method/population-uniqueness.md, "Attacker models").

Each key class has ``f`` sample records and ``F`` population units. The prosecutor knows that
the target is in the release: a record's risk is ``1/f``. The journalist targets someone of the
population, who may not be in the release: risk ``1/F``. The marketer re-identifies as many
records as possible: the expected share ``Σ f/F / n``.

``F`` comes from the intruder's population file when one is given (exact, as ARX with a
population "superset"); without it ARX takes the release as the population (``F = f``), which
``basis = "sample"`` says; with a sampling fraction ``F`` is replaced by the superpopulation
model of the individual risk (``basis = "population_model"``: the risk ``E[1/F | f]`` with
``F − f`` negative binomial, Benedetti & Franconi 1998), which ARX does not have.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attack.report.notebook import fields_html


@dataclass(frozen=True)
class AttackerRisk:
    """One attacker model's re-identification risk.

    Attributes
    ----------
    model:
        ``prosecutor``, ``journalist`` or ``marketer``.
    basis:
        Where ``F`` comes from: ``sample`` (F = f), ``population_file`` or ``population_model``.
    highest:
        Highest record risk (``None`` for the marketer).
    records_at_risk:
        Share of records whose risk exceeds ``threshold`` (``None`` for the marketer).
    average:
        ARX's success rate: the average risk (prosecutor ``classes/n``; journalist the larger of
        ``classes/ΣF`` and ``Σ(f/F)/n``; marketer ``Σ(f/F)/n``).
    lowest:
        Lowest record risk (``None`` for the marketer).
    threshold:
        The record-risk threshold of ``records_at_risk``.
    """

    model: str
    basis: str
    highest: float | None
    records_at_risk: float | None
    average: float
    lowest: float | None
    threshold: float

    def _repr_html_(self) -> str:
        return fields_html(f"{self.model} risk", self.to_dict())

    def to_dict(self) -> dict:
        return {"basis": self.basis, "highest": self.highest, "records_at_risk": self.records_at_risk,
                "average": self.average, "lowest": self.lowest, "threshold": self.threshold}


def attacker_risks(f: np.ndarray, big_f: np.ndarray | None, threshold: float,
                   model_risk: np.ndarray | None = None) -> tuple[AttackerRisk, AttackerRisk, AttackerRisk]:
    """Prosecutor, journalist and marketer risk from the sample class sizes ``f`` and, per class,
    the population sizes ``big_f`` (``None``: the release is the population) or, per class, the
    model's expected risk ``model_risk`` (``E[1/F | f]``)."""
    f = np.asarray(f, dtype=float)
    n = f.sum()
    if f.size == 0:
        zero = (0.0, 0.0, 0.0, 0.0)
        return (_summary("prosecutor", "sample", *zero, threshold), _summary("journalist", "sample", *zero, threshold),
                AttackerRisk("marketer", "sample", None, None, 0.0, None, threshold))
    prosecutor = _summary("prosecutor", "sample", float(f[1.0 / f > threshold].sum() / n), 1.0 / f.min(),
                          f.size / n, 1.0 / f.max(), threshold)
    if model_risk is not None:
        r = np.asarray(model_risk, dtype=float)
        basis = "population_model"
        journalist = _summary("journalist", basis, float(f[r > threshold].sum() / n), float(r.max()),
                              float((f * r).sum() / n), float(r.min()), threshold)
        marketer = AttackerRisk("marketer", basis, None, None, float((f * r).sum() / n), None, threshold)
        return prosecutor, journalist, marketer
    basis = "sample" if big_f is None else "population_file"
    pop = f if big_f is None else np.asarray(big_f, dtype=float)
    share = float((f / pop).sum() / n)
    journalist = _summary("journalist", basis, float(f[1.0 / pop > threshold].sum() / n), 1.0 / pop.min(),
                          max(f.size / pop.sum(), share), 1.0 / pop.max(), threshold)
    return prosecutor, journalist, AttackerRisk("marketer", basis, None, None, share, None, threshold)


def _summary(model: str, basis: str, at_risk: float, highest: float, average: float, lowest: float,
             threshold: float) -> AttackerRisk:
    return AttackerRisk(model, basis, float(highest), float(at_risk), float(average), float(lowest), threshold)
