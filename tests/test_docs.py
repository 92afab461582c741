"""The documentation cannot drift from the code: every Python block in ``docs/`` and the README
runs, and no file of the project names a document the project does not contain."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
_BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)
#: Where a cited document may be looked up.
_SEARCH = ("", "docs")
#: Text files of the project that may cite documents.
_CITING = ("attack", "docs", "scenarios", "tests", "benchmarks", "README.md", "reports", ".ci")
_DOCUMENT = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md)\b")


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a page, in order."""
    return _BLOCK.findall(page.read_text(encoding="utf-8"))


def needs_ui(page: Path) -> bool:
    """Whether a page's blocks use the web interface, which is an optional extra: those pages run
    in tests/ui/test_pages.py, which CI collects once the extra is installed."""
    return any("attack.ui" in block for block in python_blocks(page))


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p) and not needs_ui(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_run(page, tmp_path, monkeypatch):
    run_blocks(page, tmp_path, monkeypatch)


def run_blocks(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of one page run in order in one namespace, in an empty working folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": "__docs__"}
    for number, block in enumerate(python_blocks(page), 1):
        try:
            exec(compile(block, f"{page.name} block {number}", "exec"), namespace)
        except Exception as exc:  # name the block that failed
            raise AssertionError(f"{page.relative_to(ROOT)}, block {number}: {exc!r}") from exc


def _project_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *_CITING],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()
    return [ROOT / f for f in listed if (ROOT / f).is_file() and (ROOT / f).suffix in
            {".py", ".md", ".toml", ".j2", ".html", ".txt", ".yml", ".json", ""}]


def _exists(reference: str, source: Path) -> bool:
    candidates = [source.parent / reference] + [ROOT / base / reference for base in _SEARCH]
    return any(c.is_file() for c in candidates)


def test_every_cited_document_is_in_the_project():
    missing = []
    for path in _project_files():
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for reference in _DOCUMENT.findall(line):
                if not _exists(reference, path):
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {reference}")
    assert not missing, "documents cited but not in the project:\n" + "\n".join(missing[:50])


def test_the_reference_check_sees_a_missing_document(tmp_path):
    page = ROOT / "docs" / "method" / "linkage.md"
    assert _exists("method/linkage.md", ROOT / "README.md") == page.is_file()
    assert not _exists("METHOD.md", ROOT / "attack" / "cli.py")
    assert _DOCUMENT.findall("see METHOD.md §5 and docs/method/risk.md.") == ["METHOD.md", "docs/method/risk.md"]


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)", svg)


def test_figures_are_made_by_the_script_from_real_runs(tmp_path):
    """Every figure a page shows is listed by docs/figures/make_figures.py, and running the script
    again gives figures with the same texts (labels, ticks, legends): they match the code."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_figures", ROOT / "docs" / "figures" / "make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shown = {m for page in PAGES for m in re.findall(r"figures/([\w-]+\.svg)", page.read_text(encoding="utf-8"))}
    assert shown and shown <= set(module.FIGURES)
    module.main(tmp_path)
    for name in module.FIGURES:
        committed = (ROOT / "docs" / "figures" / name).read_text(encoding="utf-8")
        assert _texts((tmp_path / name).read_text(encoding="utf-8")) == _texts(committed), name
