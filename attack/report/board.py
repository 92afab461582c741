"""The release-board report: one self-contained HTML page (printable, and rendered to PDF by
``attack.report.pdf``) in the structure boards and regulators ask of a re-identification risk
assessment — release context, data and identifiers, intruder models, initial risk → threshold →
residual risk, the Article 29 Working Party's three criteria (singling out, linkability,
inference) with what was and what was not tested, decision and sign-off, reproducibility.

It formats a result document as ``attack`` writes it (``attack run``/``demo``, ``attack link``,
``attack synth``, ``attack tune``) and adds nothing but words: aggregates only, like every report.
The SHA-256 of the result file stands on every page, so a printed copy names the file it
summarises. Sources: ISO/IEC 27559:2022 (context, data, identifiability, governance); Article 29
Working Party, Opinion 05/2014 on anonymisation techniques (WP216); EMA Policy 0070 and Health
Canada's clinical-information anonymisation report (sections of an anonymisation report).
"""

from __future__ import annotations

import platform
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from attack._version import __version__
from attack.report.attack import (
    MIN_CELL_COUNT,
    PLOT_RC,
    ReportTable,
    attribution_context,
    basis_lines,
    fmt_num,
    risk_by_gamma_figure,
    risk_heatmap_figure,
    suppressed,
    svg_figure,
)
from attack.report.documents import KINDS, document_runs, result_kind
from attack.report.html import render, svg
from attack.report.labels import cell_label, variable_name
from attack.report.notebook import verdict_word
from attack.report.release import risk_utility_figure, risk_utility_sentence
from attack.report.synthetic import attack_rates_figure

__all__ = ["CONTEXTS", "BoardInput", "render_board_html"]

# Release contexts (ISO/IEC 27559 "context"): who can get the file and under which controls.
CONTEXTS = {
    "public-use": ("public-use file",
                   "Anyone may obtain the file without a contract or supervision: the intruder is anyone, "
                   "with any external file; only the data's own protection stands between them and the units."),
    "scientific-use": ("scientific-use file",
                       "Registered researchers receive the file under a contract that forbids re-identification, "
                       "for a stated purpose, in their own institution: the data's protection is backed by law "
                       "and contract (factual anonymity)."),
    "enclave": ("secure enclave",
                "The file is analysed only in a supervised environment (on-site or remote access) whose "
                "outputs are checked before they leave: environment controls carry much of the protection."),
}
_METHOD = {  # method pages of the documentation, relative to the site root
    "risk": "method/risk.html", "intruders": "method/intruders.html", "linkage": "method/linkage.html",
    "single": "method/single-attacks.html", "frequency": "method/frequency-risk.html",
    "synthetic": "method/synthetic-attacks.html", "membership": "method/membership-family.html",
    "utility": "method/utility.html", "protection": "method/protection.html",
    "attribution": "method/attribution.html",
}
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class BoardInput:
    """What the board report is made of besides the result document.

    Attributes
    ----------
    context:
        Release context, a key of ``CONTEXTS``.
    digest:
        SHA-256 (hex) of the result file, printed on every page.
    file_name:
        The result file's name as given on the command line.
    command:
        The command that made this report.
    docs:
        Where the documentation site lives (prefix of every method link); "" links relative to
        the report, e.g. when it lies in the site's folder.
    versions:
        Software versions to state under reproducibility (name → version).
    questionnaire:
        The release-context answers with the τ and attacker model they set
        (``ReleaseContext.record()``), shown under the release context.
    """

    context: str
    digest: str
    file_name: str
    command: str
    docs: str = ""
    versions: Mapping[str, str] = field(default_factory=dict)
    #: The release-context questionnaire as recorded (answers, τ, attacker model, rule).
    questionnaire: Mapping[str, Any] | None = None


# --------------------------------------------------------------------------------------------
# The pieces every kind fills in


