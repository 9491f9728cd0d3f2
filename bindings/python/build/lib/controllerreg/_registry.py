"""The Registry class, the ctypes trampolines and the conversion of values.

How Python objects cross the C boundary
---------------------------------------
The C side never sees a Python object's address. A factory's result is stored in a process-wide
handle table (an odd integer -> the object) and that integer is the C "object pointer" (real C
objects are at least 2-byte aligned, so handles never collide with them). The table holds the
one strong reference the registry is responsible for:

* the object a top-level :meth:`Registry.create` returns leaves the table and is simply returned;
  afterwards plain Python reference counting decides its life;
* a dependency the registry built for a call (owner "receiver") leaves the table when the
  factory receiving it succeeds: from then on the new object's own references keep it alive;
* if a create fails part-way, the library passes every object already built to its class's
  destroy callback, which drops the table entry (and calls ``on_destroy`` if given);
* objects passed in props get a temporary handle for the duration of the call.

Factories, destroy hooks and the ctypes callbacks are module-level, so they outlive every
registry; each registered class is a record in a table whose key is the class's ``user_data``,
removed by the library's ``release`` callback when the registry is freed or the class replaced.
"""

from __future__ import annotations

import ctypes
import enum
import itertools
import os
import sys
import threading
import traceback
import weakref
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _lib as _libmod
from ._errors import Error, InvalidArgumentError, Status, error_for

__all__ = ["Registry", "Provider", "Format", "ForeignObject", "Owner", "Factory", "shared", "version"]

# cr_kind
_NULL, _BOOL, _INT, _DOUBLE, _STRING, _LIST, _MAP, _OBJECT = range(8)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class Format(enum.IntEnum):
    """Config formats (``cr_format``). Methods also accept ``"auto"``, ``"json"``, ``"yaml"``, ``"plist"``."""

    AUTO = 0
    JSON = 1
    YAML = 2
    PLIST = 3


class Owner(enum.IntEnum):
    """Who owns an object found in a factory's arguments (``cr_owner``)."""

    NONE = 0
    RECEIVER = 1
    REGISTRY = 2
    CALLER = 3
    SHARED = 4


FormatLike = Union[Format, str, int]
Factory = Callable[[Dict[str, Any]], Any]
PathLike = Union[str, "os.PathLike[str]"]


class ForeignObject:
    """An object in args that no Python factory made (e.g. from a class registered in C).

    ``address`` is the C pointer; pass the ForeignObject back in props to hand the same pointer on.
    """

    __slots__ = ("address", "owner")

    def __init__(self, address: int, owner: Owner = Owner.NONE) -> None:
        self.address = address
        self.owner = owner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ForeignObject) and other.address == self.address

    def __hash__(self) -> int:
        return hash(("ForeignObject", self.address))

    def __repr__(self) -> str:
        return f"ForeignObject(0x{self.address:x}, owner={self.owner.name})"


# ------------------------------------------------------------------------------------------------
# Process-wide tables (see the module docstring).

_handles: Dict[int, Any] = {}
_next_handle = itertools.count(1, 2)  # odd numbers only
_classes: Dict[int, "_ClassRecord"] = {}
_next_class = itertools.count(1)
_tls = threading.local()


class _ClassRecord:
    __slots__ = ("name", "factory", "on_destroy")

    def __init__(self, name: str, factory: Factory, on_destroy: Optional[Callable[[Any], None]]) -> None:
        self.name = name
        self.factory = factory
        self.on_destroy = on_destroy


def _new_handle(obj: Any) -> int:
    h = next(_next_handle)
    _handles[h] = obj
    return h


class _Frame:
    """One create call in progress on this thread (graph objects are shared within it)."""

    __slots__ = ("errors", "received", "registry")

    def __init__(self, registry: Optional["Registry"]) -> None:
        self.errors: List[BaseException] = []
        self.received: List[int] = []  # handles handed to receivers: dropped when the call ends
        self.registry = registry


