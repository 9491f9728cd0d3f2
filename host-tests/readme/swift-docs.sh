#!/bin/sh
# Every ```swift block of docs/swift.md, compiled and run as a program of its own, its output
# compared with the ```text block that follows it (the next fenced block after the sample must
# be that text block: a sample without its output fails). A fenced block whose info string
# holds `file=NAME` (```yaml file=app.yaml) is written to NAME in the folder the samples run in,
# so a sample can load the file the page shows. The samples are compiled as the README's Swift
# quick start is (swift-quickstart.sh): against the Swift modules and static libraries of the
# CMake build, outside the checkout. Also checks that every public type of Sources/ControllerReg
# (and the config types it re-exports) is named in the page, so a new one cannot go unmentioned.
#   swift-docs.sh SOURCE_DIR BUILD_DIR DOC SWIFTC
set -eu
source=$1 build=$2 doc=$3 swiftc=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/controllerreg-swift-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Split the page: sample N into $work/sN/main.swift (with its line in sN/line), its expected
# output into sN/expected, files into $work/files/NAME.
mkdir "$work/files"
awk -v work="$work" '
    function fail(message) { print FILENAME ":" NR ": " message > "/dev/stderr"; failed = 1; exit 1 }
    !fenced && /^```/ {
        info = substr($0, 4); fenced = 1; out = ""
        if (awaiting && info != "text") fail("the swift sample at line " sample_line " is not followed by a ```text block of its output")
        if (info == "swift") {
            n++; sample_line = NR; dir = work "/s" n
            system("mkdir \"" dir "\""); print NR > (dir "/line"); close(dir "/line")
            out = dir "/main.swift"; printf "" > out; awaiting = 1
        } else if (info == "text" && awaiting) {
            out = work "/s" n "/expected"; printf "" > out; awaiting = 0
        } else if (match(info, /file=[A-Za-z0-9._-]+/)) {
            out = work "/files/" substr(info, RSTART + 5, RLENGTH - 5); printf "" > out
        }
        next
    }
    fenced && /^```$/ { fenced = 0; if (out != "") close(out); next }
    fenced && out != "" { print > out }
    END {
        if (failed) exit 1
        if (awaiting) fail("the last swift sample (line " sample_line ") has no ```text block of its output")
        if (fenced) fail("a fenced block is not closed")
        if (n == 0) fail("no ```swift sample")
    }' "$doc"

cp -R "$work/files/." "$work/"
status=0
n=$(ls -d "$work"/s* | wc -l)
for i in $(seq 1 "$n"); do
    dir=$work/s$i
    line=$(cat "$dir/line")
    if ! "$swiftc" "$dir/main.swift" -o "$dir/sample" -module-name Sample \
        -I "$build/swift" -I "$source/Sources/CYaml" -I "$source/Sources/CThreadRecord" -I "$source/Sources/CControllerRegHeader" \
        -L "$build" -lControllerReg -lControllerRegConfig -lyaml 2>"$dir/compile.log"; then
        echo "$doc:$line: the sample does not compile:" >&2
        sed "s|$dir/main.swift|sample|" "$dir/compile.log" >&2
        status=1
        continue
    fi
    if ! (cd "$work" && SWIFT_BACKTRACE=enable=no "$dir/sample") >"$dir/actual" 2>"$dir/stderr"; then
        echo "$doc:$line: the sample failed:" >&2
        cat "$dir/actual" "$dir/stderr" >&2
        status=1
        continue
    fi
    if ! cmp -s "$dir/expected" "$dir/actual"; then
        echo "$doc:$line: the sample's output is not the page's (- page, + run):" >&2
        diff -u "$dir/expected" "$dir/actual" | tail -n +3 >&2 || true
        status=1
        continue
    fi
    echo "ok: sample at $doc:$line"
done

# Every public type is named in the page, in backquotes.
for name in $(sed -n 's/^public \(final \)\{0,1\}\(class\|struct\|enum\|protocol\) \([A-Za-z]*\).*/\3/p' "$source"/Sources/ControllerReg/*.swift) \
    ConfigError Diagnostic ErrorCode SourceLocation ConfigFormat ConfigLimits; do
    grep -q "\`$name[\`.(<]" "$doc" || { echo "$doc: the public type $name is not named in the page" >&2; status=1; }
done
exit $status
