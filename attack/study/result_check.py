"""A result document read back is trusted only when its verdict follows from its figures.

``attack report`` (and every reader of a result JSON: the web UI's verdict) recomputes the
verdict as ``attack verify`` does for a certificate, with the same function
(``attack.study.verify.recomputed_verdict``): the figures are put in a certificate's layout,
their structure is checked with the certificate's strict models (a boolean is not a number, no
list the verdict rests on is empty, one τ throughout), every cell's mark is judged against its
disclosure risks and τ, and the document's ``passed`` must be the verdict they give. A document
whose verdict does not follow is an ``InputError`` (exit 2) naming the first problems.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attack.errors import InputError
from attack.report.documents import document_runs, result_kind
from attack.study.certificate import certified_results
from attack.study.certificate_schema import ResultFigures, SyntheticFigures, figure_problems
from attack.study.verify import recomputed_verdict
from attack.verdict import below_tau

#: Problems named in the error (the rest are counted).
_SHOWN = 5


def verdict_problems(document: Mapping[str, Any]) -> list[str]:
    """One line per way the verdict of a result document does not follow from its figures
    (empty: it follows)."""
    kind = result_kind(document)
    if kind == "tune":
        return _tune_problems(document)
    if kind == "synthetic":
        settings = document.get("settings")
        figures = {"tau": settings.get("tau") if isinstance(settings, Mapping) else None,
                   "results": document.get("checks")}
        problems = figure_problems(SyntheticFigures, figures)
        certificate = {"kind": "synthetic", "scenario": {"settings": {"tau": figures["tau"]}},
                       "results": figures["results"]}
    else:
        try:
            results = certified_results(document_runs(document))
        except (KeyError, TypeError, AttributeError) as exc:
            return [f"a run lacks the figures of a result ({exc})"]
        figures = {"results": results, "combined": document.get("combined"),
                   "single_attack": document.get("single_attack")}
        # the places named as in the result document (its runs, or the one run of a link)
        where = "runs[" if kind == "scenario" else "run ["
        problems = [p.replace("results[", where, 1) for p in figure_problems(ResultFigures, figures)]
        combined = figures["combined"]
        certificate = {"kind": "run", "results": results, "combined": combined,
                       "single_attack": figures["single_attack"],
                       "scenario": {"evaluation": {"tau": results[0]["tau"] if results else None},
                                    "lam": combined.get("lam") if isinstance(combined, Mapping) else None}}
    if problems:
        return problems
    verdict, problems = recomputed_verdict(certificate)
    passed = document.get("passed")
    if passed is not verdict["factually_anonymous"]:
        word = "PASSED" if verdict["factually_anonymous"] else "NOT PASSED"
        problems.append(f"passed is {passed!r}, but the figures and τ give {word}")
    return problems


def check_result(document: Mapping[str, Any], file: str | None = None) -> None:
    """Refuse (``InputError``) a result document whose verdict does not follow from its figures."""
    problems = verdict_problems(document)
    if problems:
        more = f" (and {len(problems) - _SHOWN} more)" if len(problems) > _SHOWN else ""
        raise InputError("the verdict does not follow from the figures, so the result is not reported: "
                         + "; ".join(problems[:_SHOWN]) + more, file=file)


def _tune_problems(document: Mapping[str, Any]) -> list[str]:
    """A tuning's marks against its candidates' figures and τ (a candidate marked as passing has
    its largest cell risk below τ, no failing cell and no cell without an estimate), and its
    choice: the first value, in the grid's order, whose candidates pass for every seed."""
    tau: Any = document.get("tau")
    candidates = document.get("candidates")
    if not _number(tau) or not 0 < tau <= 1:
        return [f"tau is {tau!r}, expected a number above 0 and at most 1"]
    if not isinstance(candidates, list) or not candidates or not all(isinstance(c, Mapping) for c in candidates):
        return ["candidates: expected a non-empty list of objects"]
    problems: list[str] = []
    passes: dict[str, bool] = {}
    for i, candidate in enumerate(candidates):
        if not _well_formed(candidate):
            problems.append(f"candidates[{i}]: expected passed (true/false), max_cell_risk (a number) and "
                            "n_failing_cells (a whole number)")
            continue
        if candidate["passed"] and not _passes(candidate, tau):
            problems.append(f"candidates[{i}] (value {candidate.get('value')!r}) is marked passed, but its largest "
                            f"cell risk is {candidate['max_cell_risk']} against τ = {tau} with "
                            f"{candidate['n_failing_cells']} failing cell(s)")
        key = repr(candidate.get("value"))
        passes[key] = passes.get(key, True) and candidate["passed"]
    first = next((value for value, ok in passes.items() if ok), None)
    chosen = document.get("chosen")
    stated = repr(chosen.get("value")) if isinstance(chosen, Mapping) else None
    if stated != first:
        problems.append(f"chosen is {chosen!r}, but the candidates give {first or 'no feasible value'}")
    return problems


def _well_formed(candidate: Mapping[str, Any]) -> bool:
    """A candidate's marks have their types: passed, the largest cell risk and the counts."""
    return (isinstance(candidate.get("passed"), bool) and _number(candidate.get("max_cell_risk"))
            and _count(candidate.get("n_failing_cells")) and _count(candidate.get("n_cells_without_estimate", 0)))


def _passes(candidate: Mapping[str, Any], tau: float) -> bool:
    """The candidate's figures pass: largest cell risk below τ, no failing cell, none without an estimate."""
    return (below_tau(candidate["max_cell_risk"], tau) and candidate["n_failing_cells"] == 0
            and candidate.get("n_cells_without_estimate", 0) == 0)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
