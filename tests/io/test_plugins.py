"""attack.io.plugins: one way to register a plug-in (discovery, order, refusals)."""

from __future__ import annotations

import pytest

from attack import InputError
from attack.io.plugins import Registry


def test_registry_discovers_registers_and_refuses():
    reg: Registry[object] = Registry("toy plug-in", "attack.report")
    reg.add("b", print)
    reg.add("a", len)
    reg.add("a", len)  # the same object again: a reload, no error
    assert reg.names() == ["b", "a"]
    assert "a" in reg and len(reg) == 2
    with pytest.raises(TypeError, match="registered twice"):
        reg.add("a", print)
    with pytest.raises(InputError, match=r"unknown toy plug-in 'c'.*known: b, a") as caught:
        reg.get("c", field="measure")
    assert caught.value.field == "measure"
    with pytest.raises(InputError, match="did you mean 'a'"):
        reg.get("aa")
    ordered: Registry[int] = Registry("number", "attack.report", order=lambda name, value: value)

    @ordered.register("two")
    def _two():  # the decorator returns what it registers
        return 2

    ordered.add("one", 1)  # type: ignore[arg-type]
    ordered.remove("two")
    assert ordered.names() == ["one"]
