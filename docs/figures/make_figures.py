"""Make the figures of the documentation from real runs: ``python docs/figures/make_figures.py``.

Every figure in ``docs/figures`` comes from this script, never from a drawing program:

* the bundled demo scenario (5,000 generated firms, seed 1) is attacked as ``attack demo``
  does, and the report's own plots are drawn from its results: disclosure risk per cell and the
  distances of assigned pairs of the realistic intruder (a MARKUS-like database) against the
  formally anonymised file (``risk-by-cell.svg``, ``link-distances.svg``), and disclosure risk
  against γ for every attack (``risk-by-gamma.svg``);
* 3,000 demo firms are split into a training original and a holdout, the training part is
  synthesised with CART (``attack.synthesize``, seed 1) and attacked
  (``attack.attack_synthetic``): the success rates of the attacks (``synthetic-attack-rates.svg``)
  and the distances to the closest training record of the synthetic and of the holdout records
  (``dcr-histogram.svg``).

The figures are SVG with fixed metadata, so the same library versions give the same files.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure

import attack
from attack.datasets.demo import demo_source
from attack.report.attack import (
    PLOT_RC,
    distance_histogram_plot,
    risk_by_gamma_plot,
    risk_heatmap,
    svg_figure,
)
from attack.report.synthetic import attack_rates_plot
from attack.risk.results import run_record
from attack.synthetic_attacks.space import nearest_neighbours, prepare

HERE = Path(__file__).resolve().parent
FIGURES = ("risk-by-cell.svg", "risk-by-gamma.svg", "link-distances.svg", "synthetic-attack-rates.svg",
           "dcr-histogram.svg")
COLUMNS = ["nace", "east_west", "legal_form", "employees", "turnover", "personnel_costs"]


def linkage_figures(out: Path) -> None:
    runs = [run_record(r) for r in attack.demo_scenario(n_units=5000, seed=1).run().runs]
    with matplotlib.rc_context(PLOT_RC):
        realistic = next(run for run in runs if run["name"] == "MARKUS-like database vs FORMAL")["result"]
        largest_gamma = max(realistic["disclosure_risk"], key=float)
        (out / "risk-by-cell.svg").write_text(risk_heatmap(realistic, largest_gamma, "cell", 0), encoding="utf-8")
        (out / "risk-by-gamma.svg").write_text(risk_by_gamma_plot(runs, "gamma", 0), encoding="utf-8")
        plot, _ = distance_histogram_plot(realistic["distance_histogram"], "dist")
        (out / "link-distances.svg").write_text(plot, encoding="utf-8")


def synthetic_figures(out: Path) -> None:
    firms, _ = demo_source("original", n_units=3000, seed=1)
    firms = firms[COLUMNS]
    training, holdout = firms.iloc[:2000].reset_index(drop=True), firms.iloc[2000:].reset_index(drop=True)
    synthetic = attack.synthesize(training, seed=1).frame
    result = attack.attack_synthetic(training, synthetic, holdout, keys=["east_west", "legal_form", "employees"],
                                     targets=["turnover"], n_attacks=300, categorical=["nace"])
    with matplotlib.rc_context(PLOT_RC):
        (out / "synthetic-attack-rates.svg").write_text(attack_rates_plot(result.figures), encoding="utf-8")
        prep = prepare(training, COLUMNS, categorical=["nace"])
        dcr_synthetic = nearest_neighbours(prep, synthetic, training).distances[:, 0]
        dcr_holdout = nearest_neighbours(prep, holdout, training).distances[:, 0]
        fig = Figure(figsize=(5.5, 3.2))
        ax = fig.subplots()
        bins = np.linspace(0, max(dcr_synthetic.max(), dcr_holdout.max()), 40)
        ax.hist(dcr_holdout, bins=bins, histtype="step", density=True, label="holdout → training")
        ax.hist(dcr_synthetic, bins=bins, histtype="step", density=True, label="synthetic → training")
        ax.set_xlabel("distance to the closest training record (Gower)")
        ax.set_ylabel("density")
        ax.legend(fontsize=7)
        (out / "dcr-histogram.svg").write_text(svg_figure(fig, "dcr"), encoding="utf-8")


def main(out: Path = HERE) -> None:
    linkage_figures(out)
    synthetic_figures(out)
    for name in FIGURES:
        print(f"wrote {name} ({(out / name).stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
