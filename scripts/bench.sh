#!/usr/bin/env bash
# Builds libcontrollerreg.so and the C benchmark (CMake, Release) and the Swift benchmark (Swinject,
# SwiftPM release), runs every benchmark and prints the table; writes build/bench/results.json and table.md.
#   scripts/bench.sh           full run (about 5-10 minutes on 2 cores)
#   scripts/bench.sh --quick   fewer runs, smaller soak (a smoke test of the whole pipeline)
# Run on an otherwise idle machine: timings of a loaded machine are noise (check `uptime`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/bench
mkdir -p "$OUT"
bash scripts/setup.sh >&2
source scripts/env.sh
if ! pkg-config --exists libplist-2.0 2>/dev/null; then
    # Optional comparison: the C benchmark skips libplist cleanly when it is absent.
    { [[ $(id -u) -eq 0 ]] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libplist-dev >&2; } ||
        echo "bench.sh: libplist-dev not installed; libplist comparisons are skipped" >&2
fi

echo "== building libcontrollerreg.so and the C benchmark (CMake, Release)" >&2
cmake -S . -B "$OUT/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCONTROLLERREG_BUILD_TESTS=OFF -DCONTROLLERREG_BUILD_EXAMPLES=OFF -DCONTROLLERREG_BUILD_BENCHMARKS=ON >&2
cmake --build "$OUT/cmake" --target controllerreg-bench >&2

echo "== building the Swift benchmark (Swinject)" >&2
(cd Benchmarks && swift build -c release --product SwiftBench >&2)
SWIFT_BENCH=$(cd Benchmarks && swift build -c release --show-bin-path)/SwiftBench

echo "== running (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
python3 "$ROOT/Benchmarks/scripts/driver.py" --c-bench "$OUT/cmake/Benchmarks/c/controllerreg-bench" --swift-bench "$SWIFT_BENCH" --out "$OUT" "$@"
