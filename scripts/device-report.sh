#!/usr/bin/env bash
# Views of a GPU run, for the H100/H200 machine (under 8 minutes): a quick run
# of every benchmark through CUDA and of the memory and fp32 benchmarks
# through NVIDIA's OpenCL, written as JSON to $OUT; the HTML page and the
# figures where gnuplot is installed (else render them on another machine with
# 'gpuchar report h.json --html h.html --plots figs'); compare of the CUDA run
# with itself (must report no regression) and of OpenCL against CUDA; the unit
# and GPU tests.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }

if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi

log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }
bin=build-gpu/gpuchar
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv 2>&1

log "CUDA: every benchmark, quick profile (partial results are kept on timeout)"
timeout 300 "$bin" run --device cuda:0 --quick --no-progress --quiet --json "$out/cuda.json" \
    2>"$out/cuda.err"
echo "exit $?"; tail -3 "$out/cuda.err"

log "NVIDIA OpenCL: memory and fp32 benchmarks"
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
OCL_ICD_VENDORS=$icd timeout 120 "$bin" run --device opencl:0 --quick --no-progress --quiet \
    --bench 'memory.*' --bench 'compute.fp32.*' --json "$out/opencl.json" 2>"$out/opencl.err"
echo "exit $?"; tail -3 "$out/opencl.err"

log "report: HTML page and figures"
if command -v gnuplot >/dev/null; then
    "$bin" report --quiet --html "$out/cuda.html" --plots "$out/figures" "$out/cuda.json"
    echo "exit $?"
else
    echo "gnuplot not installed here: render the page from cuda.json elsewhere"
    GPUCHAR_GNUPLOT=/nonexistent "$bin" report --quiet --html "$out/cuda-tables.html" \
        "$out/cuda.json"
fi

log "compare: the CUDA run with itself (expect exit 0, 0 regressions)"
"$bin" compare "$out/cuda.json" "$out/cuda.json" | tail -2
echo "exit ${PIPESTATUS[0]}"

log "compare: NVIDIA OpenCL against CUDA (the same device through two APIs)"
"$bin" compare --no-fail --json "$out/compare-opencl-cuda.json" "$out/cuda.json" \
    "$out/opencl.json" >"$out/compare-opencl-cuda.txt"
echo "exit $?"; tail -5 "$out/compare-opencl-cuda.txt"

log "unit + gpu tests"
(cd build-gpu && timeout 200 ctest --output-on-failure -L 'unit|gpu' 2>&1) | tail -15
