"""Misuse a hostile host may try through the Python binding: dependency keys no host could read,
an empty source name, and a singleton replaced by an override load."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

import controllerreg as cr

Args = Dict[str, Any]

# The same entry with a NUL in a dependency key, in each format that can carry one.
NUL_KEY_CONFIGS = [
    ("json", '{"E": {"ClassName": "C", "Dependencies": {"a\\u0000b": 1}}}'),
    ("yaml", 'E: {ClassName: C, Dependencies: {"a\\0b": 1}}\n'),
    ("json nested", '{"E": {"ClassName": "C", "Dependencies": {"m": {"x\\u0000": 1}}}}'),
]


@pytest.mark.parametrize("fmt,text", NUL_KEY_CONFIGS, ids=[c[0] for c in NUL_KEY_CONFIGS])
def test_nul_in_a_dependency_key_is_refused_at_load(reg: cr.Registry, fmt: str, text: str) -> None:
    with pytest.raises(cr.SchemaError) as info:
        reg.load_string(text, fmt.split()[0], source_name="keys")
    problem = info.value.diagnostics[0]
    assert "must not contain a NUL byte" in problem.message
    assert "rename the key" in problem.message
    assert problem.file == "keys"
    assert reg.entries() == []


def test_nul_in_a_dependency_key_is_refused_from_code(reg: cr.Registry) -> None:
    # A C string cannot carry the key: the binding refuses it before the library sees it.
    for deps in ({"a\0b": 1}, {"m": {"x\0": 1}}):
        with pytest.raises(ValueError, match="NUL"):
            reg.add_entry("E", "C", dependencies=deps)
    assert reg.entries() == []


def test_an_empty_source_name_is_shown_as_string(reg: cr.Registry) -> None:
    with pytest.raises(cr.MissingReferenceError) as info:
        reg.load_string("A: X\nB: {ClassName: X, Dependencies: {a: Missing}}\n", source_name="")
    assert info.value.message.startswith("<string>:2:")
    assert info.value.diagnostics[0].file == "<string>"


def test_a_singleton_replaced_by_an_override_load_is_released(reg: cr.Registry) -> None:
    destroyed: List[str] = []
    reg.register_class("S", lambda args: {"v": args["v"]}, on_destroy=lambda o: destroyed.append(o["v"]))
    reg.load_string("S: {ClassName: S, Lifestyle: singleton, Dependencies: {v: '@old'}}")
    assert reg.create("S") == {"v": "old"}
    reg.load_string("S: {ClassName: S, Lifestyle: singleton, Dependencies: {v: '@new'}}", override=True)
    assert destroyed == ["old"]
    assert reg.create("S") == {"v": "new"}
    reg.close()
    assert destroyed == ["old", "new"]


def test_add_entry_with_tags_description_and_eager(reg: cr.Registry) -> None:
    built: List[str] = []

    def make_s(args: Args) -> str:
        built.append("S")
        return "s"

    reg.register_class("S", make_s)
    reg.register_class("L", lambda args: sorted(map(str, args["all"])))
    reg.add_entry("A", "S", "singleton", description="from code", tags=["screen", 5], eager=True)
    reg.add_entry("B", "S", tags="screen")
    reg.load_string("List: {ClassName: L, Dependencies: {all: {Tagged: screen}}}")
    reg.start()
    assert built == ["S"]  # A, eager
    assert reg.create("List") == ["s", "s"]
    [a] = [e for e in reg.entries() if e["name"] == "A"]
    assert a["description"] == "from code"
    assert a["tags"] == ["screen", 5]
    with pytest.raises(TypeError, match="a tag must be a str or an int"):
        reg.add_entry("Bad", "S", tags=[1.5])  # type: ignore[list-item]
    with pytest.raises(cr.InvalidArgumentError, match="eager is for singletons"):
        reg.add_entry("Bad", "S", eager=True)
    assert [e["name"] for e in reg.entries() if e["name"] == "Bad"] == []


def test_limit_numbers_are_never_wrapped_or_cut(reg: cr.Registry) -> None:
    # 2**32 + 1 used to be cut to 1 (the depth limit) and -5 shown as 4294967291.
    for bad in (2**32 + 1, -5, 10**30, 7):
        with pytest.raises(cr.InvalidArgumentError, match=f"unknown limit {bad}"):
            reg.get_limit(bad)
        with pytest.raises(cr.InvalidArgumentError, match=f"unknown limit {bad}"):
            reg.set_limit(bad, 1)
    assert reg.get_limit(cr.Limit.DEPTH) == 128


def test_a_limit_value_past_64_bits_is_out_of_range_not_an_overflow(reg: cr.Registry) -> None:
    """The library's range error (the type 0 and -1 get), naming the range and the value given."""
    for bad in (2**63, 10**30, -(2**64)):
        with pytest.raises(cr.InvalidArgumentError, match=rf"a limit must be at least 1 and at most {2**63 - 1}, got {bad}"):
            reg.set_limit(cr.Limit.CREATE_DEPTH, bad)
    # The library's own refusal of a small value reads the same way: no C function's name first.
    with pytest.raises(cr.InvalidArgumentError, match=r"^a limit must be at least 1, got 0"):
        reg.set_limit(cr.Limit.CREATE_DEPTH, 0)
    reg.set_limit(cr.Limit.CREATE_DEPTH, 2**63 - 1)
    assert reg.get_limit(cr.Limit.CREATE_DEPTH) == 2**63 - 1


