"""Tests for the block engines (attack.engines) and their options in the library, the CLI and
scenario files.

The promise under test: the same inputs give the same links, distances and JSON whatever the
engine (in this process, local worker processes, a Dask cluster) and the number of jobs. The
reference is always the plain in-process run (``jobs=1``), a loop over the blocks in order.
Dask tests run on a local cluster bound to 127.0.0.1, started once for the module.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from engine_tasks import fail_on_three, sized_tasks, tag

from attack.cli import main
from attack.datasets.demo import demo_linkage, demo_source
from attack.errors import InputError
from attack.io.jsonio import to_json
from attack.linkage import engines
from attack.linkage.blocking import Block
from attack.linkage.engines import ENGINES, Engine, map_blocks, parse_size
from attack.linkage.link import link
from attack.linkage.solvers import DEFAULT_MEMORY_BUDGET
from attack.risk.evaluation import EvaluationSpec
from attack.risk.mass import AttackInput, run_attack
from attack.study.scenario import scenario_from_dict

try:
    import dask.distributed  # noqa: F401

    HAVE_DASK = True
except ImportError:  # pragma: no cover - CI installs the dask extra with .[test]
    HAVE_DASK = False

DASK_REASON = "dask.distributed is not installed (pip install '.[dask]')"
needs_dask = pytest.mark.skipif(not HAVE_DASK, reason=DASK_REASON)

N_UNITS, SEED = 3000, 1


# --------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture
def parallel_small(monkeypatch):
    """Let the local engine start processes even for tiny inputs, in mixed work units."""
    monkeypatch.setattr(engines, "PARALLEL_MIN_SECONDS", 0)
    monkeypatch.setattr(engines, "CHUNK_CELLS", 5000)


@pytest.fixture(scope="module")
def scheduler():
    """Address of a two-worker Dask cluster on the loopback interface (one per module)."""
    if not HAVE_DASK:
        pytest.skip(DASK_REASON)
    from dask.distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


# --------------------------------------------------------------------------------------------
# map_blocks


def test_engines() -> None:
    assert ENGINES == ("local", "dask")


def test_in_process_keeps_order_and_process() -> None:
    tasks = list(range(10))
    assert map_blocks(tag, tasks, jobs=1) == [(t * t, os.getpid()) for t in tasks]
    assert map_blocks(tag, []) == []
    assert map_blocks(tag, [4], jobs=8) == [(16, os.getpid())]  # one task: no processes


def test_local_processes_keep_task_order() -> None:
    tasks = list(range(12))
    results = map_blocks(tag, tasks, "local", jobs=2)
    assert [r[0] for r in results] == [t * t for t in tasks]
    assert os.getpid() not in {r[1] for r in results}


def test_local_processes_with_sizes_keep_task_order(parallel_small) -> None:
    tasks = sized_tasks()
    results = map_blocks(tag, tasks, jobs=2)
    assert [r[0] for r in results] == [t.index**2 for t in tasks]
    assert os.getpid() not in {r[1] for r in results}


def test_small_runs_stay_in_this_process() -> None:
    results = map_blocks(tag, sized_tasks(), jobs=2)  # 7,800 pairs: far below PARALLEL_MIN_SECONDS
    assert {r[1] for r in results} == {os.getpid()}


def test_largest_first_and_work_units(monkeypatch) -> None:
    tasks = sized_tasks()
    # pairs per task: 12, 3000, 1, 600, 3000, 14, 40, 81 (ties keep their order)
    assert engines.largest_first(tasks) == [1, 4, 3, 7, 6, 5, 0, 2]
    monkeypatch.setattr(engines, "CHUNK_CELLS", 1000)
    units = engines._chunks(tasks)
    assert units[:2] == [[1], [4]]
    assert sorted(i for unit in units for i in unit) == list(range(8))
    assert engines._chunks([1, 2]) == [[0], [1]]  # no sizes: one task per unit


def test_worker_error_propagates() -> None:
    with pytest.raises(ArithmeticError, match="block 3 failed"):
        map_blocks(fail_on_three, list(range(6)), jobs=2)
    with pytest.raises(ArithmeticError, match="block 3 failed"):
        map_blocks(fail_on_three, list(range(6)), jobs=1)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"engine": "spark"}, "unknown engine 'spark'"),
        ({"jobs": 0}, "jobs must be"),
        ({"jobs": 1.5}, "jobs must be"),
        ({"scheduler": "tcp://127.0.0.1:8786"}, "needs the dask engine"),
    ],
)
def test_bad_options(kwargs, needle) -> None:
    with pytest.raises(InputError, match=needle):
        map_blocks(tag, [1, 2], **kwargs)


def test_progress_only_on_a_terminal(monkeypatch, capsys) -> None:
    map_blocks(tag, list(range(5)), jobs=1, progress=True)
    assert capsys.readouterr().err == ""  # pytest's stderr is not a terminal
    monkeypatch.setattr(engines, "_is_terminal", lambda: True)
    map_blocks(tag, list(range(5)), jobs=1, progress=True)
    err = capsys.readouterr().err
    assert "blocks: 100%" in err and "5/5" in err and err.endswith("\n")
    map_blocks(tag, list(range(5)), jobs=1, progress=False)
    assert capsys.readouterr().err == ""


def test_dask_missing_is_an_input_error(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(InputError) as info:
        map_blocks(tag, [1, 2], engine="dask")
    assert str(info.value) == "the dask engine needs the optional extra: pip install 'attack[dask]'"


@needs_dask
def test_dask_keeps_task_order(scheduler, monkeypatch) -> None:
    tasks = list(range(12))
    results = map_blocks(tag, tasks, "dask", scheduler=scheduler)
    assert [r[0] for r in results] == [t * t for t in tasks]
    assert os.getpid() not in {r[1] for r in results}
    monkeypatch.setattr(engines, "CHUNK_CELLS", 1000)
    monkeypatch.setattr(engines, "_is_terminal", lambda: True)  # as_completed path
    results = map_blocks(tag, sized_tasks(), "dask", scheduler=scheduler, progress=True)
    assert [r[0] for r in results] == [t.index**2 for t in sized_tasks()]


@needs_dask
def test_dask_own_local_cluster() -> None:
    """Without a scheduler the engine starts a local cluster of ``jobs`` workers and closes it."""
    tasks = list(range(6))
    results = map_blocks(tag, tasks, "dask", jobs=2)
    assert [r[0] for r in results] == [t * t for t in tasks]
    assert len({r[1] for r in results} - {os.getpid()}) >= 1


@needs_dask
def test_dask_worker_error_propagates(scheduler) -> None:
    with pytest.raises(ArithmeticError, match="block 3 failed"):
        map_blocks(fail_on_three, list(range(6)), "dask", scheduler=scheduler)


@needs_dask
def test_unreachable_scheduler_is_an_input_error() -> None:
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(InputError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
            map_blocks(tag, [1, 2], "dask", scheduler="tcp://127.0.0.1:1")


# --------------------------------------------------------------------------------------------
# engine equality end to end (the demo population)


@pytest.fixture(scope="module")
def demo_input() -> AttackInput:
    external, ext_id = demo_source("external:markus", N_UNITS, SEED)
    release, rel_id = demo_source("formal", N_UNITS, SEED)
    original, orig_id = demo_source("original", N_UNITS, SEED)
    return AttackInput(external, ext_id, release, rel_id, original, orig_id)


DEMO_EVALUATION = EvaluationSpec(cells=(Block("employees", bins=(20.0, 50.0, 100.0)), Block("east_west")))


def _variants(scheduler_address: str | None) -> dict[str, dict]:
    out = {"local, 2 jobs": {"jobs": 2}, "local, all cores": {}}
    if scheduler_address is not None:
        out["dask"] = {"engine": "dask", "scheduler": scheduler_address}
    return out


@pytest.mark.parametrize("method", ["greedy", "hungarian"])
def test_same_links_and_json_whatever_the_engine(demo_input, method, parallel_small, request) -> None:
    linkage = demo_linkage(method)
    reference_links = link(demo_input.external, demo_input.release, linkage, jobs=1)
    assert len(reference_links.solutions) > 50  # many blocks, so the order matters
    reference = run_attack(demo_input, linkage, DEMO_EVALUATION, engine={"jobs": 1})
    expected_json = to_json(reference.figures)
    address = request.getfixturevalue("scheduler") if HAVE_DASK else None
    for name, options in _variants(address).items():
        links = link(demo_input.external, demo_input.release, linkage, **options)
        assert np.array_equal(links.release_row, reference_links.release_row), name
        assert np.array_equal(links.distance, reference_links.distance, equal_nan=True), name
        assert np.array_equal(links.n_best, reference_links.n_best), name
        assert [s.index for s in links.solutions] == list(range(len(reference_links.solutions)))
        engine = {("name" if k == "engine" else k): v for k, v in options.items()}
        outcome = run_attack(demo_input, linkage, DEMO_EVALUATION, engine=engine)
        pd.testing.assert_frame_equal(outcome.links, reference.links)
        assert to_json(outcome.figures) == expected_json, name
    assert "jobs" not in expected_json and "engine" not in expected_json


# --------------------------------------------------------------------------------------------
# CLI and scenario files


@pytest.fixture(scope="module")
def demo_files(tmp_path_factory, demo_input) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("demo")
    paths = {role: folder / f"{role}.csv" for role in ("external", "release", "original")}
    demo_input.external.to_csv(paths["external"], index=False)
    demo_input.release.to_csv(paths["release"], index=False)
    demo_input.original.to_csv(paths["original"], index=False)
    return paths


def link_args(paths: dict[str, Path], method: str = "hungarian") -> list[str]:
    return [
        "link",
        "--external", str(paths["external"]),
        "--release", str(paths["release"]),
        "--original", str(paths["original"]),
        "--external-id", "unit_id",
        "--release-id", "unit_id",
        "--key", "turnover:metric",
        "--key", "employees:metric",
        "--block", "nace:prefix=2",
        "--block", "bbr9",
        "--method", method,
        "--cell", "east_west",
    ]


def invoke(args: list) -> object:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def run_to(tmp_path: Path, args: list, name: str) -> tuple[bytes, bytes]:
    """Run the CLI with --json and --matches; return both files' bytes."""
    json_path, matches_path = tmp_path / f"{name}.json", tmp_path / f"{name}.csv"
    result = invoke(args + ["--json", json_path, "--matches", matches_path])
    assert result.exit_code == 0, result.output
    return json_path.read_bytes(), matches_path.read_bytes()


