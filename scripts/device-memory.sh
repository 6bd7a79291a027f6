#!/usr/bin/env bash
# Memory-hierarchy benchmarks on an NVIDIA GPU: assumes build-gpu/ exists
# (scripts/device-compute.sh builds it). Each group runs under a time limit;
# reports and JSON go to $OUT (or ./device-out).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
bin=build-gpu/gpuchar
run() {
    name=$1 limit=$2
    shift 2
    log "$name"
    timeout "$limit" "$bin" run --device cuda:0 --no-progress --json "$out/$name.json" "$@" \
        >"$out/$name.txt" 2>"$out/$name.err"
    echo "exit $?"
    grep -E "^==|bandwidth|latency|size|error|fail" "$out/$name.txt" | grep -v "^  series" | head -60
}
run dram 110 --bench 'memory.dram.*' --bench memory.copy
run shared 50 --bench memory.shared --bench memory.constant
run access 55 --quick --bench memory.coalescing --bench memory.atomics --bench memory.copy_kernel
run levels 85 --quick --bench 'memory.latency.*' --bench memory.bandwidth
