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
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out

unpack_deps

show_device "$GPU_FIELDS_BASIC"

log "build (Release)"
build_release build-gpu
bin=build-gpu/gpuchar
benches=(--bench 'compute.*' --bench 'memory.latency.*' --bench 'hiding.*')

log "CUDA: compute.*, memory.latency.*, hiding.*"
wall_ms timeout 260 "$bin" run --device cuda:0 --no-progress "${benches[@]}" \
    --json "$out/arch.json" >"$out/arch.txt" 2>&1
grep -E "error|not available|FAIL" "$out/arch.txt" | head -20
python3 scripts/arch-compare.py "$out/arch.json" >"$out/arch_metrics.txt" 2>&1
wc -l <"$out/arch_metrics.txt"

log "NVIDIA OpenCL: the same benchmarks"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    wall_ms timeout 150 "$bin" run --device "$ocldev" --no-progress "${benches[@]}" \
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
