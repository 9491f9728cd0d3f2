#!/usr/bin/env python3
"""The Python binding against dependency-injector, in one process, interleaved.

usage: Benchmarks/python/run.sh [--quick]   (makes the venv: the installed wheel,
       dependency-injector and PyYAML from PyPI; then runs this file)
       python bench.py [--pairs N] [--quick] [--markdown]

Each comparison runs PAIRS pairs; a pair times a batch of controllerreg, then the same batch of
dependency-injector (the order alternates between pairs), and its ratio is
dependency-injector's time / controllerreg's (> 1: controllerreg is faster). The row reports both
medians per operation and the median, min and max of the pair ratios. Time is the thread's CPU
time (time.thread_time_ns), as in the project's C benchmark; the garbage collector is off while a
batch runs.

Rows:
- create.test1: the README's Test1 (literals + a reference to Test2, props color/number) vs the
  same graph of providers.Factory;
- singleton.hit: create() of a built singleton vs calling a built providers.Singleton;
- provider.create: a controllerreg Provider received in args vs a providers.Factory call;
- load.yaml.1000: a 1,000-entry config (Benchmarks/scripts/genconfig.py) loaded into a new
  Registry (parse + validation + plans) vs providers.Configuration().from_yaml with CSafeLoader;
- memory: RSS and tracemalloc before and after 1,000,000 creates of Test1 (after a warm-up).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import dependency_injector
import yaml
from dependency_injector import containers, providers

import controllerreg

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
import genconfig  # noqa: E402

TEXT = "Yes, you can inject a string using the config file"
TEST1_YAML = """
Test1:
  ClassName: Test1ViewController
  Dependencies:
    dependentString: "@Yes, you can inject a string using the config file"
    dependentInt: 1000
    dependentBool: true
    test2ViewController: Test2
