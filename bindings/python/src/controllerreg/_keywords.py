"""Keyword factories (``register_class(..., keywords=True)``, called as ``factory(**args)``): what
to say when a create's args do not fit the factory's parameters.

The extension calls :func:`explain` only when such a call raised a TypeError, so a create that
succeeds, and every factory registered without ``keywords=True``, costs nothing here.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)

_WHERE = "the entry's Dependencies or the create's props"


def explain(factory: Callable[..., Any], class_name: str, args: Dict[str, Any], error: BaseException) -> Optional[TypeError]:
    """A TypeError naming the keys of ``args`` that do not fit ``factory``'s parameters and the fix,
    when that is why ``factory(**args)`` raised ``error``; None when the args fit (the TypeError
    came from the factory's own code) or the factory's signature cannot be read."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(**args)
        return None
    except TypeError:
        pass
    who = _callable_name(factory, class_name)
    parameters = list(signature.parameters.values())
    takes_any_key = any(p.kind is p.VAR_KEYWORD for p in parameters)
    named = [p.name for p in parameters if p.kind in _NAMED]
    problems: List[str] = []
    positional_only = [p.name for p in parameters if p.kind is p.POSITIONAL_ONLY and p.default is p.empty]
    if positional_only:
        problems.append(
            f"{who} takes {_quoted(positional_only)} only by position, and keywords=True passes every key by name:"
            f" make {_them(positional_only)} ordinary parameters, or register the class without keywords=True"
            " (its factory then gets the args as one dict)"
        )
    unexpected = [] if takes_any_key else [key for key in args if key not in named]
    if unexpected:
        takes = f"its parameters: {', '.join(named)}" if named else "it takes no keyword arguments"
        problems.append(
            f"{who} does not take key {_quoted(unexpected)} ({takes}): rename {_them(unexpected)} in {_WHERE},"
            f" or give {who} {_a_parameter(unexpected)} or **kwargs"
        )
    missing = [p.name for p in parameters if p.kind in _NAMED and p.default is p.empty and p.name not in args]
    if missing:
        problems.append(
            f"{who} needs {_quoted(missing)}, which {_WHERE} do not give: add {_them(missing)} there,"
            f" or give {_that_parameter(missing)} a default"
        )
    if not problems:
        return None
    return TypeError(f"keywords=True calls {who}(**args): " + "; ".join(problems))


def _callable_name(factory: Callable[..., Any], class_name: str) -> str:
    """How the message names the factory: its qualified name, else its type's, else the class's."""
    name = getattr(factory, "__qualname__", None)
    if not isinstance(name, str):
        name = getattr(type(factory), "__qualname__", None)
    return name if isinstance(name, str) and name else f"the factory of class '{class_name}'"


def _quoted(keys: List[str]) -> str:
    """'a' or 'a', 'b'."""
    return ", ".join(f"'{key}'" for key in keys)


def _them(keys: List[str]) -> str:
    return "it" if len(keys) == 1 else "them"


def _a_parameter(keys: List[str]) -> str:
    return f"a parameter {_quoted(keys)}" if len(keys) == 1 else f"parameters {_quoted(keys)}"


def _that_parameter(keys: List[str]) -> str:
    return "that parameter" if len(keys) == 1 else "those parameters"
