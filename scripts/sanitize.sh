#!/usr/bin/env bash
# Sanitizer runs of controllerreg (separate from scripts/test.sh, which stays fast).
#
#   scripts/sanitize.sh address          C and C++ host tests (every group), the C++ binding tests,
#                                        10 s of the stress program, under ASan + UBSan
#                                        (+ LeakSanitizer); the whole Swift test suite under ASan
#   scripts/sanitize.sh thread [SECONDS] the stress program for SECONDS (default 20), the C
#                                        "threads" group and the Swift concurrency tests, under TSan
#   scripts/sanitize.sh all [SECONDS]    both
#
# The Swift library itself is instrumented, not only the hosts: SwiftPM builds it with
# `-sanitize=address` (or `-sanitize=thread`) into .build-asan/ (.build-tsan/), and the C/C++
# programs are compiled with the toolchain's clang (-fsanitize=address,undefined or thread) and
# linked against that .so; the executables carry the sanitizer runtime, so ASan/TSan see the
# library's own memory accesses and locks. (UBSan applies to the C/C++ side; Swift checks its own
# arithmetic and bounds.) Any report makes the run fail (halt_on_error / exit code).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SWIFT_BIN=${SWIFT_BIN:-/opt/swift/usr/bin}
CC=$SWIFT_BIN/clang
CXX=$SWIFT_BIN/clang++
SWIFT_LIB=$SWIFT_BIN/../lib/swift/linux
mode=${1:-}
seconds=${2:-20}
case $mode in address|thread|all) ;; *) sed -n '2,16p' "$0"; exit 2;; esac

build_library() { # sanitizer scratch-dir
    echo "== swift build -c release -Xswiftc -sanitize=$1 (into $2)"
    mkdir -p "$2"
    nice -n 10 "$SWIFT_BIN/swift" build -c release --product controllerreg --scratch-path "$2" \
        -Xswiftc -sanitize="$1" -Xswiftc -g >"$2/build.log" 2>&1 || { tail -30 "$2/build.log"; exit 1; }
}

link_flags() { # scratch-dir
    # The toolchain's TSan runtime intercepts libdispatch, so it needs libdispatch and BlocksRuntime.
    echo "-L$1/release -lcontrollerreg -L$SWIFT_LIB -ldispatch -lBlocksRuntime -Wl,-rpath,$1/release -Wl,-rpath,$SWIFT_LIB -fuse-ld=lld -lpthread -lm"
}

# Every C host-test source (a glob, so a new test group cannot be left out of the sanitizer runs).
C_TESTS=(host-tests/c/*.c host-tests/common/check.c)

run_address() {
    local out=$ROOT/.build-asan
    build_library address "$out"
    local flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -Iinclude -Ihost-tests/common -DCR_SOURCE_DIR=\"$ROOT\""
    echo "== building the C tests, the C++ tests and the stress program with -fsanitize=address,undefined"
    # shellcheck disable=SC2046
    $CC -std=c99 -D_POSIX_C_SOURCE=200809L $flags "${C_TESTS[@]}" $(link_flags "$out") -o "$out/c-tests"
    $CC -std=c99 $flags -c host-tests/common/check.c -o "$out/check.o"
    # shellcheck disable=SC2046
    $CXX -std=c++17 $flags host-tests/cpp/test_cpp.cpp "$out/check.o" $(link_flags "$out") -o "$out/cpp-tests"
    # shellcheck disable=SC2046
    $CXX -std=c++17 $flags -Ibindings/cpp -DCONTROLLERREG_FIXTURES="\"$ROOT/Tests/Fixtures\"" bindings/cpp/tests/test_bindings.cpp \
        $(link_flags "$out") -o "$out/cpp-binding-tests"
    # shellcheck disable=SC2046
    $CC -std=c11 $flags host-tests/stress/stress.c $(link_flags "$out") -o "$out/stress"
    export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=0
    export LSAN_OPTIONS="suppressions=$ROOT/host-tests/stress/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export SWIFT_BACKTRACE=enable=no
    echo "== ASan+UBSan: C tests"; "$out/c-tests" 2>&1 | tail -3
    echo "== ASan+UBSan: C++ tests"; "$out/cpp-tests" 2>&1 | tail -2
    echo "== ASan+UBSan: C++ binding tests (every register_class overload, every ownership path)"
    "$out/cpp-binding-tests" 2>&1 | tail -2
    echo "== ASan+UBSan: stress 10 s"; "$out/stress" 10
    echo "== ASan: Swift tests built with --sanitize=address"
    nice -n 10 "$SWIFT_BIN/swift" build --build-tests --sanitize=address --scratch-path "$out-swift" >"$out/swift-build.log" 2>&1 \
        || { tail -30 "$out/swift-build.log"; exit 1; }
    # Memory errors only: a few Swift tests keep a Registry alive through a reference cycle the Swift
    # API allows (a class closure capturing its own registry for re-entrant creates) and never
    # close it, which LSan reports as indirect leaks. C hosts cannot make such a cycle outlive cr_registry_free (it closes the
    # registry), and the C runs above keep leak checking on. Fake stacks stay off here too: the
    # nesting guard measures how much of the thread's real stack is left, and a frame on ASan's
    # fake stack has no address inside it (the guard then cannot judge, and deep-nesting tests
    # overflow the real stack instead of getting CR_ERR_LIMIT).
    ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:detect_stack_use_after_return=0 "$SWIFT_BIN/swift" test --skip-build --sanitize=address --scratch-path "$out-swift" 2>&1 \
        | grep -E "Test run with|ERROR: AddressSanitizer|SUMMARY" | tail -3
    echo "== ASan+UBSan: clean"
}

run_thread() {
    local out=$ROOT/.build-tsan
    build_library thread "$out"
    local flags="-g -O1 -fsanitize=thread -Iinclude -Ihost-tests/common -DCR_SOURCE_DIR=\"$ROOT\""
    echo "== building the stress program and the C tests with -fsanitize=thread"
    # shellcheck disable=SC2046
    $CC -std=c11 $flags host-tests/stress/stress.c $(link_flags "$out") -o "$out/stress"
    # shellcheck disable=SC2046
    $CC -std=c99 -D_POSIX_C_SOURCE=200809L $flags "${C_TESTS[@]}" $(link_flags "$out") -o "$out/c-tests"
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$ROOT/host-tests/stress/tsan.supp"
    export SWIFT_BACKTRACE=enable=no
    echo "== TSan: stress ${seconds} s"; "$out/stress" "$seconds"
    echo "== TSan: C tests, group threads"; CR_TEST_QUICK=1 "$out/c-tests" threads 2>&1 | tail -2
    echo "== TSan: Swift tests (concurrency, lifestyles, creates) built with --sanitize=thread"
    nice -n 10 "$SWIFT_BIN/swift" build --build-tests --sanitize=thread --scratch-path "$out-swift" >"$out/swift-build.log" 2>&1 \
        || { tail -30 "$out/swift-build.log"; exit 1; }
    "$SWIFT_BIN/swift" test --skip-build --sanitize=thread --scratch-path "$out-swift" \
        --filter "ConcurrencyTests|LifestyleTests|CreateTests|ReloadTests" 2>&1 | grep -E "Test run|ThreadSanitizer|passed|failed" | tail -3
    echo "== TSan: clean"
}

case $mode in
    address) run_address;;
    thread) run_thread;;
    all) run_address; run_thread;;
esac
