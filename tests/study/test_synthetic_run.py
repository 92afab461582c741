"""``attack synth``: every attack on a synthetic release in one run, decided against τ."""

from __future__ import annotations

import json
import stat

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.study.synthetic_run import attack_synthetic
from attack.synthetic_attacks.cap import Binning
from attack.synthetic_attacks.mia_game import holdout_mask
from attack.synthetic_attacks.settings import SynthSpec, parse_binning
from tests.synthetic_attacks.test_mia_family import firms


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


# ``attack synth --membership-family`` and ``attack_synthetic(membership_family=...)``: the
# check, the JSON and certificate keys, the record-level file and the usage errors.

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("family")
    original, holdout = firms(800, 1), firms(800, 2)
    release = pd.concat([original.iloc[:200], firms(600, 5)], ignore_index=True)  # a quarter copied
    for name, frame in (("original", original), ("holdout", holdout), ("synthetic", release)):
        frame.to_csv(folder / f"{name}.csv", index=False)
    return folder


def _args(folder, *extra):
    return ["synth", "--original", str(folder / "original.csv"), "--synthetic", str(folder / "synthetic.csv"),
            "--n-attacks", "50", *extra]


def test_cli_family_check_json_certificate_and_exposed_file(files) -> None:
    out = files / "out"
    out.mkdir(exist_ok=True)
    result = CliRunner().invoke(main, _args(files, "--holdout", str(files / "holdout.csv"), "--membership-family",
                                            "--mia-attack", "dcr", "--mia-attack", "density_ratio",
                                            "--json", str(out / "r.json"), "--certificate", str(out / "c.json"),
                                            "--exposed", str(out / "exposed.csv"), "--html", str(out / "r.html")))
    assert result.exit_code == 1, result.output
    document = json.loads((out / "r.json").read_text())
    family = document["membership_family"]
    assert [a["name"] for a in family["attacks"]] == ["dcr", "density_ratio"]
    assert family["roles"] == {**family["roles"], "members": 800, "nonmembers": 400, "reference": 400}
    check = next(c for c in document["checks"] if c["family"] == "membership_family")
    assert check["measure"] == "max TPR at FPR 0.01" and check["upper"] == family["verdict"]["upper"]
    assert check["value"] >= 0.2 and not check["passed"]  # a quarter of the members copied
    certificate = json.loads((out / "c.json").read_text())
    assert certificate["membership_family"]["verdict"] == family["verdict"]
    exposed = pd.read_csv(out / "exposed.csv")
    assert stat.S_IMODE((out / "exposed.csv").stat().st_mode) == 0o600
    assert set(range(200)) <= set(exposed.original_row)
    assert "owner-only" in result.output
    assert "Membership inference from data only" in result.output
    html = (out / "r.html").read_text()
    assert "Membership inference from data only" in html and "maximum over attacks" in html


def test_holdout_share_rows_refer_to_the_original() -> None:
    original = firms(600, 1)
    held = holdout_mask(600, 0.25, 0)
    training = original[~held].reset_index(drop=True)
    release = pd.concat([training.iloc[:100], firms(350, 5)], ignore_index=True)
    result = attack_synthetic(original, release, holdout_share=0.25, n_attacks=50,
                              membership_family={"attacks": ["dcr"], "exposed": True})
    assert result.figures["n_original"] == 450 and result.figures["n_holdout"] == 150
    assert set(np.flatnonzero(~held)[:100]) <= set(result.exposed.original_row)
    assert "original_row" not in json.dumps(result.to_dict())  # record-level stays out of the JSON


@pytest.mark.parametrize("extra, message", [
    (["--membership-family"], "needs non-members"),
    (["--exposed", "x.csv"], "need --membership-family"),
    (["--holdout-share", "0.2", "--holdout", "HOLDOUT"], "not both"),
])
def test_cli_usage_errors(files, extra, message) -> None:
    extra = [str(files / "holdout.csv") if e == "HOLDOUT" else e for e in extra]
    result = CliRunner().invoke(main, _args(files, *extra))
    assert result.exit_code == 2 and message in result.output


