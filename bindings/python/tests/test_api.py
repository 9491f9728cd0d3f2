"""Injection, entries from code, listing, limits, errors and diagnostics, the singleton cache."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import controllerreg as cr
from conftest import Test2ViewController

Args = Dict[str, Any]


class Screen:
    """Made by something else (a storyboard); the registry only fills it in."""

    def __init__(self) -> None:
        self.title = ""


def test_inject_sets_attributes_without_a_setter(reg: cr.Registry) -> None:
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Screen", lambda args: Screen())
    reg.load_string("T2: Test2ViewController\nS: {ClassName: Screen, Dependencies: {title: '@Hello', next: T2, n: 3}}")
    screen = Screen()
    reg.inject("S", screen)
    assert screen.title == "Hello" and vars(screen)["n"] == 3  # attributes it did not have
    nxt = vars(screen)["next"]
    assert isinstance(nxt, Test2ViewController)
    ref = weakref.ref(nxt)
    del nxt, screen
    gc.collect()
    assert ref() is None  # the injected object belonged to the screen only


def test_inject_through_setters(reg: cr.Registry) -> None:
    calls: List[Tuple[Any, str, Any]] = []
    reg.register_class("Screen", lambda args: Screen(), setter=lambda o, k, v: calls.append((o, "class:" + k, v)))
    reg.load_string("S: {ClassName: Screen, Dependencies: {a: 1, b: '@x'}}")
    screen = Screen()
    reg.inject("S", screen)
    assert calls == [(screen, "class:a", 1), (screen, "class:b", "x")]  # written order
    calls.clear()
    reg.inject("S", screen, setter=lambda o, k, v: calls.append((o, "call:" + k, v)))
    assert calls == [(screen, "call:a", 1), (screen, "call:b", "x")]  # the call's setter wins


def test_inject_failure_names_the_key(reg: cr.Registry) -> None:
    def refuse(obj: Any, key: str, value: Any) -> None:
        raise AttributeError(f"no {key} here")

    reg.register_class("Screen", lambda args: Screen())
    reg.load_string("S: {ClassName: Screen, Dependencies: {a: 1}}")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.inject("S", Screen(), setter=refuse)
    assert str(info.value) == (
        "cannot inject 'S': set of key 'a' of class 'Screen' for entry 'S' (defined at <string>:1:1) failed: "
        "AttributeError: no a here"
    )
    assert isinstance(info.value.__cause__, AttributeError)
    with pytest.raises(cr.NotFoundError):
        reg.inject("Nope", Screen())


def test_add_and_remove_entries(reg: cr.Registry) -> None:
    reg.register_class("Thing", lambda args: ("thing", args))
    reg.add_entry("Dep", "Thing", dependencies={"n": 1})
    reg.add_entry("Top", "Thing", "transient", {"dep": "Dep", "label": "@literal"})
    kind, args = reg.create("Top")
    assert args["label"] == "literal" and args["dep"] == ("thing", {"n": 1})
    reg.add_entry("One", "Thing", cr.Lifestyle.SINGLETON)
    assert reg.create("One") is reg.create("One")
    with pytest.raises(cr.DuplicateError):
        reg.add_entry("Dep", "Thing")
    with pytest.raises(cr.MissingReferenceError):
        reg.add_entry("Bad", "Thing", dependencies={"x": "Nowhere"})
    with pytest.raises(ValueError):
        reg.add_entry("Bad", "Thing", "forever")
    reg.remove_entry("Top")
    with pytest.raises(cr.NotFoundError):
        reg.create("Top")
    with pytest.raises(cr.NotFoundError):
        reg.remove_entry("Top")


def test_entries_listing(example: cr.Registry) -> None:
    entries = {e["name"]: e for e in example.entries()}
    assert set(entries) == {"Test1", "Test2"}
    assert entries["Test1"]["class"] == "Test1ViewController"
    assert entries["Test1"]["description"] == "The first screen"
    assert entries["Test2"]["lifestyle"] == "transient"


def test_limits(reg: cr.Registry) -> None:
    assert reg.get_limit(cr.Limit.DEPTH) == 128
    reg.set_limit(cr.Limit.DEPTH, 2)
    assert reg.get_limit(cr.Limit.DEPTH) == 2
    with pytest.raises(cr.LimitError):
        reg.load_string("A: {ClassName: X, Dependencies: {a: {b: {c: 1}}}}")
    with pytest.raises(cr.InvalidArgumentError):
        reg.set_limit(cr.Limit.DEPTH, 0)
    with pytest.raises(ValueError):
        reg.get_limit(99)


def test_error_classes_derive_from_builtins(reg: cr.Registry, fixtures: Path) -> None:
    with pytest.raises(OSError) as io:
        reg.load_file(fixtures / "does-not-exist.yaml")
    assert isinstance(io.value, cr.IoError) and io.value.code == cr.Status.IO
    assert "does-not-exist" in str(io.value)
    with pytest.raises(LookupError) as missing:
        reg.create("Test3")
    assert isinstance(missing.value, cr.NotFoundError)
    with pytest.raises(ValueError) as bad:
        reg.set_limit(cr.Limit.DEPTH, -1)
    assert isinstance(bad.value, cr.InvalidArgumentError)
    assert issubclass(cr.ValueTypeError, TypeError) and issubclass(cr.NoMemoryError, MemoryError)
    for cls in (cr.IoError, cr.NotFoundError, cr.InvalidArgumentError, cr.ValueTypeError, cr.NoMemoryError):
        assert issubclass(cls, cr.Error)
    assert repr(cr.error_for(99, "m")) == "Error(code=99, message='m')"


def test_errors_and_diagnostics(reg: cr.Registry) -> None:
    with pytest.raises(cr.ConfigSyntaxError) as syntax:
        reg.load_string('{"a": ', format="json")
    assert "<string>:" in str(syntax.value)
    with pytest.raises(cr.CycleError) as cycle:
        reg.load_string("Test1: {ClassName: A, Dependencies: {n: Test2}}\nTest2: {ClassName: B, Dependencies: {b: Test1}}")
    assert "Test1 -> Test2 -> Test1" in str(cycle.value)
    with pytest.raises(cr.LifetimeError) as lifetime:
        reg.load_string("G: {ClassName: A, Lifestyle: graph}\nS: {ClassName: B, Lifestyle: singleton, Dependencies: {g: G}}")
    assert lifetime.value.code == cr.Status.LIFETIME and int(cr.Status.LIFETIME) == 16
    assert "singleton 'S' would keep graph object 'G': S -> G" in str(lifetime.value)
    assert (lifetime.value.diagnostics[0].line, lifetime.value.diagnostics[0].column) == (2, 1)
    with pytest.raises(cr.SchemaError) as schema:
        reg.load_string("A:\n  ClassName: X\n  Dependecies: {}\n")
    d = schema.value.diagnostics[0]
    assert isinstance(d, cr.Diagnostic) and d.code == cr.Status.SCHEMA
    assert d.message and d.message in str(schema.value)
    assert (d.file, d.line, d.column) == ("<string>", 3, 3)
    assert d.suggestion in (None, "Dependencies")  # a suggestion is a name, when there is one
    assert not d.message.startswith("<string>")  # the message alone, without its place
    reg.load_string("Lonely: UnregisteredClass")
    with pytest.raises(cr.ClassNotRegisteredError) as unregistered:
        reg.create("Lonely")
    assert "UnregisteredClass" in str(unregistered.value)


def test_every_problem_of_a_load_is_a_diagnostic(reg: cr.Registry) -> None:
    with pytest.raises(cr.MissingReferenceError) as info:
        reg.load_string(
            "A: {ClassName: X, Dependencies: {x: Nope}}\nB: {ClassName: X, Dependencies: {y: Neither}}\n",
            source_name="screens.yaml",
        )
    found = [(d.file, d.line, d.code) for d in info.value.diagnostics]
    assert found == [("screens.yaml", 1, cr.Status.MISSING_REFERENCE), ("screens.yaml", 2, cr.Status.MISSING_REFERENCE)]
    assert "Nope" in info.value.diagnostics[0].message and "Neither" in info.value.diagnostics[1].message
    assert all(str(d) in str(info.value) for d in info.value.diagnostics)


def test_source_name(reg: cr.Registry) -> None:
    with pytest.raises(cr.ConfigSyntaxError) as info:
        reg.load_string('{"a": ', format="json", source_name="settings.json")
    assert info.value.diagnostics[0].file == "settings.json"
    assert str(info.value).startswith("settings.json:")


def test_singleton_cache_follows_changes(reg: cr.Registry) -> None:
    reg.register_class("A", lambda args: ["a"])
    reg.register_class("B", lambda args: ["b"])
    reg.load_string("S: {ClassName: A, Lifestyle: singleton}")
    first = reg.create("S")
    assert reg.create("S") is first
    reg.load_string("S: {ClassName: B, Lifestyle: singleton}", override=True)
    assert reg.create("S") == ["b"]
    child = reg.new_child()
    assert child.create("S") is reg.create("S")
    reg.load_string("S: {ClassName: A, Lifestyle: singleton}", override=True)
    assert child.create("S") == ["a"]  # a change of the parent reaches the child's cache
    reg.remove_entry("S")
    with pytest.raises(cr.NotFoundError):
        reg.create("S")


def test_many_creates_do_not_grow_memory(example: cr.Registry) -> None:
    for _ in range(1000):  # warm up caches
        example.create("Test1", color="red", number=1)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(20000):
        example.create("Test1", color="red", number=i)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 64 * 1024, grown


ENV_CONFIG = """
Api:
  ClassName: Svc
  Dependencies:
    url: "@http://${HOST}:${PORT:-80}"
    port: {Env: PORT, Type: int, Default: 8080}
    debug: {Env: DEBUG, Type: bool, Default: false}
