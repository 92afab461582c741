"""Roles of release columns (docs/method/roles.md): the conservative inference rule on a
generated household survey shaped like sdcMicro's testdata, direct identifiers, declarations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attack.errors import InputError
from attack.risk.roles import assign_roles
from attack.risk.targets import Target


def _survey(n: int = 400, seed: int = 3) -> pd.DataFrame:
    """Persons in households: codes, a household id shared by members, two weights, numbers."""
    rng = np.random.default_rng(seed)
    household = np.repeat(np.arange(n // 4), 4)
    return pd.DataFrame({
        "urbrur": rng.integers(1, 3, n), "roof": rng.integers(1, 6, n), "sex": rng.integers(1, 3, n),
        "age": rng.integers(0, 95, n), "expend": rng.gamma(2, 5e6, n), "income": rng.gamma(2, 3e6, n),
        "savings": rng.gamma(2, 1e5, n), "ori_hid": household, "sampling_weight": np.full(n, 100),
        "household_weights": rng.integers(20, 40, n), "rec_id": [f"r{i:05d}" for i in range(n)],
    })


def _roles(frame: pd.DataFrame, **kw):
    settings = {"declared": {}, "targets": None, "id_columns": (), "key_columns": (), "code_columns": (),
                "cell_columns": ()} | kw
    return assign_roles(frame, frame, **settings)


def test_ids_weights_clusters_and_numeric_codes_are_never_default_targets():
    roles = _roles(_survey())
    role = {c.column: c.role for c in roles.columns}
    assert [t.name for t in roles.targets] == ["age", "expend", "income", "savings"]
    assert role["ori_hid"] == "cluster_id"
    assert role["sampling_weight"] == role["household_weights"] == "weight"
    assert role["urbrur"] == role["roof"] == role["sex"] == "other"
    assert role["rec_id"] == "direct_identifier"
    assert roles.blocking_identifiers == ("rec_id",)
    assert all(c.inferred for c in roles.columns)


def test_declarations_win_and_are_recorded():
    roles = _roles(_survey(), declared={"sampling_weight": "target", "age": "stratum"}, harmless=("rec_id",))
    role = {c.column: (c.role, c.inferred) for c in roles.columns}
    assert role["sampling_weight"] == ("target", False) and role["age"] == ("stratum", False)
    assert [t.name for t in roles.targets] == ["sampling_weight"]
    assert roles.blocking_identifiers == () and roles.to_dict()["harmless"] == ["rec_id"]
    declared = _roles(_survey(), targets=[Target("income", "numeric")])
    assert [t.name for t in declared.targets] == ["income"]
    with pytest.raises(InputError, match="not in the release"):
        _roles(_survey(), declared={"nope": "weight"})


def test_a_unique_column_agreeing_with_the_external_identifiers_is_a_direct_identifier():
    frame = pd.DataFrame({"unit": [f"u{i}" for i in range(30)], "code_x": [f"E{i}" for i in range(30)],
                          "turnover": np.arange(30) * 1.5 + 3})
    external = np.array([f"E{i}" for i in range(30)], dtype=object)
    roles = _roles(frame, id_columns=("unit",), external_ids=external)
    role = {c.column: c.role for c in roles.columns}
    assert role == {"unit": "unit_id", "code_x": "direct_identifier", "turnover": "target"}
    assert "agrees with the external" in roles.by_name["code_x"].reason
    # named like a direct identifier: caught whatever it holds
    assert _roles(pd.DataFrame({"soc_sec_id": [1, 1, 2]})).columns[0].role == "direct_identifier"
