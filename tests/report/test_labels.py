"""Human cell labels: the specification as users write it turned into words, by hand."""

from __future__ import annotations

from attack.report.labels import cell_label, class_label, variable_name


def test_hand_made_cell_spec() -> None:
    cell = {"employees:bins=20,50,100,250,500,1000": "[20, 50)", "east_west": "E"}
    assert cell_label(cell) == "employees 20 to under 50, east_west E"


def test_interval_ends_prefixes_and_plain_values() -> None:
    assert class_label("employees:bins=20,50", "[-inf, 20)") == "under 20"
    assert class_label("employees:bins=20,50", "[50, inf)") == "50 or more"
    assert class_label("turnover:bins=0.5,2.5", "[0.5, 2.5)") == "0.5 to under 2.5"
    assert class_label("nace:prefix=2", "C2") == "starting C2"
    assert class_label("region", "[20, 50)") == "[20, 50)"  # not binned: the value as it is
    assert class_label("region", None) == "–"
    assert variable_name("nace:prefix=2") == "nace"
    assert cell_label({}) == "all units"
    assert cell_label({"nace:prefix=2": "C2", "size:bins=10": "[10, inf)"}) == "nace starting C2, size 10 or more"

