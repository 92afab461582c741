"""The command line is a client of the public API: cli.py and its helper package attack._cli
import only ``attack`` and the documented public modules (each name they take is in that
module's ``__all__``), nothing else in the package imports attack._cli, and results and settings
serialise under one name, ``to_dict`` (no method is called ``describe`` or ``as_dict``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import attack

PACKAGE = Path(attack.__file__).parent
ROOT = PACKAGE.parent
#: The modules a front end may import, each with an ``__all__``: the API itself, the settings'
#: vocabulary, the front end's files and text, and the web interface's server (the ui extra).
PUBLIC = ("attack", "attack.vocabulary", "attack.frontend", "attack.ui.server")
#: The command line's own helpers.
OWN = "attack._cli"


def _cli_files() -> list[Path]:
    return [PACKAGE / "cli.py", *sorted((PACKAGE / "_cli").glob("*.py"))]


def _public_names(module: str) -> set[str]:
    """The ``__all__`` of ``module``, read from its source (the ui extra need not be installed)."""
    parts = module.split(".")[1:]
    path = PACKAGE.joinpath(*parts).with_suffix(".py") if parts else PACKAGE / "__init__.py"
    if not path.is_file():
        path = PACKAGE.joinpath(*parts, "__init__.py")
    exported = {name for node in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                for name in ast.literal_eval(node.value)}
    if module == "attack":  # the public modules are reached as attributes of the package too
        exported |= {m.removeprefix("attack.") for m in PUBLIC if m.count(".") == 1}
    return exported


def _private_uses(tree: ast.AST) -> list[str]:
    """What ``tree`` takes from the package outside the public modules and their ``__all__``."""
    bad: list[str] = []
    aliases: dict[str, str] = {}  # local name -> public module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("attack") and alias.name not in PUBLIC:
                    bad.append(f"import {alias.name}")
                elif alias.name in PUBLIC:
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else "attack"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attack"):
            module = node.module or ""
            if module == OWN or module.startswith(OWN + "."):
                continue
            if module not in PUBLIC:
                bad.append(f"from {module} import ...")
                continue
            public = _public_names(module)
            for alias in node.names:
                if alias.name not in public:
                    bad.append(f"from {module} import {alias.name}")
                elif f"attack.{alias.name}" in PUBLIC:
                    aliases[alias.asname or alias.name] = f"attack.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            module = aliases[node.value.id]
            if not node.attr.startswith("__") and node.attr not in _public_names(module):
                bad.append(f"{module}.{node.attr}")
    return bad


def test_the_command_line_imports_only_public_modules():
    bad = {path.relative_to(ROOT).as_posix(): uses for path in _cli_files()
           if (uses := _private_uses(ast.parse(path.read_text(encoding="utf-8"))))}
    assert not bad, f"the command line reaches past the public API: {bad}"


def test_every_public_module_declares_what_it_exports():
    for module in PUBLIC[1:-1]:  # attack.ui.server needs the ui extra; attack's own names: tests/test_api.py
        loaded = importlib.import_module(module)
        for name in loaded.__all__:
            assert getattr(loaded, name) is not None, f"{module}.{name}"
        assert set(loaded.__all__) == set(loaded._LAZY) <= set(dir(loaded))


def test_the_scanner_sees_a_private_import_and_a_private_attribute():
    tree = ast.parse("import attack\nfrom attack.io.writers import json_file\nfrom attack import vocabulary\n"
                     "from attack.frontend import to_json, nothing\nattack.score_links\nvocabulary.parse_key\n"
                     "vocabulary.hidden\n")
    assert _private_uses(tree) == ["from attack.io.writers import ...", "from attack.frontend import nothing",
                                   "attack.score_links", "attack.vocabulary.hidden"]


def test_nothing_outside_the_command_line_imports_its_helpers():
    sources = [p for folder in ("attack", "tests", "tools", "benchmarks") for p in (ROOT / folder).rglob("*.py")]
    bad = []
    for path in sources:
        if path in _cli_files():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                     if isinstance(node, ast.ImportFrom) else [])
            if any(n == OWN or n.startswith(OWN + ".") for n in names):
                bad.append(path.relative_to(ROOT).as_posix())
    assert not bad, f"modules importing {OWN}: {sorted(set(bad))}"


def test_one_serialiser_name():
    """Results and settings serialise with ``to_dict``; ``describe``/``as_dict`` are not methods."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bad += [f"{path.relative_to(ROOT).as_posix()}:{node.name}.{f.name}" for f in node.body
                        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name in ("describe", "as_dict")]
    assert not bad, f"serialise with to_dict: {bad}"


def test_the_settings_types_of_the_public_calls_are_exported():
    assert {"SynthSpec", "tune_synthesis", "Scenario", "SyntheticScenario"} <= set(attack.__all__)
    assert callable(attack.DemoResult.to_dict)
