#!/usr/bin/env bash
# The whole test run: system packages, the SwiftPM build and tests, then the native CMake build
# and every ctest test (C and C++ host tests, C++ binding, valgrind, no-Swift runtime, exports,
# install), then the Python binding's pytest suite.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
bash scripts/setup.sh
source scripts/env.sh

echo "== swift build"
swift build
echo "== swift test"
swift test

echo "== cmake build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build

echo "== ctest"
(cd build && ctest --output-on-failure)

echo "== python binding (wheel around build/libcontrollerreg.so, fresh venv, pytest + mypy on the installed package)"
bash bindings/run-tests.sh --python-only build/libcontrollerreg.so build

echo "== all tests passed in $((SECONDS - start))s"