Test2: Test2ViewController
Service: {ClassName: Service, Lifestyle: singleton}
Holder: {ClassName: Holder, Dependencies: {make: {Provider: Test2}}}
"""


class Test2ViewController:
    pass


class Test1ViewController:
    """The README's class, built from controllerreg's args dict."""

    def __init__(self, args: Dict[str, Any]) -> None:
        self.dependentString = args["dependentString"]
        self.dependentInt = args["dependentInt"]
        self.dependentBool = args["dependentBool"]
        self.test2ViewController = args["test2ViewController"]
        self.color = args.get("color")
        self.number = args.get("number")


class Test1ViewControllerKw:
    """The same class for dependency-injector, which passes keyword arguments."""

    def __init__(
        self,
        dependentString: str,
        dependentInt: int,
        dependentBool: bool,
        test2ViewController: Test2ViewController,
        color: Any = None,
        number: Any = None,
    ) -> None:
        self.dependentString = dependentString
        self.dependentInt = dependentInt
        self.dependentBool = dependentBool
        self.test2ViewController = test2ViewController
        self.color = color
        self.number = number


class Service:
    def __init__(self, args: Any = None) -> None:
        self.args = args


class Container(containers.DeclarativeContainer):
    test2 = providers.Factory(Test2ViewController)
    test1 = providers.Factory(
        Test1ViewControllerKw, dependentString=TEXT, dependentInt=1000, dependentBool=True, test2ViewController=test2
    )
    service = providers.Singleton(Service)


def registry() -> controllerreg.Registry:
    reg = controllerreg.Registry()
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Test1ViewController", Test1ViewController)
    reg.register_class("Service", Service)
    reg.register_class("Holder", lambda args: args["make"])
    reg.load_string(TEST1_YAML)
    return reg


def batch_time(fn: Callable[[], Any], n: int) -> int:
    gc.disable()
    try:
        t0 = time.thread_time_ns()
        fn_loop(fn, n)
        return time.thread_time_ns() - t0
    finally:
        gc.enable()


def fn_loop(fn: Callable[[], Any], n: int) -> None:
    for _ in range(n):
        fn()


def compare(name: str, ours: Callable[[], Any], theirs: Callable[[], Any], n: int, pairs: int) -> Dict[str, Any]:
    """Interleaved pairs; returns medians (ns/op) and the ratios theirs/ours."""
    batch_time(ours, max(1, n // 10))  # warm up
    batch_time(theirs, max(1, n // 10))
    a: List[float] = []
    b: List[float] = []
    ratios: List[float] = []
    for i in range(pairs):
        if i % 2 == 0:
            ta = batch_time(ours, n)
            tb = batch_time(theirs, n)
        else:
            tb = batch_time(theirs, n)
            ta = batch_time(ours, n)
        a.append(ta / n)
        b.append(tb / n)
        ratios.append(tb / ta)
    return {
        "name": name,
        "ours": statistics.median(a),
        "theirs": statistics.median(b),
        "ratio": statistics.median(ratios),
        "min": min(ratios),
        "max": max(ratios),
        "pairs": pairs,
        "n": n,
    }


def operations(
    reg: controllerreg.Registry, container: Container, tmp: Path
) -> Dict[str, Tuple[Callable[[], Any], Callable[[], Any], int]]:
    """Each row's operation for controllerreg and for dependency-injector, and its batch size (the
    timed pairs here and the instruction counts of instructions.py run the same operations)."""
    holder = reg.create("Holder")
    path = tmp / "entries-1000.yaml"
    genconfig.write_yaml(str(path), genconfig.entries(1000))

    def load_ours() -> None:
        with controllerreg.Registry() as fresh:
            fresh.load_file(path)

    def load_theirs() -> None:
        config = providers.Configuration()
        config.from_yaml(str(path), loader=yaml.CSafeLoader)

    return {
        "create.test1": (
            lambda: reg.create("Test1", color="red", number=1),
            lambda: container.test1(color="red", number=1),
            20_000,
        ),
        "singleton.hit": (lambda: reg.create("Service"), container.service, 200_000),
        "provider.create": (holder, container.test2, 50_000),
        "load.yaml.1000": (load_ours, load_theirs, 5),
    }


def rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def memory_row(reg: controllerreg.Registry, count: int) -> Dict[str, Any]:
    create = reg.create
    for _ in range(100_000):  # warm up: caches, free lists
        create("Test1", color="red", number=1)
    gc.collect()
    rss0 = rss_kib()
    for i in range(count):
        create("Test1", color="red", number=i)
    gc.collect()
    rss1 = rss_kib()
    tracemalloc.start()
    for _ in range(10_000):
        create("Test1", color="red", number=1)
    gc.collect()
    traced0 = tracemalloc.get_traced_memory()[0]
    for i in range(count):
        create("Test1", color="red", number=i)
    gc.collect()
    traced1 = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return {"count": count, "rss0": rss0, "rss1": rss1, "traced0": traced0, "traced1": traced1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="fewer pairs and a 100k memory loop")
    parser.add_argument("--markdown", action="store_true", help="print the BENCHMARKS.md rows")
    opts = parser.parse_args()
    pairs = 5 if opts.quick else opts.pairs
    count = 100_000 if opts.quick else 1_000_000

    reg = registry()
    container = Container()
    test1_ours = reg.create("Test1", color="red", number=1)
    test1_theirs = container.test1(color="red", number=1)
    assert vars(test1_ours).keys() == vars(test1_theirs).keys()
    assert reg.create("Service") is reg.create("Service")

    with tempfile.TemporaryDirectory() as tmp:
        ops = operations(reg, container, Path(tmp))
        rows = [compare(name, ours, theirs, n, pairs) for name, (ours, theirs, n) in ops.items()]
    mem = memory_row(reg, count)

    targets: List[Tuple[str, bool, str]] = [
        ("README Test1 create faster than dependency-injector's Factory graph", rows[0]["ratio"] > 1, f"{rows[0]['ratio']:.2f}x"),
        (
            "singleton hit within 1.5x of providers.Singleton",
            rows[1]["ratio"] >= 1 / 1.5,
            f"{1 / rows[1]['ratio']:.2f}x its time",
        ),
        ("1,000-entry YAML load >= 10x faster than from_yaml (CSafeLoader)", rows[3]["ratio"] >= 10, f"{rows[3]['ratio']:.1f}x"),
        (
            f"{count:,} creates: no memory growth (RSS, tracemalloc)",
            mem["rss1"] - mem["rss0"] < 1024 and mem["traced1"] - mem["traced0"] < 64 * 1024,
            f"RSS {mem['rss1'] - mem['rss0']:+d} KiB, traced {mem['traced1'] - mem['traced0']:+d} B",
        ),
    ]

    env = (
        f"Python {platform.python_version()}, controllerreg {controllerreg.version()} "
        f"(extension), dependency-injector {dependency_injector.__version__}, PyYAML {yaml.__version__} "
        f"(CSafeLoader), {time.strftime('%Y-%m-%d %H:%M:%SZ', time.gmtime())}, {pairs} pairs"
    )
    print(env)
    print()
    print("| row | controllerreg | dependency-injector | ratio (DI / ours), median | min .. max |")
    print("|---|---|---|---|---|")
    for r in rows:
        unit, scale = ("ms", 1e6) if r["name"].startswith("load") else ("us", 1e3)
        print(
            f"| {r['name']} | {r['ours'] / scale:.3f} {unit} | {r['theirs'] / scale:.3f} {unit} | "
            f"{r['ratio']:.2f}x | {r['min']:.2f} .. {r['max']:.2f} |"
        )
    print(
        f"| memory.{count} creates | RSS {mem['rss0']} -> {mem['rss1']} KiB | tracemalloc "
        f"{mem['traced0']} -> {mem['traced1']} B | | |"
    )
    print()
    print("| target | holds | figure |")
    print("|---|---|---|")
    for text, ok, figure in targets:
        print(f"| {text} | {'yes' if ok else '**no**'} | {figure} |")
    reg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