@dataclass
class _BoardSection:
    id: str
    title: str
    lines: list[str] = field(default_factory=list)
    tables: list[tuple[str, ReportTable]] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    method: tuple[str, str] | None = None  # (page, what it explains)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], failing: Sequence[bool] = ()) -> ReportTable:
    t = ReportTable(list(header), [False] * len(header))
    for i, row in enumerate(rows):
        t.add([str(v) for v in row], failing=bool(failing[i]) if i < len(failing) else False)
    return t


def _largest_gamma(result: Mapping[str, Any]) -> str | None:
    gammas = sorted(result.get("disclosure_risk", {}), key=float)
    return gammas[-1] if gammas else None


def _highest_cell(result: Mapping[str, Any]) -> tuple[float | None, str]:
    """The highest cell risk at the largest γ and the cell's label, over the cells that the
    reports show (at least ``MIN_CELL_COUNT`` verifiable units: a figure of a smaller cell
    describes its units; its pass/FAIL still counts among the failing cells)."""
    gamma = _largest_gamma(result)
    best: tuple[float | None, str] = (None, "–")
    for cell in result.get("cells", []):
        if suppressed(cell, MIN_CELL_COUNT):
            continue
        value = (cell.get("disclosure_risk") or {}).get(gamma)
        if value is not None and (best[0] is None or value > best[0]):
            best = (float(value), cell.get("label") or cell_label(cell["cell"]))
    return best


# --------------------------------------------------------------------------------------------
# Linkage results: a scenario run or one attack


def _linkage_sections(document: Mapping[str, Any], kind: str) -> tuple[bool, str, list[_BoardSection]]:
    runs = document_runs(document)
    passed = bool(document["passed"])
    releases = list(dict.fromkeys(r["release"] for r in runs))
    sections = [_data_section(runs, releases), _intruders_section(runs),
                _risk_section(runs, releases, document.get("combined")), *_attribution_section(runs),
                _criteria_section(runs, document.get("single_attack"))]
    return passed, _headline(passed, document, kind), sections


def _data_section(runs: Sequence[Mapping[str, Any]], releases: Sequence[str]) -> _BoardSection:
    """What was attacked: the releases, the keys and blocks, the disclosed variables and the cells."""
    first = runs[0]["result"]
    evaluation = first.get("evaluation") or {}
    linkage = first.get("linkage") or {}
    data = _BoardSection("data", "Data and identifiers", method=(_METHOD["linkage"], "keys, blocking and assignment"))
    data.lines.append(f"Released file(s) attacked: {', '.join(releases)}; {first.get('n_verifiable', '–')} "
                      "units verifiable against the ground truth in the first run.")
    keys = [k.get("name", "?") if isinstance(k, Mapping) else str(k) for k in linkage.get("keys", [])]
    data.lines.append(f"Quasi-identifiers the intruder links on (keys): {', '.join(keys) or '–'}; "
                      f"blocking on {', '.join(map(str, linkage.get('blocking', []))) or 'nothing'}.")
    data.lines.append("Variables whose released values count as disclosed when useful (numeric within γ of the "
                      "truth, other types by agreement; docs/method/roles.md): "
                      + (", ".join(map(str, evaluation.get("targets", []))) or "–") + ".")
    cells = [variable_name(v) for v in evaluation.get("cell_variables", [])]
    data.lines.append(f"Risk is judged per cell of {', '.join(cells) or 'the whole file'} "
                      f"({len(first.get('cells', []))} cells).")
    return data


def _intruders_section(runs: Sequence[Mapping[str, Any]]) -> _BoardSection:
    """One row per attack: who attacked which release with which matcher."""
    intruders = _BoardSection("intruders", "Intruder models", method=(_METHOD["intruders"], "worst-case and realistic intruders"))
    intruders.tables.append(("one row per attack", _table(
        ["intruder", "role", "external file", "release", "matcher", "external records"],
        [[r["result"].get("intruder", {}).get("name", r["intruder"]), r["intruder"],
          r["result"].get("intruder", {}).get("file", "–"), r["release"],
          (r["result"].get("linkage") or {}).get("method", "–"), r["result"].get("n_external", "–")]
         for r in runs])))
    return intruders


