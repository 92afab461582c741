"""Information-loss measures (docs/method/utility.md; worked example 5.2 (docs/reference/worked-examples.md) F-MA-10, F-U-IL1s)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.utility.information_loss import (
    categorical_loss,
    concentration_ratio,
    conditional_entropy,
    describe,
    gini,
    herfindahl,
    il1s,
    information_loss_scores,
    shannon_entropy,
)
from attack.utility.profile import utility_profile

# --- descriptive extras (docs/method/utility.md; worked example 5.2 (docs/reference/worked-examples.md) F-MA-10) -----------------------------


def test_f_ma_10_gini():
    assert gini([1, 2, 3, 4, 5, 6]) == pytest.approx(0.277777777778, abs=1e-9)
    assert gini([2, 2, 2, 5, 5, 5]) == pytest.approx(0.214285714286, abs=1e-9)
    # eq. 19.23: G_x − G_xa = 2 Δ_n / (n Σ x) with Δ_n = 4
    assert gini([6, 1, 4, 3, 5, 2]) - gini([2, 5, 2, 2, 5, 5]) == pytest.approx(
        0.063492063492, abs=1e-9
    )
    assert gini([0, 0]) is None and gini([-1, 3]) is None and gini([]) is None
    assert gini([5, np.nan, 5]) == 0.0


def test_concentration_and_dispersion():
    x = np.array([1.0, 2, 3, 4])
    assert concentration_ratio(x, 1) == pytest.approx(0.4)
    assert concentration_ratio(x, 3) == pytest.approx(0.9)
    assert concentration_ratio(x, 9) == pytest.approx(1.0)
    assert herfindahl(x) == pytest.approx(0.3)
    assert herfindahl([-1.0, 2]) is None
    d = describe(x, ks=(1, 3))
    assert d.cv == pytest.approx(np.std(x, ddof=1) / 2.5)
    assert d.robust_cv == pytest.approx(1.5 / 2.5)
    assert d.to_dict()["concentration"] == {"CR1": pytest.approx(0.4), "CR3": pytest.approx(0.9)}
    assert describe([np.nan]).n == 0


def test_entropies():
    assert shannon_entropy(np.array([0, 0, 1, 1, -1])) == pytest.approx(1.0)
    assert shannon_entropy(np.array([-1])) is None
    a = np.array([0, 0, 1, 1])
    assert conditional_entropy(a, a) == 0.0
    assert conditional_entropy(a, np.array([0, 0, 0, 0])) == pytest.approx(1.0)
    assert conditional_entropy(np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])) == pytest.approx(1.0)


def test_categorical_loss_with_and_without_identity():
    original, release = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 1])
    without = categorical_loss("g", original, release)
    assert (without.aligned, without.changed, without.changed_share) == (None, None, None)
    assert without.entropy_original == pytest.approx(1.0)
    # release shares 1/4, 3/4
    assert without.entropy_release == pytest.approx(0.811278124459, abs=1e-9)
    rows = (np.array([0, 1, 2, 3]), np.array([2, 0, 1, 3]))  # release row of each original unit
    loss = categorical_loss("g", original, release, rows)
    # aligned release codes 0, 1, 1, 1: one change; H(X | X^a) = 3/4 · H(1/3, 2/3)
    assert (loss.aligned, loss.changed, loss.changed_share) == (4, 1, 0.25)
    assert loss.conditional_entropy == pytest.approx(0.688721875540, abs=1e-9)
    assert loss.to_dict()["changed_share"] == 0.25


# --- per-record measures (docs/method/utility.md) --------------------------------------------------

X = np.array([[1.0, 10], [2, 20], [3, 30], [4, 40]])
XA = np.array([[1.5, 10], [2, 22], [2.5, 30], [4, 38]])


def test_f_u_il1s_sample_and_population():
    assert il1s(X, XA)[0] == pytest.approx(0.095851447563, abs=1e-9)
    assert il1s(X, XA, ddof=0)[0] == pytest.approx(0.110679718106, abs=1e-9)
    value, skipped = il1s(np.column_stack([X, [7.0] * 4]), np.column_stack([XA, [8.0] * 4]))
    assert value == pytest.approx(0.095851447563, abs=1e-9) and skipped == [2]


def test_il1s_in_profile_reports_both_values():
    original = pd.DataFrame({"id": [1, 2, 3, 4], "a": X[:, 0], "b": X[:, 1]})
    release = pd.DataFrame({"id": [4, 3, 2, 1], "a": XA[::-1, 0], "b": XA[::-1, 1]})
    record = utility_profile(original, release, per_record=("id", "id")).per_record
    assert record.il1s == pytest.approx(0.095851447563, abs=1e-9)
    assert record.il1s_population == pytest.approx(0.110679718106, abs=1e-9)


def _scores_brute(x, xa, cov_range):
    m, d = x.shape
    t_val = sum(
        abs(x[i, j] - xa[i, j]) / abs(x[i, j]) for i in range(m) for j in range(d) if x[i, j]
    )
    mean, mean_a = x.mean(0), xa.mean(0)
    t_mean = sum(abs(mean[j] - mean_a[j]) / abs(mean[j]) for j in range(d))
    s, sa = np.cov(x.T), np.cov(xa.T)
    pairs = [
        (i, j) for j in range(d) for i in range(d) if (i < j or (cov_range == "i<=j" and i == j))
    ]
    t_cov = sum(abs(s[i, j] - sa[i, j]) / abs(s[i, j]) for i, j in pairs)
    t_var = sum(abs(s[j, j] - sa[j, j]) / abs(s[j, j]) for j in range(d))
    r, ra = np.corrcoef(x.T), np.corrcoef(xa.T)
    t_corr = sum(abs(r[i, j] - ra[i, j]) for j in range(d) for i in range(j))
    terms = (
        t_val / (m * d),
        t_mean / d,
        t_cov / (d * (d + 1) / 2),
        t_var / d,
        t_corr / (d * (d - 1) / 2),
    )
    return 100 * sum(terms), 100 * (
        terms[0] + 0.5 * (terms[1] + terms[3]) + 0.5 * (terms[2] + terms[4])
    )


@pytest.mark.parametrize("cov_range", ["i<j", "i<=j"])
def test_scores_match_brute_force(cov_range):
    rng = np.random.default_rng(1)
    x = rng.lognormal(size=(20, 3))
    x[4, 1] = 0.0
    xa = x * rng.normal(1, 0.1, size=x.shape)
    scores = information_loss_scores(x, xa, cov_range)
    score_i, score_ii = _scores_brute(x, xa, cov_range)
    assert scores.score_i == pytest.approx(score_i, rel=1e-12)
    assert scores.score_ii == pytest.approx(score_ii, rel=1e-12)
    assert scores.skipped["values"] == 1
    with pytest.raises(InputError, match="cov_range"):
        information_loss_scores(x, xa, "all")
