"""The budget ledger file and the privacy claim on the command line."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.study.budget_ledger import claim_settings, read_budget_ledger

LEDGER = '''
[[release]]
name = "wave 1"
epsilon = 1.5
delta = 1e-6

[[release]]
name = "wave 2"
epsilon = 2.5
'''


def test_the_ledger_is_read_and_summed(tmp_path):
    path = tmp_path / "ledger.toml"
    path.write_text(LEDGER, encoding="utf-8")
    ledger = read_budget_ledger(path)
    assert (ledger.epsilon, ledger.delta) == (4.0, 1e-6)
    assert claim_settings(None, None, path, None)["ledger"]["release"][1]["name"] == "wave 2"
    assert claim_settings(None, None, None, None) is None
    path.write_text('[[release]]\nname = "w"\nepsilon = "a lot"\n', encoding="utf-8")
    with pytest.raises(InputError, match="ledger.toml.*release") as bad:
        read_budget_ledger(path)
    assert "epsilon" in str(bad.value)
    with pytest.raises(InputError, match="not found"):
        read_budget_ledger(tmp_path / "none.toml")
    with pytest.raises(InputError, match="needs a claimed ε"):
        claim_settings(None, 0.1, None, None)


def test_synth_reports_a_ledger_falsified_by_a_copying_release(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=1200), "y": rng.normal(size=1200)})
    frame.iloc[:600].to_csv(tmp_path / "o.csv", index=False)
    frame.iloc[600:].to_csv(tmp_path / "h.csv", index=False)
    frame.iloc[:600].to_csv(tmp_path / "s.csv", index=False)  # the release copies every member
    (tmp_path / "ledger.toml").write_text(LEDGER, encoding="utf-8")
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, [
        "synth", "--original", str(tmp_path / "o.csv"), "--synthetic", str(tmp_path / "s.csv"),
        "--holdout", str(tmp_path / "h.csv"), "--membership-family", "--mia-attack", "dcr", "--n-attacks", "20",
        "--budget-ledger", str(tmp_path / "ledger.toml"), "--json", str(out)])
    assert result.exit_code == 1, result.output
    claim = json.loads(out.read_text())["membership_family"]["privacy_claim"]
    assert claim["basis"] == "ledger total" and claim["claimed_epsilon"] == 4.0 and claim["falsified"]
    assert "claim falsified" in result.output
    refused = CliRunner().invoke(main, [
        "synth", "--original", str(tmp_path / "o.csv"), "--synthetic", str(tmp_path / "s.csv"),
        "--holdout", str(tmp_path / "h.csv"), "--claimed-epsilon", "1"])
    assert refused.exit_code == 2 and "membership family" in refused.output
