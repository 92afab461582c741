"""The method catalogue behind ``attack protect``: typed parameters, groups and the log."""

from __future__ import annotations

import json
import stat

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.protect.catalogue import METHODS, parse_params, protect


def _frame(n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({
        "unit_id": [f"U{i:03d}" for i in range(n)],
        "region": ["E", "W"] * (n // 2),
        "nace": ["1512", "1513", "2211", "2212"] * (n // 4),
        "turnover": rng.integers(10, 1000, n).astype(float),
        "employees": rng.integers(1, 90, n).astype(float),
    })


def test_every_method_resolves_to_a_function():
    for method in METHODS.values():
        assert callable(method.function), method.name


def test_parameters_are_typed_and_defaults_filled():
    assert parse_params(METHODS["separate-ma"], ["k=5"]) == {"k": 5, "min_gap": 0.0}
    assert parse_params(METHODS["hoehne-noise"], {"f": 0.08, "s": "0.02"}) == {
        "f": 0.08, "s": 0.02, "correct": "none"}
    params = parse_params(METHODS["hoehne-ma"], ["variable_size=yes", "variant=documented"])
    assert params["variable_size"] is True and params["variant"] == "documented"
    groups = parse_params(METHODS["grouped-ma"], ["groups=a|b|c;d|e|f"])["groups"]
    assert groups == [["a", "b", "c"], ["d", "e", "f"]]


@pytest.mark.parametrize("pairs, message", [
    (["k=three"], "method separate-ma, parameter k: expected a whole number, got 'three'"),
    (["q=1"], "unknown parameter 'q'"),
    (["k"], "key=value"),
    (["k=3.5"], "parameter k: expected a whole number, got '3.5'"),
])
def test_bad_parameters_are_named(pairs, message):
    with pytest.raises(InputError, match=message):
        parse_params(METHODS["separate-ma"], pairs)


def test_required_parameter_and_choices():
    with pytest.raises(InputError, match="parameter f: this parameter is required"):
        parse_params(METHODS["hoehne-noise"], ["s=0.02"])
    with pytest.raises(InputError, match="parameter variant: expected 'hoehne' or 'documented', got 'java'"):
        parse_params(METHODS["hoehne-ma"], ["variant=java"])


def test_unknown_method_and_column():
    with pytest.raises(InputError, match="unknown protection method"):
        protect(_frame(), "k-anonymise", columns=["turnover"])
    with pytest.raises(InputError, match="column 'sales'"):
        protect(_frame(), "separate-ma", columns=["sales"])
    with pytest.raises(InputError, match="needs --columns"):
        protect(_frame(), "separate-ma")


def test_text_columns_are_converted_and_bad_values_named():
    data = _frame().astype(str)
    out = protect(data, "separate-ma", ["k=3"], columns=["turnover"]).release
    assert out["turnover"].dtype == float
    data.loc[4, "turnover"] = "n/a"
    with pytest.raises(InputError, match=r"column 'turnover', row 5"):
        protect(data, "separate-ma", columns=["turnover"])


def test_within_groups_equals_the_method_on_each_group():
    """--by runs the method separately per group (docs/method/protection.md): each group's values are
    the method's result on that group alone, and groups never mix."""
    data = _frame(24)
    out = protect(data, "separate-ma", ["k=3"], columns=["turnover"], by=["region"], seed=4).release
    for region in ("E", "W"):
        part = data[data["region"] == region]
        alone = protect(part, "separate-ma", ["k=3"], columns=["turnover"]).release
        np.testing.assert_allclose(
            np.sort(out.loc[out["region"] == region, "turnover"].to_numpy()),
            np.sort(alone["turnover"].to_numpy()))
        # group means are kept exactly when MA runs within the group
        assert out.loc[out["region"] == region, "turnover"].mean() == pytest.approx(part["turnover"].mean())
    assert list(out["unit_id"]) == list(data["unit_id"])
    assert set(out.attrs) == set()


def test_within_groups_random_method_is_seeded_per_group():
    data = _frame(24)
    a = protect(data, "hoehne-noise", ["f=0.08", "s=0.02"], columns=["turnover"], by=["region"], seed=9)
    b = protect(data.sample(frac=1, random_state=1), "hoehne-noise", ["f=0.08", "s=0.02"],
                columns=["turnover"], by=["region"], seed=9)
    assert a.log["group_seeds"] == b.log["group_seeds"]
    assert sorted(a.log["group_seeds"]) == ["E", "W"]
    c = protect(data, "hoehne-noise", ["f=0.08", "s=0.02"], columns=["turnover"], by=["region"], seed=10)
    assert not np.allclose(a.release["turnover"], c.release["turnover"])


def test_log_counts_changed_values_and_is_json():
    data = _frame()
    result = protect(data, "top-code", ["cut=500"], columns=["turnover"])
    assert result.log["changed_values"] == {"turnover": int((data["turnover"] > 500).sum())}
    assert result.log["seed"] is None  # deterministic method
    json.dumps(result.log)


def test_cli_protect_writes_release_owner_only_and_log(tmp_path):
    src = tmp_path / "original.csv"
    _frame(32).to_csv(src, index=False)
    out = tmp_path / "release.csv"
    result = CliRunner().invoke(main, [
        "protect", "--method", "separate-ma", "--input", str(src), "--output", str(out),
        "--columns", "turnover,employees", "--param", "k=3", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    release = pd.read_csv(out, dtype={"nace": str})
    assert release["turnover"].value_counts().min() >= 3
    log = json.loads(out.with_suffix(".protection.json").read_text())
    assert log["method"] == "separate-ma" and log["params"] == {"k": 3, "min_gap": 0.0}


def test_cli_protect_bad_input_exit_2_no_output(tmp_path):
    src = tmp_path / "original.csv"
    _frame().to_csv(src, index=False)
    out = tmp_path / "release.csv"
    result = CliRunner().invoke(main, [
        "protect", "--method", "separate-ma", "--input", str(src), "--output", str(out),
        "--columns", "turnover", "--param", "k=2"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output and not out.exists()


def test_cli_lists_methods():
    result = CliRunner().invoke(main, ["protect", "--list-methods"])
    assert result.exit_code == 0
    assert all(name in result.output for name in METHODS)


def test_noise_with_moment_correction_restores_mean_and_sd():
    """correct=trans rescales each noisy variable to the original mean and SD (handbook eq. 6.70)."""
    data = _frame(40)
    noisy = protect(data, "mult-noise", ["f=0.11", "s=0.03"], columns=["turnover"], seed=1).release
    corrected = protect(data, "mult-noise", ["f=0.11", "s=0.03", "correct=trans"],
                        columns=["turnover"], seed=1).release
    assert noisy["turnover"].std() != pytest.approx(data["turnover"].std(), rel=1e-6)
    assert corrected["turnover"].mean() == pytest.approx(data["turnover"].mean())
    assert corrected["turnover"].std() == pytest.approx(data["turnover"].std())


def test_drop_units_compares_text_columns_as_numbers():
    data = _frame(12).astype(str)
    out = protect(data, "drop-units", ["which=employees >= 45"]).release
    assert (out["employees"].astype(float) < 45).all()
    assert len(out) == int((data["employees"].astype(float) < 45).sum())
    assert out["nace"].tolist() == data.loc[data["employees"].astype(float) < 45, "nace"].tolist()


def test_documented_hoehne_variant_keeps_its_own_remainder_by_default():
    data = pd.DataFrame({"x": [356.0, 670, 815, 132, 613, 916, 538, 348, 3, 396, 401]})
    out = protect(data, "hoehne-ma", ["variant=documented"], columns=["x"]).release
    # docs/reference/worked-examples.md F-MA-001a: the legacy output multiset
    assert sorted(out["x"].round(4)) == sorted([800.3333, 800.3333, 657.5499, 517.3333, 517.3333,
                                                393.2026, 366.6667, 366.6667, 336.9719,
                                                158.7168, 67.5])


def test_a_protected_release_prints_in_one_line_not_its_frame() -> None:
    frame = pd.DataFrame({"a": np.arange(300.0), "b": np.arange(300.0)[::-1]})
    result = protect(frame, "mdav", {"k": 3}, columns=["a", "b"])
    changed = result.log["changed_values"]
    assert repr(result) == (f"Protected(method='mdav', rows 300 -> 300, changed values: "
                            f"a {changed['a']}, b {changed['b']})")
