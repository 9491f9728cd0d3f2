#!/usr/bin/env bash
# Installs the system packages the native build and tests need, only those that are missing:
# cmake ninja-build libyaml-dev pkg-config valgrind, and for the tool's tests python3-jsonschema
# (the JSON Schema checks), graphviz (SVG output of `controllerreg graph`), for the Python
# binding python3-dev, python3-pip and python3-venv, and clang-format (scripts/format.sh).
# Quiet and idempotent when all are present.
# Uses sudo only when not root. The Swift toolchain itself is expected at /opt/swift or on PATH.
set -euo pipefail

packages=(cmake ninja-build libyaml-dev pkg-config valgrind graphviz clang-format)
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

# The schema tests need python3's jsonschema module, from Debian or from pip: check the module.
if ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
    missing+=(python3-jsonschema)
fi

# The Python binding's test builds a wheel (C extension: Python.h), makes a venv and uses pip.
if ! python3 -c 'import os, sysconfig; exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' >/dev/null 2>&1; then
    missing+=(python3-dev)
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
    missing+=(python3-pip)
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi

if ((${#missing[@]} > 0)); then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "setup.sh: missing packages (${missing[*]}) and no apt-get to install them" >&2
        exit 1
    fi
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        sudo=(sudo)
    fi
    echo "setup.sh: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
fi

if ! command -v swift >/dev/null 2>&1 && [[ ! -x /opt/swift/usr/bin/swift ]]; then
    echo "setup.sh: no Swift toolchain found (expected swift on PATH or /opt/swift/usr/bin)" >&2
    exit 1
fi
