#!/bin/sh
# The README's Package.swift for a Swift app (its ```swift block that starts with
# "// swift-tools-version"), as a newcomer uses it: in a folder outside the checkout, next to a
# link named as the snippet's path names the checkout. SwiftPM must resolve it to this package
# alone: the library needs nothing else, and swift-argument-parser (the command line's, behind the
# CommandLineTool trait the snippet turns off) is neither resolved nor fetched.
#   swift-package.sh SOURCE_DIR README SWIFTC
set -eu
source=$1 readme=$2 swiftc=$3
swift=$(dirname "$swiftc")/swift
work=$(mktemp -d "${TMPDIR:-/tmp}/controllerreg-swift-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
app=$work/App
mkdir -p "$app/Sources/App"

awk '
    !done && $0 == "```swift" { getline first; if (first ~ /^\/\/ swift-tools-version/) { copying = 1; print first }; next }
    copying && $0 == "```" { copying = 0; done = 1 }
    copying { print }' "$readme" >"$app/Package.swift"
[ -s "$app/Package.swift" ] || { echo "no swift block starting with // swift-tools-version in $readme" >&2; exit 1; }
name=$(sed -n 's|.*\.package(path: "\.\./\([^"]*\)".*|\1|p' "$app/Package.swift")
[ -n "$name" ] || { echo "the README's Package.swift names no .package(path: \"../NAME\")" >&2; exit 1; }
ln -s "$source" "$work/$name"
echo 'import ControllerReg' >"$app/Sources/App/main.swift"

cd "$app"
"$swift" package show-dependencies --format json >deps.json 2>resolve.log || { cat resolve.log deps.json >&2; exit 1; }
cat deps.json
grep -q "\"name\" *: *\"$name\"" deps.json || { echo "the app does not depend on $name" >&2; exit 1; }
if grep -q swift-argument-parser deps.json resolve.log; then
    echo "the README's Package.swift resolves swift-argument-parser for the library alone" >&2
    exit 1
fi
