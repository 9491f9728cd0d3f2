#!/usr/bin/env bash
# The allocation-failure campaign (issue 12 item 9): for each scenario (loads in three formats,
# creates, props, a registry), fail the 1st, 2nd, ... allocation it makes, one per run, and count
# how each run ends: ok (absorbed), nomem (CR_ERR_NO_MEMORY), other (another code), crash.
# Cold runs start from a fresh process; warm runs after one unarmed pass of the same scenario.
#   scripts/oom-campaign.sh [BUILD_DIR]   (default build/; builds libcontrollerreg.so there first)
# Slow-ish (a few thousand forked runs, about a minute): not part of scripts/test.sh.
# The figures are published in docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
source scripts/env.sh
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target controllerreg >&2
OUT=$BUILD/oom
mkdir -p "$OUT"
cc -O1 -g -shared -fPIC -o "$OUT/failalloc.so" host-tests/oom/failalloc.c
cc -O1 -g -std=c99 -Wall -Wextra -Iinclude -o "$OUT/oom-host" host-tests/oom/oom_host.c \
    -L"$BUILD" -lcontrollerreg -Wl,-rpath,"$PWD/$BUILD" -ldl
echo "== allocation-failure campaign (one failed allocation per run)"
# A Swift trap prints a backtrace by default: off, so a crashing run costs milliseconds.
export SWIFT_BACKTRACE=enable=no
for mode in "" --warm; do
    for s in load-yaml load-json load-plist create props registry; do
        LD_PRELOAD=$PWD/$OUT/failalloc.so "$OUT/oom-host" "$s" $mode ${OOM_VERBOSE:+--verbose} 2>>"$OUT/children.log"
    done
done
