#!/bin/sh
# Runs the binding tests against a built library:
#   bindings/run-tests.sh [path/to/libcontrollerreg.so] [build-dir]
# C++: configures bindings/cpp on its own (build-dir/bindings-cpp), builds, runs ctest.
# Python: installs the package and pytest into build-dir/venv, runs pytest.
# (In the CMake build the C++ tests are part of the main ctest run; scripts/test.sh can call
#  this script with --python-only.)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
python_only=0
if [ "${1:-}" = "--python-only" ]; then python_only=1; shift; fi
lib=${1:-$root/build/libcontrollerreg.so}
build=${2:-$root/build}
case $lib in /*) ;; *) lib=$(pwd)/$lib ;; esac
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
[ -f "$lib" ] || { echo "run-tests.sh: no library at $lib" >&2; exit 1; }

if [ $python_only = 0 ]; then
    cmake -S "$root/bindings/cpp" -B "$build/bindings-cpp" -DCONTROLLERREG_LIBRARY="$lib" >/dev/null
    cmake --build "$build/bindings-cpp" -j2
    ctest --test-dir "$build/bindings-cpp" --output-on-failure
fi

python=${PYTHON:-python3}
[ -x "$build/venv/bin/python" ] || "$python" -m venv "$build/venv"
"$build/venv/bin/pip" install -q --disable-pip-version-check "$root/bindings/python" pytest
cd "$root/bindings/python"
CONTROLLERREG_LIBRARY=$lib "$build/venv/bin/python" -m pytest -q -p no:cacheprovider tests
