"""Preparation and exact nearest-neighbour search (attack.synth_space, docs/method/synthetic-attacks.md)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.io.columns import type_frame
from attack.synthetic_attacks.space import (
    Preparation,
    nearest_neighbours,
    pair_distances,
    prepare,
)

SETTINGS = [
    ("gower_mean", "minmax_range", "mismatch"),
    ("gower_sum", "minmax_range", "mismatch"),
    ("euclidean", "none", "dummy"),
    ("euclidean", "zscore", "mismatch"),
    ("euclidean", "minmax_range", "dummy"),
    ("l1", "robust", "mismatch"),
    ("l1", "zscore", "dummy"),
    ("l1", "none", "mismatch"),
]


# --- naive reference implementation, written from docs/method/synthetic-attacks.md ----------------------


def _fit(train: pd.DataFrame, column: str, scaling: str) -> tuple[float, float]:
    """(range, scale) of a numeric training column; scale 1 when undefined."""
    x = train[column].astype(float).to_numpy()
    x = x[~np.isnan(x)]
    rng = float(x.max() - x.min())
    if scaling == "zscore":
        scale = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
    elif scaling == "robust":
        q1, q3 = np.percentile(x, [25, 75])
        scale = float(q3 - q1)
    elif scaling == "minmax_range":
        scale = rng
    else:
        scale = 1.0
    return rng, (scale if scale > 0 else 1.0)


def naive_distance(train, a: pd.Series, b: pd.Series, numeric, metric, scaling, mode, na_equal):
    """One pair's distance, column by column with Python floats."""
    total = 0.0
    for c in a.index:
        x, y = a[c], b[c]
        x_na, y_na = pd.isna(x), pd.isna(y)
        if c in numeric:
            rng, scale = _fit(train, c, scaling)
            if metric in ("gower_mean", "gower_sum"):
                miss = 1.0
            else:
                miss = rng / scale if rng > 0 else 1.0
                miss = miss * miss if metric == "euclidean" else miss
            if x_na or y_na:
                term = 0.0 if (x_na and y_na and na_equal) else miss
            elif metric in ("gower_mean", "gower_sum"):
                if rng == 0:
                    term = 1.0 if x != y else 0.0
                else:
                    term = abs(float(x) - float(y)) / rng
                    term = min(term, 1.0) if metric == "gower_mean" else term
            else:
                term = abs(float(x) - float(y))
                if scale != 1:
                    term = term / scale
                term = term * term if metric == "euclidean" else term
        else:
            cost = 2.0 if mode == "dummy" else 1.0
            if x_na and y_na:
                term = 0.0 if na_equal else cost
            else:
                term = 0.0 if (not x_na and not y_na and x == y) else cost
        total += term
    if metric == "euclidean":
        return math.sqrt(total)
    if metric == "gower_mean":
        return total / len(a.index)
    return total


def naive_neighbours(train, query, reference, k, numeric, metric, scaling, mode, na_equal):
    dist = np.array(
        [
            [
                naive_distance(train, query.iloc[i], reference.iloc[j], numeric, metric, scaling,
                               mode, na_equal)
                for j in range(len(reference))
            ]
            for i in range(len(query))
        ]
    ).reshape(len(query), len(reference))
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]  # ties: lower reference row first
    return np.take_along_axis(dist, order, axis=1), order


# --- strategies ------------------------------------------------------------------------------


