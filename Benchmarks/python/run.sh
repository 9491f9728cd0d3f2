#!/bin/sh
# Runs the Python benchmark (bench.py) in its own venv: the controllerreg wheel built around the
# CMake build's library, plus dependency-injector and PyYAML from PyPI.
#   Benchmarks/python/run.sh [bench.py options]      (needs build/libcontrollerreg.so: cmake --build build)
#   Benchmarks/python/run.sh --instructions [ROW...]  instructions per operation under callgrind (instructions.py)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
lib=$build/libcontrollerreg.so
[ -f "$lib" ] || { echo "run.sh: no library at $lib (cmake -S . -B build -G Ninja && cmake --build build)" >&2; exit 1; }
python=${PYTHON:-python3}
wheels=$build/bench-python-wheel
venv=$build/bench-python-venv
rm -rf "$wheels"
"$python" -m pip wheel -q --disable-pip-version-check --no-deps -w "$wheels" "$root" \
    -C cmake.define.CONTROLLERREG_PREBUILT_LIBRARY="$lib" -C build-dir="$build/python-build"
[ -x "$venv/bin/python" ] || "$python" -m venv --without-pip "$venv"
"$python" -m pip --python "$venv/bin/python" install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$wheels"/controllerreg-*.whl
"$python" -m pip --python "$venv/bin/python" install -q --disable-pip-version-check dependency-injector pyyaml
if [ "${1:-}" = "--instructions" ]; then
    shift
    exec "$venv/bin/python" "$root/Benchmarks/python/instructions.py" "$@"
fi
exec "$venv/bin/python" "$root/Benchmarks/python/bench.py" "$@"