def _risk_section(runs: Sequence[Mapping[str, Any]], releases: Sequence[str],
                  combined: Mapping[str, Any] | None) -> _BoardSection:
    """The risk per attack against τ, initial and residual, with its figures."""
    first = runs[0]["result"]
    risk = _BoardSection("risk", "Initial risk → threshold → residual risk", method=(_METHOD["risk"], "disclosure risk per cell"))
    tau = float(first["tau"])
    rows, failing = [], []
    for r in runs:
        result = r["result"]
        top, where = _highest_cell(result)
        gamma = _largest_gamma(result)
        rows.append([verdict_word(result["passed"]), r["release"], r["name"],
                     fmt_num((result.get("disclosure_risk") or {}).get(gamma)), fmt_num(top), where,
                     f"{result['tau']:g}",
                     f"{sum(not c['passed'] for c in result.get('cells', []))} of {len(result.get('cells', []))}"])
        failing.append(not result["passed"])
    risk.tables.append((f"disclosure risk at the largest γ evaluated ({_largest_gamma(first)})", _table(
        ["verdict", "release", "attack", "overall risk", f"highest cell risk (n ≥ {MIN_CELL_COUNT})", "highest cell",
         "τ", "failing cells"],
        rows, failing)))
    if len(releases) > 1:
        risk.lines.append(f"Initial risk: the first release of the scenario, {releases[0]}. Residual risk: the "
                          f"release(s) after protection, {', '.join(releases[1:])}. Threshold: τ = {tau:g} per "
                          "cell; a cell passes when its disclosure risk stays below τ for every γ.")
    else:
        risk.lines.append(f"Initial risk: not measured — only one release ({releases[0]}) was attacked, so the "
                          f"risk before protection is not in this result. Residual risk: {releases[0]}. "
                          f"Threshold: τ = {tau:g} per cell, for every γ.")
    if combined:
        risk.lines.append(f"The verdict rests on the combined measure (λ = {combined['lam']:g}): "
                          f"{combined['n_failing_cells']} of {len(combined['cells'])} cells at or above "
                          f"τ = {combined['tau']:g}.")
    risk.figures.extend(_risk_figures(runs, releases, tau))
    return risk


def _risk_figures(runs: Sequence[Mapping[str, Any]], releases: Sequence[str], tau: float) -> list[dict]:
    """Risk against γ per attack, and the cells of the residual release's riskiest attack."""
    import matplotlib

    figures = []
    with matplotlib.rc_context(PLOT_RC):
        figures.append({"svg": svg(svg_figure(risk_by_gamma_figure(runs, MIN_CELL_COUNT), "board-gamma")),
                        "caption": "Disclosure risk against γ, one panel per attack: overall with 95% "
                                   "interval and the highest cell; dotted line τ.",
                        "method": _METHOD["risk"]})
        deciding = max((r for r in runs if r["release"] == releases[-1]),
                       key=lambda r: _highest_cell(r["result"])[0] or 0.0)
        gamma = _largest_gamma(deciding["result"])
        if deciding["result"].get("cells") and gamma:
            figures.append({
                "svg": svg(svg_figure(risk_heatmap_figure(deciding["result"], gamma, MIN_CELL_COUNT), "board-cells")),
                "caption": f"Residual risk per cell of {deciding['name']} at γ = {gamma} (the attack on "
                           f"{releases[-1]} with the highest cell risk); colours diverge at τ = {tau:g}.",
                "method": _METHOD["risk"]})
    return figures


