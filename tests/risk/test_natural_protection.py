import json

import numpy as np
import pandas as pd
import pytest

from attack.report.natural_protection import render_markdown
from attack.risk.natural_protection import agreement_profile


def _frames(orig_codes, ext_codes, orig_vals, ext_vals, ext_ids=None):
    n = len(orig_codes)
    original = pd.DataFrame(
        {"uid": [f"U{i}" for i in range(n)], "nace": orig_codes, "turnover": orig_vals}
    )
    external = pd.DataFrame(
        {
            "uid": ext_ids if ext_ids is not None else [f"U{i}" for i in range(n)],
            "nace": ext_codes,
            "turnover": ext_vals,
        }
    )
    return external, original


def test_identical_sources_agree_everywhere():
    original = pd.DataFrame(
        {
            "uid": ["a", "b", "c"],
            "nace": ["1511", "2862", "3350"],
            "bbr9": ["1", "5", "9"],
            "turnover": [100.0, 2500.5, 7.0],
        }
    )
    p = agreement_profile(
        original.copy(), "uid", original, "uid",
        hierarchical=["nace"], categorical=["bbr9"], metric=["turnover"],
    )
    assert p["n_pairs"] == 3
    for k in ("4", "3", "2", "1"):
        assert p["hierarchical"]["nace"][k] == {"same": 3, "n": 3, "share": 1.0}
    assert p["categorical"]["bbr9"] == {
        "same": 3, "different": 0, "missing": 0, "n": 3, "share_same": 1.0
    }
    m = p["metric"]["turnover"]
    assert m["n"] == 3 and m["undefined"] == 0
    assert m["classes"]["< 1%"] == {"count": 3, "share": 1.0}
    assert all(m["classes"][c]["count"] == 0 for c in m["classes"] if c != "< 1%")
    assert all(v["share"] == 1.0 for v in m["below"].values())
    json.dumps(p)  # JSON-ready


def test_hierarchical_prefix_levels():
    ext, orig = _frames(["1511", "15", "2862"], ["1512", "1511", "2862"], [1.0] * 3, [1.0] * 3)
    h = agreement_profile(ext, "uid", orig, "uid", hierarchical=["nace"])["hierarchical"]["nace"]
    # pair 0: 1512 vs 1511 differ at 4, same at 3,2,1; pair 1: "1511" vs "15" only levels <= 2
    assert h["4"] == {"same": 1, "n": 2, "share": 0.5}
    assert h["3"] == {"same": 2, "n": 2, "share": 1.0}
    assert h["2"] == {"same": 3, "n": 3, "share": 1.0}
    assert h["1"] == {"same": 3, "n": 3, "share": 1.0}


def test_custom_levels():
    ext, orig = _frames(["1511", "2511"], ["1512", "1511"], [1.0] * 2, [1.0] * 2)
    p = agreement_profile(ext, "uid", orig, "uid", hierarchical=["nace"], levels=[2])
    assert p["hierarchical"]["nace"] == {"2": {"same": 1, "n": 2, "share": 0.5}}


def test_metric_boundaries_go_to_upper_class():
    o = [100.0] * 8 + [0.0, np.nan, 100.0]
    e = [100.5, 101.0, 105.0, 90.0, 125.0, 150.0, 170.0, 75.0, 3.0, 100.0, np.nan]
    ext, orig = _frames(["1"] * 11, ["1"] * 11, o, e)
    m = agreement_profile(ext, "uid", orig, "uid", metric=["turnover"])["metric"]["turnover"]
    # deviations: .005 .01 .05 .10 .25 .50 .70 .25 ; zero original, NaN original, NaN external
    assert m["n"] == 8 and m["undefined"] == 3
    counts = {c: v["count"] for c, v in m["classes"].items()}
    assert counts == {"< 1%": 1, "1–5%": 1, "5–10%": 1, "10–25%": 1, "25–50%": 2, "≥ 50%": 2}
    assert m["classes"]["25–50%"]["share"] == 0.25
    below = {b: v["count"] for b, v in m["below"].items()}
    assert below == {"1%": 1, "5%": 2, "10%": 3, "25%": 4, "50%": 6}
    assert m["below"]["10%"]["share"] == 0.375
    assert m["below"]["50%"]["share"] == 0.75


