"""Loads the extension and, through it, the library the package ships (libcontrollerreg.so.N
next to the extension, found by its RUNPATH $ORIGIN).

The only override is the environment variable ``CONTROLLERREG_LIBRARY``: a path to another build
of the library with the same SONAME, loaded first so the extension binds to it. Nothing is ever
searched relative to the current directory.
"""

from __future__ import annotations

import os
from typing import Optional

__all__ = ["ENV_VAR", "LibraryError", "preload"]

ENV_VAR = "CONTROLLERREG_LIBRARY"


class LibraryError(OSError):
    """The library named by ``$CONTROLLERREG_LIBRARY`` could not be loaded or is not the one used."""


def preload() -> Optional[str]:
    """Loads ``$CONTROLLERREG_LIBRARY`` (if set) before the extension; returns its real path."""
    path = os.environ.get(ENV_VAR)
    if not path:
        return None
    import ctypes

    if not os.path.isfile(path):
        raise LibraryError(
            f"${ENV_VAR} is set to {path!r}, which is not a file. Unset it to use the "
            "library inside the package, or point it at a built libcontrollerreg.so."
        )
    try:
        ctypes.CDLL(path, mode=getattr(os, "RTLD_GLOBAL", 0) | getattr(os, "RTLD_NOW", 0))
    except OSError as e:
        raise LibraryError(f"cannot load ${ENV_VAR}={path!r}: {e}") from e
    return os.path.realpath(path)


def check(expected: Optional[str], loaded: Optional[str]) -> None:
    """Raises LibraryError if the extension did not bind to the library the variable named."""
    if expected is None or loaded is None:
        return
    if os.path.realpath(loaded) != expected:
        raise LibraryError(
            f"${ENV_VAR} names {expected}, but the extension uses {loaded}: the override must have "
            "the same SONAME (libcontrollerreg.so.<major>) as the packaged library."
        )
