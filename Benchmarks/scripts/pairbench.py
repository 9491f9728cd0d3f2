"""pairbench.py — interleaved A/B pairs for Python benchmark sections (the Python twin of
Benchmarks/c/pairbench.h). See Benchmarks/README.md for how a pair row is added.

    import pairbench
    pairbench.pair("python.json.10000", lambda: json.loads(data),
                   "load.json.10000", load_with_ctypes, pairs=21)   # prints a PAIR line

A and B are timed back to back, block after block, in alternating order (A B, B A, ...); every
pair of blocks gives one ratio A/B, and driver.py reports their min / median / max. Time is this
thread's CPU time (time.thread_time_ns), or wall time with BENCH_CLOCK=wall.

For callgrind, a script offers `cg NAME N` (run the operation N times, untimed); driver.py counts
it by difference (N=1 against N=3), so interpreter start-up cancels out.
"""

import json
import os
import sys
import time

_clock = time.perf_counter_ns if os.environ.get("BENCH_CLOCK") == "wall" else time.thread_time_ns


def pairs_from_env(default=21):
    """BENCH_PAIRS, as the C and Swift benchmarks read it."""
    try:
        n = int(os.environ.get("BENCH_PAIRS", default))
        return n if n > 0 else default
    except ValueError:
        return default


def block_ms_from_env(default=4.0):
    try:
        v = float(os.environ.get("BENCH_BLOCK_MS", default))
        return v if v > 0 else default
    except ValueError:
        return default


def _block(fn, n, teardown=None, prime=False):
    """Nanoseconds of n calls of fn; teardown(result) after each call is not counted. prime: an
    untimed call (and its teardown) first, so the block meets the state fn's own previous call
    left rather than the other side's (as bench.c's BENCH_LOAD_STATE=after-self)."""
    if prime:
        r = fn()
        if teardown is not None:
            teardown(r)
        r = None
    total = 0
    for _ in range(n):
        t0 = _clock()
        r = fn()
        total += _clock() - t0
        if teardown is not None:
            teardown(r)
        r = None  # freed here, outside the timing
    return total


def calibrate(fn, block_ms, teardown=None):
    """Calls of fn that take about block_ms (at least 1)."""
    n = 1
    while True:
        ns = _block(fn, n, teardown)
        if ns >= block_ms * 1e6 / 4 or n >= 1 << 30:
            per = ns / n
            return max(1, int(block_ms * 1e6 / per)) if per > 0 else n
        n *= 4


def emit(line_kind, record):
    print(line_kind + " " + json.dumps(record), flush=True)


def pair(
    a,
    a_fn,
    b,
    b_fn,
    pairs=None,
    block_ms=None,
    n_a=None,
    n_b=None,
    unit="ns/op",
    a_teardown=None,
    b_teardown=None,
    extra=None,
    prime=False,
):
    """Times a_fn and b_fn in interleaved blocks and prints one PAIR line.

    n_a / n_b: calls per block (default: calibrated to block_ms). unit "ns/op" or "ms" (per call).
    a_teardown / b_teardown: called with each result, outside the timing (frees what was built).
    prime: each block starts with one untimed call of its own side (see _block).
    """
    pairs = pairs or pairs_from_env()
    block_ms = block_ms or block_ms_from_env()
    scale = {"ns/op": 1.0, "us/op": 1e-3, "ms": 1e-6}[unit]
    n_a = n_a or calibrate(a_fn, block_ms, a_teardown)
    n_b = n_b or calibrate(b_fn, block_ms, b_teardown)
    a_s, b_s = [], []
    for i in range(pairs):
        if i % 2 == 0:
            a_s.append(_block(a_fn, n_a, a_teardown, prime) / n_a * scale)
            b_s.append(_block(b_fn, n_b, b_teardown, prime) / n_b * scale)
        else:
            b_s.append(_block(b_fn, n_b, b_teardown, prime) / n_b * scale)
            a_s.append(_block(a_fn, n_a, a_teardown, prime) / n_a * scale)
    record = {"a": a, "b": b, "unit": unit, "a_samples": a_s, "b_samples": b_s}
    record.update(extra or {})
    emit("PAIR", record)
    return record


def result(name, unit, samples, **extra):
    """Prints one RESULT line (a single-sided measurement)."""
    record = {"name": name, "unit": unit, "samples": list(samples)}
    record.update(extra)
    emit("RESULT", record)


def count(fn, n, teardown=None):
    """The callgrind mode: n calls of fn, untimed."""
    for _ in range(n):
        r = fn()
        if teardown is not None:
            teardown(r)


def skip(what, why):
    print("SKIP %s: %s" % (what, why), flush=True)


if __name__ == "__main__":
    sys.exit("pairbench.py is a module; see Benchmarks/README.md")
