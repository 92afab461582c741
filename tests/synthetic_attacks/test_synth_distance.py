"""Distance attacks on synthetic data (attack.synth_distance, docs/method/synthetic-attacks.md)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attack.errors import InputError
from attack.risk.evaluation import wilson_interval
from attack.synthetic_attacks.distance import distance_attack, near_hits, nndr, uniform_records
from attack.synthetic_attacks.space import encode, nearest_neighbours, prepare


def _mixed(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "income": rng.lognormal(3, 1, n),
        "age": rng.normal(45, 12, n),
        "hours": rng.gamma(3, 10, n),
        "sex": rng.choice(["f", "m"], n),
        "region": rng.choice(list("abcdef"), n),
    })


def _json(result) -> dict:
    out = result.to_dict()
    json.dumps(out, allow_nan=False)  # never NaN
    return out


def test_sdmetrics_dcr_fixture():
    """worked example 9.6 (docs/reference/worked-examples.md): DCR 0.05 and 0.5, median 0.275."""
    real = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    synthetic = pd.DataFrame({"x": [1.0, 10.0], "c": ["a", "a"]})
    dcr = distance_attack(real, synthetic, prepare(real)).dcr["synthetic→original"]
    assert dcr.min == pytest.approx(0.05, abs=1e-15)
    assert dcr.median == pytest.approx(0.275, abs=1e-15)
    assert dcr.mean == pytest.approx(0.275, abs=1e-15)
    assert dcr.share_zero == 0.0


def test_nndr_fixture():
    """worked example 9.6 (docs/reference/worked-examples.md): originals [0, 1, 3]; 0.9 → 0.111111, 2.0 → 1."""
    orig = pd.DataFrame({"x": [0.0, 1.0, 3.0]})
    result = distance_attack(orig, pd.DataFrame({"x": [0.9, 2.0]}), prepare(orig))
    assert result.nndr_training.mean == pytest.approx((1 / 9 + 1) / 2, abs=1e-12)
    assert result.nndr_training.median == pytest.approx((1 / 9 + 1) / 2, abs=1e-12)
    np.testing.assert_allclose(nndr(np.array([0.1, 1.0]), np.array([0.9, 1.0])), [1 / 9, 1.0])


def test_nndr_edge_rules():
    np.testing.assert_array_equal(nndr(np.array([0.0, 0.0, 2.0]), np.array([0.0, 3.0, 4.0])),
                                  [1.0, 0.0, 0.5])


def test_identical_synthetic_is_all_copies():
    orig = _mixed(400, 1)
    control = _mixed(400, 2)
    result = distance_attack(orig, orig.copy(), prepare(orig), control=control, t_dcr=0.01)
    dcr = result.dcr["synthetic→original"]
    assert dcr.min == dcr.median == dcr.mean == 0.0 and dcr.share_zero == 1.0
    assert dcr.share_below_threshold == 1.0
    assert result.dcr["original→synthetic"].share_zero == 1.0
    copies = result.copies_training
    assert copies.exact_copy_share == copies.reproduced_share == copies.near_copy_share == 1.0
    # every synthetic row is at 0 from training and > 0 from the (continuous) holdout
    over = result.overfitting_protection
    assert over["p"] == 1.0 and over["score"] == 0.0
    assert over["p_interval"] == wilson_interval(400, 400)
    assert result.nndr_training.mean == 0.0
    assert result.nndr_difference["difference"] == pytest.approx(result.nndr_control.mean)
    assert result.copies_control.exact_copy_share == 0.0
    assert result.closer_than_original_nn["share"] == 1.0
    assert result.baseline_protection["score"] == 0.0
    assert result.warnings == []
    _json(result)


def test_overfitting_p_is_strict():
    """Synthetic = training = holdout: DCR 0 to both, never strictly closer → p = 0."""
    orig = _mixed(50, 3)
    over = distance_attack(orig, orig, prepare(orig), control=orig).overfitting_protection
    assert over["p"] == 0.0 and over["score"] == 1.0 and over["closer_to_training"] == 0


def test_independent_synthetic_has_no_copies():
    orig, synthetic, control = _mixed(600, 4), _mixed(600, 5), _mixed(600, 6)
    result = distance_attack(orig, synthetic, prepare(orig), control=control, gamma=0.05)
    assert result.copies_training.exact_copy_share == 0.0
    assert result.copies_training.reproduced_share == 0.0
    # near copies arise by chance (wide lognormal ranges); training and holdout alike
    near_t, near_c = result.copies_training, result.copies_control
    assert abs(near_t.near_copy_share - near_c.near_copy_share) < 0.1
    assert near_t.gamma_copy_share < 0.02 and near_c.gamma_copy_share < 0.02
    over = result.overfitting_protection
    assert 0.4 < over["p"] < 0.6 and over["p_interval"][0] < over["p"] < over["p_interval"][1]
    assert 0.0 < result.nndr_training.mean < 1.0
    assert abs(result.nndr_difference["difference"]) < 4 * result.nndr_difference["standard_error"]
    assert 0.0 < result.baseline_protection["score"] <= 1.0
    _json(result)


def test_closer_than_original_nn_hand_example():
    """Originals [0, 10, 11], range 11: s = 0.5 → o = 0, 0.5/11 < 10/11 (closer);
    s = 13 → o = 11, 2/11 > 1/11 (not closer)."""
    orig = pd.DataFrame({"x": [0.0, 10.0, 11.0]})
    result = distance_attack(orig, pd.DataFrame({"x": [0.5, 13.0]}), prepare(orig))
    assert result.closer_than_original_nn == {"share": 0.5, "count": 1, "n": 2}


def test_seed003_statistics_on_dummy_euclidean():
    """(1, a) vs originals (0, a), (3, b), no scaling: distances 1 and √(4 + 2)."""
    orig = pd.DataFrame({"x": [0.0, 3.0], "c": ["a", "b"]})
    synthetic = pd.DataFrame({"x": [1.0, 3.0], "c": ["a", "a"]})
    prep = prepare(orig, metric="euclidean", scaling="none", categorical_mode="dummy")
    seed003 = distance_attack(orig, synthetic, prep).seed003
    assert seed003["applies"] and seed003["min"] == 1.0
    assert seed003["mean"] == pytest.approx((1.0 + np.sqrt(2.0)) / 2)  # (3, a): only c differs
    assert distance_attack(orig, synthetic, prepare(orig)).seed003["min"] is None


def test_query_sample_never_subsamples_the_reference():
    orig = _mixed(200, 7)
    synthetic = _mixed(200, 8)
    synthetic.iloc[137] = orig.iloc[0]  # one exact copy
    result = distance_attack(orig, synthetic, prepare(orig), query_sample=20, seed=3)
    assert result.n_query == 20 and result.query_sample == 20
    assert result.copies_training.reproduced == 1  # original side searches all synthetic rows
    assert result.dcr["original→synthetic"].n == 200
    assert result.baseline_protection["n_random"] == 20
    again = distance_attack(orig, synthetic, prepare(orig), query_sample=20, seed=3)
    assert _json(again) == _json(result)
    other = distance_attack(orig, synthetic, prepare(orig), query_sample=20, seed=4)
    assert _json(other)["dcr"] != _json(result)["dcr"]
    full = distance_attack(orig, synthetic, prepare(orig), query_sample=500)
    assert full.query_sample is None and full.n_query == 200


def test_small_holdout_warns_and_undefined_is_none():
    orig = pd.DataFrame({"x": [1.0], "c": ["a"]})
    result = distance_attack(orig, orig, prepare(orig), control=orig.iloc[:1])
    assert result.nndr_training.mean is None and result.nndr_difference is None
    assert result.closer_than_original_nn["share"] is None
    assert result.baseline_protection["ratio"] is None  # random median is 0 (constant column)
    out = _json(result)
    assert out["baseline_protection"]["score"] is None
    big = _mixed(100, 9)
    warned = distance_attack(big, big, prepare(big), control=big.iloc[:40], balance_repeats=0)
    assert any("fewer than half" in w for w in warned.warnings)
    balanced = distance_attack(big, big, prepare(big), control=big.iloc[:40])  # the default
    assert balanced.warnings == [] and balanced.overfitting_protection["method"] == "balanced"


def test_uniform_records_stay_in_range_and_are_seeded():
    orig = _mixed(100, 10)
    prep = prepare(orig)
    a, b = uniform_records(prep, 500, 1), uniform_records(prep, 500, 1)
    pd.testing.assert_frame_equal(a, b)
    assert a["age"].between(orig["age"].min(), orig["age"].max()).all()
    assert set(a["region"]) == set(orig["region"])


def test_near_hit_rules_by_hand():
    """Range 30 → threshold 30 / 30 = 1 (≤, SynthEval); γ = 0.05 strict, divided by the
    original value, zero only by zero (worked example 9.5 (docs/reference/worked-examples.md): true 100, guess −5 is no hit)."""
    real = pd.DataFrame({"x": [0.0, 30.0, 100.0, 100.0, 0.0, -100.0, 100.0]})
    synthetic = pd.DataFrame({"x": [1.0, 31.0000001, 105.0, 104.9, 0.0, -96.0, -5.0]})
    prep30 = prepare(pd.DataFrame({"x": [0.0, 30.0]}))
    r, s = encode(prep30, real, synthetic)
    rows = range(len(real))
    near = [near_hits(prep30, r.take([i]), s.take([i]), near_fraction=1 / 30)[0] for i in rows]
    assert near[:2] == [True, False]
    gam = [near_hits(prep30, r.take([i]), s.take([i]), gamma=0.05)[0] for i in rows]
    assert gam == [False, True, False, True, True, True, False]


@st.composite
def near_frames(draw):
    def frame(n):
        return pd.DataFrame({
            "x": draw(st.lists(st.sampled_from([-4.0, -1.0, 0.0, 1.0, 1.1, 2.0, 20.0, np.nan]),
                               min_size=n, max_size=n)),
            "y": draw(st.lists(st.integers(0, 60).map(float), min_size=n, max_size=n)),
            "c": draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n)),
        })

    train = frame(draw(st.integers(1, 10)))
    train.iloc[0] = [1.0, 0.0, "a"]
    train.iloc[-1, 1] = 60.0
    return train, frame(draw(st.integers(1, 10)))


@settings(max_examples=50, deadline=None)
@given(frames=near_frames(), na_equal=st.booleans(), gamma=st.sampled_from([None, 0.05, 0.5]))
def test_near_hits_equal_brute_force(frames, na_equal, gamma):
    real, synthetic = frames
    prep = prepare(real, na_equal=na_equal)
    r, s = encode(prep, real, synthetic)
    got = near_hits(prep, r, s, near_fraction=None if gamma else 1 / 30, gamma=gamma)
    ranges = dict(zip(prep.numeric, prep.ranges, strict=True))

    def match(o, v, col):
        if pd.isna(o) or pd.isna(v):
            return pd.isna(o) and pd.isna(v) and na_equal
        if col == "c":
            return o == v
        if gamma is not None:
            return v == 0 if o == 0 else abs(v - o) / abs(o) < gamma
        return abs(v - o) <= ranges[col] / 30

    expected = [
        any(all(match(real.iloc[i][c], synthetic.iloc[j][c], c) for c in real.columns)
            for j in range(len(synthetic)))
        for i in range(len(real))
    ]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "kwargs",
    [{"gamma": 1.0}, {"gamma": 0.0}, {"near_fraction": 0.0}, {"query_sample": 0},
     {"t_dcr": -1.0}, {"query_sample": 2.5}],
)
def test_bad_options_raise_input_error(kwargs):
    orig = _mixed(10, 11)
    with pytest.raises(InputError):
        distance_attack(orig, orig, prepare(orig), **kwargs)


def test_empty_or_misshapen_files_raise_input_error():
    orig = _mixed(10, 12)
    with pytest.raises(InputError):
        distance_attack(orig, orig.iloc[:0], prepare(orig))
    with pytest.raises(InputError, match="column"):
        distance_attack(orig, orig.drop(columns="age"), prepare(orig))
    with pytest.raises(InputError):
        distance_attack(orig, orig, prepare(orig), control=orig.iloc[:0])


def test_overfitting_is_balanced_when_the_holdout_is_smaller():
    """Independent synthetic file, holdout a quarter of the training size: on the full files the
    synthetic rows sit closer to the larger training file (p well above 1/2); on equal-size
    subsamples p is close to 1/2, and each repeat equals a hand-made subsample comparison."""
    orig, synthetic, control = _mixed(1200, 4), _mixed(600, 5), _mixed(300, 6)
    prep = prepare(orig)
    over = distance_attack(orig, synthetic, prep, control=control, balance_repeats=4).overfitting_protection
    assert over["method"] == "balanced" and over["subsample_size"] == 300 and over["subsampled"] == "training"
    assert over["unbalanced"]["p"] > 0.6
    assert abs(over["p"] - 0.5) < 0.08 and over["p"] == pytest.approx(np.mean(over["p_repeats"]))
    rng = np.random.default_rng(np.random.SeedSequence(0).spawn(3)[2])
    rows = np.sort(rng.choice(1200, size=300, replace=False))
    to_sub = nearest_neighbours(prep, synthetic, orig.iloc[rows]).distances[:, 0]
    to_ctrl = nearest_neighbours(prep, synthetic, control).distances[:, 0]
    assert over["p_repeats"][0] == pytest.approx(np.mean(to_sub < to_ctrl))
    plain = distance_attack(orig, synthetic, prep, control=control, balance_repeats=0).overfitting_protection
    assert plain["method"] == "unbalanced" and plain["p"] == over["unbalanced"]["p"]
