"""Enums of the C ABI (formats, owners, lifestyles, limits) and ForeignObject."""

from __future__ import annotations

import enum

__all__ = ["Format", "Owner", "Lifestyle", "Limit", "ForeignObject"]


class Format(enum.IntEnum):
    """Config formats (``cr_format``). Methods also accept ``"auto"``, ``"json"``, ``"yaml"``, ``"plist"``."""

    AUTO = 0
    JSON = 1
    YAML = 2
    PLIST = 3


class Owner(enum.IntEnum):
    """Who owns an object (``cr_owner``)."""

    NONE = 0
    RECEIVER = 1
    REGISTRY = 2
    CALLER = 3
    SHARED = 4


class Lifestyle(enum.IntEnum):
    """How many objects an entry makes (``cr_lifestyle``); ``add_entry`` also takes the names."""

    TRANSIENT = 0
    SINGLETON = 1
    GRAPH = 2


class Limit(enum.IntEnum):
    """The limits of :meth:`Registry.set_limit` / :meth:`Registry.get_limit` (``cr_limit``)."""

    INPUT_BYTES = 0
    DEPTH = 1
    NODES = 2
    STRING_BYTES = 3
    ALIAS_EXPANSION = 4
    ENTRIES = 5
    CREATE_DEPTH = 6


class ForeignObject:
    """An object in args that no Python factory made (e.g. from a class registered in C).

    ``address`` is the C pointer; pass the ForeignObject back in props to hand the same pointer on.
    """

    __slots__ = ("address", "owner")

    def __init__(self, address: int, owner: int = 0) -> None:
        self.address: int = address
        self.owner: Owner = Owner(owner) if owner in Owner._value2member_map_ else Owner.NONE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ForeignObject) and other.address == self.address

    def __hash__(self) -> int:
        return hash(("ForeignObject", self.address))

    def __repr__(self) -> str:
        return f"ForeignObject(0x{self.address:x}, owner={self.owner.name})"
