#!/usr/bin/env bash
# Builds libcontrollerreg.so and the C benchmark (CMake, Release) and the Swift benchmark (Swinject,
# SwiftPM release), runs every benchmark as interleaved A/B pairs plus callgrind instruction counts,
# prints the tables and writes build/bench/results.json and table.md (Benchmarks/README.md: method).
#   scripts/bench.sh                 full run (about 5-8 minutes on 2 cores)
#   scripts/bench.sh --quick         5 pairs per ratio, 10k loads, callgrind on 1k loads (< 2 minutes once built)
#   scripts/bench.sh --no-callgrind  timings only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/bench
mkdir -p "$OUT"
bash scripts/setup.sh >&2
source scripts/env.sh
# Optional comparisons (libplist, rapidjson): the C benchmark skips their pairs cleanly when absent.
for pkg in libplist-dev rapidjson-dev; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        { [[ $(id -u) -eq 0 ]] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >&2; } ||
            echo "bench.sh: $pkg not installed; its comparisons are skipped" >&2
    fi
done

echo "== building libcontrollerreg.so and the C benchmark (CMake, Release)" >&2
# A build with nothing changed is a no-op (CMakeLists.txt stamps the Swift outputs), so always build.
cmake -S . -B "$OUT/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCONTROLLERREG_BUILD_TESTS=OFF -DCONTROLLERREG_BUILD_EXAMPLES=OFF -DCONTROLLERREG_BUILD_BENCHMARKS=ON >&2
cmake --build "$OUT/cmake" --target controllerreg-bench >&2
# The C++ binding's benchmark (Benchmarks/cpp), when the build defines it. (grep reads the whole
# list: `grep -q` stops at the first match, cmake then dies of SIGPIPE and, under pipefail, the
# test failed and the C++ rows were left out of some runs.)
if cmake --build "$OUT/cmake" --target help 2>/dev/null | grep 'controllerreg-bench-cpp' >/dev/null; then
    cmake --build "$OUT/cmake" --target controllerreg-bench-cpp >&2
fi

echo "== building the Swift benchmark (Swinject)" >&2
# SwiftPM can keep planning with the path dependency's old file list after files were added to it:
# on a failure, drop the build plan (release.yaml; compiled objects stay) and try once more.
(cd Benchmarks && { swift build -c release --product SwiftBench >&2 ||
    { rm -f .build/release.yaml && swift build -c release --product SwiftBench >&2; }; })
SWIFT_BENCH=$(cd Benchmarks && swift build -c release --show-bin-path)/SwiftBench

echo "== running (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
python3 "$ROOT/Benchmarks/scripts/driver.py" --build "$OUT/cmake" --c-bench "$OUT/cmake/Benchmarks/c/controllerreg-bench" \
    --swift-bench "$SWIFT_BENCH" --lib "$OUT/cmake/libcontrollerreg.so" --out "$OUT" "$@"