def test_cli_json_identical_across_engines(tmp_path, demo_files, parallel_small, request) -> None:
    args = link_args(demo_files)
    reference = run_to(tmp_path, args + ["--jobs", "1"], "one")
    assert run_to(tmp_path, args + ["--jobs", "2"], "two") == reference
    assert run_to(tmp_path, args, "all") == reference
    assert run_to(tmp_path, args + ["--memory-budget", "512MiB"], "budget") == reference
    if HAVE_DASK:
        address = request.getfixturevalue("scheduler")
        assert run_to(tmp_path, args + ["--engine", "dask", "--scheduler", address], "dask") == reference
    assert b"jobs" not in reference[0] and b"engine" not in reference[0]


@pytest.fixture
def recorded(monkeypatch) -> dict:
    """Replace the block engine behind link() by one that records its options."""
    from attack.linkage import link as linkage

    seen: dict = {}

    def record(func, tasks, engine="local", **options):
        seen.update(options, engine=engine, budgets={t.memory_budget for t in tasks})
        return map_blocks(func, tasks, "local", jobs=1)

    monkeypatch.setattr(linkage, "map_blocks", record)
    return seen


def test_cli_options_reach_the_engine(tmp_path, demo_files, recorded) -> None:
    run_to(tmp_path, link_args(demo_files) + ["--jobs", "3", "--memory-budget", "512MiB"], "a")
    assert recorded == {"engine": "local", "jobs": 3, "scheduler": None, "progress": True,
                        "budgets": {512 * 2**20}}
    run_to(tmp_path, link_args(demo_files), "b")
    assert recorded["jobs"] is None and recorded["budgets"] == {DEFAULT_MEMORY_BUDGET}
    run_to(tmp_path, link_args(demo_files) + ["--engine", "dask", "--scheduler", "tcp://10.0.0.1:8786"], "c")
    assert recorded["engine"] == "dask" and recorded["scheduler"] == "tcp://10.0.0.1:8786"


