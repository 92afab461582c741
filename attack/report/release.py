"""Reports for making releases: the utility profile of one candidate (``attack utility``) and
the tuning grid (``attack tune``) with its risk-against-utility plot.

Both only format dictionaries computed elsewhere (``attack.utility``, ``attack.tuning``).
Risk and utility stay separate columns: no combined score is ever formed (docs/method/utility.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attack.report.attack import (
    PLOT_RC,
    ReportTable,
    fmt_figure,
    fmt_num,
    md_table,
    svg_figure,
)
from attack.report.html import render, svg
from attack.report.notebook import verdict_word

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["ml_table", "render_tune_html", "render_tune_markdown", "render_utility_markdown", "risk_utility_figure",
           "risk_utility_sentence", "utility_table"]

# Families shown in the tuning table and plot, in the order of docs/method/utility.md.
TUNE_FAMILIES = ("means", "medians", "sds", "pearson", "spearman", "coefficients", "structural_zeros",
                 "ml_prediction")


def _share(x: Any) -> str:
    return "–" if x is None else f"{100 * float(x):.1f}%"


def utility_table(families: Mapping[str, Mapping[str, Any]]) -> ReportTable:
    """One row per check family: threshold, cases, exceedances, share and the 10% tolerance."""
    t = ReportTable(["check family", "threshold", "cases", "exceedances", "n/a", "share", "mean deviation",
               "within tolerance"], [False, True, True, True, True, True, True, False])
    for name, f in families.items():
        if not f["cases"] and not f["not_applicable"]:
            continue
        t.add([name, "–" if f["threshold"] is None else f"{f['threshold']:g}", str(f["cases"]),
               str(f["exceedances"]), str(f["not_applicable"]), _share(f["share"]),
               fmt_figure(f["mean_deviation"]), "yes" if f["passed"] else "NO"],
              failing=not f["passed"])
    return t


def ml_table(ml: Mapping[str, Any]) -> ReportTable:
    """One row per model of the ML utility (``MlUtility.to_dict()``): the verdict metric of the
    reference and the release model, their ratio with its interval, the tolerance, the verdict,
    the rank correlation of the importances and the variables whose importance changed most."""
    metric = ml["metric"]
    t = ReportTable(["model", f"{metric} original", f"{metric} release", "ratio", "95% interval",
               "tolerance", "keeps utility", "importance ρ", "importance changed most"],
              [False, True, True, True, True, True, False, True, False])
    for m in ml["models"]:
        ratio = m["ratio"]
        interval = "–" if ratio["low"] is None else f"[{fmt_num(ratio['low'])}, {fmt_num(ratio['high'])}]"
        verdict = {True: "yes", False: "NO", None: "–"}[m["passed"]]
        t.add([m["model"], fmt_figure(m["original"][metric]["mean"]), fmt_figure(m["release"][metric]["mean"]),
               fmt_num(ratio["mean"]), interval, f"{m['tolerance']:g}", verdict,
               fmt_num(m["importance_spearman"]), ", ".join(m["most_changed"]) or "–"],
              failing=m["passed"] is False)
    return t


def _ml_markdown(ml: Mapping[str, Any]) -> list[str]:
    verdict = {True: "keeps its machine-learning utility for every model",
               False: "loses machine-learning utility", None: "has no ML verdict"}[ml["passed"]]
    rows = ml.get("test_rows") or {"source": "original"}
    if rows["source"] == "holdout":
        measured = (f"predict the {rows['n_holdout']} holdout rows, real rows the generator or the protection "
                    f"never saw ({ml['repetitions']} repetitions differing by the models' random states)")
    else:
        measured = (f"predict held-out original rows ({ml['repetitions']} random splits, "
                    f"{100 * ml['test_share']:g}% held out, release rows aligned by {ml['alignment']})")
    warned = [f"**Warning:** {w}." for w in ml.get("warnings", [])]
    return ["", f"## Machine learning: predicting {ml['target']} ({ml['task']})", "",
            f"The release {verdict}: models trained on it and on the original {measured}. "
            "Reported beside the risk verdict, never merged with it.", *(["", *warned] if warned else []),
            "", md_table(ml_table(ml))]


def _recoverable_markdown(rec: Mapping[str, Any]) -> list[str]:
    """What the protection log lets an analyst recover: PRAM frequency estimates and calibrated
    regression slopes, each beside the naive figure from the release."""
    out = ["", f"## Recoverable ({rec['method']})", ""]
    for f in rec["frequencies"]:
        t = ReportTable(["category", "released", "estimate", "SE", "original"], [False, True, True, True, True])
        for c in f["categories"]:
            t.add([c["category"], f"{c['released']:g}", f"{c['estimate']:.1f}", f"{c['se']:.1f}",
                   "–" if c["original"] is None else f"{c['original']:g}"])
        out += [f"PRAM moment estimate of the frequencies of {f['variable']} (T̂ = P⁻¹T*): total "
                f"variation distance from the original {fmt_num(f['tvd_released'])} as released, "
                f"{fmt_num(f['tvd_estimate'])} after correction.", "", md_table(t), ""]
    slopes = rec.get("slopes")
    if slopes:
        t = ReportTable(["regressor", "naive (release)", "calibrated", "original"], [False, True, True, True])
        for i, name in enumerate(slopes["regressors"]):
            t.add([name, fmt_figure(slopes["naive"][i]), fmt_figure(slopes["corrected"][i]),
                   "–" if slopes["original"] is None else fmt_figure(slopes["original"][i])])
        out += [f"Regression calibration of {slopes['target']} on the noised variables with the "
                "published noise variance:", "", md_table(t), ""]
    out += [f"Note: {n}." for n in rec["notes"]]
    return out


def render_utility_markdown(profile: Mapping[str, Any], title: str) -> str:
    """Markdown summary of a utility profile (``UtilityProfile.to_dict()``)."""
    families = profile["families"]
    failing = [name for name, f in families.items() if not f["passed"]]
    out = [f"# {title}", "",
           f"Original {profile['n_original']} units, release {profile['n_release']} units. "
           "Analysis potential is reported next to the risk verdict, never merged with it "
           "(docs/method/utility.md).", "",
           ("All check families within their 10% tolerance." if not failing else
            f"Beyond the 10% tolerance: {', '.join(failing)}."), "",
           md_table(utility_table(families))]
    per_record = profile.get("per_record")
    if per_record and per_record.get("il1s"):
        out += ["", f"IL1s (sample SD): {fmt_figure(per_record['il1s']['sample_sd'])}; units matched by "
                f"id: {per_record['matched_units']}, deleted: {per_record['deleted_units']}."]
        interval = per_record.get("interval_disclosure")
        if interval:
            shares = interval["value_share"]
            out += ["", f"Interval disclosure (k = {interval['k']:g}): original values inside the "
                    f"SD-based interval {_share(shares['sd'])}, inside the rank-based interval "
                    f"{_share(shares['rank'])}; records with every value inside the SD-based "
                    f"interval {_share(interval['share'])}."]
    if profile.get("ml"):
        out += _ml_markdown(profile["ml"])
    if profile.get("recoverable"):
        out += _recoverable_markdown(profile["recoverable"])
    return "\n".join(out) + "\n"


def _tune_table(document: Mapping[str, Any], families: Sequence[str]) -> ReportTable:
    parameter = document["tune"]["parameter"]
    chosen = document["chosen"]
    t = ReportTable(["risk verdict", parameter, "max cell risk", "failing cells", "seed",
               *[f"{f} beyond" for f in families], "IL1s"],
              [False, True, True, True, True, *[True] * len(families), True])
    for c in document["candidates"]:
        mark = " (chosen)" if chosen and c["value"] == chosen["value"] and c["seed"] == chosen["seed"] else ""
        fam = c["utility"]["families"]
        t.add([verdict_word(c["passed"]), f"{c['value']}{mark}", fmt_num(c["max_cell_risk"]),
               str(c["n_failing_cells"]), str(c["seed"]),
               *[_share(fam[f]["share"]) if f in fam else "–" for f in families],
               fmt_num(c["utility"].get("il1s"))], failing=not c["passed"])
    return t


def _families(document: Mapping[str, Any]) -> list[str]:
    present = set()
    for c in document["candidates"]:
        present |= {n for n, f in c["utility"]["families"].items() if f["cases"]}
    return [f for f in TUNE_FAMILIES if f in present]


def _headline(document: Mapping[str, Any]) -> str:
    spec = document["tune"]
    if document["chosen"] is None:
        return (f"No value of {spec['parameter']} in {spec['values']} puts every cell below "
                f"τ = {document['tau']:g}: no feasible candidate within the configured grid.")
    return (f"Weakest feasible setting: {spec['method']} with {spec['parameter']} = "
            f"{document['chosen']['value']} (every cell below τ = {document['tau']:g} for every seed).")


def render_tune_markdown(document: Mapping[str, Any], title: str) -> str:
    """Markdown summary of a tuning run (``TuneResult.to_dict()``)."""
    families = _families(document)
    return "\n".join([
        f"# {title}", "", _headline(document), "",
        "Share of cases beyond each utility threshold (tolerance 10%, docs/method/utility.md):", "",
        md_table(_tune_table(document, families)),
    ]) + "\n"


def _risk_utility_points(document: Mapping[str, Any], families: Sequence[str]) -> dict[str, list[tuple]]:
    """Per check family, (share beyond threshold, largest cell risk, value) of each tried value
    (first seed); families without a share left out."""
    seed = document["tune"]["seeds"][0]
    rows = [c for c in document["candidates"] if c["seed"] == seed]
    points = {}
    for family in families:
        found = [(c["utility"]["families"][family]["share"], c["max_cell_risk"], c["value"])
                 for c in rows if c["utility"]["families"].get(family, {}).get("share") is not None]
        if found:
            points[family] = found
    return points


def _constant_families(points: Mapping[str, list[tuple]]) -> dict[str, float]:
    """The families whose share is the same for every tried value: a vertical line in the plot
    that says nothing about the choice (several of them, e.g. all at 0 %, draw over each other)."""
    return {f: found[0][0] for f, found in points.items() if len({x for x, _, _ in found}) == 1}


def risk_utility_sentence(document: Mapping[str, Any]) -> str | None:
    """What the risk–utility plot cannot show, in words: the families left out because their
    share is the same for every tried value, or — when that is every family, or no family has a
    share — that there is no plot. None when every family is drawn."""
    points = _risk_utility_points(document, _families(document))
    if not points:
        return "No utility check family has a share of cases for the tried values: no risk–utility plot."
    constant = _constant_families(points)
    if not constant:
        return None
    listed = ", ".join(f"{f} {_share(x)}" for f, x in constant.items())
    if len(constant) == len(points):
        return (f"Every check family keeps one share of cases beyond its threshold for every tried value ({listed}): "
                "utility does not separate the candidates, which differ only in risk (table above); no plot.")
    return f"Not drawn, the same share for every tried value: {listed}."


def risk_utility_figure(document: Mapping[str, Any]) -> Figure | None:
    """Largest cell disclosure risk against the share of utility cases beyond their threshold,
    one line per check family through the tried values (first seed), legend beside the plot.
    Families whose share does not change are left out (``risk_utility_sentence`` names them);
    None when that leaves nothing to draw."""
    from matplotlib.figure import Figure

    points = _risk_utility_points(document, _families(document))
    constant = _constant_families(points)
    drawn = {f: found for f, found in points.items() if f not in constant}
    if not drawn:
        return None
    fig = Figure(figsize=(6.4, 4.0))
    ax = fig.add_subplot()
    labelled = set()
    for k, (family, found) in enumerate(drawn.items()):
        xs, ys, labels = zip(*found, strict=True)
        # marker and dash pattern differ too: families with equal shares stay visible on each other
        ax.plot(xs, ys, marker="osD^vP"[k % 6], linestyle=("-", "--", "-.", ":")[k % 4], label=family,
                markersize=7 - (k % 3))
        for x, y, label in zip(xs, ys, labels, strict=True):
            if (x, y, label) not in labelled:  # one value label per point, however many lines meet there
                labelled.add((x, y, label))
                ax.annotate(str(label), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.axhline(document["tau"], color="black", linestyle=":", linewidth=1)
    ax.axvline(0.10, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("share of cases beyond the utility threshold")
    ax.set_ylabel("largest cell disclosure risk")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def render_tune_html(document: Mapping[str, Any], title: str) -> str:
    """Self-contained HTML page: verdict, the candidate table and risk against utility
    (template ``templates/tune.html.j2``)."""
    import matplotlib

    with matplotlib.rc_context(PLOT_RC):
        fig = risk_utility_figure(document)
        plot = None if fig is None else svg(svg_figure(fig, "tune"))
    return render(
        "tune.html.j2", title=title, passed=document["chosen"] is not None, headline=_headline(document),
        candidates=_tune_table(document, _families(document)), plot_svg=plot,
        plot_sentence=risk_utility_sentence(document),
        footer="Aggregates only. Risk is a hard constraint; utility is reported beside it, never merged into "
               "one score (docs/method/utility.md).",
    )
