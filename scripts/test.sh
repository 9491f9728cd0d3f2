#!/usr/bin/env bash
# The whole test run, the README's test command (CI runs it through .ci/run): system packages, the
# SwiftPM build and tests, the native CMake build and every ctest test (C and C++ host tests, C++
# binding, valgrind, no-Swift runtime, exports, install, the README's C quick start), then the
# Python package's sdist and wheel, the sdist check and the binding's pytest suite. Each step
# prints its command before it runs and its time after; a table of the times ends the run. Exits
# non-zero at the first failing step, naming it.
#
#   CONTROLLERREG_FORMAT_CHECK=0|1 scripts/test.sh  skip / run scripts/format.sh --check first (default: format_check below)
#   CONTROLLERREG_TEST_JOBS=N scripts/test.sh       ctest runs N tests at a time (default: the number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

# The formatting check (CONTRIBUTING.md, "Formatting"). Off until the tree has been formatted once;
# then the default becomes 1.
format_check=${CONTROLLERREG_FORMAT_CHECK:-1}
jobs=${CONTROLLERREG_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}

start=$SECONDS
times=()
step() { # name command...
    local name=$1 began=$SECONDS
    shift
    echo
    echo "== $name: $*"
    if ! "$@"; then
        echo "== $name FAILED after $((SECONDS - began))s: $*" >&2
        exit 1
    fi
    times+=("$(printf '%6ds  %s' $((SECONDS - began)) "$name")")
    echo "== $name: ok in $((SECONDS - began))s"
}

step "setup" bash scripts/setup.sh
source scripts/env.sh

if [[ $format_check == 1 ]]; then
    step "format check" bash scripts/format.sh --check
fi

step "swift build (debug, with tests)" swift build --build-tests
step "swift test" swift test --skip-build

step "cmake configure" cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
step "cmake build" cmake --build build
step "ctest" ctest --test-dir build --output-on-failure --parallel "$jobs"

step "python binding (sdist, wheel from it around build/libcontrollerreg.so, sdist check, fresh venv, pytest + mypy)" \
    bash bindings/run-tests.sh --python-only build/libcontrollerreg.so build

echo
echo "== step times"
printf '%s\n' "${times[@]}"
echo "== all tests passed in $((SECONDS - start))s"
