#!/bin/sh
# The README's C++ example, as a newcomer runs it: install the build to a fresh prefix, copy the
# README's C++ program (the first ```cpp block of "## C++ and Python") into a folder outside the
# checkout, build it against the installed controllerreg.hpp with pkg-config's flags, run it, and
# check what it prints: the wired object's line, then the message the README's comment promises.
#   cpp-example.sh BUILD_DIR README CXX
set -eu
build=$1 readme=$2 cxx=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/controllerreg-cpp-example.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix app=$work/app
mkdir -p "$app"

cmake --install "$build" --prefix "$prefix" >/dev/null

awk '
    /^## / { in_section = ($0 == "## C++ and Python") }
    in_section && !done && $0 == "```cpp" { copying = 1; next }
    copying && $0 == "```" { copying = 0; done = 1 }
    copying { print }' "$readme" >"$app/example.cpp"
[ -s "$app/example.cpp" ] || { echo "no cpp block under '## C++ and Python' in $readme" >&2; exit 1; }
# The comment on the line printing e.what() is what the README says the program prints there.
promised=$(sed -n 's|.*std::cout << e\.what() << "\\n"; *// ||p' "$app/example.cpp")
[ -n "$promised" ] || { echo "no '// message' comment after e.what() in the README's C++ example" >&2; exit 1; }

libdir=$(dirname "$(find "$prefix" -name libcontrollerreg.so -print | head -n 1)")
cd "$app"
flags=$(PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_PATH='' pkg-config --cflags --libs controllerreg)
# shellcheck disable=SC2086 # the flags are words
"$cxx" -std=c++17 example.cpp $flags -Wl,-rpath,"$libdir" -o example
./example >out.txt
cat out.txt
expected='red 1 1000 Test2ViewController'
[ "$(sed -n 1p out.txt)" = "$expected" ] || { echo "line 1 expected: $expected" >&2; exit 1; }
[ "$(sed -n 2p out.txt)" = "$promised" ] || { echo "line 2 expected (the README's comment): $promised" >&2; exit 1; }
