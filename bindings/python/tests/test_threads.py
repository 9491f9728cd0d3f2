"""Threads and the GIL: a create never waits inside the library while holding the GIL that the
thread it waits for needs (a singleton being built by a Python factory on another thread)."""

from __future__ import annotations

import faulthandler
import threading
from typing import Any, Dict, Iterator, List

import pytest

import controllerreg as cr

Args = Dict[str, Any]


class Service:
    pass


@pytest.fixture(autouse=True)
def _deadlock_is_a_failure() -> Iterator[None]:
    # A deadlock would hang the run: end the process (with every thread's traceback) instead.
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def test_singleton_built_on_another_thread() -> None:
    building = threading.Event()
    finish = threading.Event()

    def slow(args: Args) -> Service:
        building.set()
        finish.wait(10)  # the other thread asks for the singleton meanwhile
        return Service()

    with cr.Registry() as reg:
        reg.register_class("Slow", slow)
        reg.load_string("S: {ClassName: Slow, Lifestyle: singleton}")
        got: List[Any] = []
        builder = threading.Thread(target=lambda: got.append(reg.create("S")))
        builder.start()
        assert building.wait(10)
        timer = threading.Timer(0.2, finish.set)
        timer.start()
        mine = reg.create("S")  # waits for the builder, which needs the GIL to finish
        builder.join(10)
        timer.join(10)
        assert got == [mine] and isinstance(mine, Service)


def test_thread_started_by_a_factory_during_a_create() -> None:
    building = threading.Event()
    finish = threading.Event()
    threads: List[threading.Thread] = []

    def slow(args: Args) -> Service:
        building.set()
        finish.wait(10)
        return Service()

    def spawner(args: Args) -> str:
        # Alone until now: this starts a thread that builds the singleton the rest of this very
        # create needs next.
        t = threading.Thread(target=lambda: reg.create("S"))
        t.start()
        threads.append(t)
        assert building.wait(10)
        timer = threading.Timer(0.2, finish.set)
        timer.start()
        threads.append(timer)
        return "spawned"

    with cr.Registry() as reg:
        reg.register_class("Slow", slow)
        reg.register_class("Spawner", spawner)
        reg.register_class("User", lambda args: (args["a"], args["b"]))
        reg.load_string(
            "S: {ClassName: Slow, Lifestyle: singleton}\nA: Spawner\nU: {ClassName: User, Dependencies: {a: A, b: S}}\n"
        )
        a, b = reg.create("U")
        for t in threads:
            t.join(10)
        assert a == "spawned" and b is reg.create("S")
