#!/usr/bin/env bash
# Host memory and time of the transfer benchmarks on an NVIDIA GPU, in one
# session of under eight minutes: build (Release), transfer.* through CUDA
# (default profile) under /usr/bin/time -v (peak resident set, wall time),
# memory.coalescing the same way (it no longer keeps host copies of its
# buffer), transfer.* through NVIDIA's OpenCL, the whole default run's peak
# resident set (warm kernel cache) and the GPU tests. Everything goes to $OUT
# (or ./device-out); each section prints the figures to compare.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
log_stamp=elapsed

unpack_deps

# timed NAME CMD...: runs CMD with its peak resident set and wall time in
# $out/NAME.time; rss NAME prints them.
timed() {
    local name=$1
    shift
    timev -o "$out/$name.time" "$@"
}
rss() {
    awk -F': ' '/Maximum resident set size/ {printf "peak RSS %.0f MiB", $2 / 1024}
                /Elapsed \(wall clock\)/ {printf ", wall %s\n", $2}' "$out/$1.time"
}
# metrics FILE: every benchmark's status, wall time and metrics.
metrics() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    print("%-26s %-14s %6.2f s  %s" % (b["name"], b["status"], b.get("wall_s") or 0,
                                      b.get("error") or ""))
    for m in b["metrics"]:
        v, u, f = m["value"], m["unit"], m.get("fraction")
        if v is None:
            continue
        if u == "B/s":
            s = "%.2f GB/s" % (v * 1e-9)
        elif u == "s":
            s = "%.2f us" % (v * 1e6)
        elif u == "B":
            s = "%.0f B" % v
        else:
            s = "%.4g %s" % (v, u)
        print("    %-32s %-16s%s" % (m["name"], s, "  (%.1f%% of limit)" % (100 * f) if f else ""))
PY
}

log "device"
gpu_query name,driver_version,pcie.link.gen.max,pcie.link.width.max,memory.total |
    tee "$out/nvidia-smi.csv"
ulimit -l 2>/dev/null | sed 's/^/locked-memory limit (KiB): /'

log "build (Release)"
build_release build-gpu
bin=build-gpu/gpuchar
cache="$out/kcache"

log "CUDA: transfer.* (default profile)"
timed transfer timeout 120 "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
    --bench 'transfer.*' --json "$out/transfer.json" >"$out/transfer.txt" 2>"$out/transfer.err"
echo "exit $?"
rss transfer
metrics "$out/transfer.json"

log "CUDA: memory.coalescing (default profile)"
timed coalescing timeout 90 "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
    --bench memory.coalescing --json "$out/coalescing.json" >"$out/coalescing.txt" \
    2>"$out/coalescing.err"
echo "exit $?"
rss coalescing
metrics "$out/coalescing.json"

log "NVIDIA OpenCL: transfer.*"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    timed opencl timeout 90 "$bin" run --device "$ocldev" --no-progress --cache-dir "$cache" \
        --bench 'transfer.*' --json "$out/opencl.json" >"$out/opencl.txt" 2>"$out/opencl.err"
    echo "exit $?"
    rss opencl
    metrics "$out/opencl.json"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

log "CUDA: the whole default run (peak RSS; kernel cache warm after a first run elsewhere)"
timed default timeout 240 "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
    --json "$out/default.json" >"$out/default.txt" 2>"$out/default.err"
echo "exit $?"
rss default
python3 - "$out/default.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bs = sorted(d["benchmarks"], key=lambda b: -(b.get("wall_s") or 0))
print("run %.1f s; slowest:" % (d.get("wall_s") or 0))
for b in bs[:8]:
    print("  %-30s %6.2f s  %s" % (b["name"], b.get("wall_s") or 0, b["status"]))
PY

left=$((470 - SECONDS))
if [ "$left" -gt 30 ]; then
    log "GPU tests (${left} s left)"
    (cd build-gpu && timeout "$left" ctest --output-on-failure -L gpu 2>&1) |
        tee "$out/ctest-gpu.log" | grep -E "ok |FAIL|Passed|Failed|tests passed"
else
    echo "no time left for the GPU tests"
fi
log "done"
