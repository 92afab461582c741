"""Render a realistic HTML report in headless Chromium: phone-width layout, screenshot and print.

The report comes from the library itself (``attack.demo.run_demo`` on 1,500 synthetic firms:
four runs, 12 cells each). Chromium loads it from file:// with every host name unresolvable, so
the page must render without any network access. Checked:

* the rendered DOM: the verdict banner comes first (before any table), the inline SVG plots are
  there, no http(s) URL besides the SVG namespaces;
* the layout at phone width (412 CSS px): nothing but the scrolling table containers extends past
  the viewport, the wide tables do scroll, every plot is scaled into its column;
* a 412 px wide screenshot: the right size, not blank, the verdict banner at the top, plots drawn;
* print to PDF: a real PDF, one page at least per run (each run starts a new page).

CI installs Debian's ``chromium`` package (.ci/run); elsewhere the module skips without it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not found (no `chromium` or `chromium-browser` on PATH): "
    "browser rendering of the HTML report not tested; install Debian's `chromium` package "
    "(.ci/run does) to run it",
)

WIDTH, HEIGHT = 412, 4000  # a common phone width in CSS pixels
TIMEOUT = 60  # seconds, per Chromium run
FLAGS = (
    "--headless",
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--force-device-scale-factor=1",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no host resolves: the page must not need one
)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Banner border colours from report._CSS (.verdict.fail / .verdict.pass).
BORDER = {"fail": "#c62828", "pass": "#1e7e34"}
RUN_BLUE, RUN_RED = "#1f77b4", "#d62728"  # the first two run colours in the plots


def _chromium(tmp: Path, *args: str) -> str:
    """Run headless Chromium with its own fresh profile; return its stdout."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from attack.study.demo import run_demo

    out = tmp_path_factory.mktemp("demo")
    return Path(run_demo(out, n_units=1500, seed=1).html_path)


@pytest.fixture(scope="module")
def chrome_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chromium")


@pytest.fixture(scope="module")
def source(report: Path) -> str:
    return report.read_text(encoding="utf-8")


def _verdict_class(text: str) -> str:
    match = re.search(r'<div class="verdict (pass|fail)" role="status">', text)
    assert match, "no verdict banner"
    return match.group(1)


def test_dom_verdict_first_plots_inline_no_network(
    report: Path, source: str, chrome_tmp: Path
) -> None:
    dom = _chromium(chrome_tmp, f"--window-size={WIDTH},{HEIGHT}", "--dump-dom", report.as_uri())
    assert "</html>" in dom, "Chromium returned no document"
    # The verdict is the first thing after the title, and before the first table.
    assert re.search(r'<main>\s*<h1>[^<]*</h1>\s*<div class="verdict (pass|fail)"', dom)
    headline = re.search(r'role="status"><strong>((?:NOT )?PASSED: [^<]+)</strong>', dom)
    assert headline, "verdict headline missing from the rendered page"
    assert headline.start() < dom.index("<table")
    assert f"<strong>{headline.group(1)}</strong>" in source
    banner = dom[headline.start():dom.index("</div>", headline.start())]
    # the lines of what the verdict rests on (targets, identity rule, minimum), then one per run
    runs = source.count('<section class="run"')
    assert banner.count("<li>Judged on:") == 1
    assert len(re.findall(r"<li>[^<]*(?:NOT PASSED|PASSED), \d+ of \d+ cells", banner)) == runs
    # Every inline plot made it into the DOM as SVG (one comparison plot, then per run a heat
    # map and a risk-by-γ or histogram plot).
    n_svg = source.count("<svg")
    assert n_svg >= 5
    assert dom.count("<svg") == n_svg
    assert dom.count("</svg>") == n_svg
    # Loaded from file:// with no resolvable host: nothing in it points to the network.
    without_ns = re.sub(r'"http://www\.w3\.org/[^"]*"', "", dom)
    assert not re.search(r"https?://", without_ns)


_MEASURE = """<script>(function () {
  var W = %d, doc = document.documentElement;
  function box(e) { return e.getBoundingClientRect(); }
  var out = {
    innerWidth: window.innerWidth,
    scrollWidth: doc.scrollWidth,
    verdictTop: box(document.querySelector('.verdict')).top,
    firstTableTop: box(document.querySelector('table')).top,
    overflow: [].filter.call(document.body.querySelectorAll('*'), function (e) {
      return !e.closest('.scroll') && !e.closest('svg') && box(e).right > W + 0.5;
    }).map(function (e) { return e.tagName + '.' + e.className; }),
    svgs: [].map.call(document.querySelectorAll('svg'), function (s) {
      return [box(s).width, box(s.parentElement).width, box(s).height];
    }),
    scrolls: [].map.call(document.querySelectorAll('.scroll'), function (s) {
      return [s.scrollWidth, s.clientWidth, getComputedStyle(s).overflowX];
    })
  };
  parent.document.getElementById('layout').textContent = JSON.stringify(out);
})();</script>"""


def _measure(source: str, script: str, width: int, chrome_tmp: Path, name: str) -> dict:
    """Lay ``source`` out in a ``width`` px viewport and return what ``script`` measured.

    Headless Chromium will not make its window narrower than 500 px, so the page goes into a
    ``width`` px wide iframe (``srcdoc``, same origin) of a test page; the script appended to the
    copy measures the layout and writes it as JSON into the outer page, which ``--dump-dom``
    returns.
    """
    measured = source.replace("</body>", script + "</body>")
    wrapper = chrome_tmp / f"{name}.html"
    wrapper.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
        '<pre id="layout"></pre>'
        f'<iframe style="width:{width}px;height:{HEIGHT}px;border:0" '
        f'srcdoc="{html.escape(measured, quote=True)}"></iframe></body></html>',
        encoding="utf-8",
    )
    dom = _chromium(chrome_tmp, f"--window-size={max(600, width + 100)},1000", "--dump-dom", wrapper.as_uri())
    match = re.search(r'<pre id="layout">([^<]+)</pre>', dom)
    assert match, "the layout probe did not run"
    return json.loads(html.unescape(match.group(1)))


