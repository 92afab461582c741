"""The package layout: subpackages import only downward, no module imports itself in a circle,
and each test file under ``tests/<subpackage>/`` is named after the module it tests.

Every ``import``/``from ... import`` counts, also those inside functions, and so does every
``"attack.<module>:<name>"`` string resolved at run time.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "attack"
TESTS = Path(__file__).resolve().parent

#: The layer of each subpackage; a module may import its own subpackage and lower layers only.
LAYERS = {
    "errors": 0, "_version": 0, "defaults": 0, "_loops": 0, "verdict": 0,
    "io": 1,
    "report": 2,
    "linkage": 3,
    "risk": 4, "generation": 4,
    "protect": 5, "utility": 5, "synthetic_attacks": 5,
    "datasets": 6,
    "study": 7,
    "__init__": 8, "cli": 8, "__main__": 8, "_cli": 8, "ui": 8, "_precompile": 8, "vocabulary": 8, "frontend": 8,
}
TOP_LEVEL = {"__init__.py", "__main__.py", "_version.py", "cli.py", "defaults.py", "errors.py", "verdict.py",
             "_precompile.py", "_loops.py", "vocabulary.py", "frontend.py"}
_TARGET = re.compile(r"^attack(?:\.[A-Za-z_][A-Za-z0-9_]*)+:")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _TARGET.match(node.value):
            found.add(node.value.split(":", 1)[0])
    return {name for name in found if name == "attack" or name.startswith("attack.")}


def _graph() -> nx.DiGraph:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(path):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                graph.add_edge(name, target)
    return graph


def _group(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def test_top_level_holds_only_the_api_and_subpackages():
    loose = {p.name for p in PACKAGE.glob("*.py")} - TOP_LEVEL
    assert not loose, f"modules outside a subpackage: {sorted(loose)}"
    for folder in (p for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert folder.name in LAYERS, f"subpackage {folder.name} has no layer"


def test_subpackages_import_only_downward():
    bad = []
    for source, target in _graph().edges:
        a, b = _group(source), _group(target)
        if a == b:
            continue
        if LAYERS[b] > LAYERS[a] or (LAYERS[a] == LAYERS[b] == 5 and a != b):
            bad.append(f"{source} -> {target}")
    assert not bad, "imports against the layers:\n" + "\n".join(sorted(bad))


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(_graph()))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles[:10])


@pytest.mark.parametrize("snippet, expected", [
    ("from attack.risk import stats", {"attack.risk", "attack.risk.stats"}),
    ("def f():\n    import attack.linkage.link", {"attack.linkage.link"}),
    ("X = 'attack.protect.noise:hoehne_noise'", {"attack.protect.noise"}),
])
def test_the_import_scanner_sees_every_form(tmp_path, snippet, expected):
    path = PACKAGE / "risk" / "_layout_probe.py"
    try:
        path.write_text(snippet)
        assert _imports(path) == expected
    finally:
        path.unlink()


def misnamed_tests(tests: Path, package: Path) -> list[str]:
    """Test files ``<subpackage>/test_<name>.py`` under ``tests`` with neither a module
    ``<subpackage>/<name>.py`` nor a subpackage ``<subpackage>/<name>/`` under ``package``."""
    return [path.relative_to(tests).as_posix() for path in sorted(tests.glob("*/test_*.py"))
            if not ((package / path.parent.name / f"{path.stem.removeprefix('test_')}.py").is_file()
                    or (package / path.parent.name / path.stem.removeprefix("test_")).is_dir())]


def test_test_files_are_named_after_their_module():
    """Cross-cutting tests (the command line, the docs, the layout) live at the top of tests/."""
    assert misnamed_tests(TESTS, PACKAGE) == []


def test_no_two_test_files_share_a_name():
    """pytest imports test files by their base name (tests/ has no __init__.py), so two files of one
    name in different folders stop the whole run with "import file mismatch"."""
    where: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        where.setdefault(path.name, []).append(str(path.relative_to(TESTS)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_a_topic_named_test_file_is_found(tmp_path):
    for path in ("attack/io/readers.py", "attack/linkage/keys/__init__.py", "tests/io/test_readers.py",
                 "tests/io/test_dialects.py", "tests/linkage/test_keys.py", "tests/nowhere/test_x.py",
                 "tests/io/conftest.py", "tests/test_cli.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).touch()
    assert misnamed_tests(tmp_path / "tests", tmp_path / "attack") == ["io/test_dialects.py", "nowhere/test_x.py"]


def test_no_class_name_is_defined_twice():
    """One concept, one name: a class name (private ones included) is defined in one module only."""
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(_module_name(path))
    assert {name: modules for name, modules in where.items() if len(modules) > 1} == {}
