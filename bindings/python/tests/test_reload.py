"""Registry.reload() through the Python binding: changes, kept and destroyed singletons, failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

import controllerreg as cr


class Service:
    __test__ = False

    def __init__(self, args: Dict[str, Any]) -> None:
        self.text = args.get("t")


def test_reload_reports_changes_and_keeps_unchanged_singletons(reg: cr.Registry, tmp_path: Path) -> None:
    destroyed: List[str] = []
    reg.register_class("Service", Service, on_destroy=lambda o: destroyed.append(o.text))
    config = tmp_path / "app.yaml"
    config.write_text(
        "Keep: {ClassName: Service, Lifestyle: singleton, Dependencies: {t: '@keep'}}\n"
        "Edit: {ClassName: Service, Lifestyle: singleton, Dependencies: {t: '@v1'}}\n"
        "Gone: Service\n"
    )
    reg.load_file(str(config))
    keep = reg.create("Keep")
    assert reg.create("Edit").text == "v1"
    unchanged = reg.reload()
    assert unchanged == cr.ReloadChanges()
    assert not unchanged

    config.write_text(
        "Keep: {ClassName: Service, Lifestyle: singleton, Dependencies: {t: '@keep'}}\n"
        "Edit: {ClassName: Service, Lifestyle: singleton, Dependencies: {t: '@v2'}}\n"
        "New: Service\n"
    )
    changes = reg.reload()
    assert isinstance(changes, cr.ReloadChanges)
    assert changes.added == ("New",)
    assert changes.removed == ("Gone",)
    assert changes.changed == ("Edit",)
    assert changes
    assert destroyed == ["v1"]
    assert reg.create("Keep") is keep
    assert reg.create("Edit").text == "v2"


def test_a_failed_reload_raises_every_problem_and_changes_nothing(reg: cr.Registry, tmp_path: Path) -> None:
    reg.register_class("Service", Service)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("A: {ClassName: Service, Lifestyle: singleton, Dependencies: {t: '@a'}}\n")
    b.write_text("B: Service\n")
    reg.load_files([str(a), str(b)])
    first = reg.create("A")
    a.write_text("A: {ClassName: Service, Dependencies: {x: Missing}}\n")
    b.write_text("B: {ClassName: 5}\n")
    with pytest.raises(cr.SchemaError) as info:
        reg.reload()
    assert len(info.value.diagnostics) == 2
    assert any("'Missing'" in d.message for d in info.value.diagnostics)
    assert reg.create("A") is first
    b.unlink()
    with pytest.raises(cr.IoError) as gone:
        reg.reload()
    assert str(b) in str(gone.value)
    assert reg.create("A") is first


def test_children_follow_the_parents_reload(reg: cr.Registry, tmp_path: Path) -> None:
    reg.register_class("Service", Service)
    parent_file = tmp_path / "parent.yaml"
    parent_file.write_text("Base: {ClassName: Service, Dependencies: {t: '@one'}}\n")
    reg.load_file(str(parent_file))
    child = reg.new_child()
    child.load_string("Screen: {ClassName: Service, Dependencies: {b: Base}}")
    parent_file.write_text("Base: {ClassName: Service, Dependencies: {t: '@two'}}\n")
    assert reg.reload().changed == ("Base",)
    assert child.create("Base").text == "two"
    assert child.reload() == cr.ReloadChanges()
    child.close()
