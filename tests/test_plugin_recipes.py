"""One extension mechanism: keys, protection methods, synthetic attacks, frequency-risk measures
and UI pages are each kept in an ``attack.io.plugins.Registry`` that discovers the modules of one
package, and the five recipes of docs/contributing/ state the same registration rule. Each recipe
is followed on a toy plug-in by its own test (named below) and by its page's Python block
(tests/test_docs.py runs it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attack.io.plugins import Registry

ROOT = Path(__file__).resolve().parents[1]


def _registries() -> dict[str, tuple[Registry, str]]:
    """Recipe -> (its registry, its package)."""
    from attack.linkage.keys import KEY_TYPES
    from attack.protect.registry import METHODS
    from attack.risk.measures import MEASURES
    from attack.synthetic_attacks.evaluator import ATTACKS

    # the UI's pages (an optional extra): tests/ui/test_pages.py checks their registry the same way
    return {"docs/contributing/add-a-distance.md": (KEY_TYPES, "attack.linkage.keys"),
            "docs/contributing/add-a-protection-method.md": (METHODS, "attack.protect"),
            "docs/contributing/add-a-synthetic-attack.md": (ATTACKS, "attack.synthetic_attacks"),
            "docs/contributing/add-a-frequency-risk-measure.md": (MEASURES, "attack.risk.measures")}


#: The toy plug-in test of each recipe.
TOY_TESTS = {"docs/contributing/add-a-distance.md": "tests/linkage/test_keys.py", "docs/contributing/add-a-protection-method.md": "tests/protect/test_registry.py",
             "docs/contributing/add-a-synthetic-attack.md": "tests/synthetic_attacks/test_evaluator.py",
             "docs/contributing/add-a-frequency-risk-measure.md": "tests/risk/test_measures.py", "docs/contributing/add-a-ui-page.md": "tests/ui/test_pages.py"}


def _rule(page: str) -> str:
    found = re.search(r"\*\*The registration rule\*\*.*?\n\n", (ROOT / page).read_text(encoding="utf-8"), re.S)
    assert found, f"{page} does not state the registration rule"
    return " ".join(found.group(0).split())


def test_the_five_recipes_state_one_rule() -> None:
    rules = {page: _rule(page) for page in TOY_TESTS}
    assert len(set(rules.values())) == 1, rules


@pytest.mark.parametrize("page", sorted(set(TOY_TESTS) - {"docs/contributing/add-a-ui-page.md"}))
def test_each_kind_has_a_registry_over_its_package_and_a_toy_test(page: str) -> None:
    registry, package = _registries()[page]
    assert isinstance(registry, Registry) and registry.package == package
    assert len(registry) > 0
    assert f"`{package}`" in (ROOT / page).read_text(encoding="utf-8")
    assert (ROOT / TOY_TESTS[page]).is_file()
