#!/usr/bin/env bash
# The GPU acceptance of the compute, memory and latency-hiding benchmarks in
# two device sessions of under ten minutes each:
#
#   scripts/device-acceptance.sh compute   build, GPU tests (ctest -L gpu),
#                                          SASS checks, compute.* cold and warm
#                                          kernel cache, cuBLASLt reference
#   scripts/device-acceptance.sh memhide   build, memory groups, latency hiding
#                                          with its acceptance figures
#
# Every step runs under its own time limit so that the results of the steps
# before it come back whatever happens. Results go to one archive,
# $OUT/acceptance-PHASE.tgz (or ./device-out/), written however the run ends.
set -u
cd "$(dirname "$0")/.."
dest=${OUT:-$PWD/device-out}
out=$(mktemp -d)
mkdir -p "$dest"
trap 'tar czf "$dest/acceptance-$phase.tgz" -C "$out" .' EXIT
export OUT=$out
phase=${1:-compute}
log() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }

if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit,ecc.mode.current \
    --format=csv 2>&1
log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }

case "$phase" in
compute)
    log "GPU tests"
    (cd build-gpu && GPUCHAR_CHECK_OUT="$out/check" timeout 150 ctest --output-on-failure -L gpu 2>&1) |
        tee "$out/ctest-gpu.log" | grep -E "ok |FAIL|Passed|Failed|tests passed"
    GC_SKIP_CUBLAS=${GC_SKIP_CUBLAS:-} timeout 420 scripts/device-compute.sh
    ;;
memhide)
    log "memory"
    timeout 310 scripts/device-memory.sh
    log "latency hiding"
    timeout 240 scripts/device-hiding.sh
    ;;
*)
    echo "usage: $0 compute|memhide" >&2
    exit 2
    ;;
esac
log "done"
