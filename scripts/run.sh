#!/usr/bin/env bash
# The main job: install what is missing, build, and characterize the default
# device (the first CUDA GPU, else the first OpenCL device). Extra arguments
# go to 'gpuchar run' (e.g. --quick, --json report.json, --device opencl:0).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGC_BUILD_TESTS=OFF >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
exec build/gpuchar run "$@"