@st.composite
def mixed_frames(draw):
    n_num = draw(st.integers(0, 3))
    n_cat = draw(st.integers(0 if n_num else 1, 2))
    numeric = [f"x{i}" for i in range(n_num)]
    cats = [f"c{i}" for i in range(n_cat)]
    wide = draw(st.booleans())  # query values beyond the training range (gower_mean clips)
    missing = draw(st.sampled_from([0.0, 0.15, 0.4]))

    def frame(n, lo, hi):
        data = {}
        for c in numeric:
            kind = draw(st.sampled_from(["int", "dec", "const"]))
            if kind == "const":
                vals = [3.0] * n
            else:
                vals = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
                vals = [v / 2 if kind == "dec" else float(v) for v in vals]
            data[c] = vals
        for c in cats:
            data[c] = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
        out = pd.DataFrame(data, columns=numeric + cats)
        flags = draw(st.lists(st.floats(0, 1), min_size=n * len(out.columns),
                              max_size=n * len(out.columns)))
        mask = np.array(flags).reshape(n, len(out.columns)) < missing
        out = out.astype(object).mask(mask)
        for c in numeric:
            out[c] = out[c].astype(float)
        return out

    train = frame(draw(st.integers(1, 12)), 0, 6)
    train.iloc[0] = [1.0] * n_num + ["a"] * n_cat  # every column has a value
    reference = train if draw(st.booleans()) else frame(draw(st.integers(1, 14)), 0, 6)
    if draw(st.booleans()):  # duplicated reference rows
        reference = pd.concat([reference, reference.iloc[::2]], ignore_index=True)
    query = frame(draw(st.integers(1, 10)), -8 if wide else 0, 14 if wide else 6)
    return train, query, reference, numeric, cats


@settings(max_examples=60, deadline=None)
@given(data=mixed_frames(), setting=st.sampled_from(SETTINGS), na_equal=st.booleans(),
       k_pick=st.floats(0, 1))
def test_nearest_neighbours_equal_brute_force(data, setting, na_equal, k_pick):
    train, query, reference, numeric, cats = data
    metric, scaling, mode = setting
    prep = prepare(train, categorical=cats, metric=metric, scaling=scaling,
                   categorical_mode=mode, na_equal=na_equal)
    k = 1 + int(k_pick * (len(reference) - 1))
    got = nearest_neighbours(prep, query, reference, k)
    dist, idx = naive_neighbours(train, query, reference, k, numeric, metric, scaling, mode,
                                 na_equal)
    assert got.indices.dtype == np.int64 and got.distances.shape == (len(query), k)
    np.testing.assert_array_equal(got.indices, idx)
    np.testing.assert_allclose(got.distances, dist, rtol=0, atol=1e-12)
    assert np.isfinite(got.distances).all()
    pairs = pair_distances(prep, query, reference, np.repeat(np.arange(len(query)), k),
                           idx.ravel())
    np.testing.assert_allclose(pairs, dist.ravel(), rtol=0, atol=1e-12)


def test_brute_force_at_scale_with_ties_and_missing_values():
    """Enough rows for the tree stages (groups, one attribute free, numeric) to be used."""
    rng = np.random.default_rng(5)

    def frame(n):
        out = pd.DataFrame({
            "age": rng.integers(20, 60, n).astype(float),
            "income": np.round(rng.lognormal(3, 1, n), 1),
            "sex": rng.choice(["f", "m"], n),
            "region": rng.choice(list("abcdefg"), n),
        })
        out.loc[rng.random(n) < 0.05, "income"] = np.nan
        out.loc[rng.random(n) < 0.05, "region"] = None
        return out

    train, query = frame(1500), frame(300)
    query.loc[:9, "income"] = 1e4  # beyond the training range
    for metric, scaling, mode in SETTINGS[:4]:
        prep = prepare(train, metric=metric, scaling=scaling, categorical_mode=mode)
        got = nearest_neighbours(prep, query, train, k=3)
        block = pair_distances(prep, query, train, np.repeat(np.arange(300), 1500),
                               np.tile(np.arange(1500), 300)).reshape(300, 1500)
        order = np.argsort(block, axis=1, kind="stable")[:, :3]
        np.testing.assert_array_equal(got.indices, order)
        np.testing.assert_array_equal(got.distances, np.take_along_axis(block, order, axis=1))


