"""Public names imported on first use: the module named in the table is imported only when its
name is first asked for, and the value is kept in the module's globals."""

from __future__ import annotations

import sys

import pytest

from attack.io.lazy import lazy_names


def test_a_name_is_imported_on_first_use_and_kept():
    namespace: dict = {"__name__": "probe"}
    getattr_, dir_ = lazy_names({"dumps": ("json", "dumps"), "Fraction": ("fractions", "Fraction")}, namespace)
    assert dir_() == ["Fraction", "__name__", "dumps"]
    assert getattr_("dumps") is sys.modules["json"].dumps
    assert namespace["dumps"] is sys.modules["json"].dumps
    with pytest.raises(AttributeError, match="module 'probe' has no attribute 'loads'"):
        getattr_("loads")
