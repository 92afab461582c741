"""``attack demo``: the bundled demo scenario, run end to end.

Two intruders — the worst case (the original's own key values) and a MARKUS-like commercial
database with the incompatibilities the Destatis handbook measured (ch. 36) — attack two
candidate releases of a generated KSE-like population: FORMAL and separate microaggregation in
triples. The realistic intruder's attack on FORMAL shows the natural protection. The scenario is
an ordinary scenario file shipped with the package (``attack/study/scenarios/demo.toml``), so
the demo runs through the same pipeline, JSON layout and certificate as ``attack run``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from attack.io.notices import gathered
from attack.io.readback import read_toml
from attack.io.rules import Seed, checked
from attack.linkage.settings import Methods
from attack.report.notebook import one_line
from attack.study.results import ScenarioResult, write_outputs
from attack.study.scenario import Scenario, scenario_from_dict
from attack.study.settings import DemoUnits

DEMO_SCENARIO = "demo.toml"


@dataclass(frozen=True)
class DemoResult:
    """What ``attack demo`` produced: the result and the files written."""

    result: ScenarioResult
    json_path: Path
    html_path: Path
    certificate_path: Path

    def _files(self) -> dict[str, str]:
        return {"json": self.json_path.as_posix(), "html": self.html_path.as_posix(),
                "certificate": self.certificate_path.as_posix()}

    def __repr__(self) -> str:
        return one_line("DemoResult", self.result.passed, f"{len(self.result.runs)} runs",
                        f"files in {self.json_path.parent.as_posix()}")

    def _repr_html_(self) -> str:
        files = "".join(f"<li>{html.escape(k)}: <code>{html.escape(v)}</code></li>" for k, v in self._files().items())
        return self.result._repr_html_() + f"<p>Files written:</p><ul>{files}</ul>"

    def to_dict(self) -> dict[str, Any]:
        """The scenario result's JSON (what ``demo.json`` holds) and the files written, as given."""
        return {"result": self.result.to_dict(), "files": self._files()}


@checked
def demo_scenario(n_units: DemoUnits = 17000, seed: Seed = 1, method: Methods = "greedy") -> Scenario:
    """The bundled demo scenario for a population of ``n_units`` firms generated from ``seed``,
    linked with ``method``."""
    raw = read_toml(resources.files("attack.study.scenarios").joinpath(DEMO_SCENARIO).read_bytes(),
                    file=DEMO_SCENARIO, what="scenario file")
    raw["data"]["demo"] = {"n_units": n_units, "seed": seed}
    raw["linkage"]["method"] = method
    return scenario_from_dict(raw, origin={"bundled": "demo", "n_units": n_units, "seed": seed, "method": method})


#: Where ``run_demo`` and ``attack demo`` write their files unless told otherwise.
DEMO_OUT = Path("reports/demo")


@gathered
@checked
def run_demo(
    out_dir: str | Path = DEMO_OUT,
    n_units: DemoUnits = 17000,
    seed: Seed = 1,
    method: Methods = "greedy",
    *,
    engine: Mapping[str, Any] | None = None,
    progress: bool = False,
) -> DemoResult:
    """Run the demo scenario and write ``demo.json``, ``report.html`` and the certificate
    (``certificate.json`` with its printable ``certificate.html``) into ``out_dir`` (by default
    ``reports/demo`` under the working folder, as ``attack demo``)."""
    out_dir = Path(out_dir)
    scenario = demo_scenario(n_units, seed, method)
    result = scenario.run(engine=engine, progress=progress)
    sealed = result.certificate(out_dir)
    paths = DemoResult(result, out_dir / "demo.json", out_dir / "report.html", out_dir / "certificate.json")
    write_outputs(result, json=paths.json_path, html=paths.html_path,
                  certificate=(paths.certificate_path, sealed))
    return paths