def _criteria_section(runs: Sequence[Mapping[str, Any]], single: Mapping[str, Any] | None) -> _BoardSection:
    """What the assessment tested of the three criteria (singling out, linkability, inference)."""
    criteria = _BoardSection("criteria", "The three criteria of the Article 29 Working Party (Opinion 05/2014)")
    frequency = any(r["result"].get("frequency_risk") for r in runs)
    criteria.tables.append(("what this assessment tested", _table(["criterion", "tested", "how / why not"], [
        ["singling out", "yes" if single else ("partly" if frequency else "NOT TESTED"),
         "targeted single attacks on chosen units and the per-unit risk R(u)" if single else
         ("frequency risk of the keys (sample uniques, k-anonymity) beside the linkage: not part of the verdict"
          if frequency else "no single (targeted) attack and no frequency risk in this result; isolating one "
          "unit without linking it was not tested")],
        ["linkability", "yes",
         "mass linkage of the intruders' files to the release, checked against the ground truth "
         "(hit rate, disclosure risk per cell)"],
        ["inference", "partly",
         "a link counts as disclosure only where the released values lie within γ of the true ones, i.e. what "
         "the intruder infers through the link; inference without a link (from the released file's "
         "statistics or models) was NOT TESTED"],
    ])))
    criteria.method = (_METHOD["single"] if single else _METHOD["risk"], "what each measure covers")
    return criteria


def _attribution_section(runs: Sequence[Mapping[str, Any]]) -> list[_BoardSection]:
    """The key variables that carry the risk, for each attack explained (``attack link --explain``)."""
    section = _BoardSection("keys", "Key variables that carry the risk",
                            method=(_METHOD["attribution"], "Shapley values over the keys"))
    for i, r in enumerate(runs):
        shown = attribution_context(r["result"], f"board-keys{i}", MIN_CELL_COUNT)
        if shown is None:
            continue
        section.tables.append((f"{r['name']}: attribution of the re-identification rate", shown["table"]))
        if shown["cells"] is not None:
            section.tables.append((f"{r['name']}: failing cells", shown["cells"]))
        section.figures.append({"svg": shown["svg"], "caption": shown["caption"], "method": _METHOD["attribution"]})
    return [section] if section.tables else []


def _headline(passed: bool, document: Mapping[str, Any], kind: str) -> str:
    if kind == "synthetic":
        failing = sum(not c["passed"] for c in document["checks"])
        return (f"PASSED: every check's upper 95% bound below τ = {document['tau']:g}" if passed else
                f"NOT PASSED: {failing} of {len(document['checks'])} checks reach τ = {document['tau']:g}")
    if kind == "tune":
        spec = document["tune"]
        if not passed:
            return f"NOT PASSED: no value of {spec['parameter']} puts every cell below τ = {document['tau']:g}"
        return (f"PASSED: {spec['method']} with {spec['parameter']} = {document['chosen']['value']} puts every "
                f"cell below τ = {document['tau']:g}")
    runs = document_runs(document)
    failing = sum(not r["result"]["passed"] for r in runs)
    return ("PASSED: every cell below τ in every attack" if passed else
            f"NOT PASSED: {failing} of {len(runs)} attacks have cells at or above τ")


# --------------------------------------------------------------------------------------------
# Synthetic releases


def _synthetic_sections(document: Mapping[str, Any]) -> tuple[bool, str, list[_BoardSection]]:
    settings = document.get("settings") or {}
    passed = bool(document["passed"])
    sections = [_synthetic_data(document, settings), _synthetic_intruders(document, settings),
                _synthetic_risk(document), _synthetic_criteria(document)]
    return passed, _headline(passed, document, "synthetic"), sections


def _synthetic_data(document: Mapping[str, Any], settings: Mapping[str, Any]) -> _BoardSection:
    """The records attacked and the variables the intruder knows and seeks."""
    data = _BoardSection("data", "Data and identifiers", method=(_METHOD["synthetic"], "the attacks on a synthetic release"))
    data.lines.append(f"{document['n_synthetic']} synthetic records attacked against {document['n_original']} "
                      "training records" + (f" and a holdout of {document['n_holdout']} records the generator did "
                                            "not see" if document.get("n_holdout") else " (no holdout)") + ".")
    data.lines.append(f"Variables the intruder knows (keys): {', '.join(settings.get('keys', [])) or '–'}; "
                      f"variables sought: {', '.join(settings.get('targets', [])) or '–'}.")
    return data


