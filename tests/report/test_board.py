"""The release-board report (``attack report RESULT.json --board``) for every kind of result, as
HTML and as PDF: its sections, what was not tested, the digest and page number on every page,
and no network access while the PDF is laid out."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.report.labels import cell_label
from tests.study.test_tuning import SCENARIO as TUNE

SECTIONS = ["Release context", "Data and identifiers", "Intruder models",
            "Initial risk → threshold → residual risk", "The three criteria of the Article 29 Working Party",
            "Decision and sign-off", "Reproducibility"]



def invoke(args: list) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One result file of each kind, made by the commands that write them."""
    import attack
    from attack.study.demo import run_demo

    folder = tmp_path_factory.mktemp("kinds")
    demo = run_demo(folder / "demo", n_units=600, seed=1)
    scenario = json.loads(Path(demo.json_path).read_text(encoding="utf-8"))
    link = folder / "link.json"
    link.write_text(json.dumps({"schema_version": scenario["schema_version"], **scenario["runs"][1]}),
                    encoding="utf-8")
    rng = np.random.default_rng(4)
    size = rng.lognormal(3, 1, 300)
    firms = pd.DataFrame({"region": rng.choice(list("NSEW"), 300), "employees": np.round(size),
                          "turnover": np.round(size * rng.lognormal(2, 0.3, 300), 1)})
    synthetic = attack.synthesize(firms.iloc[:200], seed=3).frame
    for name, frame in (("original", firms.iloc[:200]), ("synthetic", synthetic), ("holdout", firms.iloc[200:])):
        frame.to_csv(folder / f"{name}.csv", index=False)
    done = invoke(["synth", "--original", folder / "original.csv", "--synthetic", folder / "synthetic.csv",
                   "--holdout", folder / "holdout.csv", "--key", "region", "--key", "employees",
                   "--target", "turnover", "--n-attacks", "40", "--json", folder / "synth.json", "--quiet"])
    assert done.exit_code in (0, 1), done.output
    (folder / "tune.toml").write_text(TUNE.format(values="[0.001, 0.5]"), encoding="utf-8")
    done = invoke(["tune", folder / "tune.toml", "--json", folder / "tune.json", "--quiet"])
    assert done.exit_code == 0, done.output
    return {"scenario": Path(demo.json_path), "link": link, "synthetic": folder / "synth.json",
            "tune": folder / "tune.json"}


def test_result_cells_carry_the_label_beside_the_specification(results: dict[str, Path]) -> None:
    document = json.loads(results["scenario"].read_text(encoding="utf-8"))
    cells = document["runs"][0]["cells"]
    assert cells and all(c["label"] == cell_label(c["cell"]) for c in cells)
    assert {"employees:bins=20,50,100,250,500,1000": "[20, 50)", "east_west": "E"} in [c["cell"] for c in cells]
    assert "employees 20 to under 50, east_west E" in [c["label"] for c in cells]


