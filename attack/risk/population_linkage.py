"""The linkage attack's re-identifications carried to the population
(docs/method/population-uniqueness.md, "Linkage in the population").

When the intruder's external file covers only a share ``c`` of the population and the release
is a simple random sample with fraction ``π`` (both given in the evaluation settings), the
observed hit rate ``p̂ = h / n_v`` among the verifiable external records estimates the share of
released records an intruder with a complete file re-identifies. With ``n_r`` released records
(``N = n_r / π`` population units) the expected number of population units re-identified is
``p̂ · n_r`` (only released units can be) and ``p̂ · π`` the share of the population; each
interval is the Wilson 95 % interval of ``p̂`` scaled the same way (the verifiable external
records taken as a simple random sample of the released units; no finite-population
correction, which widens the interval). ``c`` is recorded beside the observed coverage
``n_v / n_r`` (the share of released units the external file holds): this intruder's own
re-identifications are the observed ``h``.
"""

from __future__ import annotations

from attack.risk.stats import wilson_interval


def population_reidentifications(n_correct: int, n_verifiable: int, n_release: int,
                                 external_coverage: float | None, release_fraction: float | None) -> dict:
    """The expected re-identifications in the population with their 95 % intervals."""
    coverage = 1.0 if external_coverage is None else float(external_coverage)
    fraction = 1.0 if release_fraction is None else float(release_fraction)
    rate = n_correct / n_verifiable if n_verifiable else None
    interval = wilson_interval(n_correct, n_verifiable)

    def scaled(factor: float) -> dict:
        return {"expected": None if rate is None else rate * factor,
                "interval": None if interval is None else [interval[0] * factor, interval[1] * factor]}

    return {"external_coverage": coverage, "release_fraction": fraction, "released_records": n_release,
            "population": round(n_release / fraction), "hit_rate": rate, "observed": n_correct,
            "observed_coverage": n_verifiable / n_release if n_release else None,
            "if_complete": scaled(n_release), "share_of_population": scaled(fraction),
            "method": "hit rate of the verifiable links (Wilson 95 %) times the released records"}
