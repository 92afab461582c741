"""``attack synth``: every attack on a synthetic release in one run, decided against τ."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.study.synthetic_run import attack_synthetic
from attack.synthetic_attacks.cap import Binning
from attack.synthetic_attacks.settings import SynthSpec, parse_binning


def population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    employees = np.round(rng.lognormal(3, 1, n))
    return pd.DataFrame({
        "id": [f"u{seed}-{i}" for i in range(n)],
        "sector": rng.choice(list("ABCDE"), n),
        "region": rng.choice(["E", "W"], n),
        "legal": rng.choice(["GmbH", "AG", "KG"], n),
        "employees": employees,
        "turnover": np.round(employees * rng.lognormal(4, 0.5, n), 1),
    })


SPEC = SynthSpec(keys=("sector", "region", "employees"), targets=("turnover", "legal"),
                 exclude=("id",), n_attacks=300, tau=0.10, seed=1)


@pytest.fixture(scope="module")
def original():
    return population(1500, 1)


@pytest.fixture(scope="module")
def holdout():
    return population(1500, 2)


def test_copy_of_the_original_fails_every_attack(original, holdout):
    """A "synthetic" file that is the original shuffled: exact copies everywhere, the attacks
    on training records beat those on the holdout, and the verdict fails."""
    copy = original.sample(frac=1, random_state=4).reset_index(drop=True)
    doc = attack_synthetic(original, copy, holdout, SPEC).to_dict()
    assert not doc["passed"]
    checks = {(c["family"], c.get("target")): c for c in doc["checks"]}
    assert not checks[("singling_out", None)]["passed"]
    assert not checks[("inference", "turnover")]["passed"]
    inferred = doc["attribute"]["turnover"]["inference"]["0.1"]
    assert inferred["main"]["rate"] > inferred["control"]["rate"] + 0.2
    assert doc["attribute"]["legal"]["cap"]["zero_cap"] == pytest.approx(
        doc["attribute"]["legal"]["table_measures"]["capd"])


def test_independent_release_stays_at_the_baseline(original, holdout):
    """A fresh draw from the same population model: no residual risk beyond the holdout."""
    fresh = population(1500, 3)
    doc = attack_synthetic(original, fresh, holdout, SPEC).to_dict()
    for check in doc["checks"]:
        if check["measure"] == "residual risk":
            assert check["value"] < 0.05, check
    assert doc["attribute"]["turnover"]["inference"]["0.1"]["risk"]["low"] == 0.0


def test_without_keys_only_distance_and_singling_out(original):
    doc = attack_synthetic(original, population(800, 5), None,
                           SynthSpec(exclude=("id",), n_attacks=100)).to_dict()
    assert [c["family"] for c in doc["checks"]] == ["singling_out"]
    assert doc["singling_out"]["risk_basis"] == "main"
    assert doc["attribute"] == {} and "linkability" not in doc
    assert doc["n_holdout"] is None


def test_results_are_deterministic_and_quote_no_record(original, holdout):
    synthetic = population(1500, 6)
    a = attack_synthetic(original, synthetic, holdout, SPEC).to_dict()
    b = attack_synthetic(original, synthetic, holdout, SPEC).to_dict()
    assert json.dumps(a) == json.dumps(b)
    text = json.dumps(a)
    assert "examples" not in text
    assert not any(unit in text for unit in original["id"].head(50))


@pytest.mark.parametrize("settings, message", [
    ({"targets": ("turnover",)}, "need --key"),
    ({"keys": ("turnover",), "targets": ("turnover",)}, "both a key and a target"),
    ({"keys": ("sales",), "targets": ("turnover",)}, "column 'sales'"),
])
def test_bad_specs(original, settings, message):
    with pytest.raises(InputError, match=message):
        attack_synthetic(original, original, None, SynthSpec(**settings)).to_dict()


def test_binning_syntax():
    assert parse_binning("turnover=quantile:4") == ("turnover", Binning.quantile(4))
    assert parse_binning("employees=breaks:10,50,250") == ("employees", Binning.breaks([10, 50, 250]))
    with pytest.raises(InputError, match="VAR=quantile:K"):
        parse_binning("turnover=deciles")


def test_cli_synth_json_html_and_exit_codes(tmp_path, original, holdout):
    paths = {}
    for name, frame in (("o", original), ("s", population(1500, 7)), ("h", holdout)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    args = ["synth", "--original", str(paths["o"]), "--synthetic", str(paths["s"]),
            "--holdout", str(paths["h"]), "--exclude", "id", "--key", "sector", "--key",
            "employees", "--target", "turnover", "--n-attacks", "200",
            "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["kind"] == "synthetic" and doc["settings"]["tau"] == 0.10
    assert "<svg" in (tmp_path / "r.html").read_text()
    bad = CliRunner().invoke(main, [*args[:-4], "--target", "sales"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
