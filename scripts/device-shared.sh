#!/usr/bin/env bash
# The shared-library build on an NVIDIA GPU machine: libgpuchar.so exports
# the public API only, the tool linked against it measures through CUDA and
# through NVIDIA's OpenCL, and the unit and GPU tests pass in that build.
# The figures must equal those of the default (static) build: the library's
# layering changed, not its measurements. Results go to $OUT (or
# ./device-out); about 5 minutes.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }

if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1

log "build (BUILD_SHARED_LIBS=ON, Release)"
cmake -S . -B build-gpu-shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    >"$out/cmake-shared.log" 2>&1 &&
    cmake --build build-gpu-shared -j 16 >>"$out/cmake-shared.log" 2>&1 ||
    { tail -50 "$out/cmake-shared.log"; exit 1; }
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
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
ocldev=$(OCL_ICD_VENDORS=$icd "$bin" list --json 2>/dev/null | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))')
if [ -n "$ocldev" ]; then
    OCL_ICD_VENDORS=$icd "$bin" run --device "$ocldev" --bench memory.dram.copy \
        --bench compute.fp32.fma --no-progress --json "$out/shared-opencl.json" 2>&1 |
        tee "$out/shared-opencl.txt"
else
    echo "no NVIDIA OpenCL device found"
fi

log "unit + gpu tests of the shared build"
(cd build-gpu-shared && timeout 240 ctest --output-on-failure -L 'unit|gpu' 2>&1) |
    tee "$out/ctest-shared.log" | tail -30
echo "done"
