#!/usr/bin/env bash
# Builds the test configuration (warnings as errors, ASan + UBSan) and runs
# every test that needs no NVIDIA GPU: unit tests and PoCL integration tests.
# Then the shared-library variant: it links, exports the public API only,
# its unit tests pass, the tool runs from it, and it runs the tests a
# sanitized binary cannot (label nosan: ulimit -v, which ASan's shadow memory
# exceeds). Both halves always run; the exit status is the worst of their
# steps (0 only when every step passed).
set -u
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1
jobs=$(nproc)
worst=0
step() {
    "$@"
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "test.sh: '$*' exited $rc" >&2
        [ "$rc" -gt "$worst" ] && worst=$rc
    fi
    return "$rc"
}

if step cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DGC_WERROR=ON -DGC_SANITIZE=ON \
    >/dev/null && step cmake --build build-test -j "$jobs"; then
    if command -v clang-format >/dev/null; then
        step cmake --build build-test --target format-check
    fi
    step ctest --test-dir build-test --output-on-failure -LE gpu -j "$jobs" --timeout 900
fi

if step cmake -S . -B build-shared -DCMAKE_BUILD_TYPE=Debug -DGC_WERROR=ON \
    -DBUILD_SHARED_LIBS=ON >/dev/null && step cmake --build build-shared -j "$jobs"; then
    step build-shared/gpuchar --help >/dev/null
    step build-shared/gpuchar list
    step ctest --test-dir build-shared --output-on-failure -L 'unit|nosan' -j "$jobs" --timeout 900
fi
[ "$worst" -eq 0 ] && echo "test.sh: every step passed" >&2
exit "$worst"
