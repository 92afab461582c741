"""Learned key weights (Abril, Navarro-Arribas & Torra 2012): the programme and the attack."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import attack
from attack.errors import InputError
from attack.linkage.learned_weights import EPSILON, separated, separating_weights


def _brute_force_best(delta: np.ndarray, record: np.ndarray, n: int, steps: int = 200) -> int:
    """Most records separated over a fine grid of the weight simplex and at every breakpoint
    of a two-key problem (where a constraint ``w·Δ = ε`` switches)."""
    k = delta.shape[1]
    best = 0
    if k == 2:
        points = [i / steps for i in range(steps + 1)]
        for d1, d2 in delta:  # t d1 + (1 - t) d2 = ε
            if d1 != d2:
                t = (EPSILON - d2) / (d1 - d2)
                points += [t + s for s in (-1e-9, 0, 1e-9) if 0 <= t + s <= 1]
        for t in points:
            best = max(best, separated(delta, record, np.array([t, 1 - t]), n))
        return best
    for combo in itertools.product(range(steps + 1), repeat=k - 1):
        if sum(combo) <= steps:
            w = np.array([*combo, steps - sum(combo)], dtype=float) / steps
            best = max(best, separated(delta, record, w, n))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_programme_separates_as_many_records_as_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, k = 8, 2 + seed % 2
    record = np.repeat(np.arange(n), 3)
    delta = rng.uniform(-1, 1, (record.size, k))
    delta[:, 0] += 0.3  # key 0 helps on average, not always
    delta /= np.abs(delta).max()
    solution = separating_weights(delta, record, n)
    assert solution.optimal
    assert solution.weights.sum() == pytest.approx(1.0)
    best = _brute_force_best(delta, record, n, steps=400 if k == 2 else 60)
    assert solution.n_separated == best
    assert solution.n_separated == separated(delta, record, solution.weights, n)


def test_programme_hand_case():
    # record 0 needs key 0 to outweigh key 1; record 1 needs key 1 > 3 * key 0; both cannot hold
    # (w0 > 1/2 and w1 > 3/4); record 2 holds whenever w0 > 1/3: the best keeps records 0 and 2
    delta = np.array([[1.0, -1.0], [-0.75, 0.25], [0.5, -0.25]])
    solution = separating_weights(delta, np.arange(3), 3)
    assert solution.n_separated == 2
    assert solution.weights[0] > 0.5


def _noise_frame(n: int, seed: int):
    rng = np.random.default_rng(seed)
    unit = np.arange(n)
    signal = rng.normal(100, 20, n)
    release = pd.DataFrame({"id": unit, "signal": signal, "noise": rng.normal(0, 1, n)})
    external = pd.DataFrame({"id": unit, "signal": signal + rng.normal(0, 0.05, n),
                             "noise": rng.normal(0, 1, n)})  # noise: no relation to the release
    return external, release


def test_learned_weights_ignore_the_noise_key_and_link_at_least_as_well():
    external, release = _noise_frame(400, 1)
    result = attack.mass_attack(external, release, keys=["signal:metric", "noise:metric"], external_id="id",
                                release_id="id", tau=0.5, method="hungarian", learn_weights=0.25,
                                seed=3)
    learned = result.figures["learned_weights"]
    weights = learned["weights"]
    assert weights["noise"] < 0.05 * weights["signal"]
    assert learned["units_known"] == 100
    assert learned["external_records_held_out"] == 300 and learned["release_records_held_out"] == 300
    assert result.figures["n_verifiable"] == 300
    fixed = learned["fixed_weights"]
    assert fixed["n_verifiable"] == 300
    assert result.figures["reidentification_rate"] >= fixed["reidentification_rate"]
    assert result.figures["reidentification_rate"] > fixed["reidentification_rate"] + 0.2  # noise hurts a lot
    assert learned["separated_learned"] >= learned["separated_given"]
    again = attack.mass_attack(external, release, keys=["signal:metric", "noise:metric"], external_id="id",
                               release_id="id", tau=0.5, method="hungarian", learn_weights=0.25,
                               seed=3)
    assert again.to_dict() == result.to_dict()


def test_learned_weights_refused_for_fellegi_sunter_and_bad_shares():
    external, release = _noise_frame(20, 2)
    for share, intruder in ((0.0, "distance"), (1.0, "distance"), (0.5, "fellegi-sunter")):
        with pytest.raises(InputError):
            attack.mass_attack(external, release, keys=["signal:metric"], external_id="id", release_id="id",
                               tau=0.5, learn_weights=share, intruder=intruder)


def _write(tmp_path, n=120, seed=4):
    external, release = _noise_frame(n, seed)
    ext, rel = tmp_path / "ext.csv", tmp_path / "rel.csv"
    external.to_csv(ext, index=False)
    release.to_csv(rel, index=False)
    return ext, rel


def test_cli_and_report_show_the_learned_weights(tmp_path):
    import json

    from click.testing import CliRunner

    from attack.cli import main

    ext, rel = _write(tmp_path)
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    args = ["link", "--external", ext, "--release", rel, "--external-id", "id", "--release-id", "id",
            "--key", "signal:metric", "--key", "noise:metric", "--learn-weights", "0.3", "--seed", "1",
            "--json", out, "--html", html, "--quiet"]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(out.read_text())
    assert doc["learned_weights"]["units_known"] == 36 and doc["n_verifiable"] == 84
    assert doc["learned_weights"]["weights"]["noise"] < 0.1
    assert "learned weights (36 units known)" in html.read_text()
    bad = CliRunner().invoke(main, [str(a) for a in args[:-7] + ["--learn-weights", "1", "--quiet"]])
    assert bad.exit_code == 2


def test_scenario_key_learn_weights(tmp_path):
    ext, rel = _write(tmp_path)
    scenario = tmp_path / "s.toml"
    scenario.write_text(f"""title = "learned"
[data]
external = {{ path = "{ext.name}", id = "id" }}
release = {{ path = "{rel.name}", id = "id" }}
[linkage]
keys = ["signal:metric", "noise:metric"]
learn_weights = 0.3
seed = 1
[evaluation]
tau = 0.5
""")
    result = attack.Scenario.from_toml(scenario).run()
    assert result.runs[0].figures["learned_weights"]["units_known"] == 36
