"""Registry, classes, loading and creating through the Python binding."""

from __future__ import annotations

import collections
import collections.abc
import gc
import importlib.util
import os
import subprocess
import sys
import textwrap
import threading
import weakref
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import controllerreg as cr
from conftest import Test1ViewController, Test2ViewController

Args = Dict[str, Any]


def test_installed_package_with_its_own_library() -> None:
    package = Path(cr.__file__).resolve().parent
    assert "site-packages" in package.parts or "dist-packages" in package.parts, package
    path = cr.library_path()
    assert path is not None
    assert Path(path).resolve().parent == package  # the library inside the package
    assert os.path.basename(path).startswith("libcontrollerreg.so.")
    assert cr.version() == cr.__version__


def test_example_end_to_end(example: cr.Registry) -> None:
    t1 = example.create("Test1", color="red", number=1)
    assert isinstance(t1, Test1ViewController)
    assert t1.color == "red"
    assert t1.number == 1
    assert t1.dependentString == "Yes, you can inject a string using the config file"
    assert t1.dependentInt == 1000
    assert t1.dependentBool is True
    assert isinstance(t1.test2ViewController, Test2ViewController)
    assert isinstance(example.create("Test2"), Test2ViewController)


def test_props_dict_and_keywords(example: cr.Registry) -> None:
    t1 = example.create("Test1", {"color": "blue", "number": 2}, number=3)
    assert (t1.color, t1.number) == ("blue", 3)  # keywords win over the dict
    t1 = example.create("Test1", {"color": "green"})
    assert t1.color == "green"
    t1 = example.create("Test1", dependentInt=5)  # props override dependencies of the same key
    assert t1.dependentInt == 5


@pytest.mark.parametrize("name", ["example.yaml", "example.json", "example.plist", "example-binary.plist"])
def test_load_file_formats(reg: cr.Registry, fixtures: Path, name: str) -> None:
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Test1ViewController", Test1ViewController)
    reg.load_file(str(fixtures / name))
    assert reg.create("Test1").dependentInt == 1000


def test_load_string_formats(reg: cr.Registry) -> None:
    reg.register_class("Thing", lambda args: dict(args))
    reg.load_string('{"A": {"ClassName": "Thing", "Dependencies": {"n": 1}}}', format="json")
    reg.load_string("B:\n  ClassName: Thing\n  Dependencies: {n: 2}\n", format=cr.Format.YAML)
    reg.load_string(b"C: Thing", format="auto")
    assert reg.create("A") == {"n": 1}
    assert reg.create("B") == {"n": 2}
    assert reg.create("C") == {}
    with pytest.raises(ValueError):
        reg.load_string("D: Thing", format="toml")


def test_many_problems_message_lists_the_first_hundred(reg: cr.Registry, fixtures: Path) -> None:
    """Tests/Fixtures/many-problems.yaml, the case every door runs (C, Swift, C++, the tool's
    check): the message lists the first 100 problems and counts the rest; ``diagnostics`` holds
    all 300, those past the hundredth in the same words."""
    with pytest.raises(cr.SchemaError) as info:
        reg.load_file(str(fixtures / "many-problems.yaml"))
    e = info.value
    assert len(e.diagnostics) == 300
    lines = str(e).split("\n")
    assert len(lines) == 102
    assert lines[0] == "300 problems:"
    assert lines[1] == "  " + str(e.diagnostics[0])
    assert lines[100] == "  " + str(e.diagnostics[99])
    assert lines[-1] == "  200 more problems not listed (the first 100 are; the error's list of problems holds every one)"
    assert e.diagnostics[299].message == "entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')"
    assert e.diagnostics[299].line == 300
    assert e.diagnostics[297].message == (
        "entry 'E297', key 'ref': no entry named 'Nowhere297'; if this is text, write \"@Nowhere297\""
    )
    assert reg.entries() == []


