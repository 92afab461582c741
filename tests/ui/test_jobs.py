"""A background command's progress, messages and error, read from what it writes on stderr."""

from __future__ import annotations

from pathlib import Path

from attack.ui.jobs import Job, remedy_arguments, run_arguments, verify_arguments


def test_progress_messages_and_error_from_stderr():
    job = Job("run", ("run", "s.toml"), Path("."))
    job.stderr = ("\rblocks:   0%|     | 0/20\rblocks:  45%|##   | 9/20\rblocks: 100%|#####| 20/20\r\n"
                  "\rblocks:   0%|     | 0/10\rblocks:  30%|#    | 3/10")
    status = job.status()
    assert status["percent"] == 30 and status["stage"] == "blocks, attack 2"
    assert job.messages() == [] and job.error() is None
    job.stderr += "\r\nwarning: x.csv links external identities\r\nattack: error: file s.toml, field evaluation.tau: expected a number\r\n"
    assert job.messages() == ["warning: x.csv links external identities",
                              "attack: error: file s.toml, field evaluation.tau: expected a number"]
    assert job.error() == "file s.toml, field evaluation.tau: expected a number"


def test_the_commands_are_the_command_lines():
    arguments, outputs = run_arguments(Path("/d/s.toml"), Path("/d/reports/s"), matches=False, key=None)
    assert arguments == ["run", "/d/s.toml", "--json", "/d/reports/s/s.json", "--html", "/d/reports/s/s.html",
                         "--certificate", "/d/reports/s/s.certificate.json"]
    assert "matches" not in outputs
    arguments, outputs = run_arguments(Path("/d/s.toml"), Path("/o"), matches=True, key=Path("/k/private.pem"))
    assert arguments[-6:] == ["--matches", "/o/s.links.csv", "--sign", "/k/private.pem",
                              "--passphrase-env", "ATTACK_UI_PASSPHRASE"]
    assert verify_arguments(Path("c.json"), None, "offline") == ["verify", "c.json", "--offline"]
    assert verify_arguments(Path("c.json"), Path("p.pem"), "inputs") == ["verify", "c.json", "--public-key", "p.pem"]
    # the UI reaches a run's inputs from the scenario's folder; offline opens none
    assert verify_arguments(Path("r/c.json"), None, "rerun", root=Path("s")) == ["verify", "r/c.json", "--root", "s", "--rerun"]
    assert verify_arguments(Path("c.json"), None, "offline", root=Path("s")) == ["verify", "c.json", "--offline"]


def test_the_remedy_command_writes_its_json_into_the_folder():
    arguments, outputs = remedy_arguments(Path("/d/s.toml"), Path("/o"))
    assert arguments == ["remedy", "/d/s.toml", "--json", "/o/s.remedy.json"]
    assert outputs == {"json": Path("/o/s.remedy.json")}


def test_the_run_command_writes_the_records_on_request():
    arguments, outputs = run_arguments(Path("/d/s.toml"), Path("/o"), matches=False, key=None, records=True)
    assert arguments[-2:] == ["--records", "/o/s.records.csv"] and outputs["records"] == Path("/o/s.records.csv")
    assert "records" not in run_arguments(Path("/d/s.toml"), Path("/o"), matches=False, key=None)[1]
