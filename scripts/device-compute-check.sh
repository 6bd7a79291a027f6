#!/usr/bin/env bash
# compute.* through CUDA (a cold and a warm run: figures and time per
# benchmark) and compute.fp32.* through NVIDIA's OpenCL (the kernel-time
# pipeline model where the per-warp sweep cannot run). JSON to $OUT.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
unpack_deps
show_device "$GPU_FIELDS_BASIC"
build_release build-gpu -j 16
bin=build-gpu/gpuchar
new_kcache
for v in cold warm; do
    log "compute.* on cuda:0 ($v cache)"
    timev -o "$out/compute-$v.time" "$bin" run --device cuda:0 --bench 'compute.*' --no-progress \
        --cache-dir "$cache" --json "$out/compute-$v.json" >"$out/compute-$v.txt" 2>&1
    echo "exit $?"
    time_lines "$out/compute-$v.time"
done
python3 scripts/check-run.py "$out/compute-warm.json" 0 | grep -v "^ok" || true
log "compute.fp32.* on NVIDIA's OpenCL"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    "$bin" run --device "$ocldev" --bench 'compute.fp32.fma' --bench 'compute.fp32.add' --no-progress \
        --cache-dir "$cache" --json "$out/compute-ocl.json" >"$out/compute-ocl.txt" 2>&1
    echo "exit $?"
    grep -E "throughput|latency|ridge|series roof|ok in" "$out/compute-ocl.txt" | head -30
fi
unset OCL_ICD_VENDORS