SCENARIO = """\
[data]
external = {{ demo = "external:markus" }}
release = {{ demo = "formal" }}
original = {{ demo = "original" }}
demo = {{ n_units = 3000, seed = 1 }}

[linkage]
keys = ["turnover:metric", "employees:metric"]
block = ["nace:prefix=2", "bbr9"]

{engine}
"""


def test_scenario_engine_table_and_overrides(tmp_path, recorded) -> None:
    path = tmp_path / "s.toml"
    engine = '[engine]\nname = "dask"\njobs = 3\nscheduler = "tcp://10.0.0.1:8786"\nmemory_budget = "1GiB"'
    path.write_text(SCENARIO.format(engine=engine))
    out = tmp_path / "r.json"
    assert invoke(["run", path, "--json", out]).exit_code == 0
    assert recorded == {"engine": "dask", "jobs": 3, "scheduler": "tcp://10.0.0.1:8786", "progress": True,
                        "budgets": {2**30}}
    result = invoke(["run", path, "--json", out, "--engine", "local", "--jobs", "1", "--memory-budget", "1048576"])
    assert result.exit_code == 0, result.output
    assert recorded == {"engine": "local", "jobs": 1, "scheduler": None, "progress": True, "budgets": {2**20}}
    result = invoke(["run", path, "--json", out, "--scheduler", "tcp://10.0.0.2:8786"])
    assert recorded["engine"] == "dask" and recorded["scheduler"] == "tcp://10.0.0.2:8786"


