"""Where a scenario's outputs go when the user names no file: the certificate beside the JSON
result, the tuning results beside the files ``attack run`` writes, never over them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from attack.errors import InputError

if TYPE_CHECKING:
    from attack.study.scenario import Scenario

#: The folder of the outputs of a scenario that names none.
REPORTS = Path("reports")


class _Loaded(Protocol):
    """A scenario of either kind, as far as its outputs go."""

    @property
    def outputs(self) -> dict[str, Path]: ...

    @property
    def path(self) -> Path | None: ...


def _stem(scenario: _Loaded) -> str:
    return "scenario" if scenario.path is None else scenario.path.stem


def certificate_path(scenario: _Loaded, json: str | Path | None = None, given: str | Path | None = None) -> Path:
    """Where a scenario's certificate goes.

    Parameters
    ----------
    scenario
        A loaded ``Scenario`` or ``SyntheticScenario``.
    json
        Where its JSON result goes, if anywhere.
    given
        The place the user chose, if any.

    Returns
    -------
    Path
        ``given``, else the scenario's ``[output] certificate``, else beside ``json``
        (``result.certificate.json``), else ``reports/SCENARIO.certificate.json``.
    """
    return Path(
        given
        or scenario.outputs.get("certificate")
        or (Path(json).with_suffix(".certificate.json") if json else None)
        or REPORTS / f"{_stem(scenario)}.certificate.json"
    )


def tune_output(run_output: str | Path | None, suffix: str) -> Path | None:
    """Where ``attack tune`` writes by default: beside the file ``attack run`` writes for the same
    scenario, never over it (``result.json`` -> ``result.tune.json``)."""
    return None if run_output is None else Path(run_output).with_suffix(".tune" + suffix)


def tune_json_path(scenario: _Loaded, given: str | Path | None = None) -> Path:
    """Where the tuning results of a scenario go: ``given``, else beside its ``[output] json``,
    else ``reports/SCENARIO.tune.json``."""
    return Path(given or tune_output(scenario.outputs.get("json"), ".json")
                or REPORTS / f"{_stem(scenario)}.tune.json")


def tune_paths(scenario: Scenario, json: str | Path | None = None, html: str | Path | None = None,
               release: str | Path | None = None) -> tuple[Path, Path | None, Path | None]:
    """Where ``attack tune`` writes for a linkage scenario: the JSON results, the HTML report and
    the chosen release, each the path given or its default (beside the files ``attack run``
    writes; the release of the ``[tune]`` table; None: not written). A scenario without a
    ``[tune]`` table cannot be tuned (``InputError``)."""
    from attack.study.tuning import chosen_release_path

    json_path = tune_json_path(scenario, json)
    html_path = Path(html) if html else tune_output(scenario.outputs.get("html"), ".html")
    if scenario.tune is None:
        raise InputError("the scenario has no [tune] table", file=None if scenario.path is None else str(scenario.path))
    return json_path, html_path, Path(release) if release else chosen_release_path(scenario)
