"""Singletons, graph objects, providers, children, overrides and name templates from Python:
objects the registry keeps stay alive exactly as long as it needs them."""

from __future__ import annotations

import gc
import weakref
from typing import Any, Dict, List

import pytest

import controllerreg as cr

Args = Dict[str, Any]


class Service:
    instances = 0

    def __init__(self, args: Any = None) -> None:
        Service.instances += 1
        self.args = args


def test_singleton_is_kept_by_the_registry_until_close() -> None:
    destroyed: List[Any] = []
    reg = cr.Registry()
    reg.register_class("Service", Service, on_destroy=destroyed.append)
    reg.register_class("User", lambda args: ("user", args["service"]))
    reg.load_string("S: {ClassName: Service, Lifestyle: singleton}\nU: {ClassName: User, Dependencies: {service: S}}\n")
    s1 = reg.create("S")
    ref = weakref.ref(s1)
    _, s2 = reg.create("U")
    _, s3 = reg.create("U")
    assert s1 is s2 is s3
    del s1, s2, s3
    gc.collect()
    assert ref() is not None  # the registry still holds the singleton (no use-after-free later)
    _, again = reg.create("U")
    assert again is ref()
    del again
    with pytest.raises(cr.InvalidArgumentError):
        reg.create("S", color="red")  # a singleton takes no props
    reg.close()  # destroys the singleton
    assert len(destroyed) == 1
    destroyed.clear()
    gc.collect()
    assert ref() is None


def test_graph_object_shared_within_one_create() -> None:
    reg = cr.Registry()
    reg.register_class("Ctx", lambda args: Service())
    reg.register_class("Pair", lambda args: (args["a"], args["b"]))
    reg.register_class("Holder", lambda args: args["ctx"])
    reg.load_string(
        "C: {ClassName: Ctx, Lifestyle: graph}\n"
        "H: {ClassName: Holder, Dependencies: {ctx: C}}\n"
        "P: {ClassName: Pair, Dependencies: {a: H, b: H}}\n"
    )
    a, b = reg.create("P")
    assert a is b  # the same graph object reached both holders, as the same Python object
    c, d = reg.create("P")
    assert c is d and c is not a  # a new one per create
    ref = weakref.ref(a)
    del a, b, c, d
    gc.collect()
    assert ref() is None
    reg.close()


def test_provider_creates_later() -> None:
    reg = cr.Registry()
    reg.register_class("Screen", lambda args: {"screen": args.get("n")})

    class Owner:
        def __init__(self, args: Args) -> None:
            self.make = args["next"]

    reg.register_class("Owner", Owner)
    reg.load_string("Next: Screen\nO: {ClassName: Owner, Dependencies: {next: {Provider: Next}}}\n")
    owner = reg.create("O")
    assert isinstance(owner.make, cr.Provider)
    assert owner.make.name == "Next"
    assert owner.make.create(n=1) == {"screen": 1}  # after the create returned
    assert owner.make(n=2) == {"screen": 2}
    reg.register_class("Plain", lambda args: Service())
    reg.load_string("P: Plain\nO2: {ClassName: Owner, Dependencies: {next: {Provider: P}}}")
    plain = reg.create("O2").make
    assert plain.name == "P"
    ref = weakref.ref(plain.create())
    gc.collect()
    assert ref() is None  # a transient from a provider is the caller's
    make = owner.make
    del owner
    reg.close()
    with pytest.raises(cr.InvalidArgumentError):
        make.create()  # its registry is gone: an error, not a crash
    make.close()
    make.close()


def test_provider_of_singleton_keeps_it_alive() -> None:
    reg = cr.Registry()
    reg.register_class("Service", Service)
    reg.register_class("Lazy", lambda args: args["svc"])
    reg.load_string("S: {ClassName: Service, Lifestyle: singleton}\nL: {ClassName: Lazy, Dependencies: {svc: {Provider: S}}}\n")
    provider = reg.create("L")
    first = provider.create()
    ref = weakref.ref(first)
    del first
    gc.collect()
    assert ref() is not None
    assert provider.create() is ref() is reg.create("S")
    del provider
    reg.close()
    gc.collect()
    assert ref() is None