def test_load_files_transaction(reg: cr.Registry, fixtures: Path) -> None:
    reg.load_files([fixtures / "example.json"], format="json")
    with pytest.raises(cr.DuplicateError) as info:
        reg.load_files([fixtures / "example.yaml"])
    assert "already defined" in info.value.message
    reg.load_files([fixtures / "example.yaml"], override=True)


def test_args_values(reg: cr.Registry) -> None:
    seen: Args = {}

    def factory(args: Args) -> object:
        seen.update(args)
        return object()

    reg.register_class("Echo", factory)
    reg.load_string(
        """
E:
  ClassName: Echo
  Dependencies:
    i: 42
    neg: -7
    d: 1.5
    b: false
    s: "@text"
    empty: "@"
    unicode: "@héllo ✓"
    nothing: null
    list: [1, "@two", {deep: true}]
    map: {a: 1, b: [null]}
"""
    )
    reg.create("E", extra=[1, (2, 3), {"k": None}], big=2**63 - 1, small=-(2**63))
    assert seen == {
        "i": 42,
        "neg": -7,
        "d": 1.5,
        "b": False,
        "s": "text",
        "empty": "",
        "unicode": "héllo ✓",
        "nothing": None,
        "list": [1, "two", {"deep": True}],
        "map": {"a": 1, "b": [None]},
        "extra": [1, [2, 3], {"k": None}],
        "big": 2**63 - 1,
        "small": -(2**63),
    }
    assert type(seen["i"]) is int and type(seen["b"]) is bool and type(seen["d"]) is float
    assert list(seen)[:3] == ["i", "neg", "d"]  # map order is kept


def test_props_errors(reg: cr.Registry) -> None:
    reg.register_class("Echo", lambda args: object())
    reg.load_string("E: Echo")
    with pytest.raises(OverflowError):
        reg.create("E", n=2**63)
    with pytest.raises(ValueError):
        reg.create("E", s="a\0b")
    with pytest.raises(TypeError):
        reg.create("E", m={1: "x"})
    with pytest.raises(ValueError):
        reg.create("E\0")
    with pytest.raises(TypeError):
        reg.create(42)  # type: ignore[arg-type]


def test_any_mapping_is_a_map(reg: cr.Registry) -> None:
    # The stub promises Mapping[str, Any] for props and dependencies: ChainMap, UserDict,
    # os.environ and a host's own collections.abc.Mapping are maps (at the top and nested), not
    # "props must be a mapping" errors or objects.
    class Settings(collections.abc.Mapping):  # type: ignore[type-arg]
        def __getitem__(self, key: str) -> Any:
            return {"a": 1}[key]

        def __iter__(self) -> Iterator[str]:
            return iter(["a"])

        def __len__(self) -> int:
            return 1

    reg.register_class("Echo", lambda args: dict(args))
    reg.load_string("E: Echo")
    for props in (collections.ChainMap({"a": 1}), collections.UserDict(a=1), Settings()):
        assert reg.create("E", props) == {"a": 1}
        assert reg.create("E", n=props) == {"n": {"a": 1}}
        name = "F" + type(props).__name__
        reg.add_entry(name, "Echo", dependencies=collections.ChainMap({"d": props}))
        assert reg.create(name) == {"d": {"a": 1}}


