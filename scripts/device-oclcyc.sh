#!/usr/bin/env bash
# NVIDIA's OpenCL with the in-kernel clocks: the OpenCL backend probes
# %clock64/%globaltimer/%smid through inline PTX on NVIDIA devices and, where
# the probe passes, sets the same clock caps as CUDA, so that the pointer
# chase and the compute sweeps take the cycle path. This runs the latency
# staircases and an fp32 compute sweep through NVIDIA's OpenCL and through
# CUDA on the same GPU, for the lead to compare:
#   - memory.latency.global: L1 ~32, L2 ~280, DRAM ~680 cycles on an H200
#     via CUDA; the OpenCL cycle figures must agree within a few %, and its
#     wall time must drop from 103 s (event-timed chases) toward CUDA's ~4 s;
#   - memory.latency.l2: L2 latency in cycles on OpenCL (the every-SM part
#     is CUDA's only: OpenCL cannot pin one work-group per SM);
#   - compute.fp32.fma: peak and latency agree with CUDA's.
# Results: $OUT/ocl.json, $OUT/cuda.json, logs, under 8 minutes in all.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }

if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv 2>&1 | tee "$out/device.txt"
log "build (Release)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    timeout 240 cmake --build build-gpu -j "$(nproc)" >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }
bin=$PWD/build-gpu/gpuchar
cache=$(mktemp -d)

icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
export OCL_ICD_VENDORS=$icd
log "gpuchar list"
"$bin" list | tee "$out/list.txt"
"$bin" list --json >"$out/list.json" 2>/dev/null
spec=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))' "$out/list.json")
status=0
if [ -z "$spec" ]; then
    echo "no NVIDIA OpenCL device"
    exit 1
fi

run() { # name spec limit
    local name=$1 dev=$2 lim=$3
    log "$dev: memory.latency.global, memory.latency.l2, compute.fp32.fma"
    /usr/bin/time -v timeout "$lim" "$bin" run --device "$dev" --bench memory.latency.global \
        --bench memory.latency.l2 --bench compute.fp32.fma --no-progress --cache-dir "$cache" \
        --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.err"
    echo "exit status $?"
    grep -E "Elapsed|Maximum resident" "$out/$name.err"
    cat "$out/$name.txt"
}

run ocl "$spec" 300
unset OCL_ICD_VENDORS
run cuda cuda:0 120

log "caps and the figures side by side"
python3 - "$out/ocl.json" "$out/cuda.json" <<'PY' | tee "$out/compare.txt"
import json, sys
runs = {}
for tag, path in (("opencl", sys.argv[1]), ("cuda", sys.argv[2])):
    try:
        runs[tag] = json.load(open(path))
    except Exception as e:
        print(f"{tag}: no results ({e})")
for tag, r in runs.items():
    extra = r.get("meta", {}).get("device_extra", "")
    print(f"{tag} device_extra: {extra}")
def metrics(r):
    out = {}
    for b in r.get("benchmarks", r.get("results", [])):
        name = b.get("name", "?")
        status = b.get("status", "")
        if status not in ("ok", ""):
            out[(name, "status")] = f"{status}: {b.get('error', '')}"[:100]
        for m in b.get("metrics", []):
            out[(name, m.get("name"))] = m.get("value")
        clk = b.get("context", {}).get("sm_clock_source")
        if clk:
            out[(name, "sm_clock_source")] = clk
    return out
ms = {t: metrics(r) for t, r in runs.items()}
names = sorted({k for m in ms.values() for k in m})
print(f"{'benchmark':24} {'metric':34} {'opencl':>16} {'cuda':>16} {'ratio':>7}")
for k in names:
    a = ms.get("opencl", {}).get(k)
    c = ms.get("cuda", {}).get(k)
    ratio = ""
    if isinstance(a, (int, float)) and isinstance(c, (int, float)) and c:
        ratio = f"{a / c:7.3f}"
    fa = f"{a:.4g}" if isinstance(a, (int, float)) else str(a)
    fc = f"{c:.4g}" if isinstance(c, (int, float)) else str(c)
    print(f"{k[0]:24} {k[1]:34} {fa:>16} {fc:>16} {ratio:>7}")
PY
exit $status
