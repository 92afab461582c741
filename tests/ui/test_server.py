"""The UI server over HTTP: the token, the host name, the address it listens on, cancel, and
record-level files."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import attack

ONE_INTRUDER = """\
title = "one intruder"
[data]
external = { demo = "external:markus" }
release = { demo = "formal" }
original = { demo = "original" }
demo = { n_units = 300 }
[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["nace:prefix=2"]
"""


def _client(served) -> httpx.Client:
    base = served.url.split("/?")[0]
    client = httpx.Client(base_url=base, follow_redirects=True, timeout=60)
    page = client.get(served.url)
    assert page.status_code == 200  # the token is exchanged for a cookie
    # what the UI's own page sends with every form: its origin and the session's form token
    client.headers.update({"origin": base, "x-csrf-token": csrf_of(page.text)})
    return client


def csrf_of(page: str) -> str:
    """The per-session form token a page of the UI carries."""
    return re.search(r'<meta name="csrf-token" content="([0-9a-f]+)">', page).group(1)


def _finished(client, seconds: float = 300) -> dict:
    """The job's status once it is no longer running (polled every 0.1 s, at most ``seconds``)."""
    for _ in range(int(seconds / 0.1)):
        status = client.get("/job").json()
        if not status["running"]:
            return status
        time.sleep(0.1)
    raise AssertionError(f"the job still runs after {seconds} s")


def _listening(port: int) -> list[str]:
    """Local addresses in LISTEN state on ``port``, from /proc/net/tcp and tcp6 (Linux)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.append(address)
    return found


def test_listens_on_loopback_only(served):
    host, port = served.sock.getsockname()[:2]
    assert host == "127.0.0.1"
    if Path("/proc/net/tcp").exists():
        assert _listening(port) == ["0100007F"]  # 127.0.0.1, and no other address


def test_requests_without_the_token_or_for_another_host_are_refused(served):
    base = served.url.split("/?")[0]
    assert httpx.get(f"{base}/screen/data").status_code == 403
    assert httpx.get(f"{base}/screen/data?token=wrong").status_code == 403
    assert httpx.get(f"{base}/static/ui.css").status_code == 403
    assert httpx.get(served.url, headers={"host": "attacker.example"}).status_code == 403
    client = _client(served)
    assert client.get("/screen/data").status_code == 200
    assert client.get("/static/ui.js").status_code == 200


def test_every_asset_is_shipped_and_nothing_comes_from_the_network(served):
    client = _client(served)
    client.post("/scenario", data={"action": "demo", "units": "300"})
    for page in ("/screen/data", "/screen/intruders", "/screen/evaluation", "/results", "/certificate"):
        text = client.get(page).text
        assert "http://" not in text and "https://" not in text, page


def test_a_bad_value_is_worded_as_the_command_line_words_it(served, tmp_path):
    client = _client(served)
    client.post("/scenario", data={"action": "demo", "units": "300"})
    saved = (tmp_path / "scenario.toml").read_text()
    page = client.post("/screen/evaluation", data={"evaluation.tau": "2"}).text
    assert "expected a value less than or equal to 1, got 2" in page
    assert (tmp_path / "scenario.toml").read_text() == saved  # an invalid edit is not written
    bad = tmp_path / "bad" / "scenario.toml"
    bad.parent.mkdir()
    bad.write_text(saved.replace("[evaluation]\n", "[evaluation]\ntau = 2\n"))
    cli = subprocess.run([sys.executable, "-m", "attack", "run", str(bad)], capture_output=True, text=True)
    assert cli.returncode == 2
    assert cli.stderr.strip().endswith("field evaluation.tau: expected a value less than or equal to 1, got 2")


def test_cancel_ends_the_run_and_writes_nothing(served, tmp_path):
    client = _client(served)
    client.post("/scenario", data={"action": "demo", "units": "17000"})
    client.post("/run", data={"kind": "run"})
    client.post("/job/cancel")
    assert _finished(client, 20)["outcome"] == "cancelled"
    assert not list((tmp_path / "reports").rglob("*.json"))
    assert "Cancelled: nothing was written." in client.get("/results").text


@pytest.mark.skipif(sys.platform == "win32", reason="owner-only modes are POSIX")
def test_record_level_links_only_on_request_with_the_warning(served, tmp_path):
    client = _client(served)
    one = tmp_path / "one" / "scenario.toml"  # --matches needs a scenario with one intruder
    one.parent.mkdir()
    one.write_text(ONE_INTRUDER)
    client.post("/scenario", data={"action": "load", "path": str(one)})
    client.post("/certificate/keygen", data={"folder": "keys"})
    assert (one.parent / "keys" / "public.pem").exists()
    client.post("/run", data={"kind": "run", "matches": "on", "key": "keys/private.pem"})
    _finished(client)
    page = client.get("/results").text
    links = one.parent / "reports" / "scenario" / "scenario.links.csv"
    assert links.exists() and links.stat().st_mode & 0o777 == 0o600
    assert "owner-only permissions (0600). Keep it inside the secure environment." in page
    assert 'href="/files/scenario.links.csv?confirm=yes"' in page
    refused = client.get("/files/scenario.links.csv")
    assert refused.status_code == 403 and "owner-only" in refused.text
    assert client.get("/files/scenario.links.csv?confirm=yes").status_code == 200
    assert client.get("/files/scenario.json").status_code == 200
    assert client.get("/files/scenario.toml").status_code == 404  # only the run's files
    client.post("/certificate/verify", data={"certificate": "reports/scenario/scenario.certificate.json",
                                             "public_key": "keys/public.pem", "mode": "offline"})
    assert _finished(client)["returncode"] == 0
    assert 'id="verdict" class="verdict passed">VERIFIED' in client.get("/results").text
    # with its inputs: the certificate in reports/scenario/ reaches the scenario one folder up,
    # since the UI gives the scenario's folder as --root
    client.post("/certificate/verify", data={"certificate": "reports/scenario/scenario.certificate.json",
                                             "public_key": "keys/public.pem", "mode": "inputs"})
    assert _finished(client)["returncode"] == 0
    assert 'id="verdict" class="verdict passed">VERIFIED' in client.get("/results").text


def test_import_attack_does_not_import_the_ui():
    code = "import attack, sys; attack.demo_scenario; print(any(m.startswith(('attack.ui', 'starlette', 'uvicorn')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert "ui" not in attack.__all__


def test_attack_ui_serves_on_loopback_and_prints_the_address(tmp_path):
    child = subprocess.Popen([sys.executable, "-m", "attack", "ui", str(tmp_path / "s.toml"), "--no-browser"],
                             stderr=subprocess.PIPE, text=True)
    try:
        line = child.stderr.readline().strip()
        assert line.startswith("attack ui: http://127.0.0.1:") and "/?token=" in line
        url = line.removeprefix("attack ui: ")
        assert httpx.get(url, follow_redirects=True, timeout=30).status_code == 200
    finally:
        child.terminate()
        child.wait(30)


def test_another_address_only_when_asked_with_a_warning(monkeypatch, tmp_path):
    from click.testing import CliRunner

    import attack.ui.server
    from attack.cli import main

    calls = []
    monkeypatch.setattr(attack.ui.server, "serve", lambda scenario, **kw: calls.append(kw))
    quiet = CliRunner().invoke(main, ["ui", str(tmp_path / "s.toml"), "--no-browser"])
    assert quiet.exit_code == 0 and "warning" not in quiet.output
    assert calls[-1]["host"] == "127.0.0.1" and calls[-1]["open_browser"] is False
    loud = CliRunner().invoke(main, ["ui", str(tmp_path / "s.toml"), "--host", "0.0.0.0", "--port", "8123"])
    assert loud.exit_code == 0 and "warning: serving on 0.0.0.0" in loud.output
    assert calls[-1]["host"] == "0.0.0.0" and calls[-1]["port"] == 8123 and calls[-1]["open_browser"] is True


def test_inspect_shows_the_column_report_of_a_data_file(served, tmp_path):
    client = _client(served)
    one = tmp_path / "one" / "scenario.toml"
    one.parent.mkdir()
    one.write_text(ONE_INTRUDER)
    (one.parent / "release.csv").write_text("unit_id;nace;turnover\n1;01.11;1,5\n2;02.20;2,5\n3;01.11;\n")
    client.post("/scenario", data={"action": "load", "path": str(one)})
    data = client.get("/screen/data").text
    assert '<option value="release.csv">' in data  # the data files of the scenario's folder are offered
    form = {"data.release.path": "release.csv", "data.release.id": "unit_id", "data.release.demo": "",
            "data.external.__present": "on", "data.external.demo": "external:markus",
            "data.original.__present": "on", "data.original.demo": "original",
            "data.demo.__present": "on", "data.demo.n_units": "300", "action": "inspect:data.release"}
    page = client.post("/screen/data", data=form).text
    assert "3 rows, 3 columns" in page and "separator <code>;</code>" in page
    assert "<td>nace</td><td>code</td>" in page
    form["data.release.path"] = "missing.csv"
    page = client.post("/screen/data", data=form).text
    assert "file missing.csv: file not found" in page  # as `attack inspect` words it


def test_a_scenario_error_names_the_file_without_the_machines_folder(served, tmp_path):
    client = _client(served)
    bad = tmp_path / "bad" / "scenario.toml"
    bad.parent.mkdir()
    bad.write_text("title = \n", encoding="utf-8")  # not TOML
    page = client.post("/scenario", data={"action": "load", "path": str(bad)}, follow_redirects=True).text
    assert 'id="notice">file bad/scenario.toml: not valid TOML' in page  # relative to the session's folder
    assert str(tmp_path) not in page


#: Every state-changing request of the UI, with a form that would change something.
CHANGES = [("/scenario", {"action": "save_as", "path": "hostile.toml"}),
           ("/scenario", {"action": "demo", "units": "200"}),
           ("/screen/evaluation", {"evaluation.tau": "0.9"}),
           ("/run", {"kind": "run"}),
           ("/job/cancel", {}),
           ("/certificate/keygen", {"folder": "hostile-keys"}),
           ("/certificate/verify", {"certificate": "x.json"})]


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("sent", ["other port", "other port, Referer only", "no Origin or Referer",
                                  "own origin, no form token", "own origin, wrong form token"])
def test_a_change_from_anything_but_the_uis_own_page_is_refused(served, tmp_path, sent):
    client = _client(served)
    (tmp_path / "scenario.toml").write_text(ONE_INTRUDER, encoding="utf-8")
    before = _files(tmp_path)
    base = served.url.split("/?")[0]
    other = base.rsplit(":", 1)[0] + f":{int(base.rsplit(':', 1)[1]) + 1}"  # same host, another port
    token = client.headers["x-csrf-token"]
    headers = {"other port": {"origin": other},
               "other port, Referer only": {"referer": other + "/page.html"},
               "no Origin or Referer": {},
               "own origin, no form token": {"origin": base},
               "own origin, wrong form token": {"origin": base}}[sent]
    hostile = httpx.Client(base_url=base, cookies=client.cookies, headers=headers, timeout=60)
    for path, form in CHANGES:
        fields = dict(form)
        if sent.startswith(("other", "no Origin")):
            fields["csrf"] = token  # refused even with the token (which another page cannot read)
        elif sent.endswith("wrong form token"):
            fields["csrf"] = "0" * len(token)
        answer = hostile.post(path, data=fields)
        assert answer.status_code == 403, (path, answer.text)
        assert "refused" in answer.text and "nothing was changed" in answer.text
    assert _files(tmp_path) == before


def test_the_uis_own_page_may_change_things(served, tmp_path):
    client = _client(served)
    client.post("/scenario", data={"action": "demo", "units": "300"})
    base = served.url.split("/?")[0]
    token = client.headers.pop("x-csrf-token")
    # a form of the page: its token as a field, its origin; or, without Origin, its Referer
    assert client.post("/scenario", data={"action": "save_as", "path": "mine.toml", "csrf": token}).status_code == 200
    assert (tmp_path / "mine.toml").exists()
    del client.headers["origin"]
    client.headers["referer"] = f"{base}/screen/data"
    client.post("/scenario", data={"action": "save_as", "path": "again.toml", "csrf": token})
    assert (tmp_path / "again.toml").exists()


def test_no_bidirectional_control_reaches_a_page_of_the_ui(served, tmp_path):
    client = _client(served)
    (tmp_path / "tricky.toml").write_text('title = "PASSED \\u202eDESSAP TON"\n[data]\nrelease = { demo = "formal" }\n',
                                         encoding="utf-8")
    page = client.post("/scenario", data={"action": "load", "path": "tricky.toml"}).text
    assert "\u202e" not in page and "[U+202E]DESSAP TON" in page