def test_sdmetrics_dcr_fixture():
    """worked example 9.6 (docs/reference/worked-examples.md): DCR(s1) = 0.05, DCR(s2) = 0.5."""
    real = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    synthetic = pd.DataFrame({"x": [1.0, 10.0], "c": ["a", "a"]})
    got = nearest_neighbours(prepare(real), synthetic, real)
    np.testing.assert_allclose(got.distances[:, 0], [0.05, 0.5], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(got.indices[:, 0], [0, 0])  # s2: tie 0.5 / 0.5 → lower row


def test_nndr_fixture_neighbours():
    """worked example 9.6 (docs/reference/worked-examples.md): originals [0, 1, 3]; 0.9 → (0.1, 0.9); 2.0 → (1, 1), scaling none."""
    orig = pd.DataFrame({"x": [0.0, 1.0, 3.0]})
    prep = prepare(orig, metric="l1", scaling="none")
    got = nearest_neighbours(prep, pd.DataFrame({"x": [0.9, 2.0]}), orig, k=2)
    np.testing.assert_allclose(got.distances, [[0.1, 0.9], [1.0, 1.0]], atol=1e-12)
    np.testing.assert_array_equal(got.indices, [[1, 0], [1, 2]])


def test_missing_value_rules():
    train = pd.DataFrame({"x": [0.0, 4.0], "c": ["a", "b"]})
    q = pd.DataFrame({"x": [np.nan, np.nan], "c": [None, "a"]})
    r = pd.DataFrame({"x": [np.nan, 2.0], "c": [None, None]})
    rows = (np.array([0, 0, 1]), np.array([0, 1, 1]))
    # gower_mean: both missing = 1 per column unless na_equal; one missing = 1
    np.testing.assert_allclose(pair_distances(prepare(train), q, r, *rows), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(
        pair_distances(prepare(train, na_equal=True), q, r, *rows), [0.0, 0.5, 1.0]
    )
    # euclidean, zscore: missing cost = range / sd = 4 / 2.828…, squared = 2; dummy mismatch 2
    prep = prepare(train, metric="euclidean", scaling="zscore", categorical_mode="dummy")
    assert prep.missing_costs == pytest.approx((2.0,))
    np.testing.assert_allclose(pair_distances(prep, q, r, *rows), [2.0, 2.0, 2.0])


def test_scaling_fitted_on_training_only():
    train = pd.DataFrame({"x": [0.0, 10.0]})
    reference = pd.DataFrame({"x": [0.0, 100.0]})
    prep = prepare(train, metric="gower_sum")
    got = nearest_neighbours(prep, pd.DataFrame({"x": [30.0]}), reference)
    assert got.distances[0, 0] == pytest.approx(3.0)  # |30 − 0| / 10, the training range
    assert prep.ranges == (10.0,)
    z = prepare(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), scaling="zscore", metric="l1")
    assert z.centres == (2.5,) and z.scales == pytest.approx((np.std([1, 2, 3, 4], ddof=1),))
    robust = prepare(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 100.0]}), scaling="robust",
                     metric="l1")
    assert robust.centres == (3.0,) and robust.scales == (2.0,)


def test_constant_columns_reported_and_compared_for_equality():
    train = pd.DataFrame({"k": [5.0, 5.0], "x": [0.0, 2.0]})
    prep = prepare(train, metric="gower_mean")
    assert prep.constant == ("k",) and prep.unscaled == ("k",)
    d = pair_distances(prep, pd.DataFrame({"k": [5.0, 7.0], "x": [0.0, 0.0]}), train,
                       np.array([0, 1]), np.array([0, 0]))
    np.testing.assert_allclose(d, [0.0, 0.5])  # 1[a ≠ b] on the constant column, mean of 2


