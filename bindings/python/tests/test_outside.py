"""What a Python host outside the checkout meets: an empty tag, which no {Tagged: t} could ever
name, is refused where its entry is defined (config or add_entry), and nothing is added; paths and
text that are not UTF-8 are refused, never repaired."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

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


def test_a_path_that_is_not_utf8_is_refused_not_repaired(reg: cr.Registry, tmp_path: Path) -> None:
    """Linux file names are bytes: os.fsdecode gives 'app\\udcff.yaml' for b'app\\xff.yaml'. The
    library takes UTF-8 paths only, and used to repair this one into 'app\\ufffd.yaml', the name of
    another file, which it then loaded instead."""
    reg.register_class("C", lambda args: object())
    (tmp_path / os.fsdecode(b"app\xff.yaml")).write_text("A: C\n")
    (tmp_path / "app\ufffd.yaml").write_text("B: C\n")
    for path in (tmp_path / os.fsdecode(b"app\xff.yaml"), os.fsencode(tmp_path) + b"/app\xff.yaml"):
        with pytest.raises(cr.InvalidArgumentError, match=r"path '.*' is not valid UTF-8 \(byte \d+ is 0xff\)"):
            reg.load_file(path)
    with pytest.raises(cr.InvalidArgumentError, match=r"paths\[1\] '"):
        reg.load_files([tmp_path / "app\ufffd.yaml", tmp_path / os.fsdecode(b"app\xff.yaml")])
    assert reg.entries() == []
    reg.load_file(tmp_path / "app\ufffd.yaml")
    assert [e["name"] for e in reg.entries()] == ["B"]


def test_text_that_cannot_be_utf8_is_refused_before_the_library(reg: cr.Registry) -> None:
    """A str holding a lone surrogate (from surrogateescape) has no UTF-8 form: props, entries and
    environments raise at once, and nothing reaches the registry."""
    reg.register_class("C", lambda args: args)
    reg.load_string("T: C\n")
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")
    with pytest.raises(UnicodeEncodeError):
        reg.create("T", text=bad)
    with pytest.raises(UnicodeEncodeError):
        reg.create("T", {bad: 1})
    with pytest.raises(UnicodeEncodeError):
        reg.load_string("E: {ClassName: C, Dependencies: {x: '@${X}'}}", environment={"X": bad})
    assert [e["name"] for e in reg.entries()] == ["T"]


def test_text_that_cannot_be_utf8_says_where_and_what_to_do(reg: cr.Registry) -> None:
    """The UnicodeEncodeError keeps its type and its codec fields (object, start, end) but its
    message names the argument (the place), the lone surrogate (the thing) and how to decode the
    bytes instead (the fix), for names, props (with their key), config text and environments."""
    reg.register_class("C", lambda args: args)
    reg.load_string("T: C\n")
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")
    cases: List[Tuple[Callable[[], object], str]] = [
        (lambda: reg.create(bad), "an entry name"),
        (lambda: reg.create("T", text=bad), "the props string under key 'text'"),
        (lambda: reg.create("T", {"items": [bad]}), "a props list's string"),
        (lambda: reg.create("T", {bad: 1}), "a props key"),
        (lambda: reg.register_class(bad, lambda args: args), "a class name"),
        (lambda: reg.load_string("X: " + bad + "\n"), "the config text"),
        (lambda: reg.load_string("X: C\n", source_name=bad), "source_name"),
        (lambda: reg.load_string("X: C\n", environment={"X": bad}), "an environment value"),
    ]
    for call, place in cases:
        with pytest.raises(UnicodeEncodeError) as caught:
            call()
        error = caught.value
        assert error.encoding == "utf-8"
        assert error.object[error.start : error.end] == "\udce9"
        text = str(error)
        assert place + " holds a lone surrogate" in text, text
        assert "decode the bytes in their real encoding, or with errors='replace'" in text, text
        assert isinstance(error.__cause__, UnicodeEncodeError)
    assert [e["name"] for e in reg.entries()] == ["T"]


def test_a_provider_outliving_its_registry_says_how_to_keep_it() -> None:
    """A provider does not keep its registry open (a singleton holding one would otherwise never be
    collected): once the last reference to the registry is gone, create() raises saying so, and
    what to do, instead of building from a closed registry."""
    import gc

    def build() -> cr.Provider:
        reg = cr.Registry()
        reg.register_class("W", lambda args: args)
        reg.load_string("A: {ClassName: W, Dependencies: {p: {Provider: A}}}\n")
        provider: cr.Provider = reg.create("A")["p"]
        return provider

    provider = build()
    gc.collect()
    with pytest.raises(cr.InvalidArgumentError, match="keep the registry while its providers are in use"):
        provider.create()
    provider.close()


def _missing_entry(name: str) -> None:
    """Run in a worker process: a create that fails there."""
    with cr.Registry() as reg:
        reg.create(name)


def test_errors_survive_pickling_and_process_pools(reg: cr.Registry) -> None:
    """multiprocessing and concurrent.futures pickle a worker's exception to raise it in the
    parent; an error whose class cannot be rebuilt from its pickle broke them (TypeError while
    unpickling, instead of the library's error)."""
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    reg.register_class("C", lambda args: object())
    errors = []
    for call in (
        lambda: reg.create("Nope"),
        lambda: reg.load_string("A: {ClassName: C, Bogus: 1}\nB: [x\n", source_name="app.yaml"),
        lambda: reg.load_file("/nonexistent/app.yaml"),
    ):
        with pytest.raises(cr.Error) as info:
            call()
        errors.append(info.value)
    for error in errors:
        vars(error)["note"] = "kept"
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert (copy.code, copy.message, copy.diagnostics) == (error.code, error.message, error.diagnostics)
        assert str(copy) == str(error) and vars(copy)["note"] == "kept"
    assert isinstance(pickle.loads(pickle.dumps(errors[2])), OSError)
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(cr.NotFoundError, match="no entry named 'Nowhere'") as remote:
            pool.submit(_missing_entry, "Nowhere").result(timeout=60)
    assert remote.value.diagnostics[0].message.startswith("no entry named 'Nowhere'")


class _StrFails(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


@pytest.mark.parametrize(
    "exc,shown",
    [
        # A path decoded with surrogateescape, as os.fsdecode gives for a file name not in UTF-8.
        (FileNotFoundError("cannot open " + os.fsdecode(b"app\xff.yaml")), "FileNotFoundError: cannot open app\\udcff.yaml"),
        (ValueError("a\0b"), "ValueError: a\\0b"),
        (_StrFails(), "_StrFails (its str() failed)"),
    ],
)
def test_a_factory_exception_keeps_its_type_and_text(reg: cr.Registry, exc: BaseException, shown: str) -> None:
    """The text the library keeps for a factory's exception is UTF-8 without NULs: what cannot be
    is escaped, never dropped, and the exception itself stays the error's cause."""

    def failing(args: Dict[str, Any]) -> object:
        raise exc

    reg.register_class("C", failing)
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("C")
    assert str(info.value).endswith("create of class 'C': " + shown)
    assert info.value.__cause__ is exc


def test_any_mapping_is_an_environment(reg: cr.Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """os.environ is a Mapping, not a dict: `environment=os.environ` (or a read-only view) is read
    like a dict; what is not a mapping of str to str is still a TypeError naming what was found."""
    import types

    reg.register_class("C", lambda args: dict(args))
    monkeypatch.setenv("CR_OUTSIDE_HOST", "from-os-environ")
    config = "E: {ClassName: C, Dependencies: {host: '@${CR_OUTSIDE_HOST}'}}"
    reg.load_string(config, environment=os.environ)
    assert reg.create("E") == {"host": "from-os-environ"}
    reg.load_string(config, override=True, environment=types.MappingProxyType({"CR_OUTSIDE_HOST": "view"}))
    assert reg.create("E") == {"host": "view"}
    for bad in ([("CR_OUTSIDE_HOST", "x")], "CR_OUTSIDE_HOST=x", {"CR_OUTSIDE_HOST": 1}):
        with pytest.raises(TypeError, match="environment must be a mapping of str to str"):
            reg.load_string(config, override=True, environment=bad)  # type: ignore[arg-type]
    assert reg.create("E") == {"host": "view"}
