"""The recipe for a new protection method (docs/contributing/add-a-protection-method.md): one
decorated function in one module is known to the library, ``attack protect`` and the scenario's
``[tune]`` section, with its declared bounds enforced before the function runs."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from attack.cli import main
from attack.errors import InputError
from attack.protect import microaggregation, multivariate_ma
from attack.protect.catalogue import METHODS, listing, params_model, protect
from attack.protect.registry import REQUIRED, Param, protection_method
from attack.study.settings import Tune


@pytest.fixture
def toy() -> Iterator[str]:
    """Declare a toy method as a newcomer's module would, and forget it afterwards."""
    @protection_method(
        "toy-round", family="toy", seeded=False,
        summary="round each listed variable to a multiple of base",
        params={"base": Param("float", REQUIRED, help="rounding base", gt=0),
                "digits": Param("int", 0, help="decimals kept after rounding", ge=0, le=6)})
    def round_to(data: pd.DataFrame, columns: Sequence[str], base: float, digits: int = 0) -> pd.DataFrame:
        out = data.copy()
        for column in columns:
            out[column] = (np.round(out[column] / base) * base).round(digits)
        return out

    yield "toy-round"
    METHODS.remove("toy-round")


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"x": [12.0, 17.0, 24.0, 5.0], "g": ["a", "a", "b", "b"]})


def test_a_declared_method_runs_through_the_catalogue(toy: str) -> None:
    result = protect(_frame(), toy, ["base=10"], columns=["x"])
    assert result.release["x"].tolist() == [10.0, 20.0, 20.0, 0.0]  # 12, 17, 24, 5 to tens (5 -> 0: half to even)
    assert result.log["family"] == "toy" and result.log["seed"] is None
    assert result.log["params"] == {"base": 10.0, "digits": 0}
    assert result.log["changed_values"] == {"x": 4}
    # within groups as every method: same values here, since rounding is per value
    assert protect(_frame(), toy, {"base": 10}, columns=["x"], by=["g"]).release["x"].tolist() == [10.0, 20.0, 20.0, 0.0]


