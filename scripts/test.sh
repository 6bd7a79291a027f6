#!/usr/bin/env bash
# Builds the test configuration (warnings as errors, ASan + UBSan) and runs
# every test that needs no NVIDIA GPU: unit tests and PoCL integration tests.
# Then the shared-library variant: it links, exports the public API only,
# its unit tests pass and the tool runs from it, and it runs the tests a
# sanitized binary cannot (ulimit -v).
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
cd ..
cmake -S . -B build-shared -DCMAKE_BUILD_TYPE=Debug -DGC_WERROR=ON -DBUILD_SHARED_LIBS=ON >/dev/null
cmake --build build-shared -j "$(nproc)"
build-shared/gpuchar --help >/dev/null
build-shared/gpuchar list
cd build-shared
# The unit tests, and the tests a sanitized binary cannot run (label nosan:
# ulimit -v, which ASan's shadow memory exceeds).
ctest --output-on-failure -L 'unit|nosan' -j "$(nproc)" --timeout 900
