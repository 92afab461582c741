"""Nothing a user controls can inject markup into a report: file and column names, cell labels,
category values, titles and notes all appear escaped, as text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import attack
from attack.io.table import Table
from attack.report.release import render_tune_html
from attack.study.certificate import build_synthetic

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'


def assert_inert(page: str) -> None:
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page or "&lt;script&gt;" in page


@pytest.fixture(scope="module")
def hostile() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    n = 120
    region = rng.choice([SCRIPT, IMG, "plain"], n)
    turnover = rng.lognormal(5, 1, n)
    original = pd.DataFrame({"unit_id": [f"u{i}" for i in range(n)], "region": region, SCRIPT: turnover,
                             "employees": rng.integers(1, 500, n).astype(float)})
    release = original.assign(**{SCRIPT: turnover * rng.lognormal(0, 0.05, n)})
    return original, release


def test_attack_report(hostile) -> None:
    original, release = hostile
    result = attack.mass_attack(Table(original, f"{SCRIPT}.csv"), release, keys=[f"{SCRIPT}:metric", "employees:metric"],
                                blocks=["region"], cells=["region"], external_id="unit_id",
                                release_id="unit_id", tau=0.5, name=f"{IMG} run")
    page = result.to_html()
    assert_inert(page)
    assert "&#34;&gt;&lt;img src=x" in page  # shown as text


def test_scenario_report_title_and_notes(tmp_path, hostile) -> None:
    original, release = hostile
    for name, frame in (("ext", original), ("rel", release)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    text = f'''title = "{IMG.replace('"', "'")} {SCRIPT}"
notes = ["{SCRIPT}"]
[data]
external = {{ path = "ext.csv", id = "unit_id" }}
release = {{ path = "rel.csv", id = "unit_id" }}
[linkage]
keys = ["employees:metric"]
block = ["region"]
[evaluation]
tau = 0.5
cells = ["region"]
'''
    path = tmp_path / "hostile.toml"
    path.write_text(text, encoding="utf-8")
    result = attack.Scenario.from_toml(path).run()
    assert_inert(result.to_html())


def test_synthetic_report_and_certificate(hostile) -> None:
    original, release = hostile
    result = attack.attack_synthetic(original.drop(columns="unit_id"), release.drop(columns="unit_id"),
                                     keys=["region", "employees"], targets=[SCRIPT], n_attacks=30,
                                     title=f"{SCRIPT} synthetic")
    assert_inert(result.to_html())
    from attack.report.certificate import render_html

    sealed = build_synthetic(figures=result.figures, inputs=[{"role": "original", "file": f"{IMG}.csv",
                                                              "sha256": "0" * 64, "bytes": 1}])
    assert_inert(render_html(sealed, f"{SCRIPT}.json"))


def test_tuning_report(tmp_path) -> None:
    from attack.study.scenario import load_linkage_scenario as load_scenario
    from attack.study.tuning import tune

    path = tmp_path / "tune.toml"
    path.write_text(f'''title = "{SCRIPT}"
[data]
release = {{ demo = "formal" }}
original = {{ demo = "original" }}
external = {{ demo = "worst_case" }}
demo = {{ n_units = 300, seed = 3 }}
[linkage]
keys = ["turnover:metric"]
[evaluation]
tau = 0.5
cells = ["east_west"]
[tune]
method = "mult-noise"
parameter = "f"
values = [0.1]
params = {{ s = 0.01 }}
columns = ["turnover"]
''', encoding="utf-8")
    scenario = load_scenario(path)
    assert_inert(render_tune_html(tune(scenario).to_dict(), scenario.title))