def test_layout_at_phone_width(report: Path, source: str, chrome_tmp: Path) -> None:
    """Lay the report out in a 412 px viewport and measure it."""
    layout = _measure(source, _MEASURE % WIDTH, WIDTH, chrome_tmp, "phone")
    assert layout["innerWidth"] == WIDTH
    # Nothing outside the table scrollers is wider than the phone: no sideways page scrolling.
    assert layout["scrollWidth"] <= WIDTH
    assert layout["overflow"] == []
    # The verdict banner comes before the first table, near the top.
    assert layout["verdictTop"] < layout["firstTableTop"]
    assert layout["verdictTop"] < 400
    # Wide tables scroll horizontally inside their own container.
    scrolls = layout["scrolls"]
    assert scrolls and all(overflow == "auto" for _, _, overflow in scrolls)
    assert any(width > client for width, client, _ in scrolls)
    assert all(client <= WIDTH for _, client, _ in scrolls)
    # Every plot is drawn and scaled down into its column.
    assert len(layout["svgs"]) == source.count("<svg")
    for width, column, height in layout["svgs"]:
        assert 0 < width <= column + 0.5
        assert height > 50


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])


def _pixels_like(image: np.ndarray, colour: str, tol: float = 0.03) -> np.ndarray:
    return np.all(np.abs(image - _rgb(colour)) < tol, axis=-1)


def test_phone_screenshot(report: Path, source: str, chrome_tmp: Path) -> None:
    import matplotlib.image

    png = chrome_tmp / "phone.png"
    _chromium(chrome_tmp, f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png}",
              report.as_uri())
    assert png.is_file() and png.stat().st_size > 10_000
    assert _png_size(png.read_bytes()) == (WIDTH, HEIGHT)
    image = matplotlib.image.imread(str(png))[..., :3]
    assert image.shape == (HEIGHT, WIDTH, 3)
    # Not blank: a good share of non-white pixels and real contrast.
    assert image.std() > 0.1
    assert (image.mean(axis=-1) < 0.95).mean() > 0.1
    # The verdict banner's coloured border is the first thing below the title.
    border = _pixels_like(image, BORDER[_verdict_class(source)])
    rows = np.nonzero(border.any(axis=1))[0]
    assert border.sum() > 500, "verdict banner not drawn"
    assert rows.min() < 400
    # The comparison plot (inline SVG) is drawn: run colours show up.
    assert _pixels_like(image, RUN_BLUE).sum() > 20
    assert _pixels_like(image, RUN_RED).sum() > 20


def test_print_to_pdf(report: Path, source: str, chrome_tmp: Path) -> None:
    pdf = chrome_tmp / "report.pdf"
    _chromium(chrome_tmp, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", report.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    assert len(data) > 10_000
    assert data.rstrip().endswith(b"%%EOF")
    # Each run starts a new printed page (section.run { break-before: page }).
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", data))
    assert pages >= 1 + source.count('<section class="run"')


# At desktop width every table fits: no table container scrolls sideways, and every verdict and
# every column that decides it (status, verdict, failing cells, disclosure risk per γ) lies inside
# the viewport. The probe lists each table's header texts with the right edge of each.
DESKTOP = 1400
_WIDE_PROBE = """<script>(function () {
  var doc = document.documentElement;
  var out = {
    scrollWidth: doc.scrollWidth,
    tables: [].map.call(document.querySelectorAll('.scroll'), function (s) {
      return {scrollWidth: s.scrollWidth, clientWidth: s.clientWidth,
              header: [].map.call(s.querySelectorAll('thead th'), function (h) {
                return [h.textContent, h.getBoundingClientRect().right]; })};
    })
  };
  parent.document.getElementById('layout').textContent = JSON.stringify(out);
})();</script>"""
DECIDING = re.compile(r"^(status|verdict|failing cells|disclosure γ = |combined γ = )")


def _check_desktop(layout: dict) -> list[str]:
    """Assert nothing scrolls sideways at 1400 px; return the deciding headers found."""
    assert layout["scrollWidth"] <= DESKTOP
    found = []
    for table in layout["tables"]:
        assert table["scrollWidth"] <= table["clientWidth"], table["header"]
        for text, right in table["header"]:
            if DECIDING.match(text):
                assert right <= DESKTOP, (text, right)
                found.append(text)
    return found


def test_every_verdict_and_deciding_column_visible_at_desktop_width(source: str, chrome_tmp: Path) -> None:
    layout = _check_desktop(_measure(source, _WIDE_PROBE, DESKTOP, chrome_tmp, "desktop"))
    runs = source.count('<section class="run"')
    # The comparison table's verdict and failing cells, each run's cell table's status, and
    # the disclosure risk per γ in both.
    assert layout.count("verdict") == 1 and layout.count("failing cells") == 1
    assert layout.count("status") == runs
    assert layout.count("disclosure γ = 0.1") == 1 + runs


def test_board_report_fits_at_desktop_width(report: Path, chrome_tmp: Path) -> None:
    from attack.report.board import BoardInput, render_board_html
    from attack.report.documents import load_result

    document, digest = load_result(report.with_name("demo.json"))
    page = render_board_html(document, BoardInput("enclave", digest, "demo.json", "attack report demo.json --board"))
    found = _check_desktop(_measure(page, _WIDE_PROBE, DESKTOP, chrome_tmp, "board"))
    assert found.count("verdict") == 1
