"""``attack demo``: a complete mass-attack study on a synthetic enterprise population.

Two intruders (the worst case, i.e. the original's own key values, METHOD.md §12.2, and a
MARKUS-like commercial database with the incompatibilities the handbook measured, RESULTS.md §3)
attack two candidate releases (FORMAL and separate microaggregation in triples, PROTECTION.md
§3.2). Realistic attacks on FORMAL show the natural protection (METHOD.md §12.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attack._version import __version__
from attack.datasets.demo import DEMO_ID, SIZE_CLASS_BINS, demo_linkage, demo_source
from attack.datasets.population import (
    incompatibility_profile,
)
from attack.io.fingerprint import frame_input
from attack.io.jsonio import to_json
from attack.io.writers import write_files_atomic
from attack.linkage.blocking import Classifier
from attack.report.attack import render_html, render_markdown
from attack.report.certificate import render_html as render_certificate
from attack.risk.evaluation import EvaluationSpec
from attack.risk.mass import AttackInput, run_mass_attack
from attack.risk.natural_protection import agreement_profile
from attack.study import certificate


@dataclass
class DemoResult:
    """What ``attack demo`` produced."""

    document: dict
    markdown: str
    json_path: Path
    html_path: Path




def run_demo(
    out_dir: str | Path,
    n_units: int = 17000,
    seed: int = 1,
    method: str = "greedy",
    *,
    jobs: int | None = None,
    progress: bool = False,
) -> DemoResult:
    """Run the four attacks (two intruders × two releases) and write JSON and HTML reports.

    ``jobs`` worker processes solve the blocks (all cores when None); the reports do not
    depend on it.
    """
    out_dir = Path(out_dir)
    original, _ = demo_source("original", n_units, seed)
    releases = {
        "FORMAL": demo_source("formal", n_units, seed)[0],
        "separate MA (k=3)": demo_source("microaggregated", n_units, seed)[0],
    }
    intruders = {
        "worst": ("worst case (original keys)", demo_source("worst_case", n_units, seed)[0]),
        "realistic": ("MARKUS-like database", demo_source("external:markus", n_units, seed)[0]),
    }
    linkage = demo_linkage(method)
    evaluation = EvaluationSpec(
        cells=(Classifier("employees", bins=SIZE_CLASS_BINS), Classifier("east_west")),
    )
    runs = []
    for role, (intruder_name, external) in intruders.items():
        for release_name, release in releases.items():
            data = AttackInput(external, DEMO_ID, release, DEMO_ID, original, DEMO_ID)
            result = run_mass_attack(data, linkage, evaluation, jobs=jobs, progress=progress).result
            runs.append(
                {
                    "name": f"{intruder_name} vs {release_name}",
                    "intruder": role,
                    "release": release_name,
                    "result": result,
                }
            )
    profile = incompatibility_profile(intruders["realistic"][1], original)
    agreement = agreement_profile(
        intruders["realistic"][1], DEMO_ID, original, DEMO_ID, hierarchical=("nace",),
        categorical=("bbr9", "east_west", "legal_form"), metric=("turnover", "employees"),
    )
    document = {
        "attack_version": __version__,
        "demo": {"n_units": n_units, "seed": seed, "method": method},
        "natural_protection": {
            "external": "MARKUS-like database",
            "incompatibility": profile,
            "agreement": agreement,
        },
        "runs": runs,
    }
    notes = [
        f"Synthetic KSE-like population of {n_units:,} firms (seed {seed}); nothing here is real data.",
        "Natural protection of the MARKUS-like source: "
        + ", ".join(f"{k.replace('_', ' ')} {v:.1%}" for k, v in profile.items()),
        "Worst case = the original's own key values as the intruder's file (an upper bound).",
    ]
    title = "attack demo: mass linkage against FORMAL and microaggregated releases"
    markdown = render_markdown(runs, title=title)
    html = render_html(runs, title=title, notes=notes)
    options = {"n_units": n_units, "seed": seed}
    sealed = certificate.build(
        kind="demo",
        runs=runs,
        inputs=[
            frame_input(role, f"demo:{name}", demo_source(name, **options)[0], options)
            for role, name in (
                ("original", "original"),
                ("release", "formal"),
                ("release", "microaggregated"),
                ("external", "worst_case"),
                ("external", "external:markus"),
            )
        ],
        scenario={"linkage": runs[0]["result"]["linkage"], "evaluation": runs[0]["result"]["evaluation"]},
        rerun={**options, "method": method},
    )
    json_path, html_path = out_dir / "demo.json", out_dir / "report.html"
    write_files_atomic(
        {
            json_path: (to_json(document), None),
            html_path: (html, None),
            out_dir / "certificate.json": (to_json(sealed), None),
            out_dir / "certificate.html": (render_certificate(sealed), None),
        }
    )
    return DemoResult(document, markdown, json_path, html_path)
