#!/usr/bin/env bash
# Formats the sources the way the repository's configurations say:
#   Swift        swift-format (the toolchain's, /opt/swift/usr/bin)    .swift-format
#   C, C++       clang-format 14 (Debian's clang-format package)       .clang-format
#   Python       ruff (PyPI, installed into .build-tools/ruff-venv)    ruff.toml  (`ruff check --fix`, then `ruff format`)
#
#   scripts/format.sh            rewrite the files in place
#   scripts/format.sh --check    change nothing; print the differences and exit 1 if any file is not formatted
#                                (or if ruff finds a problem it cannot fix)
#
# Files: those git tracks plus new ones it does not ignore; generated goldens (Tests/**/Golden) are
# left alone. --check formats a scratch copy and compares, so it reports exactly what a run without
# --check would change. Override the tools with SWIFT_FORMAT, CLANG_FORMAT, RUFF.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

check=0
case ${1:-} in
    --check) check=1 ;;
    "") ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
esac

source scripts/env.sh
swift_format=${SWIFT_FORMAT:-$(command -v swift-format || true)}
clang_format=${CLANG_FORMAT:-$(command -v clang-format || true)}
[[ -x $swift_format ]] || { echo "format.sh: swift-format not found (it ships with the Swift toolchain; set SWIFT_FORMAT)" >&2; exit 1; }
[[ -x $clang_format ]] || { echo "format.sh: clang-format not found (apt-get install clang-format; set CLANG_FORMAT)" >&2; exit 1; }
clang_major=$("$clang_format" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [[ $clang_major != 14 ]]; then
    echo "format.sh: warning: .clang-format is tuned for clang-format 14, this is $clang_major: expect spurious differences" >&2
fi

ruff_version=0.17.6
ruff=${RUFF:-}
if [[ -z $ruff ]]; then
    venv=$root/.build-tools/ruff-venv
    ruff=$venv/bin/ruff
    if [[ ! -x $ruff ]] || [[ $("$ruff" --version) != "ruff $ruff_version" ]]; then
        echo "format.sh: installing ruff $ruff_version into ${venv#"$root"/}"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check "ruff==$ruff_version"
    fi
fi

# The files each tool formats, relative to the root.
mapfile -t all < <(git ls-files --cached --others --exclude-standard | grep -v '/Golden/' | sort -u)
swift_files=() c_files=() py_files=()
for f in "${all[@]}"; do
    [[ -f $f ]] || continue
    case $f in
        *.swift) swift_files+=("$f") ;;
        *.c | *.h | *.cpp | *.hpp) c_files+=("$f") ;;
        *.py) py_files+=("$f") ;;
    esac
done

format_in() { # directory: formats the listed files under it, in place
    (
        cd "$1"
        if ((${#swift_files[@]})); then
            "$swift_format" format --in-place --parallel --configuration .swift-format "${swift_files[@]}"
        fi
        if ((${#c_files[@]})); then
            "$clang_format" -i --style=file "${c_files[@]}"
        fi
        lint=0
        if ((${#py_files[@]})); then
            "$ruff" check --quiet --fix --config ruff.toml "${py_files[@]}" || lint=$?
            "$ruff" format --quiet --config ruff.toml "${py_files[@]}"
        fi
        exit $lint
    )
}

if ((check == 0)); then
    format_in "$root"
    exit
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/controllerreg-format.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
for f in .swift-format .clang-format ruff.toml "${swift_files[@]}" "${c_files[@]}" "${py_files[@]}"; do
    mkdir -p "$scratch/$(dirname "$f")"
    cp "$f" "$scratch/$f"
done
status=0
format_in "$scratch" || status=1

for f in "${swift_files[@]}" "${c_files[@]}" "${py_files[@]}"; do
    if ! cmp -s "$f" "$scratch/$f"; then
        diff -u --label "a/$f" --label "b/$f" "$f" "$scratch/$f" || true
        status=1
    fi
done
if ((status)); then
    echo "format.sh --check: the files above are not formatted; run scripts/format.sh" >&2
else
    echo "format.sh --check: ${#swift_files[@]} Swift, ${#c_files[@]} C/C++ and ${#py_files[@]} Python files are formatted"
fi
exit $status