@pytest.mark.parametrize("kind", ["scenario", "link", "synthetic", "tune"])
def test_board_report_as_html_and_pdf(kind: str, results: dict[str, Path], tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    pytest.importorskip("weasyprint")
    source = results[kind]
    html_path, pdf_path = tmp_path / "board.html", tmp_path / "board.pdf"
    document = json.loads(source.read_text(encoding="utf-8"))
    passed = document.get("chosen") is not None if kind == "tune" else document["passed"]
    done = invoke(["report", source, "--board", "--context", "scientific-use", "--out", html_path,
                   "--pdf", pdf_path])
    assert done.exit_code == (0 if passed else 1), done.output
    assert ("NOT PASSED" if not passed else "PASSED") in done.output
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    page = html_path.read_text(encoding="utf-8")
    # The sections in the order boards file them, each once.
    positions = [page.index(f". {title}") for title in SECTIONS]
    assert positions == sorted(positions)
    assert "scientific-use file" in page and "approved by (release board)" in page
    assert page.count(digest) >= 2  # in the header and the reproducibility table (and @page)
    # What was not tested is said: every kind leaves at least one criterion open.
    assert "NOT TESTED" in page
    assert 'href="method/' in page  # the figures and sections link to their method pages
    lowered = page.lower()
    assert "<script" not in lowered and "<link" not in lowered and "<img" not in lowered
    # The PDF: more than one page, the digest and "page i of n" on every page.
    reader = pypdf.PdfReader(pdf_path)
    n = len(reader.pages)
    assert n >= 2
    for i, sheet in enumerate(reader.pages, 1):
        text = sheet.extract_text()
        assert digest in text, f"page {i} lacks the digest"
        assert f"page {i} of {n}" in text


def test_pdf_layout_fetches_nothing() -> None:
    pytest.importorskip("weasyprint")
    import weasyprint

    from attack.report.pdf import NETWORK_REFUSED, _refusing_fetcher, pdf_document

    fetcher = _refusing_fetcher(weasyprint)
    with pytest.raises(ValueError, match=NETWORK_REFUSED):
        (fetcher.fetch if hasattr(fetcher, "fetch") else fetcher)("https://example.org/x.png")
    # A page that asks for remote and local resources is still laid out, without them.
    document = pdf_document('<html><head><link rel="stylesheet" href="https://example.org/a.css"></head>'
                            '<body><img src="http://example.org/x.png"><img src="file:///etc/hostname">'
                            '<p>text</p></body></html>')
    assert len(document.pages) == 1
    # Images inside the page (data: URLs, as matplotlib writes heat maps) are drawn.
    pixel = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQ"
             "DwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
    fetched = (fetcher.fetch if hasattr(fetcher, "fetch") else fetcher)(pixel)
    assert fetched is not None


def test_pdf_without_weasyprint_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from attack.report.pdf import html_to_pdf

    monkeypatch.setitem(sys.modules, "weasyprint", None)
    with pytest.raises(InputError, match=r'pip install "attack\[pdf\]"'):
        html_to_pdf("<p>x</p>")


def test_report_command_usage_errors(results: dict[str, Path], tmp_path: Path) -> None:
    done = invoke(["report", results["scenario"], "--board"])
    assert done.exit_code == 2 and "--board needs --context" in done.output
    done = invoke(["report", results["scenario"], "--context", "enclave"])
    assert done.exit_code == 2 and "add --board" in done.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"title": "no result"}', encoding="utf-8")
    done = invoke(["report", bad, "--board", "--context", "enclave"])
    assert done.exit_code == 2 and "not a result of attack" in done.output
    assert not (tmp_path / "bad.board.html").exists()


def test_regular_report_from_json_matches_the_one_the_run_wrote(results: dict[str, Path], tmp_path: Path) -> None:
    source = results["scenario"]
    out = tmp_path / "again.html"
    done = invoke(["report", source, "--out", out])
    assert done.exit_code == 1  # the demo's result is NOT PASSED
    assert out.read_text(encoding="utf-8") == (source.parent / "report.html").read_text(encoding="utf-8")


def test_board_report_shows_no_figure_of_a_small_cell(results: dict[str, Path]) -> None:
    """A cell with fewer than 3 verifiable units is suppressed in the board report as in every
    report: its risk is neither the "highest cell risk" nor in the heat map."""
    from attack.report.board import BoardInput, render_board_html

    document = json.loads(results["link"].read_text(encoding="utf-8"))
    board = BoardInput("public-use", "0" * 64, "link.json", "attack report link.json --board")
    assert "0.9877" not in render_board_html(document, board)
    small, *others = document["cells"]
    for cell in others:  # the small cell gets the highest risk of all
        cell["disclosure_risk"] = {g: min(v, 0.5) for g, v in cell["disclosure_risk"].items()}
    small["n_verifiable"], small["passed"] = 2, False
    small["disclosure_risk"] = {g: 0.987654 for g in small["disclosure_risk"]}
    page = render_board_html(document, board)
    assert "0.9877" not in page
    assert "highest cell risk (n ≥ 3)" in page


def test_the_board_states_the_privacy_claim_and_the_inference_with_confidence() -> None:
    import attack
    from attack.report.board import CONTEXTS, BoardInput, render_board_html

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"x": rng.normal(size=400), "y": rng.normal(size=400)})
    copying = attack.attack_synthetic(frame.iloc[:200], frame.iloc[:200], frame.iloc[200:], n_attacks=10,
                                      membership_family={"attacks": ["dcr"], "n_bootstrap": 10},
                                      privacy_claim={"epsilon": 0.5})
    board = BoardInput(next(iter(CONTEXTS)), "0" * 64, "synth.json", "attack report synth.json --board")
    page = render_board_html(copying.to_dict(), board)
    assert "Privacy claim: claimed ε = 0.5" in page and "claim falsified" in page
    frame["job"] = np.where(frame.x > 0, "a", "b")
    inferred = attack.attack_synthetic(frame.iloc[:200], frame.iloc[:200], frame.iloc[200:], n_attacks=10,
                                       keys=["x", "y"], targets=["job"])
    assert "inference with the intruder&#39;s confidence" in render_board_html(inferred.to_dict(), board)
