#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of controllerreg.
#
#   scripts/fuzz.sh TARGET|all [SECONDS] [JOBS]
#
# TARGET is one of: json yaml xmlplist bplist create value, a comma-separated list of them, or "all"; SECONDS (default 60) is how
# long each target runs; with "all", JOBS targets (default 2) run at a time. Fuzzers run under
# `nice -n 19`.
#
# How it is built: the Swift library is compiled by SwiftPM with `-sanitize=fuzzer,address` into
# .build-fuzz/release/libcontrollerreg.so (so the Swift code itself is coverage-guided and checked by
# ASan), and each C harness in fuzz/ is linked against it with clang `-fsanitize=fuzzer,address,undefined`
# (the executable carries the ASan/UBSan/libFuzzer runtimes; LeakSanitizer runs at the end of each input).
#
# Seeds come from fuzz/corpus/TARGET (kept small, in git); the growing corpus lives in
# .build-fuzz/corpus/TARGET and crashes in .build-fuzz/artifacts/TARGET. A summary line per target
# (executions, corpus size, crashes) is printed and appended to .build-fuzz/summary.txt.
# Reproduce a crash: .build-fuzz/bin/fuzz_TARGET .build-fuzz/artifacts/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGETS=(json yaml xmlplist bplist create value)
what=${1:-}
seconds=${2:-60}
jobs=${3:-2}
if [[ -z $what ]]; then sed -n '2,20p' "$0"; exit 2; fi
if [[ $what == all ]]; then selected=("${TARGETS[@]}"); else IFS=, read -r -a selected <<<"$what"; fi
for t in "${selected[@]}"; do
    [[ " ${TARGETS[*]} " == *" $t "* ]] || { echo "unknown target '$t' (one of: ${TARGETS[*]} all)" >&2; exit 2; }
done

SWIFT_BIN=${SWIFT_BIN:-/opt/swift/usr/bin}
CC=${CC_FUZZ:-$SWIFT_BIN/clang}
SWIFT_LIB=$SWIFT_BIN/../lib/swift/linux
OUT=$ROOT/.build-fuzz
LIB=$OUT/release

mkdir -p "$OUT"
echo "== building the instrumented library (swift build -sanitize=fuzzer,address)"
nice -n 19 "$SWIFT_BIN/swift" build -c release --product controllerreg --scratch-path "$OUT" \
    -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address >"$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log"; exit 1; }
mkdir -p "$OUT/bin"
build() {
    local t=$1 src=fuzz/fuzz_$1.c def=""
    case $t in
        json|yaml|xmlplist|bplist) src=fuzz/fuzz_load.c; def="-DFUZZ_$(echo "$t" | tr a-z A-Z)";;
    esac
    nice -n 19 "$CC" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
        $def -Iinclude -Ifuzz "$src" -L"$LIB" -lcontrollerreg -Wl,-rpath,"$LIB" -Wl,-rpath,"$SWIFT_LIB" \
        -o "$OUT/bin/fuzz_$t"
}
for t in "${selected[@]}"; do echo "== building fuzz_$t"; build "$t"; done

run() {
    local t=$1 corpus=$OUT/corpus/$1 artifacts=$OUT/artifacts/$1 log=$OUT/fuzz_$1.log
    mkdir -p "$corpus" "$artifacts"
    local maxlen=4096
    [[ $t == create ]] && maxlen=8192
    # Exit code is non-zero on a finding; keep going so every target reports.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n 19 "$OUT/bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=$maxlen \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "fuzz/corpus/$t" >"$log" 2>&1 || true
    local runs corpus_n crashes
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    mkdir -p "$corpus" "$artifacts"
    corpus_n=$(find "$corpus" -type f 2>/dev/null | wc -l)
    crashes=$(find "$artifacts" -type f 2>/dev/null | wc -l)
    local line="$(date -u +%FT%TZ) fuzz_$t: ${seconds}s, ${runs:-?} executions, corpus $corpus_n files, $crashes findings"
    echo "$line" | tee -a "$OUT/summary.txt"
    if grep -q -E '^==[0-9]+==ERROR|^SUMMARY:|deadly signal|Timeout|out-of-memory' "$log"; then
        echo "   finding in $log:"; grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5 | sed 's/^/   /'
    fi
}
active=0
for t in "${selected[@]}"; do
    run "$t" &
    active=$((active + 1))
    if (( active >= jobs )); then wait -n; active=$((active - 1)); fi
done
wait
