"""The evaluator protocol: a family registered from one module runs in ``attack_synthetic``, its
settings come from its own model, and its figures reach the JSON and the report."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pytest
from pydantic import BaseModel, Field

from attack.errors import InputError
from attack.report.synthetic import render_synth_markdown
from attack.risk.stats import success_rate, wilson_interval
from attack.study.synthetic_run import attack_synthetic
from attack.synthetic_attacks.evaluator import (
    AttackEvaluation,
    Check,
    Space,
    register,
    registered,
    unregister,
)
from attack.synthetic_attacks.settings import SynthSpec


class CopiedRowsOptions(BaseModel):
    columns: list[str] = Field(min_length=1)


@dataclass(frozen=True)
class CopiedRows:
    """Toy family: the share of synthetic records that copy an original record on ``columns``."""

    family = "copied_rows"
    order = 70
    options: CopiedRowsOptions
    tau: float

    @classmethod
    def configure(cls, settings: SynthSpec, space: Space) -> CopiedRows | None:
        raw = settings.options.of(cls.family)
        return None if raw is None else cls(CopiedRowsOptions.model_validate(raw), settings.tau)

    def evaluate(self, original: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame | None,
                 seed: int) -> AttackEvaluation:
        seen = set(original[self.options.columns].itertuples(index=False, name=None))
        copied = sum(row in seen for row in synthetic[self.options.columns].itertuples(index=False, name=None))
        rate = success_rate(copied, len(synthetic))
        check = Check(self.family, "copied share", rate.rate, rate.high, self.tau)
        return AttackEvaluation(self.family, {"copied": copied, "n": len(synthetic), "rate": rate.to_dict()}, (check,))


@pytest.fixture
def toy():
    register(CopiedRows)
    yield CopiedRows
    unregister(CopiedRows.family)


ORIGINAL = pd.DataFrame({"a": [1, 2, 3, 4, 5, 6, 7, 8], "b": list("xyxyxyxy")})
#: rows 0-2 copy original records (1x, 2y, 3x); the others do not occur in the original
SYNTHETIC = pd.DataFrame({"a": [1, 2, 3, 1, 9, 9, 2, 5], "b": list("xyxyxyxy")})


def test_a_registered_family_reaches_the_json_and_the_report(toy):
    assert toy in registered()
    result = attack_synthetic(ORIGINAL, SYNTHETIC, n_attacks=5, options={"copied_rows": {"columns": ["a", "b"]}})
    doc = result.to_dict()
    assert doc["copied_rows"]["copied"] == 3  # hand count: (1,x), (2,y), (3,x)
    assert doc["copied_rows"]["rate"]["k"] == 3 and doc["copied_rows"]["n"] == 8
    check = doc["checks"][-1]
    assert check["family"] == "copied_rows" and check["measure"] == "copied share"
    assert check["upper"] == wilson_interval(3, 8)[1]
    assert check["passed"] is False and doc["passed"] is False
    assert doc["settings"]["options"] == {"copied_rows": {"columns": ["a", "b"]}}
    markdown = result.to_markdown()
    assert "## copied_rows" in markdown and "| copied share |" in markdown.replace("  ", " ")
    assert "copied_rows" in result.to_html()


def test_a_family_not_asked_for_stays_out(toy):
    doc = attack_synthetic(ORIGINAL, SYNTHETIC, n_attacks=5).to_dict()
    assert "copied_rows" not in doc and "options" not in doc["settings"]
    assert all(c["family"] != "copied_rows" for c in doc["checks"])


def test_its_settings_are_validated_by_its_own_model(toy):
    with pytest.raises(ValueError, match="columns"):
        attack_synthetic(ORIGINAL, SYNTHETIC, n_attacks=5, options={"copied_rows": {"columns": []}})


def test_two_families_of_one_name_are_refused(toy):
    @dataclass(frozen=True)
    class Other:
        family = "copied_rows"
        order = 1

    with pytest.raises(InputError, match="two synthetic attacks"):
        register(Other)


def test_the_built_in_families_run_in_report_order():
    names = [cls.family for cls in registered()]
    assert names[:6] == ["distance", "singling_out", "linkability", "attribute", "membership", "membership_family"]


def test_the_run_s_own_entries_are_no_family(toy):
    """What a scenario adds about how it made the file is not an attack: no section for it."""
    result = attack_synthetic(ORIGINAL, SYNTHETIC, n_attacks=5)
    document = {**result.to_dict(), "synthesis": {"made_by_scenario": True, "seed": 7}}
    assert "## synthesis" not in render_synth_markdown(document, "t")
    assert "## copied_rows" in render_synth_markdown({**document, "copied_rows": {"copied": 1}}, "t")
