"""Registry, classes, loading and creating through the Python binding."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref

import pytest

import controllerreg as cr
from conftest import Test1ViewController, Test2ViewController


def test_version_and_library():
    assert cr.version() == "1.0.0"
    assert cr.library_path() is not None
    assert os.path.basename(cr.library_path()).startswith("libcontrollerreg.so")


def test_example_end_to_end(example):
    t1 = example.create("Test1", color="red", number=1)
    assert isinstance(t1, Test1ViewController)
    assert t1.color == "red"
    assert t1.number == 1
    assert t1.dependentString == "Yes, you can inject a string using the config file"
    assert t1.dependentInt == 1000
    assert t1.dependentBool is True
    assert isinstance(t1.test2ViewController, Test2ViewController)
    assert isinstance(example.create("Test2"), Test2ViewController)


def test_props_dict_and_keywords(example):
    t1 = example.create("Test1", {"color": "blue", "number": 2}, number=3)
    assert (t1.color, t1.number) == ("blue", 3)  # keywords win over the dict
    t1 = example.create("Test1", {"color": "green"})
    assert t1.color == "green"
    # props override dependencies of the same key
    t1 = example.create("Test1", dependentInt=5)
    assert t1.dependentInt == 5


@pytest.mark.parametrize("name", ["example.yaml", "example.json", "example.plist", "example-binary.plist"])
def test_load_file_formats(reg, fixtures, name):
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Test1ViewController", Test1ViewController)
    reg.load_file(str(fixtures / name))
    assert reg.create("Test1").dependentInt == 1000


def test_load_string_formats(reg):
    reg.register_class("Thing", lambda args: dict(args))
    reg.load_string('{"A": {"ClassName": "Thing", "Dependencies": {"n": 1}}}', format="json")
    reg.load_string("B:\n  ClassName: Thing\n  Dependencies: {n: 2}\n", format=cr.Format.YAML)
    reg.load_string(b"C: Thing", format="auto")
    assert reg.create("A") == {"n": 1}
    assert reg.create("B") == {"n": 2}
    assert reg.create("C") == {}
    with pytest.raises(ValueError):
        reg.load_string("D: Thing", format="toml")


def test_load_files_transaction(reg, fixtures):
    reg.load_files([fixtures / "example.json"], format="json")
    with pytest.raises(cr.DuplicateError) as info:
        reg.load_files([fixtures / "example.yaml"])
    assert "already defined" in info.value.message


def test_args_values(reg):
    seen = {}

    def factory(args):
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
        "i": 42, "neg": -7, "d": 1.5, "b": False, "s": "text", "empty": "", "unicode": "héllo ✓",
        "nothing": None, "list": [1, "two", {"deep": True}], "map": {"a": 1, "b": [None]},
        "extra": [1, [2, 3], {"k": None}], "big": 2**63 - 1, "small": -(2**63),
    }
    assert type(seen["i"]) is int and type(seen["b"]) is bool and type(seen["d"]) is float
    assert list(seen)[:3] == ["i", "neg", "d"]  # map order is kept


def test_props_errors(reg):
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


def test_objects_in_props_arrive_as_themselves(reg):
    got = {}

    class View:
        pass

    view = View()
    reg.register_class("Holder", lambda args: got.setdefault("args", args))
    reg.load_string("H: Holder")
    reg.create("H", view=view, views=[view, view], nested={"v": view})
    args = got["args"]
    assert args["view"] is view
    assert args["views"][0] is view and args["views"][1] is view
    assert args["nested"]["v"] is view
    del got["args"], args
    from controllerreg import _registry

    assert all(v is not view for v in _registry._handles.values())  # temporary handles dropped


def test_factory_exception_fails_create(reg):
    def failing(args):
        raise RuntimeError("the screen could not be built")

    reg.register_class("Failing", failing)
    reg.load_string("F: Failing")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("F")
    err = info.value
    assert err.code == cr.Status.CREATE_FAILED == 11
    assert "RuntimeError: the screen could not be built" in err.message
    assert "F" in err.message
    assert isinstance(err.__cause__, RuntimeError)
    # the registry keeps working
    with pytest.raises(cr.CreateFailedError):
        reg.create("F")


def test_factory_returning_none_fails(reg):
    reg.register_class("NoneFactory", lambda args: None)
    reg.load_string("Nil: NoneFactory")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("Nil")
    assert "returned None" in str(info.value)


def test_keyboard_interrupt_is_not_wrapped(reg):
    def interrupted(args):
        raise KeyboardInterrupt

    reg.register_class("Interrupted", interrupted)
    reg.load_string("I: Interrupted")
    with pytest.raises(KeyboardInterrupt):
        reg.create("I")


def test_rollback_destroys_dependencies(reg):
    destroyed = []
    refs = []

    def make_dep(args):
        d = Test2ViewController()
        refs.append(weakref.ref(d))
        return d

    def failing(args):
        assert isinstance(args["a"], Test2ViewController)
        raise ValueError("nope")

    reg.register_class("Dep", make_dep, on_destroy=destroyed.append)
    reg.register_class("Failing", failing)
    reg.load_string("D: Dep\nF: {ClassName: Failing, Dependencies: {a: D, b: D}}")
    with pytest.raises(cr.CreateFailedError) as info:
        reg.create("F")
    assert "ValueError: nope" in str(info.value)
    assert len(destroyed) == 2
    destroyed.clear()
    info = None
    gc.collect()
    assert all(r() is None for r in refs)  # nothing kept alive by the registry


def test_error_codes_and_subclasses(reg, fixtures):
    with pytest.raises(cr.NotFoundError) as info:
        reg.create("Test3")
    assert info.value.code == cr.Status.NOT_FOUND
    assert isinstance(info.value, LookupError) and isinstance(info.value, cr.Error)
    with pytest.raises(cr.IoError) as info:
        reg.load_file(fixtures / "does-not-exist.yaml")
    assert "does-not-exist" in str(info.value)
    with pytest.raises(cr.ConfigSyntaxError) as info:
        reg.load_string('{"a": ', format="json")
    assert "<string>:" in str(info.value)
    with pytest.raises(cr.CycleError) as info:
        reg.load_string("Test1: {ClassName: A, Dependencies: {n: Test2}}\nTest2: {ClassName: B, Dependencies: {b: Test1}}")
    assert "Test1 -> Test2 -> Test1" in str(info.value)
    with pytest.raises(cr.MissingReferenceError):
        reg.load_string("A: {ClassName: X, Dependencies: {b: Nope}}")
    reg.load_string("Lonely: UnregisteredClass")
    with pytest.raises(cr.ClassNotRegisteredError) as info:
        reg.create("Lonely")
    assert "UnregisteredClass" in str(info.value)
    reg.register_class("X", lambda a: 1)
    with pytest.raises(cr.ClassExistsError):
        reg.register_class("X", lambda a: 2)
    assert repr(cr.error_for(99, "m")) == "Error(code=99, message='m')"


def test_replace_class(reg):
    reg.register_class("A", lambda a: 1)
    reg.load_string("A: A")
    reg.register_class("A", lambda a: 2, replace=True)
    assert reg.create("A") == 2


def test_decorator(reg):
    @reg.class_("Dec")
    def make(args):
        return "made"

    reg.load_string("D: Dec")
    assert reg.create("D") == "made"
    assert make({}) == "made"


def test_created_objects_are_not_leaked(example):
    t1 = example.create("Test1", color="red")
    r1 = weakref.ref(t1)
    r2 = weakref.ref(t1.test2ViewController)
    from controllerreg import _registry

    assert not any(v is t1 or v is t1.test2ViewController for v in _registry._handles.values())
    del t1
    gc.collect()
    assert r1() is None and r2() is None


def test_dependency_dropped_by_receiver_dies(reg):
    refs = []

    def dep(args):
        d = Test2ViewController()
        refs.append(weakref.ref(d))
        return d

    reg.register_class("Dep", dep)
    reg.register_class("Ignores", lambda args: "no reference kept")
    reg.load_string("D: Dep\nI: {ClassName: Ignores, Dependencies: {d: D}}")
    assert reg.create("I") == "no reference kept"
    gc.collect()
    assert refs[0]() is None


def test_close_releases_factories():
    class Factory:
        def __call__(self, args):
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


def test_garbage_collected_registry_releases_factories():
    def factory(args):
        return 1

    ref = weakref.ref(factory)
    reg = cr.Registry()
    reg.register_class("F", factory)
    del factory, reg
    gc.collect()
    assert ref() is None


def test_context_manager():
    with cr.Registry() as reg:
        reg.register_class("A", lambda a: "a")
        reg.load_string("A: A")
        assert reg.create("A") == "a"
    assert reg.closed


def test_close_inside_factory_is_refused():
    reg = cr.Registry()
    errors = []

    def closing(args):
        try:
            reg.close()
        except cr.InvalidArgumentError as e:
            errors.append(e)
        return "ok"

    reg.register_class("C", closing)
    reg.load_string("C: C")
    assert reg.create("C") == "ok"
    assert len(errors) == 1
    reg.close()


def test_shared_registry():
    s = cr.Registry.shared()
    assert s is cr.shared()
    assert s.is_shared
    s.register_class("PySharedClass", lambda a: "shared!")
    s.load_string("PySharedEntry: PySharedClass")
    assert s.create("PySharedEntry") == "shared!"
    s.close()  # no-op
    assert not s.closed
    assert s.create("PySharedEntry") == "shared!"


def test_reentrant_create(reg):
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


def test_threads(example):
    results = []
    errors = []

    def work(t):
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
    from controllerreg import _registry

    assert not _registry._handles  # every handle was handed over or dropped


def test_library_not_found_lists_attempts(tmp_path):
    # A fresh interpreter, with no library anywhere it looks.
    code = (
        "import controllerreg, sys\n"
        "try:\n"
        "    controllerreg.load_library()\n"
        "except controllerreg.LibraryError as e:\n"
        "    print(e); print(len(e.tried)); sys.exit(3)\n"
    )
    env = dict(os.environ)
    env["CONTROLLERREG_LIBRARY"] = str(tmp_path / "missing.so")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 3, out.stderr
    assert "CONTROLLERREG_LIBRARY" in out.stdout and "missing.so" in out.stdout


def test_explicit_library_path_conflict(tmp_path):
    with pytest.raises(cr.LibraryError):
        cr.load_library(tmp_path / "other.so")
    assert cr.load_library(cr.library_path()) is not None  # the same path is fine


def test_build_tree_lookup(tmp_path):
    # Without the variable, a fresh interpreter started in a build tree finds build/libcontrollerreg.so.
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "libcontrollerreg.so").symlink_to(os.path.realpath(cr.library_path()))
    sub = tmp_path / "some" / "dir"
    sub.mkdir(parents=True)
    code = "import controllerreg; controllerreg.version(); print(controllerreg.library_path())"
    env = {k: v for k, v in os.environ.items() if k != "CONTROLLERREG_LIBRARY"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=sub, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    found = out.stdout.strip()
    # Either the package's own tree (an editable/source run) or the one above the cwd.
    assert found.endswith("libcontrollerreg.so"), found
