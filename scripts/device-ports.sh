#!/usr/bin/env bash
# memory.copy_kernel, memory.shared and memory.atomics on the harness, on an
# NVIDIA GPU: a Release build; the three benchmarks on cuda:0 in the default
# profile (twice: a cold then a warm kernel cache; $OUT/ports.json is the
# warm one) and with --quick, each
# under /usr/bin/time -v (wall time and peak RSS); the same on NVIDIA's
# OpenCL; the GPU tests. Prints each benchmark's wall time and headline
# figures against their limits. Results go to $OUT (or ./device-out); about
# 3 minutes.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }
benches=(--bench memory.copy_kernel --bench memory.shared --bench memory.atomics)
. scripts/device-common.sh
gc_device_deps

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1

log "build (Release)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }
bin=build-gpu/gpuchar
cache=$(mktemp -d)

# run NAME DEVICE [options]: one timed run into $out/NAME.{json,txt,time}.
run() {
    local name=$1 dev=$2
    shift 2
    log "$name: $dev $*"
    GPUCHAR_CACHE_DIR=$cache /usr/bin/time -v -o "$out/$name.time" "$bin" run --device "$dev" \
        "${benches[@]}" --no-progress --json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1
    echo "exit $?"
    tail -25 "$out/$name.txt"
    grep -E 'Elapsed \(wall|Maximum resident' "$out/$name.time"
}

# figures FILE: per benchmark its wall time, status and headline metrics.
figures() {
    python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
keys = {
    "memory.copy_kernel": ["bandwidth_4B", "bandwidth_16B", "issue_latency_4B",
                           "completion_latency_4B", "dynamic_loop_ratio"],
    "memory.shared": ["shared_bandwidth", "shared_bytes_per_clk_per_cu", "swap_bytes_per_clk_per_cu",
                      "shared_latency_cycles", "shared_load_bytes_per_clk_per_cu",
                      "conflict32_slowdown"],
    "memory.atomics": ["global_atomic_u32_distinct", "global_atomic_u32_same_address",
                       "shared_atomic_u32_distinct", "shared_atomic_u32_same_address"],
}
for b in j["benchmarks"]:
    print("%-20s %-6s wall %6.2f s (compile %.2f s, %d compiled, %d cached) %s" % (
        b["name"], b["status"], b["wall_s"], b.get("compile_s") or 0,
        b.get("kernels_compiled") or 0, b.get("kernels_cached") or 0, b.get("error") or ""))
    ms = {m["name"]: m for m in b["metrics"]}
    for k in keys.get(b["name"], []):
        m = ms.get(k)
        if not m:
            print("    %-34s missing" % k)
            continue
        lim = m.get("limit")
        share = " (%.1f%% of %.4g)" % (100 * m["value"] / lim, lim) if lim else ""
        print("    %-34s %.4g %s%s" % (k, m["value"], m["unit"], share))
PY
}

run ports-cold cuda:0
run ports cuda:0
run ports-quick cuda:0 --quick
for f in ports-cold ports ports-quick; do
    log "figures: $f"
    figures "$out/$f.json"
done

log "NVIDIA OpenCL"
gc_nvidia_opencl "$bin"
if [ -n "$ocldev" ]; then
    run ports-opencl "$ocldev"
    figures "$out/ports-opencl.json"
else
    echo "no NVIDIA OpenCL device found"
fi

unset OCL_ICD_VENDORS

log "ctest -L gpu"
(cd build-gpu && timeout 240 ctest --output-on-failure -L gpu 2>&1) | tee "$out/ctest-gpu.log" |
    tail -30
rm -rf "$cache"
echo "done"
