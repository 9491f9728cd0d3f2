#!/usr/bin/env bash
# Builds libcontrollerreg.so, the C demo and the controllerreg tool with CMake/Ninja into build/,
# then runs the demo on examples/demo/screens.yaml. Afterwards `cmake --install build` installs
# the library, its headers and the tool (it installs only what is built, and needs all of it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target controllerreg-demo controllerreg-cli
echo
build/examples/demo/controllerreg-demo examples/demo/screens.yaml
