"""controllerreg.Error and one subclass per cr_status code."""

from __future__ import annotations

import enum
from typing import Any, Dict, NamedTuple, Optional, Sequence, Tuple, Type, Union

__all__ = [
    "Diagnostic",
    "Status",
    "Error",
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
    "error_for",
]


class Status(enum.IntEnum):
    """The library's status codes (``cr_status`` in controllerreg.h)."""

    OK = 0
    INVALID_ARGUMENT = 1
    IO = 2
    SYNTAX = 3
    SCHEMA = 4
    DUPLICATE = 5
    MISSING_REFERENCE = 6
    CYCLE = 7
    NOT_FOUND = 8
    CLASS_NOT_REGISTERED = 9
    CLASS_EXISTS = 10
    CREATE_FAILED = 11
    TYPE = 12
    LIMIT = 13
    NO_MEMORY = 14
    ENVIRONMENT = 15
    LIFETIME = 16


class Diagnostic(NamedTuple):
    """One problem of a failed call (``cr_problem``): where it is and what to do about it."""

    #: The status of this problem (a :class:`Status` value).
    code: int
    #: The config file ("" when the problem has no place, e.g. a create failure).
    file: str
    #: 1-based line, 0 when unknown.
    line: int
    #: 1-based column, 0 when unknown.
    column: int
    #: The problem alone, without "file:line:column: ".
    message: str
    #: A suggested name ("did you mean"), or None.
    suggestion: Optional[str]

    def __str__(self) -> str:
        place = f"{self.file}:{self.line}:{self.column}: " if self.file else ""
        return place + self.message


class Error(Exception):
    """A failed controllerreg call.

    ``code`` is the status (a :class:`Status` member when known), ``message`` the library's
    message (one ``file:line:column: problem`` line per problem for the first 100, then a line
    counting the rest), ``problem_count`` how many problems the call had and ``diagnostics`` every
    problem as a :class:`Diagnostic`. A raised error carries the message and the count; the
    diagnostics are read from the library the first time ``diagnostics`` is read (a config with
    thousands of problems costs no more to fail than to load), and stay readable after the registry
    is closed, after later failures, from any thread, and through pickling (which reads them). When
    a factory's exception failed a create, that exception is the ``__cause__``.
    """

    #: The status code this class stands for (subclasses set it).
    status: Optional[Status] = None

    def __init__(self, code: Union[int, str], message: Optional[str] = None, diagnostics: Sequence[Diagnostic] = ()) -> None:
        if message is None:
            # A subclass knows its code, so host code (a wrapper, a test double) may raise
            # ``NotFoundError("no screen 'Home'")`` as it would any other exception.
            if not isinstance(code, str) or self.status is None:
                raise TypeError(
                    f"{type(self).__name__}() takes a message (a subclass of Error knows its code), or a code and a message"
                )
            message = code
            code = int(self.status)
        if not isinstance(code, int):
            raise TypeError(f"{type(self).__name__}(): code must be an int (a Status), not {type(code).__name__}")
        super().__init__(message)
        try:
            self.code: int = Status(code)
        except ValueError:
            self.code = code
        self.message: str = message
        self.diagnostics = diagnostics

    @property
    def diagnostics(self) -> Tuple[Diagnostic, ...]:
        """Every problem (at least one), read from the library at the first access."""
        listed: Optional[Tuple[Diagnostic, ...]] = self.__dict__.get("_diagnostics")
        if listed is None:
            # (Two threads may both read: the source is dropped only once the list is stored.)
            source = self.__dict__.get("_native_source")
            listed = tuple(map(Diagnostic._make, _read_problems(source))) if source is not None else ()
            listed = listed or (Diagnostic(int(self.code), "", 0, 0, self.message, None),)
            self.__dict__["_diagnostics"] = listed
            self.__dict__.pop("_native_source", None)
        return listed

    @diagnostics.setter
    def diagnostics(self, value: Sequence[Diagnostic]) -> None:
        listed = tuple(value) or (Diagnostic(int(self.code), "", 0, 0, self.message, None),)
        self.__dict__.pop("_native_source", None)
        self.__dict__["_diagnostics"] = listed
        self.__dict__["problem_count"] = len(listed)

    #: How many problems the call had: ``len(diagnostics)``, known without reading them.
    problem_count: int

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={int(self.code)}, message={self.message!r})"

    def __reduce__(self) -> Tuple[Any, ...]:
        # Pickled with its three arguments (Exception's default passes only ``args``, the message,
        # which __init__ cannot take alone): multiprocessing and concurrent.futures send a
        # worker's exception to the parent this way. Every diagnostic is read from the library
        # first (the library's record cannot travel). Attributes set later travel in the state.
        state = {k: v for k, v in self.__dict__.items() if k not in ("_native_source", "_diagnostics")}
        return (type(self), (int(self.code), self.message, self.diagnostics), state)