def test_zero_original_is_undefined():
    ext, orig = _frames(["1", "1"], ["1", "1"], [0.0, 0.0], [0.0, 5.0])
    m = agreement_profile(ext, "uid", orig, "uid", metric=["turnover"])["metric"]["turnover"]
    assert m["n"] == 0 and m["undefined"] == 2
    assert m["classes"]["< 1%"] == {"count": 0, "share": None}
    json.dumps(m)


def test_missing_and_unknown_ids_are_not_verifiable():
    ext, orig = _frames(
        ["1511", "1511", "1511"], ["9999", "1511", "9999"], [100.0] * 3, [1.0, 100.0, 1.0],
        ext_ids=[None, "U1", "X9"],
    )
    p = agreement_profile(ext, "uid", orig, "uid", hierarchical=["nace"], metric=["turnover"])
    assert p["n_pairs"] == 1
    assert p["hierarchical"]["nace"]["4"] == {"same": 1, "n": 1, "share": 1.0}
    assert p["metric"]["turnover"]["classes"]["< 1%"]["count"] == 1


def test_categorical_missing_counted_separately():
    original = pd.DataFrame({"uid": ["a", "b", "c", "d"], "bbr9": ["1", "2", None, "4"]})
    external = pd.DataFrame({"uid": ["a", "b", "c", "d"], "bbr9": ["1", "3", "3", ""]})
    c = agreement_profile(external, "uid", original, "uid", categorical=["bbr9"])["categorical"]
    assert c["bbr9"] == {"same": 1, "different": 1, "missing": 2, "n": 2, "share_same": 0.5}


def test_csv_text_codes_and_numbers():
    # codes read from CSV as integers / text still compare as codes
    original = pd.DataFrame({"uid": [1, 2], "nace": [1511, 2862], "turnover": ["100", "200"]})
    external = pd.DataFrame({"uid": ["1", "2"], "nace": ["1512", "2862"], "turnover": [104.0, 200.0]})
    p = agreement_profile(
        external, "uid", original, "uid", hierarchical=["nace"], metric=["turnover"]
    )
    assert p["n_pairs"] == 2
    assert p["hierarchical"]["nace"]["4"]["same"] == 1
    assert p["metric"]["turnover"]["below"]["5%"]["count"] == 2


def test_render_markdown():
    ext, orig = _frames(["1511", "2862"], ["1512", "2862"], [100.0, 100.0], [100.0, 120.0])
    ext["bbr9"] = ["1", "2"]
    orig["bbr9"] = ["1", "3"]
    p = agreement_profile(
        ext, "uid", orig, "uid", hierarchical=["nace"], categorical=["bbr9"], metric=["turnover"]
    )
    md = render_markdown(p)
    assert "Verifiable pairs: 2" in md
    assert "| nace | 1/2 (50.0%) | 2/2 (100.0%) |" in md
    assert "| bbr9 | 1 | 1 | 0 | 50.0% |" in md
    assert "| turnover | 2 | 0 | 1 (50.0%)" in md


def test_demo_markus_profile():
    from attack.datasets.demo import demo_source

    pop, pid = demo_source("original", 3000, 1)
    ext, _ = demo_source("external:markus", 3000, 1)
    p = agreement_profile(
        ext, pid, pop, pid,
        hierarchical=["nace"], categorical=["bbr9"], metric=["turnover"],
    )
    assert p["n_pairs"] > 500
    assert 0.18 <= 1 - p["hierarchical"]["nace"]["2"]["share"] <= 0.30
    assert 0.4 <= 1 - p["metric"]["turnover"]["below"]["10%"]["share"] <= 0.6
    assert 1 - p["categorical"]["bbr9"]["share_same"] < 0.05
    json.dumps(p)
    md = render_markdown(p)
    assert sum(line.startswith("|---|") for line in md.splitlines()) == 3


@pytest.mark.parametrize("missing", ["external", "original"])
def test_missing_column_raises(missing):
    from attack.errors import InputError

    ext, orig = _frames(["1"], ["1"], [1.0], [1.0])
    if missing == "external":
        ext = ext.drop(columns="nace")
    else:
        orig = orig.drop(columns="nace")
    with pytest.raises(InputError):
        agreement_profile(ext, "uid", orig, "uid", hierarchical=["nace"])