def test_failed_create_with_provider_does_not_leak_or_crash() -> None:
    reg = cr.Registry()
    reg.register_class("Screen", lambda args: object())

    def failing(args: Args) -> object:
        assert isinstance(args["p"], cr.Provider)
        raise RuntimeError("no")

    reg.register_class("Failing", failing)
    reg.load_string("N: Screen\nF: {ClassName: Failing, Dependencies: {p: {Provider: N}}}")
    with pytest.raises(cr.CreateFailedError):
        reg.create("F")
    gc.collect()  # the disowned Provider wrapper must not free what the registry freed
    reg.close()


def test_eager_singletons_start() -> None:
    Service.instances = 0
    reg = cr.Registry()
    reg.register_class("Service", Service)
    reg.load_string("S: {ClassName: Service, Lifestyle: singleton, Eager: true}")
    assert Service.instances == 0
    reg.start()
    assert Service.instances == 1
    reg.create("S")
    assert Service.instances == 1
    reg.close()


def test_child_registry_overrides() -> None:
    parent = cr.Registry()
    parent.register_class("Real", lambda args: "real")
    parent.register_class("Fake", lambda args: "fake")
    parent.register_class("User", lambda args: ("user", args["dep"]))
    parent.load_string("Dep: Real\nU: {ClassName: User, Dependencies: {dep: Dep}}")
    child = parent.new_child()
    child.load_string("Dep: Fake", override=True)
    assert child.create("U") == ("user", "fake")
    assert parent.create("U") == ("user", "real")
    names = {e["name"]: e for e in child.entries()}
    assert names["Dep"]["class"] == "Fake" and names["U"]["lifestyle"] == "transient"
    parent.close()  # closes the child first
    assert child.closed and parent.closed
    # A child closed with its parent says so when it is used, not only that it is closed.
    with pytest.raises(cr.InvalidArgumentError, match="its parent registry was closed, which closes its children"):
        child.create("U")
    own = cr.Registry().new_child()
    own.close()
    with pytest.raises(cr.InvalidArgumentError) as closed:
        own.create("U")
    assert "parent" not in str(closed.value)


def test_override_load_and_name_template() -> None:
    reg = cr.Registry()
    reg.register_class("A", lambda args: "a")
    reg.register_class("B", lambda args: "b")
    reg.register_class("Test2ViewController", lambda args: ("t2", args))
    reg.load_string("X: A")
    with pytest.raises(cr.DuplicateError):
        reg.load_string("X: B")
    reg.load_string("X: B", override=True)
    assert reg.create("X") == "b"
    reg.add_name_template("{name}ViewController")
    assert reg.create("Test2", color="red") == ("t2", {"color": "red"})
    reg.close()


@pytest.mark.parametrize(
    "template, says",
    [
        ("", "is empty"),
        ("Controller", "has no {name}"),
        ("{name}", "is {name} alone"),
        ("{name}{name}", "holds {name} 2 times"),
        ("{Name}Controller", "has no {name}"),
        ("{name}{kind}", "holds '{' at byte 6 outside {name}"),
        ("{name}}", "holds '}' at byte 6 outside {name}"),
    ],
)
def test_odd_name_templates_are_refused_as_in_c(template: str, says: str) -> None:
    """The library's one template rule, reached from Python: refused with the C message."""
    reg = cr.Registry()
    with pytest.raises(cr.InvalidArgumentError, match=r"^the name template") as refused:
        reg.add_name_template(template)
    assert says in str(refused.value)
    assert "cr_add_name_template" not in str(refused.value)  # the C door's name, not this one's
    reg.register_class("Car\u0301X", lambda args: "accented")
    reg.add_name_template("{name}\u0301X")
    assert reg.create("Car") == "accented"
    reg.close()