SINGLETON_WITH_PROPS = (
    "cannot create 'Logger': 'Logger' is a singleton, built once from its config: it takes no props"
    " (create it without props, or give the entry another Lifestyle to build one per create)"
)


def test_a_refused_argument_names_no_c_function(reg: cr.Registry) -> None:
    """The library's words without the C function the C door starts them with (a Python caller
    called reg.create, never cr_registry_create_with): the same case as the C test
    refused_arguments_name_the_c_function and the C++ one refused_arguments_name_no_c_function.
    The message and its diagnostic read alike, through the registry and through a provider."""
    reg.register_class("Logger", lambda args: object())
    reg.register_class("Uses", lambda args: args["logger"])
    reg.load_string(
        "Logger: {ClassName: Logger, Lifestyle: singleton}\nUses: {ClassName: Uses, Dependencies: {logger: {Provider: Logger}}}\n"
    )
    with pytest.raises(cr.InvalidArgumentError) as refused:
        reg.create("Logger", level="trace")
    assert str(refused.value) == refused.value.message == SINGLETON_WITH_PROPS
    assert [(d.code, d.file, d.message) for d in refused.value.diagnostics] == [
        (cr.Status.INVALID_ARGUMENT, "", SINGLETON_WITH_PROPS)
    ]
    provider = reg.create("Uses")
    with pytest.raises(cr.InvalidArgumentError) as through_provider:
        provider.create(level="trace")
    assert str(through_provider.value) == SINGLETON_WITH_PROPS
    # Another code without a place reads the same way (the C test keeps the name).
    with pytest.raises(cr.ClassExistsError) as twice:
        reg.register_class("Logger", lambda args: object())
    assert str(twice.value) == (
        "class 'Logger' is already registered: to replace it on purpose, use the replace call"
        " (cr_replace_class; replaceClass in Swift; replace_class in C++; replace=True in Python)"
    )


def test_a_bool_is_never_taken_as_a_limit_or_an_enum_number(reg: cr.Registry) -> None:
    """True is an int to Python, but set_limit(limit, True) or lifestyle=True is a mistake: a
    TypeError naming the method, the argument and the fix, and nothing changes."""
    for call, argument in (
        (lambda: reg.set_limit(cr.Limit.DEPTH, True), "set_limit\\(\\) value"),
        (lambda: reg.set_limit(True, 5), "set_limit\\(\\) limit"),
        (lambda: reg.get_limit(False), "get_limit\\(\\) limit"),
    ):
        with pytest.raises(TypeError, match=argument + r" must be an int, not bool \((True|False)\): pass the number itself"):
            call()
    assert reg.get_limit(cr.Limit.DEPTH) == 128
    reg.register_class("S", lambda args: object())
    with pytest.raises(ValueError, match="unknown lifestyle True"):
        reg.add_entry("A", "S", lifestyle=True)
    with pytest.raises(ValueError, match="unknown format True"):
        reg.load_string("B: S\n", format=True)
    with pytest.raises(TypeError, match="a tag must be a str or an int"):
        reg.add_entry("C", "S", tags=[True])
    assert reg.entries() == []


