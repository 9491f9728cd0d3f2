#!/usr/bin/env bash
# Builds libcontrollerreg.so, the C benchmark and the Swift benchmark (Swinject) in release mode,
# runs every benchmark and prints the table; writes build/bench/results.json and table.md.
#   scripts/bench.sh           full run (about 5-10 minutes on 2 cores)
#   scripts/bench.sh --quick   fewer runs, smaller soak (a smoke test of the whole pipeline)
# Run on an otherwise idle machine: timings of a loaded machine are noise (check `uptime`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/bench
mkdir -p "$OUT"
export PATH=/opt/swift/usr/bin:$PATH

echo "== building libcontrollerreg.so (release)" >&2
swift build -c release --product controllerreg >&2
LIBDIR=$ROOT/.build/release
SWIFTLIB=$(dirname "$(command -v swift)")/../lib/swift/linux

echo "== building the C benchmark" >&2
PLIST_FLAGS=""
if pkg-config --exists libplist-2.0 2>/dev/null; then
    PLIST_FLAGS="-DHAVE_LIBPLIST $(pkg-config --cflags --libs libplist-2.0)"
else
    echo "   (libplist not found: its comparisons are skipped; apt-get install libplist-dev)" >&2
fi
# shellcheck disable=SC2086
cc -O2 -std=gnu11 -Wall -Wextra -I"$ROOT/include" "$ROOT/Benchmarks/c/bench.c" -o "$OUT/bench" \
    -L"$LIBDIR" -lcontrollerreg -Wl,-rpath,"$LIBDIR" -Wl,-rpath,"$SWIFTLIB" \
    $(pkg-config --cflags --libs yaml-0.1) $PLIST_FLAGS -lpthread

echo "== building the Swift benchmark (Swinject)" >&2
(cd Benchmarks && swift build -c release --product SwiftBench >&2)
SWIFT_BENCH=$(cd Benchmarks && swift build -c release --show-bin-path)/SwiftBench

echo "== running (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
python3 "$ROOT/Benchmarks/scripts/driver.py" --c-bench "$OUT/bench" --swift-bench "$SWIFT_BENCH" --out "$OUT" "$@"
