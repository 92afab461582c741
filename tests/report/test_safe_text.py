"""Text that cannot lie: every bidirectional control is shown by name in every report (HTML,
board report, terminal, UI), and a report links only to https:, http: or relative addresses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import EXTERNAL, RELEASE

from attack.cli import main
from attack.errors import InputError
from attack.report.safe_text import BIDI_CONTROLS, checked_url, visible_controls

CONTROLS = sorted(BIDI_CONTROLS)


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> Path:
    """A link result whose external file's name, title and a column name carry every control."""
    folder = tmp_path_factory.mktemp("bidi")
    tricky = "".join(CONTROLS)
    external = folder / f"ext{tricky}.csv"
    EXTERNAL.to_csv(external, index=False)
    RELEASE.to_csv(folder / "release.csv", index=False)
    code, output = run("link", "--external", external, "--release", folder / "release.csv", "--external-id",
                       "unit_id", "--release-id", "unit_id", "--key", "turnover:metric", "--key",
                       "employees:metric", "--block", "wz", "--tau", "0.9", "--json", folder / "r.json")
    assert code == 0, output
    assert tricky not in output and "[U+202E]" in output  # the terminal summary names the file
    document = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    document["name"] = f"PASSED \u202eDESSAP TON{tricky}"
    (folder / "r.json").write_text(json.dumps(document), encoding="utf-8")
    return folder / "r.json"


def test_visible_controls_names_each_control():
    assert visible_controls("a\u202eb\u2066c\u061cd") == "a[U+202E]b[U+2066]c[U+061C]d"
    assert visible_controls("Zürich – אבג") == "Zürich – אבג"  # other text, right-to-left scripts included


@pytest.mark.parametrize("board", [False, True], ids=["report", "board report"])
def test_no_control_reaches_an_html_report(result, tmp_path, board):
    out = tmp_path / "out.html"
    code, output = run("report", result, "--out", out, *(["--board", "--context", "public-use"] if board else []))
    assert code == 0, output
    page = out.read_text(encoding="utf-8")
    assert not BIDI_CONTROLS & set(page) and not BIDI_CONTROLS & set(output)
    assert "PASSED [U+202E]DESSAP TON" in page
    for control in CONTROLS:
        assert f"[U+{ord(control):04X}]" in page


BAD_URLS = ["javascript:alert(1)//", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
            "data:text/html,<script>alert(1)</script>", "vbscript:msgbox", "file:///etc/passwd", ":x",
            "https://x.org/\u202e/"]
GOOD_URLS = ["https://attack.example/docs/", "http://localhost:8000/", "../site/", ""]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_report_links_to_no_other_scheme(result, tmp_path, url):
    with pytest.raises(InputError, match="expected an https:, http: or relative address"):
        checked_url(url)
    out = tmp_path / "board.html"
    code, output = run("report", result, "--board", "--context", "public-use", "--docs", url, "--out", out)
    assert code == 2, output
    assert "Traceback" not in output and "--docs" in output
    assert not out.exists()


@pytest.mark.parametrize("url", GOOD_URLS)
def test_https_http_and_relative_links_are_written(result, tmp_path, url):
    out = tmp_path / "board.html"
    code, output = run("report", result, "--board", "--context", "public-use", "--docs", url, "--out", out)
    assert code == 0, output
    assert f'href="{url}method/' in out.read_text(encoding="utf-8")


def test_no_control_reaches_a_notebook_display():
    from attack.report.notebook import one_line, result_html

    shown = one_line("Result", True, f"title {''.join(CONTROLS)}") + result_html(
        f"title {''.join(CONTROLS)}", True, [f"file {CONTROLS[0]}"])
    assert not BIDI_CONTROLS & set(shown) and "[U+202E]" in shown


def test_what_a_command_prints_cannot_rewrite_the_terminal(tmp_path):
    """An escape sequence or a lone carriage return in a printed string would let the terminal
    erase and overwrite what was printed ("\\x1b[2K\\rPASSED"); standard output shows them by name."""
    external = tmp_path / "ext\x1b[2K\rPASSED\x08.csv"
    EXTERNAL.to_csv(external, index=False)
    RELEASE.to_csv(tmp_path / "release.csv", index=False)
    code, output = run("link", "--external", external, "--release", tmp_path / "release.csv", "--external-id",
                       "unit_id", "--release-id", "unit_id", "--key", "turnover:metric", "--block", "wz",
                       "--tau", "0.9")
    assert code in (0, 1), output
    # the summary names the file; click drops the escape sequence itself, the rest is shown by name
    assert "[U+000D]PASSED[U+0008].csv" in output
    assert not {"\x1b", "\r", "\x08"} & set(output)