def test_a_closed_registry_says_it_is_closed_whatever_the_limit_value(reg: cr.Registry) -> None:
    """The order of every method: argument types, then closed, then the values the library checks;
    a value past 64 bits is one of those, as 0 is."""
    reg.close()
    for bad in (0, -1, 2**70, 5):
        with pytest.raises(cr.InvalidArgumentError, match="the registry is closed"):
            reg.set_limit(cr.Limit.DEPTH, bad)
    with pytest.raises(cr.InvalidArgumentError, match="the registry is closed") as closed:
        reg.get_limit(cr.Limit.DEPTH)
    assert "make a new Registry to use one again" in str(closed.value)


def test_load_string_given_no_text_says_what_it_takes(reg: cr.Registry, tmp_path: Path) -> None:
    """A path or None given to load_string is a TypeError naming what it takes and load_file."""
    for bad in (None, tmp_path / "app.yaml", 5):
        with pytest.raises(
            TypeError,
            match=r"load_string: text must be a str or bytes \(the config's text\), not \w+; to read a file, use load_file",
        ):
            reg.load_string(bad)  # type: ignore[arg-type]
    reg.register_class("S", lambda args: args)
    reg.load_string(b"A: S\n")
    reg.load_string("B: S\n")
    assert sorted(e["name"] for e in reg.entries()) == ["A", "B"]


def test_an_on_destroy_that_raises_goes_to_the_unraisable_hook_and_fails_nothing() -> None:
    """A raising on_destroy (a singleton's, at close and at a reload that drops it) is reported to
    sys.unraisablehook with the callback as its object; the close or reload still succeeds and every
    other object is still destroyed."""
    import sys

    seen: List[Any] = []
    destroyed: List[str] = []

    def on_destroy(obj: Dict[str, Any]) -> None:
        destroyed.append(obj["n"])
        raise RuntimeError("cannot let go of " + obj["n"])

    previous = sys.unraisablehook
    sys.unraisablehook = lambda report: seen.append((report.exc_type, str(report.exc_value), report.object))
    try:
        reg = cr.Registry()
        reg.register_class("D", lambda args: dict(args), on_destroy=on_destroy)
        reg.load_string(
            "A: {ClassName: D, Lifestyle: singleton, Dependencies: {n: '@a'}}\nB: {ClassName: D, Lifestyle: singleton, Dependencies: {n: '@b'}}\n"
        )
        reg.create("A")
        reg.create("B")
        reg.remove_entry("A")
        reg.create("B")
        reg.close()
    finally:
        sys.unraisablehook = previous
    assert sorted(destroyed) == ["a", "b"]
    assert sorted(text for _, text, _ in seen) == ["cannot let go of a", "cannot let go of b"]
    assert all(kind is RuntimeError and obj is on_destroy for kind, _, obj in seen)


def test_registry_and_provider_refuse_pickle_and_copy_with_the_fix(reg: cr.Registry) -> None:
    """A registry and a provider hold native state no pickle can carry. pickle, copy.copy and
    copy.deepcopy must fail at once with a TypeError that says what to do instead (Python's own
    message, "cannot pickle 'Registry' object", says neither)."""
    import copy
    import pickle

    providers: List[Any] = []
    reg.register_class("Next", lambda args: object())

    def make_owner(args: Args) -> object:
        providers.append(args["next"])
        return object()

    reg.register_class("Owner", make_owner)
    reg.load_string("Next: Next\nO: {ClassName: Owner, Dependencies: {next: {Provider: Next}}}\n")
    reg.create("O")
    provider = providers[0]
    assert isinstance(provider, cr.Provider)
    for obj, fix in ((reg, "load the same config"), (provider, "provider.name")):
        for attempt in (pickle.dumps, copy.copy, copy.deepcopy):
            with pytest.raises(TypeError) as info:
                attempt(obj)
            assert "cannot be pickled or copied" in str(info.value)
            assert fix in str(info.value)
    # Both still work afterwards.
    assert provider.create() is not None
    assert reg.create("Next") is not None