def _frames() -> List[_Frame]:
    frames = getattr(_tls, "frames", None)
    if frames is None:
        frames = _tls.frames = []
    return frames


def _end_frame(frame: _Frame) -> None:
    for h in frame.received:
        _handles.pop(h, None)


def _unraisable(where: str) -> None:
    # An exception where nobody can receive it (a destroy hook): print it, as Python does for __del__.
    try:
        sys.stderr.write(f"controllerreg: exception ignored in {where}:\n")
        traceback.print_exc()
    except Exception:
        pass


# ------------------------------------------------------------------------------------------------
# Reading args (cr_value -> Python)


_PROVIDER = 8


def _read(lib: ctypes.CDLL, v: Optional[int], received: List[int], providers: Optional[List["Provider"]] = None) -> Any:
    if not v:
        return None
    kind = lib.cr_value_kind(v)
    if kind == _NULL:
        return None
    if kind == _BOOL:
        return bool(lib.cr_value_bool(v))
    if kind == _INT:
        return int(lib.cr_value_int(v))
    if kind == _DOUBLE:
        return float(lib.cr_value_double(v))
    if kind == _STRING:
        n = lib.cr_value_string_length(v)
        p = lib.cr_value_string(v)
        return ctypes.string_at(p, n).decode("utf-8", "surrogateescape") if n else ""
    if kind == _LIST:
        return [_read(lib, lib.cr_list_at(v, i), received, providers) for i in range(lib.cr_value_count(v))]
    if kind == _MAP:
        out: Dict[str, Any] = {}
        for i in range(lib.cr_value_count(v)):
            k = lib.cr_map_key_at(v, i)
            key = ctypes.string_at(k).decode("utf-8", "surrogateescape") if k else ""
            out[key] = _read(lib, lib.cr_map_value_at(v, i), received, providers)
        return out
    if kind == _OBJECT:
        address = lib.cr_value_object(v) or 0
        owner = Owner(lib.cr_value_owner(v))
        if address & 1 and address in _handles:
            if owner == Owner.RECEIVER:
                received.append(address)
            return _handles[address]
        return ForeignObject(address, owner)
    if kind == _PROVIDER:
        frames = _frames()
        provider = Provider(lib, lib.cr_value_provider(v), frames[-1].registry if frames else None)
        if providers is not None:
            providers.append(provider)
        return provider
    return None


# ------------------------------------------------------------------------------------------------
# Building props (Python -> cr_value)


def _encode(text: str, what: str) -> bytes:
    data = text.encode("utf-8", "surrogateescape")
    if b"\0" in data:
        raise ValueError(f"{what} cannot contain NUL characters: {text!r}")
    return data


def _check(lib: ctypes.CDLL, status: int) -> None:
    if status != 0:
        raise _status_error(lib, status)


def _container(lib: ctypes.CDLL, value: Any, temps: List[int]) -> int:
    """A new cr_value map or list for a dict / list / tuple (caller frees or hands it over)."""
    if isinstance(value, Mapping):
        c = lib.cr_map_new()
        if not c:
            raise _last_error(lib, Status.NO_MEMORY)
        try:
            for k, item in value.items():
                if not isinstance(k, str):
                    raise TypeError(f"props keys must be str, not {type(k).__name__} ({k!r})")
                _set(lib, c, _encode(k, "a props key"), item, temps)
        except BaseException:
            lib.cr_value_free(c)
            raise
        return c
    c = lib.cr_list_new()
    if not c:
        raise _last_error(lib, Status.NO_MEMORY)
    try:
        for item in value:
            _push(lib, c, item, temps)
    except BaseException:
        lib.cr_value_free(c)
        raise
    return c


def _object_pointer(value: Any, temps: List[int]) -> int:
    if isinstance(value, ForeignObject):
        return value.address
    h = _new_handle(value)
    temps.append(h)
    return h


def _int64(value: int) -> int:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError(f"integer {value} does not fit in 64 bits")
    return value


