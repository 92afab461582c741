"""Sequential synthesis (docs/method/synthesis.md): reproducibility, types, missing values and
codes, every method's defining property, strata, partial synthesis, and closeness of marginals
and two-way tables on sdcMicro's household test data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference_data import SDCMICRO

from attack.errors import InputError
from attack.generation.sequential import synthesize


@pytest.fixture(scope="module")
def firms() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 1500
    size = rng.lognormal(3, 1, n)
    frame = pd.DataFrame({
        "region": pd.Series(rng.choice(["N", "S", "E", "W"], n), dtype="string"),
        "legal": pd.Categorical(rng.choice(["GmbH", "KG", "AG"], n, p=[0.6, 0.3, 0.1])),
        "employees": np.maximum(1, np.round(size)).astype(np.int64),
        "turnover": np.round(size * rng.lognormal(2, 0.3, n), 1),
        "exports": np.round(size * rng.lognormal(1, 0.5, n), 2),
        "flag": rng.random(n) < 0.3,
    })
    frame.loc[rng.random(n) < 0.1, "exports"] = np.nan
    frame.loc[rng.random(n) < 0.05, "exports"] = -8
    frame.loc[rng.random(n) < 0.04, "region"] = pd.NA
    return frame


def test_same_seed_same_file_byte_for_byte(firms) -> None:
    a = synthesize(firms, special_codes=[-8], seed=11, m=2)
    b = synthesize(firms, special_codes=[-8], seed=11, m=2)
    assert [c.to_csv(index=False) for c in a.copies] == [c.to_csv(index=False) for c in b.copies]
    assert a.copies[0].to_csv(index=False) != a.copies[1].to_csv(index=False)  # m independent copies
    assert synthesize(firms, special_codes=[-8], seed=12).frame.to_csv() != a.frame.to_csv()


def test_columns_types_categories_and_rows_as_the_original(firms) -> None:
    synthetic = synthesize(firms, special_codes=[-8], seed=1).frame
    assert list(synthetic.columns) == list(firms.columns)
    assert synthetic.dtypes.to_dict() == firms.dtypes.to_dict()
    assert list(synthetic["legal"].cat.categories) == ["AG", "GmbH", "KG"]
    assert len(synthetic) == len(firms)
    assert len(synthesize(firms, rows=400, seed=1).frame) == 400


def test_nullable_integer_column_comes_back_as_nullable_integers() -> None:
    frame = pd.DataFrame({"size": pd.array([1, 2, 3, 4, 5, 6] * 5, dtype="Int64"), "kind": list("xyxyxz") * 5})
    synthetic = synthesize(frame, seed=3).frame
    assert synthetic["size"].dtype == "Int64"
    assert set(synthetic["size"]) <= set(range(1, 7))


def test_missing_values_and_special_codes_are_their_own_categories(firms) -> None:
    synthetic = synthesize(firms, special_codes=[-8], seed=2).frame
    for frame in (firms, synthetic):
        assert frame["exports"].isna().mean() == pytest.approx(firms["exports"].isna().mean(), abs=0.03)
        assert (frame["exports"] == -8).mean() == pytest.approx((firms["exports"] == -8).mean(), abs=0.02)
        assert frame["region"].isna().mean() == pytest.approx(firms["region"].isna().mean(), abs=0.02)
    values = synthetic["exports"][synthetic["exports"].notna() & (synthetic["exports"] != -8)]
    assert (values > 0).all()  # a code never leaks into the numbers, a number never becomes a code


def test_cart_without_smoothing_draws_observed_values_only(firms) -> None:
    synthetic = synthesize(firms, special_codes=[-8], seed=3).frame
    for column in ("employees", "turnover", "exports"):
        assert set(synthetic[column].dropna()) <= set(firms[column].dropna())


def test_density_smoothing_leaves_the_observed_range_and_decimals(firms) -> None:
    synthetic = synthesize(firms, columns=["region", "turnover"], smoothing="density", seed=4).frame
    turnover = synthetic["turnover"]
    assert not set(turnover) <= set(firms["turnover"])  # smoothed: new values
    assert turnover.min() >= firms["turnover"].min()
    assert (np.round(turnover, 1) == turnover).all()  # the original's one decimal


def test_one_leaf_cart_is_sampling_from_the_marginal(firms) -> None:
    """With a leaf size above n the tree has one leaf: draws from all observed values."""
    a = synthesize(firms, columns=["region", "turnover"], minbucket=10_000, seed=5).frame
    assert set(a["turnover"]) <= set(firms["turnover"])
    assert a["turnover"].median() == pytest.approx(firms["turnover"].median(), rel=0.15)


def test_norm_recovers_a_linear_relation() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, 4000)
    frame = pd.DataFrame({"x": x, "y": 2.0 + 3.0 * x + rng.normal(0, 0.5, 4000)})
    synthetic = synthesize(frame, method={"y": "norm"}, seed=1).frame
    slope, intercept = np.polyfit(synthetic["x"], synthetic["y"], 1)
    assert slope == pytest.approx(3.0, abs=0.1)
    assert intercept == pytest.approx(2.0, abs=0.1)
    residual = synthetic["y"] - (intercept + slope * synthetic["x"])
    assert residual.std() == pytest.approx(0.5, abs=0.05)


def test_normrank_returns_observed_values_with_the_relation() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1, 3000)
    frame = pd.DataFrame({"x": x, "y": np.exp(1 + x + rng.normal(0, 0.3, 3000))})
    synthetic = synthesize(frame, method={"y": "normrank"}, seed=2).frame
    assert set(synthetic["y"]) <= set(frame["y"])
    assert synthetic["x"].corr(synthetic["y"], method="spearman") == pytest.approx(
        frame["x"].corr(frame["y"], method="spearman"), abs=0.05)


@pytest.mark.parametrize("method", ["logreg", "polyreg", "cart", "rf"])
def test_categorical_methods_keep_the_dependence(method) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, 3000)
    frame = pd.DataFrame({"x": x, "c": np.where(x + rng.normal(0, 0.5, 3000) > 0, "high", "low")})
    synthetic = synthesize(frame, method={"c": method}, seed=4).frame
    original_share = (frame["c"] == "high")[frame["x"] > 1].mean()
    assert (synthetic["c"] == "high")[synthetic["x"] > 1].mean() == pytest.approx(original_share, abs=0.06)
    assert (synthetic["c"] == "high").mean() == pytest.approx((frame["c"] == "high").mean(), abs=0.04)


def test_passive_column_is_computed_from_synthesised_ones(firms) -> None:
    frame = firms.assign(per_head=firms["turnover"] / firms["employees"])
    synthetic = synthesize(frame, columns=["employees", "turnover", "per_head"],
                           method={"per_head": "~ turnover / employees"}, seed=6).frame
    np.testing.assert_allclose(synthetic["per_head"], synthetic["turnover"] / synthetic["employees"])


def test_strata_keep_their_sizes_and_their_own_values(firms) -> None:
    synthetic = synthesize(firms, columns=["employees", "turnover"], strata=["legal"], seed=7).frame
    assert synthetic["legal"].value_counts().to_dict() == firms["legal"].value_counts().to_dict()
    for legal, group in synthetic.groupby("legal", observed=True):
        assert set(group["turnover"]) <= set(firms.loc[firms["legal"] == legal, "turnover"])


def test_partial_synthesis_keeps_listed_columns_row_by_row(firms) -> None:
    frame = firms.assign(unit_id=[f"u{i}" for i in range(len(firms))])
    result = synthesize(frame, columns=["turnover", "exports"], keep=["unit_id", "region", "legal"],
                        special_codes=[-8], seed=8)
    pd.testing.assert_frame_equal(result.frame[["unit_id", "region", "legal"]], frame[["unit_id", "region", "legal"]])
    assert result.methods == {"turnover": "cart", "exports": "cart"}
    assert result.predictors["turnover"] == ("region", "legal")  # the identifier predicts nothing


@pytest.mark.parametrize("kwargs, field, text", [
    ({"method": {"region": "norm"}}, None, "needs a numeric column"),
    ({"method": {"legal": "logreg"}}, None, "two categories"),
    ({"method": {"turnover": "crat"}}, "method.turnover", "did you mean 'cart'"),
    ({"visit_sequence": ["turnover", "turnvoer"]}, "visit_sequence", "did you mean 'turnover'"),
    ({"predictors": {"region": ["turnover"]}}, "predictors.region", "not among"),
    ({"minbucket": 0}, "minbucket", "greater than or equal to 1"),
    ({"smoothing": "spline"}, "smoothing", "'none' or 'density'"),
    ({"method": {"exports": "~ turnover * 2"}, "visit_sequence": ["exports", "turnover"]}, "method.exports",
     "later in the visit sequence"),
])
def test_bad_settings_name_the_field(firms, kwargs, field, text) -> None:
    with pytest.raises(InputError, match=text) as caught:
        synthesize(firms, **kwargs)
    if field:
        assert caught.value.field == field


TESTDATA = SDCMICRO / "testdata.csv"


def test_marginals_and_two_way_tables_close_on_sdcmicro_testdata() -> None:
    data = pd.read_csv(TESTDATA)
    categorical = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "hhcivil"]
    data[categorical] = data[categorical].astype(str)
    columns = [*categorical, "age", "income", "expend"]
    synthetic = synthesize(data, columns=columns, seed=9).frame
    for column in categorical:
        p = data[column].value_counts(normalize=True)
        q = synthetic[column].value_counts(normalize=True).reindex(p.index, fill_value=0)
        assert 0.5 * (p - q).abs().sum() < 0.03, column  # total variation distance of the marginal
    for a, b in [("urbrur", "water"), ("sex", "relat"), ("roof", "walls")]:
        p = pd.crosstab(data[a], data[b], normalize=True)
        q = pd.crosstab(synthetic[a], synthetic[b], normalize=True).reindex_like(p).fillna(0)
        assert 0.5 * (p - q).abs().to_numpy().sum() < 0.06, (a, b)
    for column in ("age", "income", "expend"):
        assert synthetic[column].median() == pytest.approx(data[column].median(), rel=0.08), column
    assert synthetic["age"].corr(synthetic["income"]) == pytest.approx(data["age"].corr(data["income"]), abs=0.08)


# --------------------------------------------------------------------------------------------
# As a protection step and on the command line


def test_protect_synthesis_replaces_only_the_listed_variables(firms) -> None:
    import attack

    frame = firms.assign(unit_id=[f"u{i}" for i in range(len(firms))])
    protected = attack.protect(frame, "synthesis", columns=["turnover", "exports"], seed=3,
                               minbucket=20, special_codes=["-8"])
    release = protected.release
    unchanged = [c for c in frame.columns if c not in ("turnover", "exports")]
    pd.testing.assert_frame_equal(release[unchanged], frame[unchanged])
    assert (release["turnover"] != frame["turnover"]).mean() > 0.5
    assert protected.log["changed_values"]["turnover"] > 0.5 * len(frame)


def test_cli_writes_m_copies_owner_only_and_a_log_without_paths(tmp_path, firms) -> None:
    import json
    import stat

    from click.testing import CliRunner

    from attack.cli import main

    original = tmp_path / "firms.csv"
    firms.assign(unit_id=range(len(firms))).to_csv(original, index=False)
    out = tmp_path / "synthetic.csv"
    args = ["synthesize", "--original", original, "--out", out, "--drop", "unit_id", "--m", "2",
            "--special-code", "-8", "--method", "turnover=normrank", "--seed", "5"]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    copies = [tmp_path / "synthetic_1.csv", tmp_path / "synthetic_2.csv"]
    for path in copies:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert "unit_id" not in pd.read_csv(path).columns
    log = json.loads((tmp_path / "synthetic.synthesis.json").read_text(encoding="utf-8"))
    assert log["original"] == "firms.csv" and log["outputs"] == ["synthetic_1.csv", "synthetic_2.csv"]
    assert log["methods"]["region"] == "sample" and log["methods"]["turnover"] == "normrank"
    assert str(tmp_path) not in json.dumps(log)


def test_cli_bad_method_is_one_line_exit_2_and_no_file(tmp_path, firms) -> None:
    from click.testing import CliRunner

    from attack.cli import main

    original = tmp_path / "firms.csv"
    firms.to_csv(original, index=False)
    out = tmp_path / "synthetic.csv"
    result = CliRunner().invoke(main, ["synthesize", "--original", str(original), "--out", str(out),
                                       "--method", "region=norm"])
    assert result.exit_code == 2
    assert "region" in result.output and "numeric" in result.output and "Traceback" not in result.output
    assert not out.exists()
