"""Keyword factories: ``register_class(name, Cls, keywords=True)`` builds ``Cls(**args)``, so a
class written ``__init__(self, db, log)`` (as dependency-injector users write them) registers
as it is; args that do not fit its parameters fail the create with the entry, the key and the fix."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import controllerreg as cr

CONFIG = """\
Db: {ClassName: Db}
Log: {ClassName: Log}
Svc:
  ClassName: Service
  Dependencies: {db: Db, log: Log}
Typo:
  ClassName: Service
  Dependencies: {db: Db, lgo: Log}
Short:
  ClassName: Service
  Dependencies: {db: Db}
"""


class Db:
    pass


class Log:
    def __init__(self, level: str = "info") -> None:
        self.level = level


class Service:
    def __init__(self, db: Db, log: Log, retries: int = 3) -> None:
        self.db = db
        self.log = log
        self.retries = retries


def _registry() -> cr.Registry:
    reg = cr.Registry()
    reg.register_class("Db", lambda args: Db())
    reg.register_class("Log", Log, keywords=True)
    reg.register_class("Service", Service, keywords=True)
    reg.load_string(CONFIG, source_name="app.yaml")
    return reg


def test_a_keywords_class_is_built_with_its_args_as_keyword_arguments() -> None:
    with _registry() as reg:
        svc = reg.create("Svc")
        assert isinstance(svc, Service)
        assert isinstance(svc.db, Db) and isinstance(svc.log, Log)
        assert svc.retries == 3 and svc.log.level == "info"  # defaults kept for keys not given
        # A create's props are keyword arguments too, merged over the entry's dependencies.
        assert reg.create("Svc", retries=5).retries == 5
        assert reg.create("Log", level="trace").level == "trace"
        # A dict factory next to it still gets one dict.
        assert isinstance(reg.create("Db"), Db)


def test_a_key_the_factory_does_not_take_names_entry_key_and_fix() -> None:
    with _registry() as reg:
        with pytest.raises(cr.CreateFailedError) as caught:
            reg.create("Typo")
    assert str(caught.value) == (
        "cannot create 'Typo': create of class 'Service' for entry 'Typo' (defined at app.yaml:6:1): TypeError: "
        "keywords=True calls Service(**args): Service does not take key 'lgo' (its parameters: db, log, retries): "
        "rename it in the entry's Dependencies or the create's props, or give Service a parameter 'lgo' or **kwargs; "
        "Service needs 'log', which the entry's Dependencies or the create's props do not give: add it there, "
        "or give that parameter a default"
    )
    cause = caught.value.__cause__
    assert type(cause) is TypeError
    # Python's own words stay one step further down the chain.
    assert isinstance(cause.__cause__, TypeError) and "lgo" in str(cause.__cause__)


def test_a_key_the_factory_needs_and_the_entry_lacks_names_it() -> None:
    with _registry() as reg:
        with pytest.raises(cr.CreateFailedError) as caught:
            reg.create("Short")
        assert str(caught.value).endswith(
            "TypeError: keywords=True calls Service(**args): Service needs 'log', which the entry's Dependencies or the "
            "create's props do not give: add it there, or give that parameter a default"
        )
        # Given as a prop, the same entry builds.
        assert reg.create("Short", log=Log()).retries == 3


def test_a_type_error_from_the_factory_itself_is_its_own() -> None:
    """Args that fit the signature: a TypeError raised inside the factory is not explained away."""

    def broken(count: int) -> object:
        return "count " + count  # type: ignore[operator]

    reg = cr.Registry()
    reg.register_class("Broken", broken, keywords=True)
    reg.load_string("B: {ClassName: Broken, Dependencies: {count: 3}}\n")
    with pytest.raises(cr.CreateFailedError) as caught:
        reg.create("B")
    assert "keywords=True" not in str(caught.value)
    assert "can only concatenate str" in str(caught.value)
    assert type(caught.value.__cause__) is TypeError and caught.value.__cause__.__cause__ is None
    reg.close()


def test_kwargs_positional_only_and_a_factory_without_parameters() -> None:
    seen: Dict[str, Any] = {}

    def anything(**kwargs: Any) -> object:
        seen.update(kwargs)
        return object()

    def by_position(db: Any, /) -> object:
        return object()

    reg = cr.Registry()
    reg.register_class("Any", anything, keywords=True)
    reg.register_class("Pos", by_position, keywords=True)
    reg.register_class("Bare", object, keywords=True)
    reg.load_string("A: {ClassName: Any, Dependencies: {x: 1, y: ['@a']}}\nP: {ClassName: Pos, Dependencies: {db: 1}}\nN: Bare\n")
    reg.create("A", z=True)
    assert seen == {"x": 1, "y": ["a"], "z": True}
    with pytest.raises(cr.CreateFailedError) as caught:
        reg.create("P")
    assert "by_position takes 'db' only by position, and keywords=True passes every key by name" in str(caught.value)
    assert "or register the class without keywords=True" in str(caught.value)
    assert type(reg.create("N")) is object  # no args: object()
    with pytest.raises(cr.CreateFailedError, match=r"object does not take key 'x' \(it takes no keyword arguments\)"):
        reg.create("N", x=1)
    reg.close()


def test_decorator_replace_class_and_provider_take_keywords() -> None:
    reg = cr.Registry()

    @reg.class_("Log", keywords=True)
    class Named:
        def __init__(self, level: str) -> None:
            self.level = level

    reg.load_string(
        "L: {ClassName: Log, Dependencies: {level: '@warn'}}\nU: {ClassName: User, Dependencies: {log: {Provider: L}}}\n"
    )
    reg.register_class("User", lambda args: args["log"])
    assert reg.create("L").level == "warn"
    provider = reg.create("U")
    assert provider.create(level="debug").level == "debug"
    reg.replace_class("Log", lambda args: ("dict", args["level"]))  # back to one dict
    assert reg.create("L") == ("dict", "warn")
    reg.replace_class("Log", Log, keywords=True)
    assert reg.create("L").level == "warn"
    with pytest.raises(TypeError, match=r"factory must be callable \(\*\*args\) -> object"):
        reg.register_class("X", 42, keywords=True)  # type: ignore[call-overload]
    reg.close()
