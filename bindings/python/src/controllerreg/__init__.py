"""Python bindings for libcontrollerreg, a config-driven object registry.

Register Python factories as classes, load YAML/JSON/plist configs, and create fully wired
objects by entry name::

    import controllerreg

    class Test2ViewController: ...

    class Test1ViewController:
        def __init__(self, args):
            self.color = args.get("color")
            self.test2 = args["test2ViewController"]   # the Test2ViewController built for us

    with controllerreg.Registry() as reg:
        reg.register_class("Test2ViewController", lambda args: Test2ViewController())
        reg.register_class("Test1ViewController", Test1ViewController)
        reg.load_file("example.yaml")
        test1 = reg.create("Test1", color="red", number=1)

The package carries its own ``libcontrollerreg.so`` (next to the extension module); set
``CONTROLLERREG_LIBRARY`` to use another build. Errors raise :class:`Error` subclasses with
``.code``, ``.message`` and ``.diagnostics``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Literal, Optional, Tuple, TypeVar, overload

from ._errors import (
    ClassExistsError,
    ClassNotRegisteredError,
    ConfigEnvironmentError,
    ConfigSyntaxError,
    CreateFailedError,
    CycleError,
    Diagnostic,
    DuplicateError,
    Error,
    InvalidArgumentError,
    IoError,
    LifetimeError,
    LimitError,
    MissingReferenceError,
    NoMemoryError,
    NotFoundError,
    SchemaError,
    Status,
    ValueTypeError,
    error_for,
)
from ._loader import ENV_VAR, LibraryError
from ._loader import check as _check_library
from ._loader import preload as _preload
from ._types import ForeignObject, Format, Lifestyle, Limit, Owner

_expected_library = _preload()
from . import _native as _native  # noqa: E402  (after the optional preload)

_check_library(_expected_library, _native.library_path())

#: A factory: called with the args dict, returns the new object (``factory(**args)`` instead for a
#: class registered with ``keywords=True``).
Factory = Callable[[Dict[str, Any]], Any]
_F = TypeVar("_F", bound=Factory)
_C = TypeVar("_C", bound=Callable[..., Any])

Provider = _native.Provider


@dataclass(frozen=True)
class ReloadChanges:
    """What :meth:`Registry.reload` changed: entry names, each tuple sorted (by UTF-8 bytes)."""

    #: Entries the reloaded configs define that were not there before.
    added: Tuple[str, ...] = ()
    #: Entries that are gone.
    removed: Tuple[str, ...] = ()
    #: Entries whose definition changed, and singletons wired to an added, removed or changed entry.
    changed: Tuple[str, ...] = ()

    def __bool__(self) -> bool:
        """True when anything changed."""
        return bool(self.added or self.removed or self.changed)


class Registry(_native.Registry):
    """A controllerreg registry: classes (Python factories) plus config entries.

    ``Registry()`` makes a new registry, freed by :meth:`close` (or ``with``, or when garbage
    collected). :meth:`Registry.shared` is the process-wide registry, which is never freed.
    """

    __slots__ = ()

    @overload
    def class_(
        self,
        class_name: str,
        *,
        replace: bool = False,
        on_destroy: Optional[Callable[[Any], None]] = None,
        setter: Optional[Callable[[Any, str, Any], None]] = None,
        keywords: Literal[False] = False,
    ) -> Callable[[_F], _F]: ...

    @overload
    def class_(
        self,
        class_name: str,
        *,
        replace: bool = False,
        on_destroy: Optional[Callable[[Any], None]] = None,
        setter: Optional[Callable[[Any, str, Any], None]] = None,
        keywords: Literal[True],
    ) -> Callable[[_C], _C]: ...

    def class_(
        self,
        class_name: str,
        *,
        replace: bool = False,
        on_destroy: Optional[Callable[[Any], None]] = None,
        setter: Optional[Callable[[Any, str, Any], None]] = None,
        keywords: bool = False,
    ) -> Callable[[_C], _C]:
        """Decorator form of :meth:`register_class`::

        @reg.class_("Test2ViewController")
        def make_test2(args): return Test2ViewController()

        @reg.class_("Service", keywords=True)   # built as Service(**args)
        class Service:
            def __init__(self, db, log): ...
        """

        def decorate(factory: _C) -> _C:
            self.register_class(class_name, factory, replace=replace, on_destroy=on_destroy, setter=setter, keywords=keywords)  # type: ignore[call-overload]
            return factory

        return decorate

    @classmethod
    def shared(cls) -> "Registry":
        """The process-wide registry (``cr_shared()``), never freed: always this
        ``controllerreg.Registry``, whichever class asks (a subclass's ``__init__`` never runs for
        it, so it is never an instance of one)."""
        return super(Registry, Registry).shared()

    def reload(self) -> ReloadChanges:
        """Reads again every file loaded into the registry and rebuilds it from its history (text
        and code changes applied again), validated whole, in one atomic swap.

        Returns what changed. On any problem raises the :class:`Error` subclass of the lowest code
        (:class:`IoError` for a file gone, :class:`ConfigSyntaxError`, ...) with every problem in
        ``.diagnostics``, and nothing changes. Singletons of changed and removed entries are
        destroyed once no running create can reach them; unchanged ones are kept. Children follow
        a parent's reload; a child's reload re-reads the child's own files.
        """
        raw = self._reload()
        return ReloadChanges(tuple(raw["added"]), tuple(raw["removed"]), tuple(raw["changed"]))


def shared() -> Registry:
    """The process-wide registry (same as :meth:`Registry.shared`)."""
    return Registry.shared()


def version() -> str:
    """The loaded library's version string (``cr_version()``)."""
    return _native.version()


def library_path() -> Optional[str]:
    """The file the library was loaded from."""
    return _native.library_path()


__version__: str = _native.header_version()

__all__ = [
    "Registry",
    "ReloadChanges",
    "Provider",
    "Factory",
    "shared",
    "version",
    "library_path",
    "ENV_VAR",
    "LibraryError",
    "Format",
    "Owner",
    "Lifestyle",
    "Limit",
    "ForeignObject",
    "Diagnostic",
    "Status",
    "Error",
    "error_for",
    "InvalidArgumentError",
    "IoError",
    "ConfigSyntaxError",
    "SchemaError",
    "DuplicateError",
    "MissingReferenceError",
    "CycleError",
    "NotFoundError",
    "ClassNotRegisteredError",
    "ClassExistsError",
    "CreateFailedError",
    "ValueTypeError",
    "LimitError",
    "NoMemoryError",
    "ConfigEnvironmentError",
    "LifetimeError",
]
