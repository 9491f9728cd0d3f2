#!/bin/sh
# The README's "Quick start in Swift" program, as a newcomer's Sources/App/main.swift: copied out
# of README.md (the first ```swift block of that section) into a folder outside the checkout next
# to the C quick start's screens.yaml (the file it loads), compiled against the Swift modules and
# static libraries the CMake build made (SwiftPM would compile the same sources again: minutes),
# and run. One line is appended that prints what it built, so the test sees the wiring, not only
# that the program compiles.
#   swift-quickstart.sh SOURCE_DIR BUILD_DIR README SWIFTC
set -eu
source=$1 build=$2 readme=$3 swiftc=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/controllerreg-swift-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT

extract() { # section fence-language
    awk -v section="$1" -v lang="$2" '
        /^## / { in_section = ($0 == section) }
        in_section && !done && $0 == "```" lang { copying = 1; next }
        copying && $0 == "```" { copying = 0; done = 1 }
        copying { print }' "$readme"
}
extract "## Quick start in Swift" swift >"$work/main.swift"
extract "## Quick start in C" yaml >"$work/screens.yaml"
[ -s "$work/main.swift" ] && [ -s "$work/screens.yaml" ] || { echo "no swift block under '## Quick start in Swift' or yaml block under '## Quick start in C' in $readme" >&2; exit 1; }
grep -q '^let screen = ' "$work/main.swift" || { echo "the README's Swift quick start no longer ends with 'let screen = ...'" >&2; exit 1; }
echo 'print(screen.text, screen.number, screen.next.map { "\(type(of: $0))" } ?? "nil")' >>"$work/main.swift"

cd "$work"
"$swiftc" main.swift -o app \
    -I "$build/swift" -I "$source/Sources/CYaml" -I "$source/Sources/CThreadRecord" -I "$source/Sources/CControllerRegHeader" \
    -L "$build" -lControllerReg -lControllerRegConfig -lyaml
out=$(./app)
echo "$out"
expected='Yes, you can inject a string using the config file 1000 Test2VC'
[ "$out" = "$expected" ] || { echo "expected: $expected" >&2; exit 1; }
