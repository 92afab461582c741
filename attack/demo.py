"""``attack demo``: a complete mass-attack study on a synthetic enterprise population.

Two intruders (the worst case, i.e. the original's own key values, METHOD.md §12.2, and a
MARKUS-like commercial database with the incompatibilities the handbook measured, RESULTS.md §3)
attack two candidate releases (FORMAL and separate microaggregation in triples, PROTECTION.md
§3.2). Realistic attacks on FORMAL show the natural protection (METHOD.md §12.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd

from attack import __version__, certificate
from attack.blocking import Classifier
from attack.distances import KeySpec
from attack.errors import InputError
from attack.evaluation import EvaluationSpec
from attack.linkage import LinkageSpec
from attack.mass_attack import AttackInput, run_mass_attack
from attack.natural_protection import agreement_profile
from attack.outputs import to_json, write_files_atomic
from attack.report import render_html, render_markdown

from attack.demo_data import (
    incompatibility_profile,
    make_external,
    make_population,
    worst_case_external,
)
from attack.microaggregation import separate_microaggregation
from attack.protection import formal_release

#: Employee size classes of the KSE (Table 35.2) as interval break points.
SIZE_CLASS_BINS = (20.0, 50.0, 100.0, 250.0, 500.0, 1000.0)
DEMO_ID = "unit_id"
DEMO_SOURCES = ("original", "formal", "microaggregated", "worst_case", "external:markus", "external:ust")


@lru_cache(maxsize=4)
def _population(n_units: int, seed: int) -> pd.DataFrame:
    return make_population(n_units=n_units, seed=seed)


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """Numeric columns of a demo frame (the ones a release perturbs)."""
    return [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c].dtype)]


def demo_source(name: str, n_units: int = 17000, seed: int = 1) -> tuple[pd.DataFrame, str]:
    """A demo data set by name and its unit-id column; see :data:`DEMO_SOURCES`.

    All data sets derive from one population generated from ``(n_units, seed)``.
    """
    population = _population(n_units, seed)
    if name == "original":
        frame = population
    elif name == "formal":
        frame = formal_release(population, seed=seed + 100)
    elif name == "microaggregated":
        formal = formal_release(population, seed=seed + 100)
        frame = separate_microaggregation(formal, metric_columns(formal), k=3, seed=seed + 200)
    elif name == "worst_case":
        frame = worst_case_external(population, seed=seed + 300)
    elif name.startswith("external:"):
        frame = make_external(population, profile=name.split(":", 1)[1], seed=seed + 400)
    else:
        raise InputError(f"unknown demo data set {name!r}; expected one of {', '.join(DEMO_SOURCES)}")
    frame = frame.copy()
    frame.attrs["source"] = f"demo:{name}"
    return frame, DEMO_ID


@dataclass
class DemoResult:
    """What ``attack demo`` produced."""

    document: dict
    markdown: str
    json_path: Path
    html_path: Path


def demo_linkage(method: str = "greedy") -> LinkageSpec:
    """The demo intruder: blocks on NACE division × BBR9, distance on turnover and employees."""
    return LinkageSpec(
        keys=(KeySpec("turnover", "metric"), KeySpec("employees", "metric")),
        blocks=(Classifier("nace", prefix=2), Classifier("bbr9")),
        method=method,
    )


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
            certificate.frame_input(role, f"demo:{name}", demo_source(name, **options)[0], options)
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
            out_dir / "certificate.html": (certificate.render_html(sealed), None),
        }
    )
    return DemoResult(document, markdown, json_path, html_path)
