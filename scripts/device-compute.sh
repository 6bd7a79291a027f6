#!/usr/bin/env bash
# Compute characterization on an NVIDIA GPU in one go: build, the SASS checks
# of every declared kernel, then `gpuchar run --bench 'compute.*'` twice with
# one kernel cache (cold, then warm: the warm wall time is the acceptance
# figure, the warm run checked by scripts/check-run.py), compute.fp32.fma and
# .add through NVIDIA's OpenCL (the kernel-time pipeline model: OpenCL reports
# no resident threads per SM), the report and JSON going to $OUT (or
# ./device-out).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
unpack_deps
show_device "$GPU_FIELDS_BASIC"
log "build"
build_release build-gpu
bin=build-gpu/gpuchar
pattern=${GC_BENCH:-compute.*}
if [ -z "${GC_SKIP_SASS:-}" ]; then
    log "SASS checks"
    (cd build-gpu && ctest --output-on-failure -L sass 2>&1) | tee "$out/sass.log" | tail -60
fi
new_kcache
for run in cold warm; do
    log "gpuchar run --bench '$pattern' ($run kernel cache)"
    wall_ms --stdout "$out/compute_$run.txt" --stderr "$out/compute_$run.err" \
        "$bin" run --device cuda:0 --bench "$pattern" --no-progress --cache-dir "$cache" \
        --json "$out/compute_$run.json"
    tail -5 "$out/compute_$run.err"
done
cat "$out/compute_warm.txt"
python3 scripts/check-run.py "$out/compute_warm.json" 0 | grep -v "^ok" || true
log "compute.fp32.fma and .add through NVIDIA's OpenCL"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    "$bin" run --device "$ocldev" --bench compute.fp32.fma --bench compute.fp32.add --no-progress \
        --cache-dir "$cache" --json "$out/compute_ocl.json" >"$out/compute_ocl.txt" 2>&1
    echo "exit $?"
    grep -E "throughput|latency|ridge|series roof|ok in" "$out/compute_ocl.txt" | head -30
fi
unset OCL_ICD_VENDORS
if [ -z "${GC_SKIP_CUBLAS:-}" ]; then
    log "cuBLASLt reference (dense GEMM 8192^3)"
    if ${NVCC:-nvcc} -O2 -std=c++17 -arch=native -o build-gpu/cublas-reference \
            scripts/cublas-reference.cu -lcublasLt >"$out/cublas-build.log" 2>&1; then
        build-gpu/cublas-reference 8192 50 | tee "$out/cublas-reference.jsonl"
    else
        tail -20 "$out/cublas-build.log"
    fi
fi
