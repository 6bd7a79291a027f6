#!/usr/bin/env bash
# The shared-library build on an NVIDIA GPU machine: libgpuchar.so exports
# the public API only, the tool linked against it measures through CUDA and
# through NVIDIA's OpenCL, and the unit and GPU tests pass in that build.
# The figures must equal those of the default (static) build: the library's
# layering changed, not its measurements. Results go to $OUT (or
# ./device-out); about 5 minutes.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out

unpack_deps

show_device name,driver_version,clocks.max.sm,clocks.max.mem

log "build (BUILD_SHARED_LIBS=ON, Release)"
build_release build-gpu-shared --log "$out/cmake-shared.log" -DBUILD_SHARED_LIBS=ON
bin=build-gpu-shared/gpuchar
ldd "$bin" | grep -i gpuchar

log "exports and layering"
(cd build-gpu-shared && ctest --output-on-failure -R 'shared_exports|layers') 2>&1 | tail -8

log "gpuchar list"
"$bin" list

log "CUDA through the shared library"
"$bin" run --device cuda:0 --bench memory.dram.copy --bench compute.fp32.fma --no-progress \
    --json "$out/shared-cuda.json" 2>&1 | tee "$out/shared-cuda.txt"

log "NVIDIA OpenCL through the shared library"
nvidia_opencl_on "$bin" --with-system
if [ -n "$ocldev" ]; then
    "$bin" run --device "$ocldev" --bench memory.dram.copy \
        --bench compute.fp32.fma --no-progress --json "$out/shared-opencl.json" 2>&1 |
        tee "$out/shared-opencl.txt"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

log "unit + gpu tests of the shared build"
(cd build-gpu-shared && timeout 240 ctest --output-on-failure -L 'unit|gpu' 2>&1) |
    tee "$out/ctest-shared.log" | tail -30
echo "done"
