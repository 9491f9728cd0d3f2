"""A raised Error's diagnostics: read from the library when first read, with nothing lost.

The case every door runs (Tests/Fixtures/many-problems.yaml: 300 problems, 100 of them listed in
the message), here through the Python door: each diagnostic is compared with the C record
(``cr_last_error_problem``, read with ctypes from the package's own library) of the same failure.
"""

from __future__ import annotations

import ctypes
import gc
import pickle
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import controllerreg as cr

_Record = Tuple[int, str, int, int, str, Optional[str]]


class _CProblem(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_uint32),
        ("column", ctypes.c_uint32),
        ("message", ctypes.c_char_p),
        ("suggestion", ctypes.c_char_p),
    ]


def _c_records(path: Path) -> List[_Record]:
    """Every record of the C door's failure to load `path` (cr_load_file, then cr_last_error_problem)."""
    library = cr.library_path()
    assert library is not None
    lib = ctypes.CDLL(library)
    lib.cr_registry_new.restype = ctypes.c_void_p
    lib.cr_registry_free.argtypes = [ctypes.c_void_p]
    lib.cr_load_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.cr_last_error_count.restype = ctypes.c_size_t
    lib.cr_last_error_problem.argtypes = [ctypes.c_size_t]
    lib.cr_last_error_problem.restype = ctypes.POINTER(_CProblem)
    reg = lib.cr_registry_new()
    try:
        assert lib.cr_load_file(reg, str(path).encode(), 0) == cr.Status.SCHEMA
        out: List[_Record] = []
        for i in range(lib.cr_last_error_count()):
            p = lib.cr_last_error_problem(i).contents
            suggestion = p.suggestion.decode() if p.suggestion is not None else None
            out.append((p.code, p.file.decode(), p.line, p.column, p.message.decode(), suggestion))
        return out
    finally:
        lib.cr_registry_free(reg)


def _failed_load(path: Path) -> cr.Error:
    """The error of loading `path` into a registry closed (and collected) at once."""
    reg = cr.Registry()
    try:
        with pytest.raises(cr.SchemaError) as info:
            reg.load_file(str(path))
    finally:
        reg.close()
    del reg
    gc.collect()
    return info.value


def test_raised_error_has_its_count_and_message_before_any_diagnostic(fixtures: Path) -> None:
    e = _failed_load(fixtures / "many-problems.yaml")
    assert e.problem_count == 300
    assert e.message.startswith("300 problems:\n")
    # Nothing read yet: the failure is kept in the library, not copied into Python objects.
    assert "_diagnostics" not in vars(e)
    assert len(e.diagnostics) == 300 == e.problem_count
    assert "_diagnostics" in vars(e) and "_native_source" not in vars(e)


def test_diagnostics_survive_the_registry_and_later_failures(fixtures: Path) -> None:
    path = fixtures / "many-problems.yaml"
    e = _failed_load(path)
    # Another failure on this thread replaces the library's last error.
    other = cr.Registry()
    with pytest.raises(cr.ConfigSyntaxError):
        other.load_string('{"a": ', "json")
    other.close()
    diagnostics = e.diagnostics
    assert [tuple(d) for d in diagnostics] == _c_records(path)
    assert list(iter(diagnostics)) == [diagnostics[i] for i in range(len(diagnostics))]
    assert diagnostics[-1] == diagnostics[299]
    assert diagnostics[299].message == "entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')"
    assert diagnostics[299].line == 300 and diagnostics[299].file.endswith("many-problems.yaml")
    assert diagnostics[1].suggestion == "Description"
    assert isinstance(diagnostics, tuple) and all(isinstance(d, cr.Diagnostic) for d in diagnostics)
    assert e.diagnostics is diagnostics  # read once


def test_pickling_keeps_every_diagnostic(fixtures: Path) -> None:
    path = fixtures / "many-problems.yaml"
    unread = _failed_load(path)
    copy = pickle.loads(pickle.dumps(unread))  # before anything was read: read for the pickle
    assert type(copy) is cr.SchemaError
    assert (copy.code, copy.message, copy.problem_count) == (unread.code, unread.message, 300)
    assert copy.diagnostics == unread.diagnostics
    assert [tuple(d) for d in copy.diagnostics] == _c_records(path)
    again = pickle.loads(pickle.dumps(copy))
    assert again.diagnostics == copy.diagnostics and again.problem_count == 300


def test_two_threads_read_the_same_diagnostics(fixtures: Path) -> None:
    e = _failed_load(fixtures / "many-problems.yaml")
    seen: List[Tuple[cr.Diagnostic, ...]] = []
    start = threading.Barrier(2)

    def read() -> None:
        start.wait()
        seen.append(e.diagnostics)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 2 and seen[0] == seen[1] and len(seen[0]) == 300


def test_an_error_made_by_hand_keeps_its_diagnostics() -> None:
    d = cr.Diagnostic(int(cr.Status.SCHEMA), "f.yaml", 1, 2, "m", None)
    e = cr.SchemaError(int(cr.Status.SCHEMA), "f.yaml:1:2: m", [d])
    assert e.diagnostics == (d,) and e.problem_count == 1
    bare = cr.NotFoundError(int(cr.Status.NOT_FOUND), "no entry named 'X'")
    assert bare.diagnostics == (cr.Diagnostic(int(cr.Status.NOT_FOUND), "", 0, 0, "no entry named 'X'", None),)
    assert bare.problem_count == 1


def test_a_subclass_is_raised_with_a_message_alone() -> None:
    """Host code (a wrapper, a test double) raises a subclass as any exception, with a message: the
    class gives the code. It used to be a TypeError ("missing ... 'message'"). It pickles as one
    the library raised."""
    import pickle

    with pytest.raises(cr.NotFoundError, match="no screen 'Home'") as info:
        raise cr.NotFoundError("no screen 'Home'")
    e = info.value
    assert e.code == cr.Status.NOT_FOUND and e.message == "no screen 'Home'" and isinstance(e, LookupError)
    assert e.diagnostics == (cr.Diagnostic(int(cr.Status.NOT_FOUND), "", 0, 0, "no screen 'Home'", None),)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cr.NotFoundError and back.code == e.code and back.diagnostics == e.diagnostics
    with pytest.raises(TypeError, match="takes a message"):
        cr.Error("Error itself has no code")
    with pytest.raises(TypeError, match="code must be an int"):
        cr.SchemaError(1.5, "m")  # type: ignore[arg-type]


def test_a_failing_factory_is_named_with_its_entry_and_where_the_config_defines_it() -> None:
    """A factory that raises (a value of the wrong type, say) fails the create with the class, the
    entry, the entry's place in its config and the factory's own text; an entry added from code
    has no place to name."""
    reg = cr.Registry()

    def screen(args: Dict[str, Any]) -> object:
        return "screen " + args["count"]  # an int read as a str: TypeError

    reg.register_class("Screen", screen)
    reg.load_string("Other: Screen\nHome:\n  ClassName: Screen\n  Dependencies: {count: 3}\n", source_name="screens.yaml")
    with pytest.raises(cr.CreateFailedError) as caught:
        reg.create("Home")
    assert str(caught.value).startswith(
        "cannot create 'Home': create of class 'Screen' for entry 'Home' (defined at screens.yaml:2:1): TypeError: "
    )
    assert isinstance(caught.value.__cause__, TypeError)
    reg.add_entry("Coded", "Screen", dependencies={"count": 4})
    with pytest.raises(
        cr.CreateFailedError, match=r"^cannot create 'Coded': create of class 'Screen' for entry 'Coded': TypeError: "
    ):
        reg.create("Coded")
    reg.close()