def _set(lib: ctypes.CDLL, m: int, key: bytes, value: Any, temps: List[int]) -> None:
    if value is None:
        rc = lib.cr_map_set_null(m, key)
    elif isinstance(value, bool):
        rc = lib.cr_map_set_bool(m, key, int(value))
    elif isinstance(value, int):
        rc = lib.cr_map_set_int(m, key, _int64(value))
    elif isinstance(value, float):
        rc = lib.cr_map_set_double(m, key, value)
    elif isinstance(value, str):
        rc = lib.cr_map_set_string(m, key, _encode(value, "a props string"))
    elif isinstance(value, (Mapping, list, tuple)):
        rc = lib.cr_map_set_value(m, key, _container(lib, value, temps))
    else:
        rc = lib.cr_map_set_object(m, key, _object_pointer(value, temps))
    _check(lib, rc)


def _push(lib: ctypes.CDLL, l: int, value: Any, temps: List[int]) -> None:
    if value is None:
        rc = lib.cr_list_push_null(l)
    elif isinstance(value, bool):
        rc = lib.cr_list_push_bool(l, int(value))
    elif isinstance(value, int):
        rc = lib.cr_list_push_int(l, _int64(value))
    elif isinstance(value, float):
        rc = lib.cr_list_push_double(l, value)
    elif isinstance(value, str):
        rc = lib.cr_list_push_string(l, _encode(value, "a props string"))
    elif isinstance(value, (Mapping, list, tuple)):
        rc = lib.cr_list_push_value(l, _container(lib, value, temps))
    else:
        rc = lib.cr_list_push_object(l, _object_pointer(value, temps))
    _check(lib, rc)


# ------------------------------------------------------------------------------------------------
# Errors


def _message(lib: ctypes.CDLL, code: int) -> str:
    raw = lib.cr_last_error_message()
    message = raw.decode("utf-8", "replace") if raw else ""
    if not message:
        name = lib.cr_status_name(code)
        message = name.decode() if name else f"error {code}"
    return message


def _last_error(lib: ctypes.CDLL, fallback: int) -> Error:
    """The thread's last error, after a call that returned NULL (``fallback`` if none recorded)."""
    code = lib.cr_last_error_code() or int(fallback)
    return error_for(code, _message(lib, code))


def _status_error(lib: ctypes.CDLL, status: int) -> Error:
    """The error of a call that returned the non-zero ``status``."""
    if lib.cr_last_error_code() != status:
        name = lib.cr_status_name(status)
        return error_for(status, name.decode() if name else f"error {status}")
    return error_for(status, _message(lib, status))


# ------------------------------------------------------------------------------------------------
# The C callbacks (one set for the process; they never go away).


def _report(message: str) -> None:
    lib = _libmod.library()
    lib.cr_report_error(message.encode("utf-8", "replace").replace(b"\0", b"?"))


def _create_cb(args: Optional[int], user_data: Optional[int]) -> Optional[int]:
    try:
        record = _classes.get(user_data or 0)
        if record is None:
            _report("controllerreg (Python): class record not found")
            return None
        lib = _libmod.library()
        received: List[int] = []
        providers: List[Provider] = []
        try:
            py_args = _read(lib, args, received, providers)
            if not isinstance(py_args, dict):
                py_args = {}
            obj = record.factory(py_args)
            if obj is None:
                _report(f"the factory of class '{record.name}' returned None")
                return None
        except BaseException:
            for p in providers:  # the registry releases providers of a failed create itself
                p._disown()
            raise
        h = _new_handle(obj)
        # Success: the objects built for this call now belong to `obj` (its own references keep
        # them). Graph objects may still be handed to other objects of the same create (as
        # "shared"), so their handles are dropped when the whole create call ends.
        frames = _frames()
        if frames:
            frames[-1].received.extend(received)
        else:
            for r in received:
                _handles.pop(r, None)
        return h
    except BaseException as e:  # nothing may cross the C boundary
        try:
            frames = _frames()
            if frames:
                frames[-1].errors.append(e)
            _report(f"{type(e).__name__}: {e}")
        except BaseException:
            pass
        return None


