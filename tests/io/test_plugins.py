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


def test_a_definition_again_replaces_but_another_instance_is_refused():
    """A class or function defined again (a module reloaded, a test's class re-created) is the
    same plug-in; two instances under one name are two plug-ins."""
    reg: Registry[object] = Registry("toy plug-in", "attack.report")

    def make() -> type:
        class Toy:
            pass
        return Toy

    first, again = make(), make()
    reg.add("toy", first)
    reg.add("toy", again)
    assert reg["toy"] is again and reg.values() == [again]
    reg.add("instance", object())
    with pytest.raises(TypeError, match="registered twice"):
        reg.add("instance", object())


def test_reading_discovers_the_package_once():
    reg: Registry[object] = Registry("toy plug-in", "attack.risk.measures")
    assert "household" not in reg  # discovery imports the modules; their own registry holds them
    from attack.risk.measures import MEASURES

    assert "household" in MEASURES and reg.names() == []
