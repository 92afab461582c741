"""The UI in a real browser (Playwright driving Debian's Chromium): the demo path from the
scenario to the verdict, the saved file run by the command line, a bad value at its field.

Screenshots of the screens go to a temporary folder, or, with ``ATTACK_UI_SCREENSHOTS=docs/figures``,
to the documentation (the how-to page ``docs/howto/web-ui.md`` shows them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from reference_data import SDCMICRO

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (CI installs it)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("CI"):
    raise RuntimeError("CI must install Debian's chromium for the browser tests")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not found (install Debian's chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update"]
#: Seconds a run of the demo on 300 generated firms may take on a busy machine.
RUN_TIMEOUT = 240


@pytest.fixture
def page(served):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        # offline: a request to anything but the UI's own address fails, and is noted
        base = served.url.split("/?")[0]
        outside: list[str] = []

        def only_the_ui(route):
            if route.request.url.startswith(base):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", only_the_ui)
        page = context.new_page()
        page.goto(served.url)
        yield page
        browser.close()
        assert outside == [], "the UI asked the network for " + ", ".join(outside)


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ATTACK_UI_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _save(page, screen: str) -> None:
    page.click("#save")
    page.wait_for_url(f"**/screen/{screen}**")


def test_demo_change_tau_run_verdict_and_the_command_line_agrees(page, served, tmp_path):
    shots = _shots(tmp_path)
    page.click("#demo")
    page.wait_for_selector("#toml")
    page.fill('[name="data.demo.n_units"]', "300")
    _save(page, "data")
    assert "n_units = 300" in page.inner_text("#toml")
    page.screenshot(path=shots / "ui-data.png", full_page=False)
    page.click("text=Intruders")
    page.wait_for_selector('[name="linkage.keys"]')
    assert page.input_value('[name="linkage.keys"]') == "turnover:metric:1\nemployees:metric:1"
    page.screenshot(path=shots / "ui-intruders.png")
    page.click("text=Evaluation")
    page.fill('[name="evaluation.tau"]', "0.3")
    _save(page, "evaluation")
    assert "tau = 0.3" in page.inner_text("#toml")
    assert page.inner_text("#saved") == "saved"
    page.screenshot(path=shots / "ui-evaluation.png")

    page.click("text=Run and results")
    page.click("#run")
    page.wait_for_selector("#verdict", timeout=RUN_TIMEOUT * 1000)
    assert page.inner_text("#verdict") == "NOT PASSED"  # the worst-case intruder re-identifies every firm
    frame = page.frame_locator("#report")
    assert "τ = 0.3" in frame.locator("body").inner_text()
    page.screenshot(path=shots / "ui-results.png")

    copy = tmp_path / "copy" / "scenario.toml"  # the same file name: the JSON names the file
    page.fill('header [name="path"]', str(copy))
    page.click("text=Save as")
    page.wait_for_selector("#saved")
    cli_json = tmp_path / "cli.json"
    done = subprocess.run([sys.executable, "-m", "attack", "run", str(copy), "--json", str(cli_json)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    ui_json = tmp_path / "reports" / "scenario" / "scenario.json"
    assert cli_json.read_bytes() == ui_json.read_bytes()


def test_a_bad_value_shows_the_fields_error(page, served, tmp_path):
    page.click("#demo")
    page.wait_for_selector("#toml")
    page.click("text=Evaluation")
    page.fill('[name="evaluation.tau"]', "1.5")
    _save(page, "evaluation")
    field = page.locator(".field.wrong")
    assert field.count() == 1
    assert field.locator("label").inner_text() == "tau"
    assert field.locator(".field-error").inner_text() == "expected a value less than or equal to 1, got 1.5"
    assert page.inner_text("#saved") == "not saved"
    assert "tau = 1.5" not in (tmp_path / "scenario.toml").read_text()
    page.fill('[name="evaluation.gamma"]', "0.05\n0.05")
    page.fill('[name="evaluation.tau"]', "0.5")
    _save(page, "evaluation")
    assert page.locator(".field.wrong label").inner_text() == "gamma"
    assert page.locator(".field.wrong .field-error").inner_text() == "a γ value is given twice"
    page.screenshot(path=_shots(tmp_path) / "ui-error.png")


def test_phone_and_desktop_widths_show_the_verdict_first_and_fold_the_notices(served, tmp_path):
    """At 390 px the side navigation folds behind the Menu button, the header's buttons stay on
    screen and the verdict is above the fold with the notices folded under it; at desktop width
    the navigation is always there. No machine path is on screen at either width."""
    frame = pd.read_csv(SDCMICRO / "testdata.csv").head(300)
    frame.insert(0, "uid", range(len(frame)))
    frame.to_csv(tmp_path / "td.csv", index=False)
    entry = '{ path = "td.csv", id = "uid" }'
    (tmp_path / "td.toml").write_text(
        f'title = "testdata"\n[data]\nexternal = {entry}\nrelease = {entry}\noriginal = {entry}\n'
        '[linkage]\nkeys = ["age:metric", "relat:nominal"]\nblock = ["urbrur"]\n[evaluation]\ncells = ["walls"]\n',
        encoding="utf-8")
    shots = _shots(tmp_path)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.goto(served.url)
        phone.fill('header [name="path"]', str(tmp_path / "td.toml"))
        phone.click("text=Open")
        phone.wait_for_selector("#toml")
        assert not phone.is_visible("nav.side") and phone.is_visible("#menu")
        for button in phone.locator("header button").all():  # nothing cut off at the right edge
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.click("#menu")
        assert phone.is_visible("nav.side")
        phone.click("nav.side >> text=Run and results")
        phone.click("#run")
        phone.wait_for_selector("#verdict", timeout=RUN_TIMEOUT * 1000)
        verdict = phone.locator("#verdict").bounding_box()
        assert phone.inner_text("#verdict") == "NOT PASSED" and verdict["y"] + verdict["height"] <= 844
        notices = phone.locator("details#notices")
        assert notices.bounding_box()["y"] > verdict["y"]  # under the verdict, folded
        assert notices.get_attribute("open") is None and not phone.is_visible("details#notices .notice")
        assert "1 notice about the data" in notices.locator("summary").inner_text()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.screenshot(path=shots / "ui-results-phone.png")
        notices.locator("summary").click()
        assert "3 numeric columns used as codes: relat, urbrur, walls (file td.csv)" in notices.inner_text()
        assert str(tmp_path) not in phone.inner_text("body")
        desktop = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        desktop.goto(served.url)
        desktop.click("text=Run and results")
        assert desktop.is_visible("nav.side") and not desktop.is_visible("#menu")
        assert desktop.inner_text("#verdict") == "NOT PASSED"
        assert str(tmp_path) not in desktop.inner_text("body")
        browser.close()


#: A page of another site on this machine: on load it posts a form to the UI, replacing the
#: confidential original by the scenario ("save as"), as the audit of December 2026 did.
HOSTILE = """<!doctype html><html><body>
<form id="f" method="post" action="{ui}/scenario">
<input name="action" value="save_as"><input name="path" value="{target}"><input name="replace" value="on">
</form><script>document.getElementById("f").submit();</script></body></html>"""


@pytest.fixture
def hostile_site(tmp_path):
    """An HTTP server on another port of 127.0.0.1 serving ``tmp_path/site``; stopped after the test."""
    import functools
    import http.server
    import threading

    site = tmp_path / "site"
    site.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(10)


@pytest.mark.parametrize("target", ["original.csv", "new.toml"])
def test_a_page_on_another_port_cannot_drive_the_ui(served, hostile_site, tmp_path, target):
    site, site_url = hostile_site
    (tmp_path / "original.csv").write_text("id,turnover\n1,5\n", encoding="utf-8")
    (tmp_path / "scenario.toml").write_text('title = "mine"\n', encoding="utf-8")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    ui = served.url.split("/?")[0]
    (site / "index.html").write_text(HOSTILE.format(ui=ui, target=target), encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_context().new_page()
        page.goto(served.url)  # the user has the UI open: the browser holds its session cookie
        page.wait_for_selector("#toml", state="attached")
        answers = []
        page.on("response", lambda r: answers.append((r.url, r.status)) if r.url.startswith(ui) else None)
        page.goto(f"{site_url}/index.html")
        page.wait_for_url(f"{ui}/scenario")
        text = page.inner_text("body")
        browser.close()
    assert (f"{ui}/scenario", 403) in answers
    assert "does not come from this UI's own page" in text
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_save_as_over_the_original_is_refused_in_the_page(page, served, tmp_path):
    (tmp_path / "original.csv").write_text("id,turnover\n1,5\n", encoding="utf-8")
    page.click("#demo")
    page.wait_for_selector("#toml")
    page.fill('header [name="path"]', "original.csv")
    page.click("text=Save as")
    page.wait_for_selector("#notice")
    assert "scenario files only" in page.inner_text("#notice")
    assert (tmp_path / "original.csv").read_text(encoding="utf-8") == "id,turnover\n1,5\n"
