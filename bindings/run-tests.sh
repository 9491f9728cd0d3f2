#!/bin/sh
# Runs the binding tests against a built library:
#   bindings/run-tests.sh [--python-only] [path/to/libcontrollerreg.so] [build-dir]
# C++: configures bindings/cpp on its own (build-dir/bindings-cpp), builds, runs ctest.
# Python: builds the sdist and the wheel from it (python -m build at the root) around that library
# (no second Swift build), checks that the sdist holds every file the build reads
# (bindings/python/check-sdist.sh), installs the wheel into a fresh venv (build-dir/python-venv)
# and runs pytest from the tests directory against the INSTALLED package, then mypy --strict on
# the tests and the README example.
# (In the CMake build the C++ tests are part of the main ctest run; scripts/test.sh calls this
#  script with --python-only.)
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
dist=$build/python-dist
venv=$build/python-venv
rm -rf "$dist" "$venv"
# A fresh venv without its own pip (ensurepip is slow); this pip installs into it. `build` and
# scikit-build-core in it make the packages below without an isolated environment of their own.
"$python" -m venv --without-pip "$venv"
"$python" -m pip --python "$venv/bin/python" install -q --disable-pip-version-check \
    pytest mypy build scikit-build-core
# What `python -m build` does at the repository root: the sdist, then the wheel built from that
# sdist. The wheel packages the library built above (CONTROLLERREG_PREBUILT_LIBRARY) and compiles
# only the extension; the check below covers the Swift sources the sdist must hold for a build
# without it (pip install controllerreg-X.tar.gz).
"$venv/bin/python" -m build --no-isolation -o "$dist" "$root" \
    -C cmake.define.CONTROLLERREG_PREBUILT_LIBRARY="$lib"
sh "$root/bindings/python/check-sdist.sh" "$dist"/controllerreg-*.tar.gz "$build/python-sdist-check"
"$python" -m pip --python "$venv/bin/python" install -q --disable-pip-version-check --no-deps \
    "$dist"/controllerreg-*.whl
cd "$root/bindings/python/tests"
status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider . || status=$?
if [ $status -eq 5 ]; then
    echo "run-tests.sh: pytest collected no tests in bindings/python/tests" >&2
    exit 1
fi
[ $status -eq 0 ] || exit $status
cd "$root"
"$venv/bin/mypy" --strict --no-incremental examples/python/example.py bindings/python/tests
