"""What a Python host outside the checkout meets: an empty tag, which no {Tagged: t} could ever
name, is refused where its entry is defined (config or add_entry), and nothing is added."""

from __future__ import annotations

import pytest

import controllerreg as cr


@pytest.mark.parametrize(
    "fmt,text",
    [("yaml", "A: {ClassName: C, Tag: ''}\n"), ("json", '{"A": {"ClassName": "C", "Tag": ["x", ""]}}')],
)
def test_an_empty_tag_in_a_config_is_a_schema_error(reg: cr.Registry, fmt: str, text: str) -> None:
    with pytest.raises(cr.SchemaError, match="entry 'A' has an empty tag") as info:
        reg.load_string(text, fmt, source_name="tags")
    problem = info.value.diagnostics[0]
    assert problem.file == "tags" and problem.line == 1
    assert "remove it or give it a name" in problem.message
    assert reg.entries() == []


def test_an_empty_tag_from_code_is_a_schema_error(reg: cr.Registry) -> None:
    reg.register_class("C", lambda args: object())
    for tags in ("", ["screen", ""]):
        with pytest.raises(cr.SchemaError, match="entry 'A' has an empty tag"):
            reg.add_entry("A", "C", tags=tags)
    assert reg.entries() == []
    reg.add_entry("A", "C", tags=["screen", 0])
    reg.load_string("L: {ClassName: C, Dependencies: {all: {Tagged: 0}}}")
    assert [e["name"] for e in reg.entries()] == ["A", "L"]
