#!/usr/bin/env bash
# The architecture table, capability flags and occupancy-point engine on an
# NVIDIA GPU: the figures they feed (compute.*, memory.latency.*, hiding.*)
# through CUDA and through NVIDIA's OpenCL, the GPU tests, and a side-by-side
# comparison with a base run. Results go to $OUT (or ./device-out):
#   arch.json, opencl_arch.json   this tree's figures
#   compare_cuda.txt, compare_opencl.txt   against $BASE_DIR/arch.json and
#                                 $BASE_DIR/opencl_arch.json when BASE_DIR is set
#                                 (the same script run on the tree before the change)
# Limits are set so that the whole script stays under 8 minutes on an H100/H200.
#
# Packages the machine lacks (jansson, cmocka) may be carried as .deb files in
# .deps/; they are unpacked first.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "exit $rc, wall $(( ($(date +%s%N) - s) / 1000000 )) ms"; }

if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv 2>&1

log "build (Release)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }
bin=build-gpu/gpuchar
benches=(--bench 'compute.*' --bench 'memory.latency.*' --bench 'hiding.*')

log "CUDA: compute.*, memory.latency.*, hiding.*"
t timeout 260 "$bin" run --device cuda:0 --no-progress "${benches[@]}" --json "$out/arch.json" \
    >"$out/arch.txt" 2>&1
grep -E "error|not available|FAIL" "$out/arch.txt" | head -20
python3 scripts/arch-compare.py "$out/arch.json" >"$out/arch_metrics.txt" 2>&1
wc -l <"$out/arch_metrics.txt"

log "NVIDIA OpenCL: the same benchmarks"
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
export OCL_ICD_VENDORS=$icd
ocldev=$("$bin" list --json 2>/dev/null | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))')
if [ -n "$ocldev" ]; then
    t timeout 150 "$bin" run --device "$ocldev" --no-progress "${benches[@]}" \
        --json "$out/opencl_arch.json" >"$out/opencl_arch.txt" 2>&1
    grep -E "error|FAIL" "$out/opencl_arch.txt" | head -20
else
    echo "no NVIDIA OpenCL device"
fi
unset OCL_ICD_VENDORS

if [ -n "${BASE_DIR:-}" ]; then
    log "against the base run in $BASE_DIR (tolerance 1%)"
    [ -f "$BASE_DIR/arch.json" ] &&
        python3 scripts/arch-compare.py "$out/arch.json" "$BASE_DIR/arch.json" >"$out/compare_cuda.txt" &&
        grep -E "moved|differs|STATUS|ONLY|changed|flagged" "$out/compare_cuda.txt" | head -40
    [ -f "$BASE_DIR/opencl_arch.json" ] && [ -f "$out/opencl_arch.json" ] &&
        python3 scripts/arch-compare.py "$out/opencl_arch.json" "$BASE_DIR/opencl_arch.json" \
            >"$out/compare_opencl.txt" &&
        grep -E "moved|differs|STATUS|ONLY|changed|flagged" "$out/compare_opencl.txt" | head -40
fi

log "GPU tests"
(cd build-gpu && ctest --output-on-failure -L gpu --timeout 120 2>&1) | tee "$out/ctest_gpu.log" | tail -15
