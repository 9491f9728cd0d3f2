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

The library is found by :func:`load_library` (explicit path, ``$CONTROLLERREG_LIBRARY``, the
build tree, the installed library). Errors raise :class:`Error` subclasses with ``.code`` and
``.message``.
"""

from ._errors import (
    ClassExistsError,
    ClassNotRegisteredError,
    ConfigSyntaxError,
    CreateFailedError,
    CycleError,
    DuplicateError,
    Error,
    InvalidArgumentError,
    IoError,
    LimitError,
    MissingReferenceError,
    NoMemoryError,
    NotFoundError,
    SchemaError,
    Status,
    ValueTypeError,
    error_for,
)
from ._lib import ENV_VAR, LibraryError, library_path, load_library
from ._registry import Factory, ForeignObject, Format, Owner, Provider, Registry, shared, version

__version__ = "1.0.0"

__all__ = [
    "Registry",
    "Provider",
    "shared",
    "version",
    "load_library",
    "library_path",
    "ENV_VAR",
    "LibraryError",
    "Format",
    "Owner",
    "ForeignObject",
    "Factory",
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
]
