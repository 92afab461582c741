"""The certificate schema declares no figure the typed results do not write (one set of names)."""

from __future__ import annotations

import pytest

from attack.io.serial import json_names
from attack.risk.results import (
    AttackFigures,
    CellRisk,
    CombinedCell,
    CombinedRisk,
    NaturalProtectionResult,
    UnitRiskSummary,
)
from attack.study import certificate_schema as schema


@pytest.mark.parametrize("model, typed", [
    (schema.Cell, CellRisk), (schema.Overall, AttackFigures), (schema.Combined, CombinedRisk),
    (schema.UnitRisk, UnitRiskSummary), (schema.CertifiedNaturalProtection, NaturalProtectionResult),
])
def test_every_certified_figure_is_a_field_of_its_typed_result(model, typed):
    assert set(model.model_fields) <= set(json_names(typed)), typed.__name__


def test_a_combined_cell_certifies_the_fields_of_a_cell_it_has():
    assert {"cell", "passed", "disclosure_risk", "n_verifiable", "identity_passed"} <= set(json_names(CombinedCell))