def _nested(levels: int) -> Any:
    """A value `levels` lists deep: [[...[1]...]]."""
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def test_self_containing_or_too_deep_values_raise_limit_error(reg: cr.Registry) -> None:
    # A value that contains itself, or nests deeper than CR_VALUE_NESTING_MAX (256) levels below
    # its map, is refused with LimitError (CR_ERR_LIMIT, the code cr_add_entry gives for too deep
    # dependencies) naming the call, the path to the problem and the fix, in props (positional or
    # keyword, of a registry or a provider) and entries from code alike: no RecursionError, no
    # crash, nothing created or added.
    made: List[Args] = []

    def echo(args: Args) -> object:
        made.append(args)
        return object()

    reg.register_class("Echo", echo)
    reg.load_string("E: Echo\nP: {ClassName: Echo, Dependencies: {make: {Provider: E}}}")
    loop: Dict[str, Any] = {"a": {}}
    loop["a"]["b"] = loop
    with pytest.raises(cr.LimitError) as raised:
        reg.create("E", loop)
    assert raised.value.code == cr.Status.LIMIT
    assert str(raised.value).startswith("Registry.create(): props['a']['b'] is props itself: the value contains itself")
    assert "pass a copy without the loop" in str(raised.value)
    items: List[Any] = [1]
    items.append(items)
    with pytest.raises(cr.LimitError, match=r"props\['x'\]\[1\] is props\['x'\] itself"):
        reg.create("E", x=items)
    with pytest.raises(cr.LimitError, match=r"Registry.add_entry\(\): dependencies\['x'\]\['a'\]\['b'\] is dependencies\['x'\]"):
        reg.add_entry("F", "Echo", dependencies={"x": loop})
    with pytest.raises(cr.LimitError) as raised:
        reg.create("E", deep=_nested(5000))
    assert str(raised.value) == (
        "Registry.create(): props['deep'][0][0][0][0][0][0][0]...(257 levels down) nests deeper than 256 levels "
        "(CR_VALUE_NESTING_MAX, a fixed bound); flatten the value, or pass the deep data inside an object of your "
        "own (anything but a list, tuple or mapping arrives in args as itself)"
    )
    with pytest.raises(cr.LimitError, match="in props when creating, inside an object of your own"):
        reg.add_entry("G", "Echo", dependencies={"deep": _nested(257)})
    assert made == [] and [e["name"] for e in reg.entries()] == ["E", "P"]
    reg.create("P")
    provider = made.pop()["make"]
    with pytest.raises(cr.LimitError, match=r"^Provider.create\(\): props\['deep'\]\[0\]"):
        provider.create(deep=_nested(300))
    assert made == []
    # At the bound itself: accepted everywhere, the same depth the library's own check allows.
    reg.add_entry("G", "Echo", dependencies={"deep": _nested(256)})
    assert reg.create("E", deep=_nested(256)) is not None
    assert made[-1]["deep"] == _nested(256)
    reg.create("G")
    assert made[-1]["deep"] == _nested(256)


def test_objects_in_props_arrive_as_themselves(reg: cr.Registry) -> None:
    got: Args = {}

    class View:
        pass

    view = View()
    before = sys.getrefcount(view)
    reg.register_class("Holder", lambda args: got.setdefault("args", args))
    reg.load_string("H: Holder")
    reg.create("H", view=view, views=[view, view], nested={"v": view})
    args = got["args"]
    assert args["view"] is view
    assert args["views"][0] is view and args["views"][1] is view
    assert args["nested"]["v"] is view
    del got["args"], args
    gc.collect()
    assert sys.getrefcount(view) == before  # props are borrowed: no reference kept or lost


def test_factory_exception_fails_create(reg: cr.Registry) -> None:
    def failing(args: Args) -> object:
        raise RuntimeError("the screen could not be built")

    reg.register_class("Failing", failing)
    reg.load_string("F: Failing")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("F")
    err = info.value
    assert err.code == cr.Status.CREATE_FAILED
    assert int(err.code) == 11
    assert "RuntimeError: the screen could not be built" in err.message
    assert "F" in err.message
    assert isinstance(err.__cause__, RuntimeError)
    with pytest.raises(cr.CreateFailedError):
        reg.create("F")  # the registry keeps working


def test_factory_returning_none_fails(reg: cr.Registry) -> None:
    reg.register_class("NoneFactory", lambda args: None)
    reg.load_string("Nil: NoneFactory")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("Nil")
    assert "returned None" in str(info.value)


def test_keyboard_interrupt_is_not_wrapped(reg: cr.Registry) -> None:
    def interrupted(args: Args) -> object:
        raise KeyboardInterrupt

    reg.register_class("Interrupted", interrupted)
    reg.load_string("I: Interrupted")
    with pytest.raises(KeyboardInterrupt):
        reg.create("I")


