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


def test_a_negative_seed_is_refused_by_name():
    with pytest.raises(InputError, match="greater than or equal to 0") as caught:
        protect(_frame(), "hoehne-noise", ["f=0.08", "s=0.02"], columns=["turnover"], seed=-1)
    assert caught.value.field == "seed"


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


def _typed_frame(n: int = 24) -> pd.DataFrame:
    """Integer codes and counts, text codes and a float measure, as the readers type them."""
    rng = np.random.default_rng(5)
    return pd.DataFrame({
        "unit_id": pd.array([f"U{i:03d}" for i in range(n)], dtype="string"),
        "region": pd.array(["E", "W", "E", "N"] * (n // 4), dtype="string"),
        "size_class": np.array([1, 2, 3, 4, 1, 2] * (n // 6), dtype=np.int64),
        "nace": np.array([1512, 1513, 2211, 2212] * (n // 4), dtype=np.int64),
        "employees": rng.integers(1, 90, n).astype(np.int64),
        "turnover": rng.integers(10, 1000, n).astype(float) + 0.5,
    })


#: One sound call of every registered method: its columns and parameters (a method added to the
#: catalogue without an entry here fails ``test_every_method_has_a_typed_call``).
CALLS: dict[str, tuple[list[str], list[str]]] = {
    "formal": ([], ["identifiers=unit_id"]),
    "separate-ma": (["turnover", "employees"], []),
    "hoehne-ma": (["turnover", "employees"], []),
    "mdav": (["turnover", "employees"], []),
    "grouped-ma": (["turnover", "employees"], ["groups=turnover|employees"]),
    "random-ma": (["turnover", "employees"], []),
    "bootstrap-ma": (["turnover", "employees"], []),
    "punctual-ma": (["employees"], ["by=region", "rank_by=turnover"]),
    "pca-ma": (["turnover", "employees"], []),
    "rmd-ma": (["turnover", "employees"], []),
    "additive-noise": (["turnover", "employees"], ["d=0.1"]),
    "lognormal-noise": (["turnover", "employees"], ["d=0.1"]),
    "mult-noise": (["turnover", "employees"], ["f=0.1", "s=0.05"]),
    "hoehne-noise": (["turnover", "employees"], ["f=0.1", "s=0.05"]),
    "controlled-noise": (["turnover", "employees"], ["f=0.1", "s=0.05"]),
    "pram": (["size_class"], ["lam=0.8"]),
    "coarsen": (["nace"], ["level=2"]),
    "recode": (["size_class"], ["mapping={mapping}"]),
    "top-code": (["employees"], ["cut=50"]),
    "bottom-code": (["employees"], ["cut=10"]),
    "drop": (["turnover"], []),
    "drop-units": ([], ["which=employees > 80"]),
    "lhs": (["turnover", "employees"], []),
    "kernel-resampling": (["turnover", "employees"], []),
    "local-suppression": (["size_class", "region"], ["k=5"]),
    "risk-suppression": (["size_class", "region"], ["threshold=0.2"]),
    "rank-swap": (["turnover", "employees"], ["p=10"]),
    "synthesis": (["size_class", "employees"], ["method=sample"]),
    # the panel methods on a panel of one wave per unit (the wave column: any code column)
    "panel-noise": (["turnover", "employees"], ["unit=unit_id", "s=0.05"]),
    "panel-microaggregation": (["turnover", "employees"], ["unit=unit_id", "wave=size_class"]),
    "panel-rank-swap": (["turnover", "employees"], ["unit=unit_id", "wave=size_class", "p=10"]),
}


def _call_of(method: str, tmp_path) -> tuple[list[str], list[str]]:
    columns, params = CALLS[method]
    mapping = tmp_path / "mapping.csv"
    mapping.write_text("from,to\n1,1\n2,1\n3,3\n4,3\n", encoding="utf-8")
    return columns, [p.format(mapping=mapping) for p in params]


def test_every_method_has_a_typed_call():
    assert set(CALLS) == set(METHODS)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_keeps_each_columns_type(method, tmp_path):
    data = _typed_frame()
    columns, params = _call_of(method, tmp_path)
    release = protect(data, method, params, columns=columns, seed=1).release
    for column in release.columns.intersection(data.columns):
        before, after = data[column].dtype, release[column].dtype
        values = release[column].dropna()
        if pd.api.types.is_integer_dtype(before):
            whole = bool((values.astype(float) % 1 == 0).all())
            # integer codes and counts stay integers while their values are whole numbers
            assert pd.api.types.is_integer_dtype(after) or not whole, (column, after)
            if release[column].isna().any():
                assert str(after) in ("Int64", "float64"), (column, after)
        elif column not in columns:
            assert after == before, (column, before, after)
        elif isinstance(before, pd.StringDtype) and method not in ("coarsen",):
            assert isinstance(after, pd.StringDtype) or pd.api.types.is_object_dtype(after), (column, after)


def test_local_suppression_keeps_integer_codes_as_nullable_integers(tmp_path):
    release = protect(_typed_frame(), "local-suppression", ["k=5"], columns=["size_class", "region"]).release
    assert str(release["size_class"].dtype) == "Int64" and release["size_class"].isna().any()
    written = tmp_path / "release.csv"
    release.to_csv(written, index=False)
    codes = written.read_text().splitlines()[1].split(",")[2]
    assert codes in {"1", "2", "3", "4", ""}  # never "4.0": the next step's blocking finds the codes


#: Malformed values of every parameter kind (each must end in an InputError naming the parameter).
MALFORMED = {"int": ["x", "1.5", "1|2", "1e400", ""], "float": ["x", "nan", "inf", "1|2", ""],
             "bool": ["maybe", "2"], "ints": ["1|x", "1.5", "a;b"], "numbers": ["1|x", "inf|1"],
             "str": ["\x00not-a-choice"], "list": [], "mapping": ["no-such-file.csv"],
             "matrix": ["no-such-file.csv"]}
#: Malformed values of free-text parameters, which the method itself reads.
MALFORMED_TEXT = {"which": ["employees >", "no_such_column > 1", "employees"], "rank_by": ["no_such_column"]}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_methods_malformed_parameters_end_in_an_input_error(method, tmp_path):
    data = _typed_frame()
    columns, params = _call_of(method, tmp_path)
    tried = 0
    for name, param in METHODS[method].params.items():
        bad_values = MALFORMED[param.kind] if param.kind != "str" or param.choices else []
        for bad in bad_values:
            others = [p for p in params if not p.startswith(f"{name}=")]
            with pytest.raises(InputError, match=f"parameter {name}"):
                protect(data, method, [*others, f"{name}={bad}"], columns=columns)
            tried += 1
        for bad in MALFORMED_TEXT.get(name, []):
            others = [p for p in params if not p.startswith(f"{name}=")]
            with pytest.raises(InputError):
                protect(data, method, [*others, f"{name}={bad}"], columns=columns)
    assert tried or all(p.kind in ("list", "str") for p in METHODS[method].params.values())


def test_a_malformed_parameter_on_the_command_line_is_exit_2(tmp_path):
    src = tmp_path / "original.csv"
    _typed_frame().to_csv(src, index=False)
    out = tmp_path / "release.csv"
    for bad in ("importance=1|x", "k=x", "combs=1.5"):
        result = CliRunner().invoke(main, ["protect", "--method", "local-suppression", "--input", str(src),
                                           "--out", str(out), "--columns", "size_class,region", "--param", bad])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and "parameter" in result.output and not out.exists()
