#!/usr/bin/env bash
# Builds the test configuration (warnings as errors, ASan + UBSan) and runs
# every test that needs no NVIDIA GPU: unit tests and PoCL integration tests.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DGC_WERROR=ON -DGC_SANITIZE=ON >/dev/null
cmake --build build-test -j "$(nproc)"
if command -v clang-format >/dev/null; then
    cmake --build build-test --target format-check
fi
cd build-test
ctest --output-on-failure -LE gpu -j "$(nproc)" --timeout 900