def test_scenario_engine_settings() -> None:
    base = {"data": {"external": {"demo": "worst_case"}, "release": {"demo": "formal"}},
            "linkage": {"keys": ["turnover:metric"]}}
    assert scenario_from_dict(base).engine == Engine()
    scenario = scenario_from_dict({**base, "engine": {"name": "local", "jobs": 2, "memory_budget": "1KiB"}})
    assert scenario.engine == Engine(name="local", jobs=2, memory_budget=1024)
    for table, field, needle in [
        ({"name": "spark"}, "engine.name", "'spark'"),
        ({"jobs": 0}, "engine.jobs", "greater than or equal to 1"),
        ({"jobs": True}, "engine.jobs", "whole number"),
        ({"scheduler": "tcp://127.0.0.1:1"}, "engine.scheduler", "needs name = 'dask'"),
        ({"memory_budget": "lots"}, "engine.memory_budget", "memory size 'lots'"),
        ({"threads": 2}, "engine.threads", "unknown field 'threads'"),
    ]:
        with pytest.raises(InputError, match=needle) as info:
            scenario_from_dict({**base, "engine": table})
        assert info.value.field == field


@pytest.mark.parametrize(
    ("text", "size"),
    [("2GiB", 2 * 2**30), ("512MiB", 512 * 2**20), ("4096", 4096), (4096, 4096), ("1.5GB", 1_500_000_000),
     ("64kib", 65536), ("2 G", 2 * 2**30)],
)
def test_parse_size(text, size) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "0", "-1", "2XB", "", "1e400", "GiB"])
def test_parse_size_rejects(text) -> None:
    with pytest.raises(InputError, match="memory size"):
        parse_size(text)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--memory-budget", "lots"], "Invalid value for '--memory-budget'"),
        (["--memory-budget", "0"], "Invalid value for '--memory-budget'"),
        (["--jobs", "0"], "Invalid value for '--jobs'"),
        (["--engine", "spark"], "Invalid value for '--engine'"),
        (["--scheduler", "tcp://127.0.0.1:1"], "a scheduler address needs the dask engine"),
    ],
)
def test_cli_bad_engine_options_exit_2(tmp_path, demo_files, extra, needle) -> None:
    out = tmp_path / "r.json"
    result = invoke(link_args(demo_files) + extra + ["--json", out])
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()


def test_cli_dask_missing_is_one_line(tmp_path, demo_files, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    out = tmp_path / "r.json"
    result = invoke(link_args(demo_files) + ["--engine", "dask", "--json", out])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "attack: error: the dask engine needs the optional extra: pip install 'attack[dask]'\n"
    )
    assert not out.exists()


class Stop(Exception):
    """Ends a run once the options of interest are recorded."""


def test_demo_jobs_option(tmp_path, monkeypatch) -> None:
    from attack.study import scenario

    seen = []

    def record(*args, **options):
        seen.append(options)
        raise Stop

    monkeypatch.setattr(scenario, "run_attack", record)
    with pytest.raises(Stop):
        invoke(["demo", "--units", "100", "--out", tmp_path, "--jobs", "2"])
    assert seen[0]["engine"] == {"jobs": 2, "progress": True}


def test_progress_in_a_notebook_without_ipywidgets_is_a_text_bar(monkeypatch) -> None:
    import importlib.util
    import warnings

    import tqdm.auto
    import tqdm.notebook
    import tqdm.std

    from attack.linkage.engines import progress_bar

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(tqdm.auto, "tqdm", tqdm.notebook.tqdm)  # as tqdm.auto picks it in Jupyter
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ipywidgets" else real_find_spec(name, *a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = progress_bar(3, True)
    assert type(bar) is tqdm.std.tqdm
    bar.close()