def _synthetic_intruders(document: Mapping[str, Any], settings: Mapping[str, Any]) -> _BoardSection:
    """The attacks run on the synthetic release."""
    intruders = _BoardSection("intruders", "Intruder models", method=(_METHOD["synthetic"], "main, control and baseline attacks"))
    attacks = [name.replace("_", " ") for name in ("singling_out", "linkability") if name in document]
    attacks += [f"inference of {t}" for t in document.get("attribute", {})]
    if document.get("membership"):
        attacks.append("membership inference (shadow models)")
    if document.get("membership_family"):
        attacks.append("membership inference from data only")
    confident = document.get("inference_confidence") or {}
    if confident and "skipped" not in confident:
        attacks.append(f"inference with the intruder's confidence (τ at recall {confident['declared_recall']:g}, "
                       "against an intruder trained on the holdout)")
    intruders.lines.append(f"Attacks: {', '.join(attacks) or 'none'}; {settings.get('n_attacks', '–')} attack "
                           f"targets each, seed {settings.get('seed', '–')}. Each attack runs on the training "
                           "records (main), on the holdout (control) and as a naive guess (baseline).")
    return intruders


def _synthetic_risk(document: Mapping[str, Any]) -> _BoardSection:
    """The checks against τ, the privacy bounds and the attacks' success rates."""
    risk = _BoardSection("risk", "Initial risk → threshold → residual risk", method=(_METHOD["synthetic"], "checks and their upper bounds"))
    risk.lines.append("Initial risk: not measured — the original itself is not attacked as a release; the naive "
                      f"baseline of each attack is the reference. Threshold: τ = {document['tau']:g} for every "
                      "check, decided on the upper 95% bound. Residual risk: the checks below.")
    risk.tables.append(("checks", _table(
        ["status", "check", "upper 95% bound", "τ", "value", "measure", "target"],
        [[verdict_word(c["passed"]), c["family"], fmt_num(c["upper"]), f"{c['tau']:g}", fmt_num(c["value"]),
          c["measure"], c.get("target") or "–"] for c in document["checks"]],
        [not c["passed"] for c in document["checks"]])))
    family = document.get("membership_family") or {}
    if family.get("empirical_epsilon"):
        bound = family["empirical_epsilon"]
        risk.lines.append(f"Differential privacy: the strongest membership attack proves ε ≥ {bound['epsilon']:.3g} "
                          f"at {bound['confidence']:.0%} confidence (δ = {bound['delta']:g}).")
    if family.get("privacy_claim"):
        claim = family["privacy_claim"]
        risk.lines.append(f"Privacy claim: {claim['reading']}."
                          + ("" if claim["ledger"] is None else
                             f" Budget ledger: {len(claim['ledger']['releases'])} releases, total ε = "
                             f"{claim['ledger']['epsilon']:g} by basic composition."))
    import matplotlib

    with matplotlib.rc_context(PLOT_RC):
        risk.figures.append({"svg": svg(svg_figure(attack_rates_figure(document), "board-rates")),
                             "caption": "Success rate of each attack on the training records (main), on the "
                                        "holdout (control) and of a naive intruder (baseline), 95% intervals.",
                             "method": _METHOD["synthetic"]})
    return risk


def _synthetic_criteria(document: Mapping[str, Any]) -> _BoardSection:
    """What the assessment tested of the three criteria."""
    criteria = _BoardSection("criteria", "The three criteria of the Article 29 Working Party (Opinion 05/2014)",
                        method=(_METHOD["synthetic"], "what each attack measures"))
    has = {name: name in document for name in ("singling_out", "linkability")}
    inference = bool(document.get("attribute"))
    criteria.tables.append(("what this assessment tested", _table(["criterion", "tested", "how / why not"], [
        ["singling out", "yes" if has["singling_out"] else "NOT TESTED",
         "queries that isolate one training record, against the holdout and a baseline" if has["singling_out"]
         else "no singling-out attack in this result"],
        ["linkability", "yes" if has["linkability"] else "NOT TESTED",
         "linking records on the keys across the synthetic file and the original" if has["linkability"]
         else "no linkability attack in this result"],
        ["inference", "yes" if inference else "NOT TESTED",
         "inference of the sought variables from the keys (CAP family, nearest-neighbour inference)"
         + ("; membership inference too" if document.get("membership") or document.get("membership_family")
            else "; membership inference NOT TESTED") if inference else "no target variable was given"],
    ])))
    return criteria