class InvalidArgumentError(Error, ValueError):
    """CR_ERR_INVALID_ARGUMENT: a bad argument (e.g. a closed registry, a NUL in a string)."""

    status = Status.INVALID_ARGUMENT


class IoError(Error, OSError):
    """CR_ERR_IO: a config file could not be read."""

    status = Status.IO


class ConfigSyntaxError(Error):
    """CR_ERR_SYNTAX: malformed YAML/JSON/plist."""

    status = Status.SYNTAX


class SchemaError(Error):
    """CR_ERR_SCHEMA: well-formed, but not a valid config."""

    status = Status.SCHEMA


class DuplicateError(Error):
    """CR_ERR_DUPLICATE: a key or an entry name defined twice."""

    status = Status.DUPLICATE


class MissingReferenceError(Error):
    """CR_ERR_MISSING_REFERENCE: a dependency names an entry that does not exist."""

    status = Status.MISSING_REFERENCE


class CycleError(Error):
    """CR_ERR_CYCLE: references form a cycle (the message names the path)."""

    status = Status.CYCLE


class NotFoundError(Error, LookupError):
    """CR_ERR_NOT_FOUND: no entry of that name."""

    status = Status.NOT_FOUND


class ClassNotRegisteredError(Error):
    """CR_ERR_CLASS_NOT_REGISTERED: an entry's class has not been registered."""

    status = Status.CLASS_NOT_REGISTERED


class ClassExistsError(Error):
    """CR_ERR_CLASS_EXISTS: register_class with a name already registered."""

    status = Status.CLASS_EXISTS


class CreateFailedError(Error):
    """CR_ERR_CREATE_FAILED: a factory failed (raised, or returned None)."""

    status = Status.CREATE_FAILED


class ValueTypeError(Error, TypeError):
    """CR_ERR_TYPE: a value of another kind than expected."""

    status = Status.TYPE


class LimitError(Error):
    """CR_ERR_LIMIT: a size, depth or count limit was exceeded."""

    status = Status.LIMIT


class NoMemoryError(Error, MemoryError):
    """CR_ERR_NO_MEMORY: memory could not be allocated."""

    status = Status.NO_MEMORY


class ConfigEnvironmentError(Error):
    """CR_ERR_ENVIRONMENT: an environment variable a config uses (``${NAME}``, ``{Env: NAME}``) is
    not set and has no default, or does not convert to its Type."""

    status = Status.ENVIRONMENT


class LifetimeError(Error):
    """CR_ERR_LIFETIME: a singleton reaches a ``graph`` entry through object references."""

    status = Status.LIFETIME


_BY_CODE: Dict[int, Type[Error]] = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        IoError,
        ConfigSyntaxError,
        SchemaError,
        DuplicateError,
        MissingReferenceError,
        CycleError,
        NotFoundError,
        ClassNotRegisteredError,
        ClassExistsError,
        CreateFailedError,
        ValueTypeError,
        LimitError,
        NoMemoryError,
        ConfigEnvironmentError,
        LifetimeError,
    )
    if cls.status is not None
}


def error_for(code: int, message: str, diagnostics: Sequence[Diagnostic] = ()) -> Error:
    """The Error subclass instance for ``code`` (plain :class:`Error` for unknown codes)."""
    return _BY_CODE.get(code, Error)(code, message, diagnostics)


def _without_c_name(file: str, message: str) -> str:
    """``message`` without the C function's name the C ABI starts a problem with when it has no
    place (``cr_registry_create_with: cannot create 'Logger': ...`` reads ``cannot create
    'Logger': ...``, ``cr_register_class: class 'X' is already registered ...`` reads ``class 'X'
    is already registered ...``), whatever its code: a Python caller called a method of this
    package, not that function, and the message names the thing and the fix without it. A placed
    problem (``file`` not empty) as it is."""
    if file or not message.startswith("cr_"):
        return message
    name, colon, rest = message.partition(": ")
    return rest if colon and name.isidentifier() and name.isascii() and name.islower() else message


_Problem = Tuple[int, str, int, int, str, Optional[str]]


def _read_problems(source: Any) -> Sequence[_Problem]:
    """The problems of a failure the extension kept (a tuple of them when it read them at once),
    each message as :func:`_without_c_name` gives it."""
    if not isinstance(source, tuple):
        from . import _native  # loaded by now: only the extension makes a source

        source = _native._error_problems(source)
    return tuple(p if p[1] else p[:4] + (_without_c_name(p[1], p[4]), p[5]) for p in source)


def _from_native(code: int, message: str, count: int, source: Any) -> Error:
    """The extension's way to build an error from the thread's last library error: its message and
    problem count, and ``source``, the failure it kept (read when ``diagnostics`` is first read),
    or None when the failure has no problem records."""
    err = _BY_CODE.get(code, Error)(code, _without_c_name("", message))
    if count > 0 and source is not None:
        err.__dict__.pop("_diagnostics", None)
        err.__dict__["_native_source"] = source
        err.__dict__["problem_count"] = count
    return err
