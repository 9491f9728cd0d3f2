"""Finding and loading libcontrollerreg.so, and declaring the C functions' prototypes.

Lookup order (the first that loads wins):

1. an explicit path: ``load_library(path)`` or ``Registry(library=path)``;
2. the environment variable ``CONTROLLERREG_LIBRARY`` (a path to the ``.so``);
3. the build tree: from this package's directory and from the current directory, walking up to
   the root, the first ``build/libcontrollerreg.so`` (the CMake build), then
   ``.build/release/libcontrollerreg.so`` and ``.build/debug/libcontrollerreg.so`` (SwiftPM);
4. the installed library: ``ctypes.util.find_library("controllerreg")``, then
   ``libcontrollerreg.so.1`` and ``libcontrollerreg.so`` through the dynamic loader's search path.

The library is loaded once per process; later calls with another path raise LibraryError.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from pathlib import Path
from typing import List, Optional, Union

__all__ = ["LibraryError", "load_library", "library", "library_path", "ENV_VAR"]

ENV_VAR = "CONTROLLERREG_LIBRARY"

_BUILD_TREE_CANDIDATES = (
    Path("build") / "libcontrollerreg.so",
    Path(".build") / "release" / "libcontrollerreg.so",
    Path(".build") / "debug" / "libcontrollerreg.so",
)


class LibraryError(OSError):
    """libcontrollerreg could not be found or loaded; ``tried`` lists every attempt."""

    def __init__(self, message: str, tried: Optional[List[str]] = None) -> None:
        super().__init__(message)
        self.tried: List[str] = list(tried or [])


# Callback types (cr_class fields).
CREATE_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
DESTROY_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
SET_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p)
RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class CrClass(ctypes.Structure):
    """``struct cr_class`` (fields in header order)."""

    _fields_ = [
        ("create", CREATE_FN),
        ("destroy", DESTROY_FN),
        ("set", SET_FN),
        ("release", RELEASE_FN),
    ]


_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_lib_path: Optional[str] = None


def _candidates_in_tree(start: Path) -> List[Path]:
    found: List[Path] = []
    try:
        start = start.resolve()
    except OSError:
        return found
    for directory in [start, *start.parents]:
        for rel in _BUILD_TREE_CANDIDATES:
            found.append(directory / rel)
    return found


def _declare(lib: ctypes.CDLL) -> None:
    c_int, c_char_p, c_void_p, c_size_t = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
    protos = {
        "cr_version": (c_char_p, []),
        "cr_last_error_code": (c_int, []),
        "cr_last_error_message": (c_char_p, []),
        "cr_clear_error": (None, []),
        "cr_status_name": (c_char_p, [c_int]),
        "cr_report_error": (None, [c_char_p]),
        "cr_registry_new": (c_void_p, []),
        "cr_registry_free": (None, [c_void_p]),
        "cr_shared": (c_void_p, []),
        "cr_register_class": (c_int, [c_void_p, c_char_p, ctypes.POINTER(CrClass), c_void_p]),
        "cr_replace_class": (c_int, [c_void_p, c_char_p, ctypes.POINTER(CrClass), c_void_p]),
        "cr_load_file": (c_int, [c_void_p, c_char_p, c_int]),
        "cr_load_files": (c_int, [c_void_p, ctypes.POINTER(c_char_p), c_size_t, c_int]),
        "cr_load_string": (c_int, [c_void_p, c_char_p, c_size_t, c_int]),
        "cr_registry_create": (c_void_p, [c_void_p, c_char_p, c_void_p]),
        "cr_map_new": (c_void_p, []),
        "cr_list_new": (c_void_p, []),
        "cr_map_set_null": (c_int, [c_void_p, c_char_p]),
        "cr_map_set_bool": (c_int, [c_void_p, c_char_p, c_int]),
        "cr_map_set_int": (c_int, [c_void_p, c_char_p, ctypes.c_int64]),
        "cr_map_set_double": (c_int, [c_void_p, c_char_p, ctypes.c_double]),
        "cr_map_set_string": (c_int, [c_void_p, c_char_p, c_char_p]),
        "cr_map_set_object": (c_int, [c_void_p, c_char_p, c_void_p]),
        "cr_map_set_value": (c_int, [c_void_p, c_char_p, c_void_p]),
        "cr_list_push_null": (c_int, [c_void_p]),
        "cr_list_push_bool": (c_int, [c_void_p, c_int]),
        "cr_list_push_int": (c_int, [c_void_p, ctypes.c_int64]),
        "cr_list_push_double": (c_int, [c_void_p, ctypes.c_double]),
        "cr_list_push_string": (c_int, [c_void_p, c_char_p]),
        "cr_list_push_object": (c_int, [c_void_p, c_void_p]),
        "cr_list_push_value": (c_int, [c_void_p, c_void_p]),
        "cr_value_free": (None, [c_void_p]),
        "cr_value_kind": (c_int, [c_void_p]),
        "cr_map_get": (c_void_p, [c_void_p, c_char_p]),
        "cr_map_key_at": (c_void_p, [c_void_p, c_size_t]),  # c_void_p: read with string_at
        "cr_map_value_at": (c_void_p, [c_void_p, c_size_t]),
        "cr_value_bool": (c_int, [c_void_p]),
        "cr_value_int": (ctypes.c_int64, [c_void_p]),
        "cr_value_double": (ctypes.c_double, [c_void_p]),
        "cr_value_string": (c_void_p, [c_void_p]),
        "cr_value_string_length": (c_size_t, [c_void_p]),
        "cr_value_object": (c_void_p, [c_void_p]),
        "cr_value_owner": (c_int, [c_void_p]),
        "cr_value_count": (c_size_t, [c_void_p]),
        "cr_list_at": (c_void_p, [c_void_p, c_size_t]),
    }
    # Added to the C ABI after 0.1.0's first cut; optional so an older library still loads.
    optional = {
        "cr_registry_create_ex": (c_void_p, [c_void_p, c_char_p, c_void_p, ctypes.POINTER(c_int)]),
        "cr_registry_new_child": (c_void_p, [c_void_p]),
        "cr_registry_start": (c_int, [c_void_p]),
        "cr_add_name_template": (c_int, [c_void_p, c_char_p]),
        "cr_load_string_ex": (c_int, [c_void_p, c_char_p, c_size_t, c_int, ctypes.c_uint]),
        "cr_load_file_ex": (c_int, [c_void_p, c_char_p, c_int, ctypes.c_uint]),
        "cr_load_files_ex": (c_int, [c_void_p, ctypes.POINTER(c_char_p), c_size_t, c_int, ctypes.c_uint]),
        "cr_registry_entries": (c_void_p, [c_void_p]),
        "cr_value_provider": (c_void_p, [c_void_p]),
        "cr_provider_create": (c_void_p, [c_void_p, c_void_p]),
        "cr_provider_create_ex": (c_void_p, [c_void_p, c_void_p, ctypes.POINTER(c_int)]),
        "cr_provider_name": (c_char_p, [c_void_p]),
        "cr_provider_free": (None, [c_void_p]),
    }
    for name, (restype, argtypes) in optional.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = restype
            fn.argtypes = argtypes
    for name, (restype, argtypes) in protos.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def _try_load(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    try:
        _declare(lib)
    except AttributeError as e:
        raise OSError(f"{path} is not libcontrollerreg (missing symbol: {e})") from e
    return lib


def load_library(path: Optional[Union[str, "os.PathLike[str]"]] = None) -> ctypes.CDLL:
    """Loads libcontrollerreg (once per process) and returns the ctypes handle.

    ``path`` forces a specific file; otherwise the documented lookup order is used
    (``CONTROLLERREG_LIBRARY``, the build tree, the installed library). Raises LibraryError,
    listing every place tried, if nothing loads.
    """
    global _lib, _lib_path
    with _lock:
        if _lib is not None:
            if path is not None and os.path.realpath(os.fspath(path)) != os.path.realpath(_lib_path or ""):
                raise LibraryError(
                    f"libcontrollerreg is already loaded from {_lib_path}; cannot load {os.fspath(path)} as well"
                )
            return _lib

        tried: List[str] = []
        errors: List[str] = []

        def attempt(candidate: str, label: str, must_exist: bool = True) -> Optional[ctypes.CDLL]:
            tried.append(f"{label}: {candidate}")
            if must_exist and not os.path.exists(candidate):
                errors.append(f"{label}: {candidate} (does not exist)")
                return None
            try:
                return _try_load(candidate)
            except OSError as e:
                errors.append(f"{label}: {candidate} ({e})")
                return None

        def done(lib: ctypes.CDLL, where: str) -> ctypes.CDLL:
            global _lib, _lib_path
            _lib, _lib_path = lib, where
            return lib

        if path is not None:
            p = os.fspath(path)
            lib = attempt(p, "explicit path")
            if lib is None:
                raise LibraryError("cannot load libcontrollerreg:\n  " + "\n  ".join(errors), tried)
            return done(lib, p)

        env = os.environ.get(ENV_VAR)
        if env:
            lib = attempt(env, ENV_VAR)
            if lib is None:
                # An explicit setting that does not work is an error, not a reason to look elsewhere.
                raise LibraryError(f"cannot load libcontrollerreg from ${ENV_VAR}:\n  " + "\n  ".join(errors), tried)
            return done(lib, env)

        seen = set()
        for start in (Path(__file__).parent, Path.cwd()):
            for candidate in _candidates_in_tree(start):
                key = str(candidate)
                if key in seen:
                    continue
                seen.add(key)
                if candidate.is_file():
                    lib = attempt(key, "build tree")
                    if lib is not None:
                        return done(lib, key)
        tried.append("build tree: build/libcontrollerreg.so or .build/{release,debug}/libcontrollerreg.so "
                     f"in {Path(__file__).parent} or {Path.cwd()} and their parents (none found)")

        found = ctypes.util.find_library("controllerreg")
        names = ([found] if found else []) + ["libcontrollerreg.so.1", "libcontrollerreg.so"]
        if not found:
            tried.append('installed: ctypes.util.find_library("controllerreg") (not found)')
        for name in names:
            lib = attempt(name, "installed", must_exist=False)
            if lib is not None:
                return done(lib, name)

        raise LibraryError(
            "libcontrollerreg.so not found. Tried, in order:\n  " + "\n  ".join(tried)
            + ("\nErrors:\n  " + "\n  ".join(errors) if errors else "")
            + f"\nSet ${ENV_VAR} to the library's path, or pass it: controllerreg.load_library(path).",
            tried,
        )


def library() -> ctypes.CDLL:
    """The loaded library, loading it with the default lookup if needed."""
    return _lib if _lib is not None else load_library()


def library_path() -> Optional[str]:
    """Where the library was loaded from (None if not loaded yet)."""
    return _lib_path
