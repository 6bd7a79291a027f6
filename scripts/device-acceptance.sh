#!/usr/bin/env bash
# The GPU acceptance of the compute, memory and latency-hiding benchmarks in
# two device sessions of under ten minutes each:
#
#   scripts/device-acceptance.sh compute   build, GPU tests (ctest -L gpu),
#                                          SASS checks, compute.* cold and warm
#                                          kernel cache, cuBLASLt reference
#   scripts/device-acceptance.sh memhide   build, memory groups, latency hiding
#                                          with its acceptance figures
#   scripts/device-acceptance.sh dram      build, DRAM read/write/copy/triad and
#                                          the copy benchmark, the STREAM-style
#                                          reference, the global and read-only
#                                          staircases
#   scripts/device-acceptance.sh cpu       the PoCL staircase on the host's CPU,
#                                          three times, as test_staircase runs it
#                                          (cache sizes vs sysfs)
#
# Several phases may be given; they run in order.
# Every step runs under its own time limit so that the results of the steps
# before it come back whatever happens. Results go to one archive,
# $OUT/acceptance-PHASE.tgz (or ./device-out/), written however the run ends.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
phases=${*:-compute}
setup_archive "acceptance-${phases// /-}"
export OUT=$out
log_stamp=clock

unpack_deps
show_device "$GPU_FIELDS_FULL"
log "build"
build_release build-gpu

for p in $phases; do
case "$p" in
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
dram)
    log "memory.dram.* and memory.copy"
    timeout 240 build-gpu/gpuchar run --device cuda:0 --no-progress --bench 'memory.dram.*' \
        --bench memory.copy --json "$out/dram.json" >"$out/dram.txt" 2>"$out/dram.err"
    echo "exit $?"
    grep -E "^==|_bandwidth |best" "$out/dram.txt" | cut -c1-200
    log "STREAM-style reference"
    ${NVCC:-nvcc} -O3 -std=c++17 -arch=native -o build-gpu/stream-reference \
        scripts/stream-reference.cu >"$out/stream-build.log" 2>&1 &&
        timeout 60 build-gpu/stream-reference 2048 30 | tee "$out/stream-reference.jsonl"
    log "staircases (quick)"
    timeout 60 build-gpu/gpuchar run --device cuda:0 --no-progress --quick \
        --bench memory.latency.global --bench memory.latency.readonly --json "$out/stair.json" \
        >"$out/stair.txt" 2>&1
    echo "exit $?"
    grep -E "^==|_size_bytes|_latency_cycles" "$out/stair.txt" | cut -c1-160
    ;;
cpu)
    log "PoCL staircase on the host CPU"
    grep -m1 "model name" /proc/cpuinfo
    for f in /sys/devices/system/cpu/cpu0/cache/index*/size; do printf '%s ' "$(cat "$f")"; done
    echo
    for i in 1 2 3; do
        timeout 100 build-gpu/gpuchar run --device opencl:0 --no-progress --repeat 5 \
            --min-time 2 --bench memory.latency.global --json "$out/cpu$i.json" \
            >"$out/cpu$i.txt" 2>&1
        echo "run $i: exit $?"
        grep -E "_size_bytes|_latency_ns|footprints " "$out/cpu$i.txt" | cut -c1-160
    done
    ;;
*)
    echo "usage: $0 [compute|memhide|dram|cpu]..." >&2
    exit 2
    ;;
esac
done
log "done"