def test_reference_without_the_family_is_an_error() -> None:
    with pytest.raises(InputError, match="membership family only"):
        attack_synthetic(firms(100, 1), firms(100, 2), firms(100, 3), reference=firms(50, 4))


def test_decision_by_hand() -> None:
    """Interval [0, 0.2679] around an unclipped estimate 0.2679 − 0.2376 = 0.0304 straddles
    τ = 0.1: 40 · (0.2376 / 0.0696)² ≈ 466.2 attacks would decide; an interval below τ decides."""
    from attack.risk.stats import Estimate
    from attack.synthetic_attacks.families import decision as typed_decision

    def decision(result, tau, available):
        return typed_decision(Estimate(**result["risk"]), result["main"]["n"], tau, available).to_dict()

    result = {"risk": {"value": 0.0304, "error": 0.2376, "low": 0.0, "high": 0.2680}, "main": {"n": 40}}
    out = decision(result, 0.1, 3000)
    assert out["decided"] is False and out["attacks_needed"] == int(np.ceil(40 * (0.2376 / (0.1 - 0.0304)) ** 2))
    clipped = {"risk": {"value": 0.0, "error": 0.25, "low": 0.0, "high": 0.12}, "main": {"n": 40}}
    assert decision(clipped, 0.1, None)["attacks_needed"] == int(np.ceil(40 * (0.25 / (0.1 + 0.13)) ** 2))
    below = {"risk": {"value": 0.01, "error": 0.02, "low": 0.0, "high": 0.03}, "main": {"n": 500}}
    above = {"risk": {"value": 0.5, "error": 0.02, "low": 0.48, "high": 0.52}, "main": {"n": 500}}
    assert decision(below, 0.1, 10)["decided"] and decision(above, 0.1, 10)["decided"]


def test_decide_reruns_with_the_attacks_an_undecided_check_needs() -> None:
    original, holdout, release = firms(1500, 1), firms(1500, 2), firms(1500, 3)
    first = attack_synthetic(original, release, holdout, n_attacks=40)
    needed = first.figures["singling_out"]["decision"]
    assert not needed["decided"] and needed["attacks_needed"] > 40
    again = attack_synthetic(original, release, holdout, n_attacks=40, decide=True)
    assert again.figures["decide"] == {"first_n_attacks": 40, "n_attacks": needed["attacks_needed"]}
    assert again.figures["singling_out"]["main"]["n"] == needed["attacks_needed"]
    assert again.figures["settings"]["n_attacks"] == needed["attacks_needed"] and again.figures["settings"]["decide"]
    assert "decides at τ" in first.to_markdown() and "~" in first.to_markdown()


def test_the_settings_document_is_a_spec_a_mapping_or_a_file(tmp_path) -> None:
    """One settings document, three spellings, the same run; a keyword shortcut wins over it."""
    original, release = firms(120, 1), firms(120, 2)
    settings = {"keys": ["region", "sector"], "n_attacks": 20, "seed": 3}
    (tmp_path / "attacks.toml").write_text('keys = ["region", "sector"]\nn_attacks = 20\nseed = 3\n')
    runs = [attack_synthetic(original, release, None, SynthSpec(**settings)),
            attack_synthetic(original, release, None, settings),
            attack_synthetic(original, release, None, tmp_path / "attacks.toml")]
    documents = [{k: v for k, v in r.to_dict().items() if k != "tool"} for r in runs]
    assert documents[0] == documents[1] == documents[2]
    tuned = attack_synthetic(original, release, None, settings, n_attacks=25)
    assert tuned.to_dict()["settings"]["n_attacks"] == 25
    with pytest.raises(InputError) as caught:
        attack_synthetic(original, release, None, {"keys": ["region"], "n_atacks": 5})
    assert caught.value.field == "settings.n_atacks" and "n_attacks" in caught.value.message
