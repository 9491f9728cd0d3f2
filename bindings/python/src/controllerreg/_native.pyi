"""Type stubs of controllerreg._native, the CPython extension over libcontrollerreg."""

from os import PathLike
from types import TracebackType
from typing import Any, Callable, Dict, Iterable, List, Literal, Mapping, NoReturn, Optional, Tuple, Type, TypeVar, Union, overload

_Self = TypeVar("_Self", bound="Registry")
_PathLike = Union[str, bytes, "PathLike[str]", "PathLike[bytes]"]
_FormatLike = Union[str, int]
_Factory = Callable[[Dict[str, Any]], Any]
_KeywordFactory = Callable[..., Any]
_Setter = Callable[[Any, str, Any], Any]

def version() -> str: ...
def library_path() -> Optional[str]: ...
def header_version() -> str: ...
def _error_problems(kept: object) -> Tuple[Tuple[int, str, int, int, str, Optional[str]], ...]: ...

class Provider:
    """A lazy factory for one entry, received in a factory's args ({Provider: Name})."""

    @property
    def name(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def create(self, props: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> Any: ...
    def __call__(self, props: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> Any: ...
    def close(self) -> None: ...
    def __reduce__(self) -> NoReturn: ...

class Registry:
    """A controllerreg registry: classes (Python factories) plus config entries."""

    def __init__(self) -> None: ...
    @classmethod
    def shared(cls) -> "Registry": ...
    @property
    def closed(self) -> bool: ...
    @property
    def is_shared(self) -> bool: ...
    @property
    def parent(self) -> Optional["Registry"]: ...
    def close(self) -> None: ...
    def __reduce__(self) -> NoReturn: ...
    def __enter__(self: _Self) -> _Self: ...
    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None: ...
    @overload
    def register_class(
        self,
        class_name: str,
        factory: _Factory,
        *,
        replace: bool = False,
        on_destroy: Optional[Callable[[Any], Any]] = None,
        setter: Optional[_Setter] = None,
        keywords: Literal[False] = False,
    ) -> None: ...
    @overload
    def register_class(
        self,
        class_name: str,
        factory: _KeywordFactory,
        *,
        replace: bool = False,
        on_destroy: Optional[Callable[[Any], Any]] = None,
        setter: Optional[_Setter] = None,
        keywords: Literal[True],
    ) -> None: ...
    @overload
    def replace_class(
        self,
        class_name: str,
        factory: _Factory,
        *,
        on_destroy: Optional[Callable[[Any], Any]] = None,
        setter: Optional[_Setter] = None,
        keywords: Literal[False] = False,
    ) -> None: ...
    @overload
    def replace_class(
        self,
        class_name: str,
        factory: _KeywordFactory,
        *,
        on_destroy: Optional[Callable[[Any], Any]] = None,
        setter: Optional[_Setter] = None,
        keywords: Literal[True],
    ) -> None: ...
    def load_file(
        self,
        path: _PathLike,
        format: _FormatLike = "auto",
        *,
        override: bool = False,
        environment: Optional[Mapping[str, str]] = None,
    ) -> None: ...
    def load_files(
        self,
        paths: Iterable[_PathLike],
        format: _FormatLike = "auto",
        *,
        override: bool = False,
        environment: Optional[Mapping[str, str]] = None,
    ) -> None: ...
    def load_string(
        self,
        text: Union[str, bytes],
        format: _FormatLike = "auto",
        *,
        override: bool = False,
        source_name: Optional[str] = None,
        environment: Optional[Mapping[str, str]] = None,
    ) -> None: ...
    def create(self, name: str, props: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> Any: ...
    def inject(self, name: str, object: Any, setter: Optional[_Setter] = None) -> None: ...
    def add_entry(
        self,
        name: str,
        class_name: str,
        lifestyle: Union[str, int] = "transient",
        dependencies: Optional[Mapping[str, Any]] = None,
        *,
        description: Optional[str] = None,
        tags: Union[None, str, int, Iterable[Union[str, int]]] = None,
        eager: bool = False,
    ) -> None: ...
    def remove_entry(self, name: str) -> None: ...
    def entries(self) -> List[Dict[str, Any]]: ...
    def set_limit(self, limit: int, value: int) -> None: ...
    def get_limit(self, limit: int) -> int: ...
    def add_name_template(self, template: str) -> None: ...
    def start(self) -> None: ...
    def _reload(self) -> Dict[str, List[str]]: ...
    def new_child(self: _Self) -> _Self: ...
