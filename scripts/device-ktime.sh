#!/usr/bin/env bash
# The compute pipeline model from whole-kernel times next to the one from
# in-kernel clocks: `gpuchar run --bench 'compute.fp32.*'` on NVIDIA's OpenCL
# (no in-kernel clock: lambda, Lambda and the ridges come from kernel times,
# methodology §17.1) and on cuda:0 (per-warp clock64 records), then the two
# side by side, and `ctest -L gpu`. Reports and JSON go to $OUT (or
# ./device-out). About 3 minutes on an H200.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }
status=0
if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv 2>&1
log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }
bin=build-gpu/gpuchar
pattern=${GC_BENCH:-compute.fp32.*}

run_one() { # name spec
    log "gpuchar run --device $2 --bench '$pattern'"
    start=$(date +%s%N)
    timeout 240 "$bin" run --device "$2" --bench "$pattern" --no-progress \
        --json "$out/ktime_$1.json" >"$out/ktime_$1.txt" 2>"$out/ktime_$1.err"
    rc=$?
    end=$(date +%s%N)
    echo "exit $rc, wall $(( (end - start) / 1000000 )) ms"
    [ $rc -eq 0 ] || { status=1; tail -5 "$out/ktime_$1.err"; }
    grep -E "^== |latency|ridge|90pct|littles" "$out/ktime_$1.txt"
}

# NVIDIA's OpenCL, registered as scripts/device-full.sh's opencl phase does.
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
export OCL_ICD_VENDORS=$icd
spec=$("$bin" list --json 2>/dev/null | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))')
if [ -z "$spec" ]; then
    echo "no NVIDIA OpenCL device"
    status=1
else
    run_one opencl "$spec"
fi
unset OCL_ICD_VENDORS
run_one cuda cuda:0

log "kernel times (OpenCL) against in-kernel clocks (CUDA)"
python3 - "$out/ktime_opencl.json" "$out/ktime_cuda.json" <<'PY' || status=1
import json, sys
def load(p):
    try:
        d = json.load(open(p))
    except (OSError, ValueError):
        return {}
    return {b["name"]: {m["name"]: (m["value"], m["unit"]) for m in b["metrics"]}
            for b in d["benchmarks"]}
ocl, cuda = load(sys.argv[1]), load(sys.argv[2])
keys = ["issue_latency", "completion_latency", "ridge_warps_ilp1", "ridge_warps_ilp2",
        "ridge_warps_ilp4", "littles_law_warps"]
print("%-22s %-20s %14s %14s" % ("bench", "metric", "opencl(ktime)", "cuda(clock)"))
for b in sorted(set(ocl) | set(cuda)):
    for k in keys:
        o, c = ocl.get(b, {}).get(k), cuda.get(b, {}).get(k)
        if o is None and c is None:
            continue
        f = lambda v: "-" if v is None or v[0] is None else "%.3g %s" % v
        print("%-22s %-20s %14s %14s" % (b, k, f(o), f(c)))
PY

log "ctest -L gpu"
(cd build-gpu && timeout 300 ctest --output-on-failure -L gpu 2>&1) | tee "$out/ctest.log" | tail -20
grep -q "100% tests passed" "$out/ctest.log" || status=1
exit $status
