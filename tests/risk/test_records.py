"""Risk per release record (attack/risk/records.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.linkage.link import link
from attack.linkage.settings import Linkage
from attack.risk.mass import mass_attack
from attack.risk.records import records_table, runner_up


def files(seed: int = 0, n: int = 150) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    release = pd.DataFrame({"unit": [f"u{i}" for i in range(n)], "x": rng.normal(size=n), "y": rng.normal(size=n),
                            "region": rng.choice(["n", "s"], n), "code": rng.choice(["a", "b", "c"], n),
                            "w": rng.lognormal(size=n), "v": rng.lognormal(size=n)})
    external = release.iloc[: n - 20].assign(x=lambda d: d["x"] + rng.normal(0, 0.05, len(d)),
                                             y=lambda d: d["y"] + rng.normal(0, 0.3, len(d)))
    return external[["unit", "x", "y", "region", "code"]], release.sample(frac=1.0, random_state=seed)


def brute_runner_up(links) -> np.ndarray:
    """Per linked external record, the smallest cost to any other release record of its block."""
    out = np.full(links.release_row.size, np.nan)
    for block in links.blocking:
        cost = links.model.subset(block.external, block.release).cost(
            np.arange(block.external.size), np.arange(block.release.size))
        for i, row in enumerate(block.external):
            if links.release_row[row] >= 0:
                others = block.release != links.release_row[row]
                out[row] = cost[i, others].min() if others.any() else np.inf
    return out


@pytest.mark.parametrize("keys", [["x:metric", "y:metric"], ["x:metric", "code:nominal"],
                                  ["x:metric:1:absolute"]])
def test_runner_up_is_the_nearest_other_release_record(keys: list[str]) -> None:
    external, release = files()
    links = link(external, release, Linkage.model_validate({"keys": keys, "block": ["region"]}))
    assert links.linked.any()
    np.testing.assert_allclose(runner_up(links), brute_runner_up(links), rtol=1e-9, atol=1e-12)


def test_runner_up_counts_only_candidate_pairs_of_blocking_passes() -> None:
    external, release = files(3)
    links = link(external, release, Linkage.model_validate({"keys": ["x:metric", "y:metric"],
                                                            "block": ["region|code"]}))
    expected = np.full(links.release_row.size, np.nan)
    for block in links.blocking:
        assert block.pairs is not None
        cost = links.model.subset(block.external, block.release).cost(
            np.arange(block.external.size), np.arange(block.release.size))
        cost[~block.pairs.toarray().astype(bool)] = np.inf
        for i, row in enumerate(block.external):
            if links.release_row[row] >= 0:
                cost[i, block.release == links.release_row[row]] = np.inf
                expected[row] = cost[i].min()
    np.testing.assert_allclose(runner_up(links), expected, rtol=1e-9)


def test_runner_up_of_the_fellegi_sunter_intruder() -> None:
    external, release = files(2)
    links = link(external, release, Linkage.model_validate({"keys": ["x:metric", "code:nominal"],
                                                            "intruder": "fellegi-sunter"}))
    np.testing.assert_allclose(runner_up(links), brute_runner_up(links), rtol=1e-9, atol=1e-12)


def test_records_of_one_attack() -> None:
    external, release = files(1)
    result = mass_attack(external, release, keys=["x:metric", "y:metric", "code:nominal"], blocks=["region"],
                         external_id="unit", release_id="unit", tau=0.5, targets=["w", "v"], records=True)
    records = result.records
    assert records is not None and len(records) == len(release)
    assert records["release_id"].tolist() == release["unit"].tolist()  # release order
    # re-identified records are the correct links, and they count as the hit rate says
    assert int(records["reidentified"].sum()) == result.figures["n_correct"]
    linked = result.links.set_index("release_id")
    hit = records[records["reidentified"]]
    assert linked.loc[hit["release_id"], "correct"].all()
    np.testing.assert_allclose(hit["match_probability"], linked.loc[hit["release_id"], "match_probability"])
    assert records.loc[~records["linked"], "margin"].isna().all()
    # formal release: every correctly linked value is the true one, so every target is disclosed
    assert set(hit["disclosed γ=0.1"]) == {"w;v"}
    assert (records.loc[~records["reidentified"], "disclosed γ=0.1"] == "").all()
    # frequency risk 1/f_k of the release's combination of code and region
    f = release.groupby(["code", "region"])["unit"].transform("size").to_numpy()
    np.testing.assert_allclose(records["frequency_risk"], 1.0 / f)
    assert "records" not in result.to_dict()


def test_any_intruder_columns() -> None:
    one = pd.DataFrame({"release_id": ["a", "b", "c"], "linked": [True, True, False],
                        "reidentified": [True, False, False], "match_probability": [0.7, 0.9, np.nan],
                        "margin": [0.1, 0.0, np.nan], "disclosed γ=0.1": ["w", "", ""]})
    two = one.assign(reidentified=[True, True, False], match_probability=[0.95, 0.4, np.nan],
                     **{"disclosed γ=0.1": ["v", "w", ""]})
    table = records_table([("first", one), ("second", two)])
    assert table.columns[0] == "release_id" and "first: margin" in table.columns
    assert table["any: reidentified"].tolist() == [True, True, False]
    np.testing.assert_allclose(table["any: match_probability"], [0.95, 0.4, np.nan])
    assert table["any: disclosed γ=0.1"].tolist() == ["v;w", "w", ""]