def test_every_base_exception_that_is_not_an_exception_is_not_wrapped(reg: cr.Registry) -> None:
    # docs/python.md: only Exception subclasses become CreateFailedError; SystemExit, GeneratorExit
    # and a BaseException subclass of the host's own go up as they are.
    class Shutdown(BaseException):
        pass

    for raised in (SystemExit(3), GeneratorExit(), Shutdown("stop")):

        def failing(args: Args, raised: BaseException = raised) -> object:
            raise raised

        reg.register_class("Stops", failing, replace=True)
        reg.load_string("S: Stops", override=True)
        with pytest.raises(type(raised)) as info:
            reg.create("S")
        assert info.value is raised


def test_failed_create_releases_dependencies(reg: cr.Registry) -> None:
    refs: List["weakref.ref[Test2ViewController]"] = []

    def make_dep(args: Args) -> Test2ViewController:
        d = Test2ViewController()
        refs.append(weakref.ref(d))
        return d

    def failing(args: Args) -> object:
        assert isinstance(args["a"], Test2ViewController)
        raise ValueError("nope")

    reg.register_class("Dep", make_dep)
    reg.register_class("Failing", failing)
    reg.load_string("D: Dep\nF: {ClassName: Failing, Dependencies: {a: D, b: D}}")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("F")
    assert "ValueError: nope" in str(info.value)
    del info
    gc.collect()
    assert len(refs) == 2 and all(r() is None for r in refs)  # nothing leaked, nothing freed twice


def test_replace_class(reg: cr.Registry) -> None:
    reg.register_class("A", lambda a: 1)
    reg.load_string("A: A")
    assert reg.create("A") == 1
    reg.register_class("A", lambda a: 2, replace=True)
    assert reg.create("A") == 2
    reg.replace_class("A", lambda a: 3)
    assert reg.create("A") == 3
    with pytest.raises(cr.ClassExistsError):
        reg.register_class("A", lambda a: 4)


def test_decorator(reg: cr.Registry) -> None:
    @reg.class_("Dec")
    def make(args: Args) -> str:
        return "made"

    reg.load_string("D: Dec")
    assert reg.create("D") == "made"
    assert make({}) == "made"


def test_created_objects_are_not_leaked(example: cr.Registry) -> None:
    t1 = example.create("Test1", color="red")
    r1 = weakref.ref(t1)
    r2 = weakref.ref(t1.test2ViewController)
    assert sys.getrefcount(t1) == 2  # only `t1` (and getrefcount's argument)
    del t1
    gc.collect()
    assert r1() is None and r2() is None


def test_dependency_dropped_by_receiver_dies(reg: cr.Registry) -> None:
    refs: List["weakref.ref[Test2ViewController]"] = []

    def dep(args: Args) -> Test2ViewController:
        d = Test2ViewController()
        refs.append(weakref.ref(d))
        return d

    reg.register_class("Dep", dep)
    reg.register_class("Ignores", lambda args: "no reference kept")
    reg.load_string("D: Dep\nI: {ClassName: Ignores, Dependencies: {d: D}}")
    assert reg.create("I") == "no reference kept"
    gc.collect()
    assert refs[0]() is None


def test_close_releases_factories() -> None:
    class Factory:
        def __call__(self, args: Args) -> Test2ViewController:
            return Test2ViewController()

    factory = Factory()
    ref = weakref.ref(factory)
    reg = cr.Registry()
    reg.register_class("F", factory)
    reg.load_string("F: F")
    obj = reg.create("F")
    del factory
    gc.collect()
    assert ref() is not None  # the registry holds the factory
    reg.close()
    gc.collect()
    assert ref() is None  # released with the registry
    assert isinstance(obj, Test2ViewController)  # objects already returned are untouched
    assert reg.closed
    reg.close()  # idempotent
    with pytest.raises(cr.InvalidArgumentError):
        reg.create("F")
    with pytest.raises(cr.InvalidArgumentError):
        reg.load_string("G: F")