# --------------------------------------------------------------------------------------------
# Tuning


def _tune_sections(document: Mapping[str, Any]) -> tuple[bool, str, list[_BoardSection]]:
    spec = document["tune"]
    chosen = document.get("chosen")
    passed = chosen is not None
    data = _BoardSection("data", "Data and identifiers", method=(_METHOD["protection"], "the protection methods"))
    data.lines.append(f"Protection tuned: {spec['method']} on {', '.join(spec.get('columns', [])) or 'its default columns'}, "
                      f"{spec['parameter']} tried at {', '.join(map(str, spec['values']))} with seeds "
                      f"{', '.join(map(str, spec.get('seeds', [])))}. The keys, cells and intruders are those of the "
                      "tuning scenario; this result does not list them — see the scenario file.")
    intruders = _BoardSection("intruders", "Intruder models", method=(_METHOD["intruders"], "worst-case and realistic intruders"))
    intruders.lines.append("Every candidate is attacked by the intruders of the tuning scenario (mass linkage); "
                           "the result keeps the largest cell risk of each candidate, not the intruders' names.")
    risk = _BoardSection("risk", "Initial risk → threshold → residual risk", method=(_METHOD["utility"], "risk as a hard constraint, utility beside it"))
    candidates = document["candidates"]
    weakest = candidates[0]
    risk.lines.append(f"Initial risk: the weakest setting tried ({spec['parameter']} = {weakest['value']}), largest "
                      f"cell risk {fmt_num(weakest['max_cell_risk'])}. Threshold: τ = {document['tau']:g} in every "
                      "cell for every seed. Residual risk: " + (
                          f"{spec['parameter']} = {chosen['value']} (chosen)." if chosen else
                          "no tried value passes."))
    risk.tables.append(("candidates", _table(
        ["verdict", spec["parameter"], "seed", "largest cell risk", "failing cells"],
        [[verdict_word(c["passed"]),
          f"{c['value']}" + (" (chosen)" if chosen and c["value"] == chosen["value"] and c["seed"] == chosen["seed"] else ""),
          c["seed"], fmt_num(c["max_cell_risk"]), f"{c['n_failing_cells']} of {c['n_cells']}"] for c in candidates],
        [not c["passed"] for c in candidates])))
    import matplotlib

    with matplotlib.rc_context(PLOT_RC):
        fig, sentence = risk_utility_figure(document), risk_utility_sentence(document) or ""
        if fig is not None:
            risk.figures.append({"svg": svg(svg_figure(fig, "board-tune")),
                                 "caption": "Largest cell risk against the share of utility cases beyond their "
                                            f"threshold, per check family (first seed); dotted line τ. {sentence}",
                                 "method": _METHOD["utility"]})
        else:
            risk.lines.append(sentence)
    criteria = _BoardSection("criteria", "The three criteria of the Article 29 Working Party (Opinion 05/2014)",
                        method=(_METHOD["risk"], "what the linkage measure covers"))
    criteria.tables.append(("what this assessment tested", _table(["criterion", "tested", "how / why not"], [
        ["singling out", "NOT TESTED", "tuning attacks by mass linkage only"],
        ["linkability", "yes", "mass linkage of the scenario's intruders against every candidate"],
        ["inference", "partly", "a link counts only where the released values lie within γ of the true ones; "
                                "inference without a link was NOT TESTED"],
    ])))
    return passed, _headline(passed, document, "tune"), [data, intruders, risk, criteria]


# --------------------------------------------------------------------------------------------
# Page


