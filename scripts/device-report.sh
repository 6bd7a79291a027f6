#!/usr/bin/env bash
# Views of a GPU run, for the H100/H200 machine (under 8 minutes): a quick run
# of every benchmark through CUDA and of the memory and fp32 benchmarks
# through NVIDIA's OpenCL, written as JSON to $OUT; the HTML page and the
# figures where gnuplot is installed (else render them on another machine with
# 'gpuchar report h.json --html h.html --plots figs'); compare of the CUDA run
# with itself (must report no regression) and of OpenCL against CUDA; the unit
# and GPU tests.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out

unpack_deps

log "build"
build_release build-gpu
bin=build-gpu/gpuchar
gpu_query "$GPU_FIELDS_BASIC"

log "CUDA: every benchmark, quick profile (partial results are kept on timeout)"
timeout 300 "$bin" run --device cuda:0 --quick --no-progress --quiet --json "$out/cuda.json" \
    2>"$out/cuda.err"
echo "exit $?"; tail -3 "$out/cuda.err"

log "NVIDIA OpenCL: memory and fp32 benchmarks"
nvidia_icd
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