def test_garbage_collected_registry_releases_factories() -> None:
    def factory(args: Args) -> int:
        return 1

    ref = weakref.ref(factory)
    reg = cr.Registry()
    reg.register_class("F", factory)
    del factory, reg
    gc.collect()
    assert ref() is None


def test_registry_in_a_cycle_through_its_factories_is_collected() -> None:
    # A factory that refers to its own registry (a closure, a bound method of an object that
    # keeps the registry) is a cycle through the library: the collector must see it, close the
    # registry (on_destroy of its singletons runs, with everything it refers to intact) and free
    # it all.
    destroyed: List[str] = []

    class App:
        def __init__(self) -> None:
            self.reg = cr.Registry()
            self.reg.register_class("Service", self.make_service, on_destroy=lambda o: destroyed.append(o.name))
            self.reg.load_string("Service: {ClassName: Service, Lifestyle: singleton}")

        def make_service(self, args: Args) -> Any:
            service = Test2ViewController()
            service.name = "service"  # type: ignore[attr-defined]
            return service

    def build() -> Tuple["weakref.ReferenceType[cr.Registry]", "weakref.ReferenceType[cr.Registry]"]:
        app = App()
        app.reg.create("Service")
        closure = cr.Registry()
        closure.register_class("C", lambda args: (closure, Test2ViewController())[1])
        closure.load_string("C: C")
        closure.create("C")
        return weakref.ref(app.reg), weakref.ref(closure)

    app_ref, closure_ref = build()
    gc.collect()
    assert app_ref() is None
    assert closure_ref() is None
    assert destroyed == ["service"]


def test_subclass_that_skips_init_is_never_opened_not_shared() -> None:
    # A subclass whose __init__ forgets super().__init__() has no registry: it must not read as
    # the shared one, and its calls say what to do.
    class Forgetful(cr.Registry):
        def __init__(self) -> None:
            pass

    reg = Forgetful()
    assert not reg.is_shared
    assert reg.closed
    assert "never opened" in repr(reg)
    with pytest.raises(cr.InvalidArgumentError, match=r"a subclass's __init__ must call super\(\)\.__init__\(\)"):
        reg.register_class("C", lambda args: 1)
    reg.close()  # nothing to close


def test_context_manager() -> None:
    with cr.Registry() as reg:
        reg.register_class("A", lambda a: "a")
        reg.load_string("A: A")
        assert reg.create("A") == "a"
    assert reg.closed


def test_close_inside_factory_is_refused() -> None:
    reg = cr.Registry()
    errors: List[cr.Error] = []

    def closing(args: Args) -> str:
        try:
            reg.close()
        except cr.InvalidArgumentError as e:
            errors.append(e)
        return "ok"

    reg.register_class("C", closing)
    reg.load_string("C: C")
    assert reg.create("C") == "ok"
    assert len(errors) == 1
    assert "close it once that call has returned" in str(errors[0])
    reg.close()


def test_shared_registry() -> None:
    s = cr.Registry.shared()
    assert s is cr.shared()
    assert s.is_shared
    s.register_class("PySharedClass", lambda a: "shared!")
    s.load_string("PySharedEntry: PySharedClass")
    assert s.create("PySharedEntry") == "shared!"
    s.close()  # no-op
    assert not s.closed
    assert s.create("PySharedEntry") == "shared!"


def test_shared_registry_is_a_registry_whichever_class_asks_first() -> None:
    # The process-wide registry used to take the type of the first class that asked: a subclass
    # asking first made cr.shared() an instance of it whose __init__ never ran.
    script = (
        "import controllerreg as cr\n"
        "class App(cr.Registry):\n"
        "    def __init__(self) -> None:\n"
        "        super().__init__()\n"
        "        self.name = 'app'\n"
        "a = App.shared()\n"
        "print(type(a).__name__, type(cr.shared()).__name__, a is cr.shared(), a.is_shared)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Registry", "Registry", "True", "True"]