def test_column_roles_and_text_frames():
    frame = pd.DataFrame(
        {"n": ["1", "2.5", None], "code": ["A1", "02", "A1"], "z": ["01", "02", "01"],
         "b": [True, False, True]}
    )
    frame = type_frame(frame)  # as read from CSV: numbers become numbers, "01" stays a code
    prep = prepare(frame)
    assert prep.numeric == ("n",) and prep.categorical == ("code", "z", "b")
    assert prepare(frame, categorical=["code", "z", "b"]).categorical == ("code", "z", "b")
    typed = prepare(pd.DataFrame({"n": ["1", "2"], "m": [1, 2]}))
    assert typed.categorical == ("n",) and typed.numeric == ("m",)
    declared = prepare(pd.DataFrame({"n": [1, 2], "m": [1, 2]}), categorical=["n"])
    assert declared.categorical == ("n",)


def test_subset_keeps_fitted_parameters_and_to_dict_is_json():
    train = pd.DataFrame({"x": [0.0, 4.0, 1.0], "y": [1.0, 1.5, 9.0], "c": ["a", "b", "b"]})
    prep = prepare(train, scaling="zscore", metric="euclidean", categorical_mode="dummy")
    sub = prep.subset(["c", "y"])
    assert sub == prepare(train, ["c", "y"], scaling="zscore", metric="euclidean",
                          categorical_mode="dummy")
    assert sub.columns == ("c", "y") and isinstance(sub, Preparation)
    text = json.dumps(prep.to_dict(), allow_nan=False)
    assert '"levels": ["a", "b"]' in text
    with pytest.raises(InputError):
        prep.subset(["nope"])


def test_datetime_columns_are_numeric():
    train = pd.DataFrame({"t": pd.to_datetime(["2020-01-01", "2020-01-11"])})
    prep = prepare(train)
    d = nearest_neighbours(prep, pd.DataFrame({"t": pd.to_datetime(["2020-01-02"])}), train)
    assert d.distances[0, 0] == pytest.approx(0.1)


@pytest.mark.parametrize(
    "kwargs, frame",
    [
        ({"columns": ["nope"]}, None),
        ({"scaling": "log"}, None),
        ({"metric": "cosine"}, None),
        ({"categorical_mode": "ordinal"}, None),
        ({"metric": "gower_mean", "scaling": "zscore"}, None),
        ({"columns": ["x", "x"]}, None),
        ({"categorical": ["zzz"]}, None),
        ({}, pd.DataFrame({"x": [np.nan, np.nan], "c": ["a", "b"]})),
        ({}, pd.DataFrame({"x": [1.0, 2.0], "c": [None, None]})),
        ({}, pd.DataFrame({"x": [], "c": []})),
    ],
)
def test_bad_input_raises_input_error(kwargs, frame):
    frame = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]}) if frame is None else frame
    with pytest.raises(InputError):
        prepare(frame, **kwargs)


def test_named_categorical_columns_add_to_the_text_columns():
    """A code column (numbers) named as categorical joins the text columns, which stay
    categorical whatever is named (attack synth --code nace with text keys)."""
    frame = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"], "nace": [1520, 2840]})
    assert prepare(frame, categorical=[]).categorical == ("c",)
    assert prepare(frame, categorical=["nace"]).categorical == ("c", "nace")
    assert prepare(frame, categorical=["nace"]).numeric == ("x",)


def test_bad_search_input():
    train = pd.DataFrame({"x": [1.0, 2.0]})
    prep = prepare(train)
    with pytest.raises(InputError, match="column"):
        nearest_neighbours(prep, pd.DataFrame({"y": [1.0]}), train)
    with pytest.raises(InputError):
        nearest_neighbours(prep, train, train, k=3)
    with pytest.raises(InputError):
        nearest_neighbours(prep, train, train.iloc[:0])
    with pytest.raises(InputError):
        pair_distances(prep, train, train, np.array([0, 1]), np.array([0]))
    with pytest.raises(InputError, match="expected a number"):
        nearest_neighbours(prep, pd.DataFrame({"x": ["1", "abc"]}), train)
