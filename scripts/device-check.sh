#!/usr/bin/env bash
# Build, test and measure on an NVIDIA GPU machine in one go: the GPU tests
# (ctest -L gpu), the foundation benchmarks through CUDA and through NVIDIA's
# OpenCL, and the tool's own cost (compile time, wall time and peak host memory
# of a cold and a warm-cache run). Results go to $OUT (or ./device-out).
#
# Packages the machine lacks (jansson, cmocka) may be carried as .deb files in
# .deps/; they are unpacked first.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out

unpack_deps

show_device "$GPU_FIELDS_FULL"

log "build"
build_release build-gpu
bin=build-gpu/gpuchar

log "gpuchar list"
"$bin" list

log "unit + gpu tests"
(cd build-gpu && GPUCHAR_CHECK_OUT="$out/check" ctest --output-on-failure -L 'unit|gpu|sass' 2>&1) | tee "$out/ctest.log" | tail -40

log "tool cost: cold cache then warm cache (same command)"
new_kcache
for run in cold warm; do
    python3 - "$bin" "$cache" "$out" "$run" <<'PY'
import json, resource, subprocess, sys, time
bin, cache, out, name = sys.argv[1:5]
t0 = time.time()
p = subprocess.run([bin, "run", "--device", "cuda:0", "--bench", "memory.copy",
                    "--bench", "compute.fp32.fma", "--quiet", "--no-progress",
                    "--cache-dir", cache, "--json", f"{out}/cost_{name}.json"],
                   capture_output=True, text=True)
wall = time.time() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
d = json.load(open(f"{out}/cost_{name}.json"))
comp = sum(b["compile_s"] for b in d["benchmarks"])
nc = sum(b["kernels_compiled"] for b in d["benchmarks"])
nh = sum(b["kernels_cached"] for b in d["benchmarks"])
print(f"{name}: exit {p.returncode}, wall {wall:.2f} s, compile {comp:.2f} s, "
      f"kernels compiled {nc}, cached {nh}, peak host RSS {rss:.1f} MiB")
if p.returncode:
    print(p.stderr[-2000:])
PY
done
# Baseline: the same process with the CUDA context and NVRTC but no benchmark
# buffers: a run whose only benchmark fails at its first allocation.
python3 - "$bin" "$cache" <<'PY'
import os, resource, subprocess, sys
bin, cache = sys.argv[1:3]
env = dict(os.environ, GPUCHAR_FAULT="alloc:1")
subprocess.run([bin, "run", "--device", "cuda:0", "--bench", "memory.copy", "--quiet",
                "--no-progress", "--cache-dir", cache], capture_output=True, env=env)
print(f"baseline (context + libraries, no buffers): peak host RSS "
      f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f} MiB")
PY

log "NVIDIA OpenCL"
nvidia_opencl_on "$bin" --with-system
"$bin" list 2>&1 | grep -i -E "opencl|nvidia" | head
if [ -n "$ocldev" ]; then
    "$bin" run --device "$ocldev" --bench memory.copy --bench compute.fp32.fma --no-progress \
        --json "$out/opencl.json" 2>&1 | tee "$out/opencl.txt"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS
echo "done"
