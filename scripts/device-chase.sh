#!/usr/bin/env bash
# The pointer-chase staircases after the coarse-to-fine sweep on an NVIDIA
# GPU: a Release build, then `gpuchar run --bench 'memory.latency.*'` on
# cuda:0 (the cycle path: every planned footprint, refinement and levels as
# before, so its figures must match the previous runs: on an H200 L1 ~32, L2
# ~280, DRAM ~680 cycles, L2 size as one SM sees it ~28 MiB, none above the
# 50 MiB of L2 per device nor L1 above its 256 KiB array) and through NVIDIA's
# OpenCL (cycle path too; memory.latency.constant with its chain in the
# program's constant array up to 32 KiB: its constant_level1 latency must
# agree with cuda:0's within a few %). Then `ctest -L gpu -R cuda_backend`.
# Prints per-benchmark wall time, footprints and levels. Results go to $OUT
# (or ./device-out), under 8 minutes in all.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
status=0

unpack_deps

show_device name,driver_version,clocks.max.sm,clocks.max.mem

log "build (Release)"
build_release build-chase
bin=build-chase/gpuchar
new_kcache

show() {
    python3 - "$1" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    print("%-30s %-14s %7.1f s" % (b["name"], b["status"], b.get("wall_s") or 0))
    for m in b["metrics"]:
        n = m["name"]
        if n.endswith("_latency_cycles") or n.endswith("_bytes") or n.startswith("footprints"):
            print("    %-34s %14.6g %s" % (n, m["value"], m["unit"]))
print("total wall %.1f s, complete %s" % (d.get("wall_s") or 0, d["complete"]))
PY
}

log "memory.latency.* on cuda:0"
timeout 240 "$bin" run --device cuda:0 --bench 'memory.latency.*' --no-progress \
    --cache-dir "$cache" --json "$out/cuda.json" >"$out/cuda.txt" 2>&1 || status=1
show "$out/cuda.json"

nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    log "memory.latency.global, .constant, .tlb on NVIDIA's OpenCL ($ocldev)"
    timeout 200 "$bin" run --device "$ocldev" --bench memory.latency.global \
        --bench memory.latency.constant --bench memory.latency.tlb --no-progress \
        --cache-dir "$cache" --json "$out/ocl.json" >"$out/ocl.txt" 2>&1 || status=1
    show "$out/ocl.json"
else
    echo "no NVIDIA OpenCL device"
    status=1
fi
unset OCL_ICD_VENDORS
rm -rf "$cache"

log "ctest -L gpu -R cuda_backend"
(cd build-chase && timeout 240 ctest -L gpu -R cuda_backend --output-on-failure) \
    >"$out/ctest.txt" 2>&1 || status=1
tail -5 "$out/ctest.txt"

log "result"
echo "status $status"
exit $status