def _producing_command(document: Mapping[str, Any], kind: str) -> str:
    origin = document.get("origin") or {}
    if kind == "scenario" and origin.get("bundled") == "demo":
        return (f"attack demo --units {origin.get('n_units')} --seed {origin.get('seed')} "
                f"--method {origin.get('method')}")
    if kind == "scenario":
        return f"attack run {document.get('scenario_file') or 'SCENARIO'}"
    if kind == "synthetic":
        s = document.get("settings") or {}
        return ("attack synth --original … --synthetic … " + " ".join(f"--key {k}" for k in s.get("keys", []))
                + " " + " ".join(f"--target {t}" for t in s.get("targets", []))
                + f" --n-attacks {s.get('n_attacks')} --seed {s.get('seed')}").replace("  ", " ")
    if kind == "tune":
        return "attack tune SCENARIO (the tuning scenario file)"
    return "attack link … (the options are recorded under linkage and evaluation in the result)"


def render_board_html(document: Mapping[str, Any], board: BoardInput) -> str:
    """The release-board report of a result document as one self-contained HTML page.

    Raises ``ValueError`` for a document of no known kind, an unknown context or a digest that
    is not a SHA-256 hex string.
    """
    kind = result_kind(document)
    if not kind:
        raise ValueError("not a result of attack run, demo, link, synth or tune")
    if board.context not in CONTEXTS:
        raise ValueError(f"unknown release context {board.context!r}; one of {', '.join(CONTEXTS)}")
    if not _HEX64.match(board.digest):
        raise ValueError("the digest must be a SHA-256 in lower-case hex")
    if kind == "synthetic":
        passed, headline, sections = _synthetic_sections(document)
    elif kind == "tune":
        passed, headline, sections = _tune_sections(document)
    else:
        passed, headline, sections = _linkage_sections(document, kind)
    verdict_lines = [] if kind in ("synthetic", "tune") else basis_lines(document_runs(document))
    name, meaning = CONTEXTS[board.context]
    context = _BoardSection("context", "Release context")
    context.lines += [f"Planned release: {name}. {meaning}",
                      f"Assessed: {KINDS[kind]} recorded in {board.file_name}."]
    if board.questionnaire is not None:
        answers = board.questionnaire["answers"]
        context.tables.append(("release-context questionnaire", _table(
            ["question", "answer"], [["who receives the file", answers["recipient"]],
                                     ["controls on the recipients", answers["controls"]],
                                     ["sensitivity of the data", answers["sensitivity"]],
                                     ["intruder's motive", answers["motive"]],
                                     ["intruder's capacity", answers["capacity"]]])))
        context.lines.append(f"The answers set the risk limit {board.questionnaire['rule']} and the attacker "
                             f"model {board.questionnaire['attacker_model']} (docs/method/release-context.md).")
        recorded = document.get("context")
        if isinstance(recorded, Mapping) and recorded.get("tau") != board.questionnaire["tau"]:
            context.lines.append(f"The result was judged with τ = {recorded.get('tau')} from its own context; "
                                 f"this report's context gives τ = {board.questionnaire['tau']}.")
    made_by = document.get("attack_version") or document.get("tool") or "not recorded"
    versions = {"attack (report)": __version__, "python": platform.python_version(), **board.versions}
    reproduce = _BoardSection("reproducibility", "Reproducibility")
    reproduce.tables.append(("how to reproduce", _table(["what", "value"], [
        ["this report", board.command],
        ["the result", _producing_command(document, kind)],
        ["result made by", made_by],
        *([k, v] for k, v in versions.items()),
        ["SHA-256 of the result file", board.digest],
    ])))
    reproduce.lines.append("Every number in this report is read from the result file named above; its SHA-256 "
                           "stands on every page. A certificate (attack run/synth --certificate) adds the SHA-256 of "
                           "every input and is checked with attack verify.")
    ordered = [context, *sections, _BoardSection("decision", "Decision and sign-off"), reproduce]
    return render("board.html.j2", title=f"Release-board report: {document.get('title') or KINDS[kind]}",
                  passed=passed, headline=headline, verdict_lines=verdict_lines, sections=ordered, digest=board.digest,
                  file_name=board.file_name, docs=board.docs, context_name=name,
                  footer="Aggregates only. Confidential until cleared for release.")