def _destroy_cb(obj: Optional[int], user_data: Optional[int]) -> None:
    try:
        value = _handles.pop(obj or 0, None)
        record = _classes.get(user_data or 0)
        if record is not None and record.on_destroy is not None and value is not None:
            record.on_destroy(value)
    except BaseException:
        _unraisable("a controllerreg destroy callback")


def _release_cb(user_data: Optional[int]) -> None:
    try:
        _classes.pop(user_data or 0, None)
    except BaseException:
        pass


_CREATE = _libmod.CREATE_FN(_create_cb)
_DESTROY = _libmod.DESTROY_FN(_destroy_cb)
_RELEASE = _libmod.RELEASE_FN(_release_cb)


# ------------------------------------------------------------------------------------------------
# Registry


def _format(fmt: FormatLike) -> int:
    if isinstance(fmt, str):
        names = {"auto": Format.AUTO, "json": Format.JSON, "yaml": Format.YAML, "yml": Format.YAML,
                 "plist": Format.PLIST}
        try:
            return int(names[fmt.lower()])
        except KeyError:
            raise ValueError(f"unknown format {fmt!r} (auto, json, yaml or plist)") from None
    return int(Format(fmt))


class Registry:
    """A controllerreg registry: classes (Python factories) plus config entries.

    ``Registry()`` makes a new registry, freed by :meth:`close` (or ``with``, or when garbage
    collected). :meth:`Registry.shared` is the process-wide registry, which is never freed.
    ``library`` names the ``libcontrollerreg.so`` to load (see :func:`controllerreg.load_library`).
    """

    _shared_instance: Optional["Registry"] = None
    _shared_lock = threading.Lock()

    def __init__(self, *, library: Optional[PathLike] = None) -> None:
        self._ptr: Optional[int] = None
        self._owned = True
        self._active = 0
        self._state_lock = threading.Lock()
        self._parent: Optional[Registry] = None
        self._children: "weakref.WeakSet[Registry]" = weakref.WeakSet()
        self._lib = _libmod.load_library(library) if library is not None else _libmod.library()
        ptr = self._lib.cr_registry_new()
        if not ptr:
            raise _last_error(self._lib, Status.NO_MEMORY)
        self._ptr = ptr

    @classmethod
    def shared(cls, *, library: Optional[PathLike] = None) -> "Registry":
        """The process-wide registry (``cr_shared()``); :meth:`close` does nothing on it."""
        with cls._shared_lock:
            if cls._shared_instance is None:
                lib = _libmod.load_library(library) if library is not None else _libmod.library()
                reg = cls.__new__(cls)
                reg._lib = lib
                reg._ptr = lib.cr_shared()
                reg._owned = False
                reg._active = 0
                reg._state_lock = threading.Lock()
                reg._parent = None
                reg._children = weakref.WeakSet()
                cls._shared_instance = reg
            return cls._shared_instance

    # -- lifetime ---------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has freed the registry."""
        return self._ptr is None

    @property
    def is_shared(self) -> bool:
        """True for the process-wide registry."""
        return not self._owned

    def close(self) -> None:
        """Frees the registry: its classes are released (factories dropped) and objects it still
        holds are destroyed. Objects already returned by :meth:`create` are not affected.
        Idempotent; does nothing on the shared registry. Raises InvalidArgumentError if called
        while a call on this registry is running (e.g. from inside one of its factories)."""
        for child in list(self._children):
            child.close()  # children are freed before their parent
        with self._state_lock:
            if not self._owned or self._ptr is None:
                return
            if self._active:
                raise InvalidArgumentError(Status.INVALID_ARGUMENT,
                                           "Registry.close() while a call on it is in progress")
            ptr, self._ptr = self._ptr, None
        self._lib.cr_registry_free(ptr)

    def __enter__(self) -> "Registry":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_owned", False) and getattr(self, "_ptr", None) is not None and not self._active:
                self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "shared" if not self._owned else ("closed" if self._ptr is None else "open")
        return f"<controllerreg.Registry {state} at 0x{id(self):x}>"

    def _enter(self) -> int:
        with self._state_lock:
            if self._ptr is None:
                raise InvalidArgumentError(Status.INVALID_ARGUMENT, "the registry is closed")
            self._active += 1
            return self._ptr

    def _leave(self) -> None:
        with self._state_lock:
            self._active -= 1

    # -- classes ----------------------------------------------------------------------------------

    def register_class(self, class_name: str, factory: Factory, *, replace: bool = False,
                       on_destroy: Optional[Callable[[Any], None]] = None) -> None:
        """Registers ``factory`` as the class ``class_name``.

        ``factory(args)`` receives a dict (resolved dependencies merged with props; values are
        None/bool/int/float/str/list/dict, objects are the Python objects factories returned) and
        returns the new object. Raising (or returning None) fails the create; the exception's text
        ends up in the :class:`CreateFailedError` message and the exception is its ``__cause__``.
        ``on_destroy(obj)`` (optional) is called when the registry itself discards an object of
        this class (e.g. a dependency built for a create that then failed).
        ``replace=True`` replaces an existing class instead of raising :class:`ClassExistsError`.
        """
        if not callable(factory):
            raise TypeError("factory must be callable")
        key = next(_next_class)
        _classes[key] = _ClassRecord(class_name, factory, on_destroy)
        cls = _libmod.CrClass()
        cls.create = _CREATE
        cls.destroy = _DESTROY
        cls.release = _RELEASE  # `set` stays NULL
        try:
            name = _encode(class_name, "a class name")
        except BaseException:
            _classes.pop(key, None)
            raise
        ptr = self._enter()
        try:
            fn = self._lib.cr_replace_class if replace else self._lib.cr_register_class
            rc = fn(ptr, name, ctypes.byref(cls), ctypes.c_void_p(key))
        finally:
            self._leave()
        if rc != 0:
            _classes.pop(key, None)  # the library already called release; make sure
            raise _status_error(self._lib, rc)

    def class_(self, class_name: str, **options: Any) -> Callable[[Factory], Factory]:
        """Decorator form of :meth:`register_class`::

            @reg.class_("Test2ViewController")
            def make_test2(args): return Test2ViewController()
        """

        def decorate(factory: Factory) -> Factory:
            self.register_class(class_name, factory, **options)
            return factory

        return decorate

    # -- loading ----------------------------------------------------------------------------------

    def load_file(self, path: PathLike, format: FormatLike = "auto", *, override: bool = False) -> None:
        """Loads a config file (all or nothing). Raises IoError, ConfigSyntaxError, SchemaError,
        DuplicateError, MissingReferenceError, CycleError, ... with ``file:line:column`` messages.
        ``override=True`` replaces entries whose names exist instead of raising DuplicateError."""
        data = os.fsencode(path)
        fmt = _format(format)
        ptr = self._enter()
        try:
            if override:
                rc = self._lib.cr_load_file_ex(ptr, data, fmt, 1)
            else:
                rc = self._lib.cr_load_file(ptr, data, fmt)
        finally:
            self._leave()
        if rc != 0:
            raise _status_error(self._lib, rc)

    def load_files(self, paths: Iterable[PathLike], format: FormatLike = "auto", *, override: bool = False) -> None:
        """Loads several files as one transaction (they may refer to each other)."""
        encoded = [os.fsencode(p) for p in paths]
        array = (ctypes.c_char_p * len(encoded))(*encoded)
        fmt = _format(format)
        ptr = self._enter()
        try:
            if override:
                rc = self._lib.cr_load_files_ex(ptr, array, len(encoded), fmt, 1)
            else:
                rc = self._lib.cr_load_files(ptr, array, len(encoded), fmt)
        finally:
            self._leave()
        if rc != 0:
            raise _status_error(self._lib, rc)

    def load_string(self, text: Union[str, bytes], format: FormatLike = "auto", *, override: bool = False) -> None:
        """Loads config text (locations name the file ``<string>``); ``override`` as in load_file."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        fmt = _format(format)
        ptr = self._enter()
        try:
            if override:
                rc = self._lib.cr_load_string_ex(ptr, data, len(data), fmt, 1)
            else:
                rc = self._lib.cr_load_string(ptr, data, len(data), fmt)
        finally:
            self._leave()
        if rc != 0:
            raise _status_error(self._lib, rc)

    # -- creating ---------------------------------------------------------------------------------

    def create(self, name: str, props: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> Any:
        """Builds the entry ``name`` and returns the object its factory made.

        Props come from ``props`` and keyword arguments (keywords win) and override the config's
        dependencies of the same key. A singleton (``Lifestyle: singleton``) is the same object on
        every call and stays owned by the registry (it takes no props). Raises NotFoundError,
        ClassNotRegisteredError, CreateFailedError (a factory raised or returned None: the message
        has the exception's ``Type: text``, and the exception is ``__cause__``), ...
        """
        lib = self._lib
        cname = _encode(name, "an entry name")
        ptr = self._enter()
        try:
            if hasattr(lib, "cr_registry_create_ex"):
                owner = ctypes.c_int(0)

                def call(cprops: Optional[int]) -> Tuple[Optional[int], int]:
                    h = lib.cr_registry_create_ex(ptr, cname, cprops, ctypes.byref(owner))
                    return h, owner.value

            else:  # a library without cr_registry_create_ex: no singletons there

                def call(cprops: Optional[int]) -> Tuple[Optional[int], int]:
                    return lib.cr_registry_create(ptr, cname, cprops), int(Owner.RECEIVER)

            return _run_create(lib, self, props, kwargs, call)
        finally:
            self._leave()

    # -- lifestyles, children, dynamic names ------------------------------------------------------

    def start(self) -> None:
        """Builds every eager singleton (``Eager: true``) now (``cr_registry_start``)."""
        ptr = self._enter()
        try:
            rc = self._lib.cr_registry_start(ptr)
        finally:
            self._leave()
        if rc != 0:
            raise _status_error(self._lib, rc)

    def new_child(self) -> "Registry":
        """A child registry: names and classes fall back to this one; what the child defines
        overrides for creates made through the child. Closing this registry closes its children
        first."""
        ptr = self._enter()
        try:
            child_ptr = self._lib.cr_registry_new_child(ptr)
        finally:
            self._leave()
        if not child_ptr:
            raise _last_error(self._lib, Status.INVALID_ARGUMENT)
        child = Registry.__new__(Registry)
        child._lib = self._lib
        child._ptr = child_ptr
        child._owned = True
        child._active = 0
        child._state_lock = threading.Lock()
        child._parent = self  # keeps the parent alive as long as the child
        child._children = weakref.WeakSet()
        self._children.add(child)
        return child

    def add_name_template(self, template: str) -> None:
        """Adds a class-name template such as ``"{name}ViewController"`` (convention over
        configuration: ``create("Test2")`` then builds class ``Test2ViewController``)."""
        data = _encode(template, "a name template")
        ptr = self._enter()
        try:
            rc = self._lib.cr_add_name_template(ptr, data)
        finally:
            self._leave()
        if rc != 0:
            raise _status_error(self._lib, rc)

    def entries(self) -> List[Dict[str, Any]]:
        """Every entry: dicts with "name", "class", "lifestyle" and, when set, "description", "tag"."""
        ptr = self._enter()
        try:
            v = self._lib.cr_registry_entries(ptr)
        finally:
            self._leave()
        if not v:
            raise _last_error(self._lib, Status.INVALID_ARGUMENT)
        try:
            out = _read(self._lib, v, [])
        finally:
            self._lib.cr_value_free(v)
        return list(out or [])

    def _lifestyle(self, name: str) -> Optional[str]:
        try:
            for e in self.entries():
                if e.get("name") == name:
                    return e.get("lifestyle")
        except Exception:
            pass
        return None


class Provider:
    """A lazy factory for one entry, received in a factory's args (``{Provider: Name}``).

    Keep it as long as you like (it may be used after the create that injected it) and call
    :meth:`create` whenever an object is needed. It is freed when garbage collected or by
    :meth:`close`; after its registry has been freed, :meth:`create` raises InvalidArgumentError.
    """

    def __init__(self, lib: ctypes.CDLL, ptr: Optional[int], registry: Optional[Registry]) -> None:
        self._lib = lib
        self._ptr = ptr
        self._lock = threading.Lock()
        self._registry = weakref.ref(registry) if registry is not None else None
        raw = lib.cr_provider_name(ptr) if ptr else None
        #: The name of the entry this provider creates.
        self.name: str = raw.decode("utf-8", "surrogateescape") if raw else ""

    def create(self, props: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> Any:
        """Creates the provider's entry now, with props merged over its dependencies."""
        lib = self._lib
        ptr = self._ptr
        if not ptr:
            raise InvalidArgumentError(Status.INVALID_ARGUMENT, "the provider is closed")
        registry = self._registry() if self._registry is not None else None

        def call(cprops: Optional[int]) -> Tuple[Optional[int], int]:
            owner = ctypes.c_int(int(Owner.RECEIVER))
            h = lib.cr_provider_create_ex(ptr, cprops, ctypes.byref(owner))
            return h, owner.value

        return _run_create(lib, registry, props, kwargs, call)

    def __call__(self, props: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> Any:
        """Same as :meth:`create`."""
        return self.create(props, **kwargs)

    def _disown(self) -> None:
        self._ptr = None

    def close(self) -> None:
        """Frees the provider (idempotent)."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
        if ptr:
            self._lib.cr_provider_free(ptr)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<controllerreg.Provider {self.name!r}{'' if self._ptr else ' closed'}>"


def _run_create(lib: ctypes.CDLL, registry: Optional[Registry], props: Optional[Mapping[str, Any]],
                kwargs: Mapping[str, Any], call: Callable[[Optional[int]], Tuple[Optional[int], int]]) -> Any:
    """Runs one create call: builds props, tracks the call's frame, turns the result or the error
    into Python."""
    merged: Dict[str, Any] = dict(props) if props else {}
    merged.update(kwargs)
    temps: List[int] = []
    frames = _frames()
    frame = _Frame(registry)
    frames.append(frame)
    h: Optional[int] = None
    owner = int(Owner.RECEIVER)
    error: Optional[Error] = None
    try:
        cprops = _container(lib, merged, temps) if merged else None
        try:
            h, owner = call(cprops)
            if not h:
                error = _last_error(lib, Status.CREATE_FAILED)
        finally:
            if cprops:
                lib.cr_value_free(cprops)
    finally:
        frames.pop()
        for t in temps:
            _handles.pop(t, None)
        _end_frame(frame)
    if not h:
        cause = frame.errors[0] if frame.errors else None
        if cause is not None and not isinstance(cause, Exception):
            raise cause  # KeyboardInterrupt, SystemExit: not ours to wrap
        assert error is not None
        raise error from cause
    if h & 1 and h in _handles:
        if owner == Owner.REGISTRY:
            return _handles[h]  # a singleton: the registry keeps its handle until it is freed
        return _handles.pop(h)
    return ForeignObject(h, Owner(owner) if owner in (0, 1, 2, 3, 4) else Owner.NONE)


def shared() -> Registry:
    """The process-wide registry (same as :meth:`Registry.shared`)."""
    return Registry.shared()


def version() -> str:
    """The loaded library's version string (``cr_version()``)."""
    return _libmod.library().cr_version().decode()