@pytest.mark.parametrize(("params", "expected"), [
    (["base=0"], "parameter base: expected a value greater than 0"),
    (["base=-1"], "parameter base: expected a value greater than 0"),
    (["base=10", "digits=7"], "parameter digits: expected a value less than or equal to 6"),
    (["digits=1"], "parameter base: this parameter is required"),
    (["base=10", "bse=1"], "unknown parameter 'bse'"),
])
def test_declared_bounds_are_enforced_before_the_method_runs(toy: str, params: list[str], expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        protect(_frame(), toy, params, columns=["x"])


def test_the_cli_lists_and_runs_a_declared_method(toy: str, tmp_path) -> None:
    listed = CliRunner().invoke(main, ["protect", "--list-methods"])
    assert listed.exit_code == 0
    assert "toy-round" in listed.output and "base (float, required): rounding base (> 0)" in listed.output
    # a family the catalogue does not know is listed after the known ones
    assert listed.output.index("toy-round") > listed.output.index("kernel-resampling")
    source, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _frame().to_csv(source, index=False)
    run = CliRunner().invoke(main, ["protect", "--method", toy, "--input", str(source), "--out", str(out),
                                    "--columns", "x", "--param", "base=10"])
    assert run.exit_code == 0, run.output
    assert pd.read_csv(out)["x"].tolist() == [10.0, 20.0, 20.0, 0.0]
    refused = CliRunner().invoke(main, ["protect", "--method", toy, "--input", str(source), "--out",
                                        str(tmp_path / "no.csv"), "--columns", "x", "--param", "base=0"])
    assert refused.exit_code == 2 and "greater than 0" in refused.output
    assert not (tmp_path / "no.csv").exists()


def test_a_scenario_can_tune_a_declared_method(toy: str) -> None:
    tune = Tune.model_validate({"method": toy, "parameter": "base", "values": [1, 10, 100], "columns": ["x"]})
    assert tune.method == toy
    with pytest.raises((InputError, ValueError), match="greater than 0"):
        Tune.model_validate({"method": toy, "parameter": "base", "values": [0, 10], "columns": ["x"]})


def test_a_name_cannot_be_declared_twice(toy: str) -> None:
    with pytest.raises(ValueError, match="declared twice"):
        protection_method(toy, family="toy", summary="again")(lambda data, columns: data)


def test_bounds_need_a_numeric_kind() -> None:
    with pytest.raises(TypeError, match="only int and float"):
        Param("str", "a", ge=1)
    with pytest.raises(TypeError, match="one lower"):
        Param("int", 3, ge=1, gt=0)


def test_the_schema_carries_the_bounds_and_their_words() -> None:
    schema = params_model("mdav").model_json_schema()["properties"]["k"]
    assert schema["minimum"] == 2 and schema["description"] == "group size (>= 2)"
    assert "k (int, default 3): group size (>= 3)" in listing()  # separate-ma, random-ma, punctual-ma
    assert "k (int, default 3): group size (>= 2)" in listing()  # mdav, pca-ma, rmd-ma, grouped-ma


_GROUP_SIZED = ["separate-ma", "hoehne-ma", "mdav", "pca-ma", "rmd-ma", "grouped-ma", "random-ma", "punctual-ma",
                "panel-microaggregation"]


@pytest.mark.parametrize("name", _GROUP_SIZED)
def test_the_declared_group_size_bound_is_the_true_one(name: str) -> None:
    """The catalogue refuses one below the declared minimum, and the function called directly
    (public API) refuses exactly the same values: the bound is declared once."""
    method = METHODS[name]
    size = "m" if name == "hoehne-ma" else "k"
    minimum = int(method.params[size].ge)
    assert minimum in (microaggregation.HANDBOOK_MIN_K, microaggregation.SDCMICRO_MIN_K)
    data = pd.DataFrame({"x": np.arange(12.0), "y": np.arange(12.0) ** 2, "c": ["a"] * 12})
    fixed = {"punctual-ma": {"by": ["c"], "rank_by": "x"},
             "panel-microaggregation": {"unit": "c", "wave": "c"}}.get(name, {})
    with pytest.raises(InputError, match=f"parameter {size}: expected a value greater than or equal to {minimum}"):
        protect(data, name, {**fixed, size: minimum - 1}, columns=["x", "y"])
    with pytest.raises(InputError, match=f"group size {size} must be an integer >= {minimum}"):
        method.function(data, columns=["x", "y"], **fixed, **{size: minimum - 1})
    method.function(data, columns=["x", "y"], **fixed, **{size: minimum})  # the bound itself is allowed
    protect(data, name, {**fixed, size: minimum}, columns=["x", "y"])


def test_grouped_ma_through_the_catalogue_is_grouped_microaggregation() -> None:
    """``--columns`` are the variables; ``groups`` (a|b;c or one group a|b) split them."""
    rng = np.random.default_rng(5)
    data = pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"])
    for given, groups in (("a|b;c", [["a", "b"], ["c"]]), ("a|b|c", [["a", "b", "c"]])):
        via_catalogue = protect(data, "grouped-ma", [f"groups={given}", "k=3"], columns=["a", "b", "c"]).release
        pd.testing.assert_frame_equal(via_catalogue, microaggregation.grouped_microaggregation(data, groups, k=3))
    pd.testing.assert_frame_equal(
        protect(data, "grouped-ma", ["k=4"], columns=["a", "b", "c"], seed=2).release,
        microaggregation.grouped_microaggregation(data, k=4, seed=2, columns=["a", "b", "c"]))
    with pytest.raises(InputError, match="each listed column exactly once"):
        protect(data, "grouped-ma", ["groups=a|b"], columns=["a", "b", "c"])


def test_every_group_sized_method_is_covered() -> None:
    sized = {name for name, m in METHODS.items() if m.family == "microaggregation" and {"k", "m"} & set(m.params)}
    assert sized == set(_GROUP_SIZED)
    assert inspect.getmodule(METHODS["pca-ma"].function) is multivariate_ma
