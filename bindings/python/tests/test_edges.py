"""Inputs an outside tester found accepted or misplaced, refused through the Python binding by the
library's own rules (the same functions as the C ABI and the Swift API): a props object without an
object, a source name that could forge message lines, environment names no config can reference, an
XML declaration after whitespace, a binary plist's bad version placed at its bytes."""

from __future__ import annotations

from typing import Any, List

import pytest

import controllerreg as cr


def test_a_foreign_object_without_an_address_is_refused(reg: cr.Registry) -> None:
    seen: List[int] = []

    def make(args: Any) -> object:
        seen.append(1)
        return object()

    reg.register_class("C", make)
    reg.load_string("A: C\n")
    with pytest.raises(cr.InvalidArgumentError, match="object is NULL.*use cr_map_set_null"):
        reg.create("A", view=cr.ForeignObject(0))
    with pytest.raises(cr.InvalidArgumentError, match="use cr_list_push_null"):
        reg.create("A", views=[cr.ForeignObject(0)])
    assert seen == []
    reg.create("A", view=None)
    assert seen == [1]


@pytest.mark.parametrize("name", ["a.yaml\nerror: forged", "tab\there", "del\x7f", "c1\x85", "ls\u2028"])
def test_a_source_name_with_a_control_character_is_refused(reg: cr.Registry, name: str) -> None:
    with pytest.raises(cr.InvalidArgumentError, match="options->source_name.*control character U\\+") as info:
        reg.load_string("A: C\n", source_name=name)
    assert "\n" not in str(info.value)
    assert reg.entries() == []


@pytest.mark.parametrize("bad", ["1BAD", "", "A=B", "A-B", "é"])
def test_environment_names_no_config_can_reference_are_refused(reg: cr.Registry, bad: str) -> None:
    with pytest.raises(cr.InvalidArgumentError, match=r"environment: the variable name .*\[A-Za-z_\]\[A-Za-z0-9_\]\*"):
        reg.load_string('A: {ClassName: C, Dependencies: {p: "@${PORT}"}}\n', environment={"PORT": "80", bad: "x"})
    assert reg.entries() == []


def test_an_xml_declaration_after_whitespace_is_refused(reg: cr.Registry) -> None:
    body = '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict/></plist>\n'
    with pytest.raises(cr.ConfigSyntaxError, match="very first bytes") as info:
        reg.load_string("\n  " + body, "plist", source_name="late.plist")
    problem = info.value.diagnostics[0]
    assert (problem.file, problem.line, problem.column) == ("late.plist", 2, 3)
    reg.load_string(body, "plist")


def test_a_binary_plist_version_is_placed_at_its_bytes(reg: cr.Registry) -> None:
    data = b"bplist01\x09\x08" + bytes([0, 0, 0, 0, 0, 0, 1, 1]) + (1).to_bytes(8, "big") + bytes(8) + (9).to_bytes(8, "big")
    with pytest.raises(cr.ConfigSyntaxError, match="unsupported binary plist version") as info:
        reg.load_string(data, "plist", source_name="v.plist")
    assert info.value.diagnostics[0].column == 6