def test_reentrant_create(reg: cr.Registry) -> None:
    reg.register_class("Inner", lambda a: Test2ViewController())
    reg.register_class("Outer", lambda a: ("outer", reg.create("In")))
    reg.register_class("Broken", lambda a: reg.create("Missing"))
    reg.load_string("In: Inner\nO: Outer\nB: Broken")
    tag, inner = reg.create("O")
    assert tag == "outer" and isinstance(inner, Test2ViewController)
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("B")
    assert "NotFoundError" in str(info.value) and "Missing" in str(info.value)
    assert isinstance(info.value.__cause__, cr.NotFoundError)


def test_threads(example: cr.Registry) -> None:
    results: List[bool] = []
    errors: List[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(100):
                obj = example.create("Test1", number=t * 1000 + i)
                results.append(obj.number == t * 1000 + i and isinstance(obj.test2ViewController, Test2ViewController))
                try:
                    example.create("Missing")
                except cr.NotFoundError:
                    results.append(True)
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(results) == 800 and all(results)


def _run(code: str, cwd: Path, **env: str) -> "subprocess.CompletedProcess[str]":
    environ = {k: v for k, v in os.environ.items() if k != cr.ENV_VAR}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], env=environ, cwd=cwd, capture_output=True, text=True)


def test_subinterpreters_are_refused() -> None:
    # Factories take the GIL with PyGILState_Ensure, which only knows the main interpreter: in a
    # subinterpreter the first create waited forever. The import (or Registry()) there now fails.
    names = [m for m in ("_interpreters", "_xxsubinterpreters") if importlib.util.find_spec(m) is not None]
    if not names:
        pytest.skip("no subinterpreter module in this Python")
    # Both orders: the package imported in the main interpreter first (a subinterpreter then gets
    # a copy of the module without running its initialisation), and not.
    for first in ("import controllerreg", ""):
        _subinterpreter_refuses(names[0], first)


def _subinterpreter_refuses(module: str, first: str) -> None:
    script = textwrap.dedent(
        f"""
        {first}
        import {module} as interpreters
        code = (
            "import controllerreg\\n"
            "r = controllerreg.Registry()\\n"
            "r.register_class('C', lambda args: object())\\n"
            "r.load_string('A: C')\\n"
            "r.create('A')\\n"
        )
        try:
            failure = interpreters.run_string(interpreters.create(), code)
        except Exception as e:
            failure = e
        print("refused" if failure is not None else "imported", failure)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("refused") and "subinterpreter" in done.stdout, (done.stdout, done.stderr)


def test_no_library_is_searched_from_the_current_directory(tmp_path: Path) -> None:
    # A planted build/libcontrollerreg.so* in (or above) the cwd is never loaded.
    for d in (tmp_path / "build", tmp_path / ".build" / "release"):
        d.mkdir(parents=True)
        for name in ("libcontrollerreg.so", "libcontrollerreg.so.0", "libcontrollerreg.so.1"):
            (d / name).write_bytes(b"not a library")
    sub = tmp_path / "some" / "dir"
    sub.mkdir(parents=True)
    out = _run("import controllerreg; print(controllerreg.library_path())", sub)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).parent == Path(cr.__file__).resolve().parent


def test_environment_override(tmp_path: Path) -> None:
    path = cr.library_path()
    assert path is not None
    copy = tmp_path / os.path.basename(path)
    copy.write_bytes(Path(path).read_bytes())
    out = _run("import controllerreg; print(controllerreg.library_path())", tmp_path, CONTROLLERREG_LIBRARY=str(copy))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(copy)
    out = _run("import controllerreg", tmp_path, CONTROLLERREG_LIBRARY=str(tmp_path / "missing.so"))
    assert out.returncode != 0
    assert "LibraryError" in out.stderr and "missing.so" in out.stderr
