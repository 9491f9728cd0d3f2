#!/usr/bin/env python3
"""Instructions per operation of bench.py's rows under callgrind: the noise-free second opinion.

usage: Benchmarks/python/run.sh --instructions [ROW...]   (the venv of run.sh; valgrind on PATH)
       python instructions.py [ROW...]

For each row and side (controllerreg, dependency-injector) it runs this file under
`valgrind --tool=callgrind` twice in a fresh process: the row's setup, a warm-up of WARM
operations, then N1 or N2 operations (the garbage collector off, as in a timed batch). The
instructions per operation are (total at N2 - total at N1) / (N2 - N1): start-up, imports, setup
and warm-up cancel out. The ratio column is dependency-injector's count over controllerreg's
(> 1: controllerreg executes fewer instructions), as bench.py's time ratios are.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Tuple

HERE = Path(__file__).resolve().parent
# Row: (warm-up, N1, N2) operations per measuring process.
COUNTS: Dict[str, Tuple[int, int, int]] = {
    "create.test1": (1000, 1000, 5000),
    "singleton.hit": (1000, 1000, 21000),
    "provider.create": (1000, 1000, 11000),
    "load.yaml.1000": (1, 1, 3),
}
SIDES = ("controllerreg", "dependency-injector")


def run_operations(row: str, side: str, count: int) -> None:
    """The measured process: bench.py's setup, the warm-up, then `count` operations."""
    import bench

    reg = bench.registry()
    container = bench.Container()
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs, _ = bench.operations(reg, container, Path(tmp))[row]
        op = ours if side == SIDES[0] else theirs
        warm = COUNTS[row][0]
        gc.disable()
        bench.fn_loop(op, warm)
        bench.fn_loop(op, count)
    reg.close()


def instructions(row: str, side: str, count: int) -> int:
    """Total instructions of one measuring process under callgrind."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--child",
            row,
            side,
            str(count),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise SystemExit(f"instructions.py: {row} {side} {count} failed under callgrind:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        sys.path.insert(0, str(HERE))
        run_operations(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="*", metavar="ROW", help=f"rows to count (default: all of {', '.join(COUNTS)})")
    rows = parser.parse_args().rows or list(COUNTS)
    unknown = [row for row in rows if row not in COUNTS]
    if unknown:
        parser.error(f"no row {', '.join(unknown)}; the rows are {', '.join(COUNTS)}")
    print("| row | controllerreg instr/op | dependency-injector instr/op | ratio (DI / ours) |")
    print("|---|---|---|---|")
    for row in rows:
        _, n1, n2 = COUNTS[row]
        per_op = [(instructions(row, side, n2) - instructions(row, side, n1)) / (n2 - n1) for side in SIDES]
        print(f"| {row} | {per_op[0]:,.0f} | {per_op[1]:,.0f} | {per_op[1] / per_op[0]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
