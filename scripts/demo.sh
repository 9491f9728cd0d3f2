#!/usr/bin/env bash
# Builds libcontrollerreg.so and the C demo with CMake/Ninja into build/, then runs the demo on
# examples/demo/screens.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target controllerreg-demo
echo
build/examples/demo/controllerreg-demo examples/demo/screens.yaml
