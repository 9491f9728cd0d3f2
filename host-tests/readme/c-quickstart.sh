#!/bin/sh
# The README's "Quick start in C", as a newcomer runs it: install the build to a fresh prefix, copy
# the README's screens.yaml and C program into a folder outside the checkout, build the program
# with the command the README gives (pkg-config only sees the installed controllerreg.pc, so it
# cannot lean on libyaml's development files), and run it the two ways the README says a program
# finds the library: LD_LIBRARY_PATH, and an rpath.
#   c-quickstart.sh BUILD_DIR README CC
set -eu
build=$1 readme=$2 cc=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/controllerreg-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix app=$work/app
mkdir -p "$app"

cmake --install "$build" --prefix "$prefix" >/dev/null

# The first ```yaml and ```c blocks of the section "## Quick start in C".
extract() { # fence-language
    awk -v lang="$1" '
        /^## / { in_section = ($0 == "## Quick start in C") }
        in_section && !done && $0 == "```" lang { copying = 1; next }
        copying && $0 == "```" { copying = 0; done = 1 }
        copying { print }' "$readme"
}
extract yaml >"$app/screens.yaml"
extract c >"$app/demo.c"
[ -s "$app/screens.yaml" ] && [ -s "$app/demo.c" ] || { echo "no yaml or c block under '## Quick start in C' in $readme" >&2; exit 1; }

libdir=$(dirname "$(find "$prefix" -name libcontrollerreg.so -print | head -n 1)")
cd "$app"
flags=$(PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_PATH='' pkg-config --cflags --libs controllerreg)
echo "pkg-config --cflags --libs controllerreg: $flags"
expected='Yes, you can inject a string using the config file / 1000 / 1 / second screen'

# shellcheck disable=SC2086 # the flags are words
"$cc" demo.c $flags -o demo
out=$(LD_LIBRARY_PATH="$libdir" ./demo)
echo "LD_LIBRARY_PATH: $out"
[ "$out" = "$expected" ] || { echo "expected: $expected" >&2; exit 1; }

# shellcheck disable=SC2086
"$cc" demo.c $flags -Wl,-rpath,"$libdir" -o demo-rpath
out=$(./demo-rpath)
echo "rpath: $out"
[ "$out" = "$expected" ] || { echo "expected: $expected" >&2; exit 1; }
