#!/bin/sh
# Checks that an sdist of the Python package holds every file its build reads:
#   bindings/python/check-sdist.sh path/to/controllerreg-X.Y.Z.tar.gz work-dir
# Unpacks the sdist into work-dir, configures its bindings/python as `pip install` of the sdist
# does (the library built from its Swift sources), configures the checkout's bindings/python the
# same way, and compares the source files the two build graphs read (ninja -t inputs _native).
# Fails naming each file the checkout's build reads that the sdist lacks, and each file the
# sdist's build would read from the checkout instead of from itself. CMake files a configure reads
# (include, configure_file) are checked by the configure itself. Configure only: seconds, no
# compile (the whole install of an sdist is described in docs/python.md, "Installing").
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: check-sdist.sh SDIST WORK-DIR" >&2; exit 2; }
sdist=$1
work=$2
[ -f "$sdist" ] || { echo "check-sdist.sh: no sdist at $sdist" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/unpacked"
work=$(cd "$work" && pwd)
tar -xzf "$sdist" -C "$work/unpacked"
src=$(cd "$work/unpacked"/controllerreg-* && pwd)

# configure NAME SOURCE-ROOT: configures SOURCE-ROOT/bindings/python into work/NAME and writes the
# source files its graph reads to work/NAME.inputs, relative to SOURCE-ROOT ("OUTSIDE:" + the path
# for a file of the other tree).
configure() {
    cmake -S "$2/bindings/python" -B "$work/$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        >"$work/$1.log" 2>&1 || {
        echo "check-sdist.sh: configuring $2/bindings/python failed (log: $work/$1.log):" >&2
        tail -n 20 "$work/$1.log" >&2
        exit 1
    }
    ninja -C "$work/$1" -t inputs _native | while read -r path; do
        case $path in
            "$work/$1"/*) ;; # made by the build
            "$2"/*) echo "${path#"$2"/}" ;;
            "$root"/* | "$src"/*) echo "OUTSIDE:$path" ;;
        esac
    done | sort >"$work/$1.inputs"
}
configure checkout "$root"
configure sdist "$src"

status=0
for path in $(grep -v '^OUTSIDE:' "$work/sdist.inputs"); do
    [ -e "$src/$path" ] || { echo "check-sdist.sh: the sdist's build reads $path, which the sdist lacks" >&2; status=1; }
done
for path in $(sed -n 's/^OUTSIDE://p' "$work/sdist.inputs"); do
    echo "check-sdist.sh: the sdist's build reads $path, outside the sdist" >&2
    status=1
done
for path in $(comm -23 "$work/checkout.inputs" "$work/sdist.inputs"); do
    echo "check-sdist.sh: the build reads $path, which the sdist lacks (add it to sdist.include in pyproject.toml)" >&2
    status=1
done
[ $status -eq 0 ] || exit $status
echo "check-sdist.sh: the sdist holds all $(wc -l <"$work/checkout.inputs") source files the build reads"
