#!/usr/bin/env bash
# compute.mma.* and compute.wgmma.* on an NVIDIA GPU: Release build, the
# default run (kernel cache warmed by a first run) and --quick with
# /usr/bin/time -v, each benchmark's wall time and headline figure against
# its limit, the same benchmarks on NVIDIA's OpenCL (not-available rows),
# then the GPU tests that concern them. JSON and logs go to $OUT (or
# ./device-out). H200 figures to compare with (before the harness): mma
# f16_f32 ~644 TFLOP/s, wgmma f16_f32 ~844, wgmma e4m3_f32 ~1687 sustained;
# dense limits 989 / 1979 TFLOP/s at 1980 MHz; 7.5 s in compute.mma.* and
# 5.9 s in compute.wgmma.* warm.
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
new_kcache
summary() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tot = 0.0
for b in d["benchmarks"]:
    tot += b.get("wall_s", 0) or 0
    head = next((m for m in b.get("metrics", []) if m["name"].endswith("_throughput")), None)
    if head is None:
        print(f"{b['name']:28s} {b.get('wall_s', 0):6.2f} s  {b['status']}: {b.get('error', '')[:90]}")
        continue
    lim = head.get("limit")
    pct = f"{100 * head['value'] / lim:5.1f}% of {lim / 1e12:7.1f} T" if lim else "no limit"
    ok = "" if not lim or head["value"] <= lim else "  ABOVE LIMIT"
    clk = b.get("context", {}).get("sm_clock_mhz")
    print(f"{b['name']:28s} {b.get('wall_s', 0):6.2f} s  {head['value'] / 1e12:8.1f}  T{head['unit']}"
          f"  {pct}  clock {clk} MHz  stop {b.get('stop_rule', '')}{ok}")
    note = head.get("note", "")
    i = note.find("best of")
    if i >= 0:
        print("    " + note[i:i + 160])
print(f"total benchmark wall time {tot:.2f} s")
PY
}
run() { # name, extra args...
    local name=$1
    shift
    log "gpuchar run mma/wgmma $name"
    timev "$bin" run --device cuda:0 --bench 'compute.mma.*' --bench 'compute.wgmma.*' \
        --no-progress --cache-dir "$cache" "$@" --json "$out/$name.json" \
        >"$out/$name.txt" 2>"$out/$name.err"
    echo "exit $?"
    time_lines "$out/$name.err"
    summary "$out/$name.json"
}
# The first run fills the kernel cache; the second is the warm figure.
run mma-cold
run mma
run mma-quick --quick

log "NVIDIA OpenCL (expected: not available rows)"
nvidia_opencl_on "$bin" --with-system
if [ -n "$ocldev" ]; then
    "$bin" run --device "$ocldev" --bench 'compute.mma.*' --bench 'compute.wgmma.*' --quick \
        --no-progress --json "$out/mma-opencl.json" >"$out/mma-opencl.txt" 2>&1
    echo "exit $?"
    summary "$out/mma-opencl.json"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

log "GPU tests (mma)"
(cd build-gpu && ctest --output-on-failure -L gpu -R mma 2>&1) | tail -30
log "SASS checks of the mma/wgmma kernels"
(cd build-gpu && ctest --output-on-failure -L sass 2>&1) | grep -i -E "mma|passed|failed" | tail -30
echo "done"
