#!/usr/bin/env python3
"""Times the hostile error paths of issue 12 against a valid load of the same size.

Usage: python3 scripts/hostile-timing.py [path/to/libcontrollerreg.so]   (default: build/lib*.so*)
Each case is loaded (or created) through the C ABI with ctypes; the figure is the best of three
wall-clock runs. Nothing is asserted: the figures go to docs/reliability.md.
"""

import ctypes
import glob
import os
import sys
import time


def library():
    if len(sys.argv) > 1:
        return sys.argv[1]
    found = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "build", "libcontrollerreg.so*")))
    if not found:
        sys.exit("build the library first (cmake --build build) or pass its path")
    return found[0]


lib = ctypes.CDLL(library())
lib.cr_registry_new.restype = ctypes.c_void_p
lib.cr_registry_free.argtypes = [ctypes.c_void_p]
lib.cr_load_string.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
lib.cr_registry_create.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
lib.cr_registry_create.restype = ctypes.c_void_p
lib.cr_last_error_message.restype = ctypes.c_char_p
JSON, YAML = 1, 2


def best(run, times=3):
    result = None
    for _ in range(times):
        start = time.perf_counter()
        status, message = run()
        elapsed = time.perf_counter() - start
        result = (min(result[0], elapsed) if result else elapsed, status, message)
    return result


def load(text, fmt=YAML):
    def run():
        reg = lib.cr_registry_new()
        status = lib.cr_load_string(reg, text, len(text), fmt)
        message = lib.cr_last_error_message() if status else b""
        lib.cr_registry_free(reg)
        return status, message

    return run


def create(config, name):
    """Times the create alone (the registry is loaded once, outside the timing)."""
    reg = lib.cr_registry_new()
    assert lib.cr_load_string(reg, config, len(config), YAML) == 0

    def run():
        obj = lib.cr_registry_create(reg, name, None)
        return (8 if obj is None else 0), lib.cr_last_error_message()

    return run


def chain(n, close):
    lines = [f"E{i}: {{ClassName: C, Dependencies: {{next: E{i + 1}}}}}" for i in range(n - 1)]
    lines.append(f"E{n - 1}: {{ClassName: C, Dependencies: {{next: E0}}}}" if close else f"E{n - 1}: C")
    return ("\n".join(lines) + "\n").encode()


def refs(n, missing):
    lines = [f"T{i}: C" for i in range(n)]
    lines += [f"E{i}: {{ClassName: C, Dependencies: {{a: {'M' if missing else 'T'}{i}}}}}" for i in range(n)]
    return ("\n".join(lines) + "\n").encode()


def long_names(size, differ):
    # JSON: libyaml caps implicit YAML keys at 1024 characters.
    a = "A" * size
    b = a[:-1] + ("B" if differ else "A")
    return ('{"%s": "C", "X": {"ClassName": "C", "Dependencies": {"d": "%s"}}}' % (a, b)).encode()


rows = []


def row(case, bad, good):
    t_bad, status, message = bad
    t_good = good[0] if good else None
    rows.append((case, t_bad, t_good, status, len(message)))
    print(
        f"{case:58} {t_bad * 1000:9.1f} ms  valid: {'' if t_good is None else f'{t_good * 1000:9.1f} ms'}  "
        f"status {status}, message {len(message)} bytes",
        flush=True,
    )


for n in (10_000,):
    row(f"{n:,} missing references", best(load(refs(n, True))), best(load(refs(n, False))))
for n in (10_000, 20_000, 40_000, 100_000):
    row(f"{n:,}-entry cycle", best(load(chain(n, True))), best(load(chain(n, False))))
row(
    "two 64,000-byte names differing in one byte",
    best(load(long_names(64_000, True), JSON)),
    best(load(long_names(64_000, False), JSON)),
)
names = ("\n".join(f"Entry{i}: C" for i in range(10_000)) + "\n").encode()
for size in (32 * 1024, 1024 * 1024):
    row(f"create of an unknown {size // 1024} KiB name (10,000 entries)", best(create(names, b"N" * size)), None)
