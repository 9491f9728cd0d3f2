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


def _child_uses(reg: cr.Registry, singleton: object) -> int:
    """In a forked child: 0 when the inherited registry, a new one and a load work as they do in
    the parent (the singleton is the inherited object), else which step failed."""
    try:
        if reg.create("A")["s"] is not singleton:
            return 1
        reg.load_string("InChild: N\n")
        reg.create("InChild")
        fresh = cr.Registry()
        fresh.register_class("N", lambda args: dict(args))
        fresh.load_string("F: N\n")
        fresh.create("F")
        fresh.close()
        reg.close()
        return 0
    except BaseException:  # noqa: BLE001 - any failure is the child's exit status
        return 2


def _fork_child_target(reg: cr.Registry, singleton: object) -> None:
    import sys

    sys.exit(_child_uses(reg, singleton))


def test_a_forked_child_uses_the_registries_after_threads_used_them() -> None:
    """docs/python.md: a child forked when no other thread is inside the library (threads that
    created and loaded, now gone) uses every registry; the parent is untouched. os.fork and
    multiprocessing's fork start method alike."""
    import multiprocessing
    import os
    import signal
    import warnings

    reg = cr.Registry()
    reg.register_class("N", lambda args: dict(args))
    reg.load_string("S: {ClassName: N, Lifestyle: singleton}\nA: {ClassName: N, Dependencies: {s: S}}\n")
    singleton = reg.create("S")

    def work(i: int) -> None:
        for _ in range(50):
            reg.create("A")
        reg.load_string(f"T{i}: N\n")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with warnings.catch_warnings():
        # Python 3.12 warns at any fork while the faulthandler watchdog (a C thread) runs.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        signal.alarm(60)  # a hang in the child fails the test instead of the run
        os._exit(_child_uses(reg, singleton))
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    process = multiprocessing.get_context("fork").Process(target=_fork_child_target, args=(reg, singleton))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        process.start()
    process.join(60)
    assert process.exitcode == 0
    with pytest.raises(cr.NotFoundError):
        reg.create("InChild")
    assert reg.create("A")["s"] is singleton
    reg.close()