"""


def test_environment_keyword(reg: cr.Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reg.register_class("Svc", lambda args: dict(args))
    reg.load_string(ENV_CONFIG, environment={"HOST": "db", "PORT": "9000", "DEBUG": "1"})
    assert reg.create("Api") == {"url": "http://db:9000", "port": 9000, "debug": True}
    # None (the default): the process environment, read at the load.
    monkeypatch.setenv("HOST", "proc")
    monkeypatch.delenv("PORT", raising=False)
    monkeypatch.delenv("DEBUG", raising=False)
    other = cr.Registry()
    other.register_class("Svc", lambda args: dict(args))
    path = tmp_path / "app.yaml"
    path.write_text(ENV_CONFIG)
    other.load_file(path)
    assert other.create("Api") == {"url": "http://proc:80", "port": 8080, "debug": False}
    third = cr.Registry()
    third.load_files([path], environment={"HOST": "h"})
    other.close()
    third.close()


def test_environment_errors(reg: cr.Registry) -> None:
    with pytest.raises(cr.ConfigEnvironmentError) as info:
        reg.load_string(ENV_CONFIG, source_name="app.yaml", environment={"PORT": "x"})
    assert info.value.code == cr.Status.ENVIRONMENT
    assert int(cr.Status.ENVIRONMENT) == 15
    found = [(d.line, d.code) for d in info.value.diagnostics]
    assert found == [(5, cr.Status.ENVIRONMENT), (6, cr.Status.ENVIRONMENT)]
    assert "set HOST or give a default" in info.value.diagnostics[0].message
    assert "PORT is 'x', not an integer" in info.value.diagnostics[1].message
    assert isinstance(info.value, cr.Error)
    with pytest.raises(TypeError):
        reg.load_string(ENV_CONFIG, environment={"PORT": 9000})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        reg.load_string(ENV_CONFIG, environment=[("PORT", "1")])  # type: ignore[arg-type]
