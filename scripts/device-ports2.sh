#!/usr/bin/env bash
# compute.mma.*, compute.wgmma.* and memory.constant through the harness's
# one run flow (gc__harness_bench), on an NVIDIA GPU: a Release build; the
# benchmarks on cuda:0 in the default profile twice (a cold then a warm
# kernel cache; $OUT/ports2.json is the warm one) and with --quick, each
# under /usr/bin/time -v (wall time and peak RSS); the same on NVIDIA's
# OpenCL (the matrix units are not available there: no inline PTX path for
# them, a "not available" row each); the GPU tests. Prints each benchmark's
# wall time and headline figures against their limits. Results go to $OUT
# (or ./device-out); about 4 minutes.
#
# H200 figures before the port, to compare with: memory.constant
# constant_broadcast_bandwidth 33.1 TB/s; compute.wgmma.f16_f32 ~843 TFLOP/s
# at ~1620 MHz sustained (limit 4096 FLOP/clk/SM x 132 SMs x that clock).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
log_stamp=elapsed
benches=(--bench 'compute.mma.*' --bench 'compute.wgmma.*' --bench memory.constant)
setup_out
unpack_deps
show_device "$GPU_FIELDS_FULL"

log "build (Release)"
build_release build-gpu
bin=build-gpu/gpuchar
new_kcache

# run NAME DEVICE [options]: one timed run into $out/NAME.{json,txt,time}.
run() {
    local name=$1 dev=$2
    shift 2
    log "$name: $dev $*"
    GPUCHAR_CACHE_DIR=$cache timev -o "$out/$name.time" "$bin" run --device "$dev" \
        "${benches[@]}" --no-progress --json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1
    echo "exit $?"
    tail -20 "$out/$name.txt"
    time_lines "$out/$name.time"
}

# figures FILE: per benchmark its wall time, status and headline metrics
# (value, share of the limit, the clock the limit was taken at).
figures() {
    python3 - "$1" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
heads = ["constant_broadcast_bandwidth", "constant_words_per_clk_per_cu",
         "flop_per_clk_per_sm", "op_per_clk_per_sm", "instructions_per_clk_per_sm"]
for b in j["benchmarks"]:
    print("%-24s %-6s wall %6.2f s (compile %.2f s, %d compiled, %d cached) %s" % (
        b["name"], b["status"], b["wall_s"], b.get("compile_s") or 0,
        b.get("kernels_compiled") or 0, b.get("kernels_cached") or 0,
        (b.get("error") or "")[:100]))
    for m in b["metrics"]:
        if not (m["name"] in heads or m["name"].endswith("_throughput")):
            continue
        lim = m.get("limit")
        share = " (%.1f%% of %.4g)" % (100 * m["value"] / lim, lim) if lim else ""
        mhz = re.search(r"x ([0-9]+) MHz", m.get("note") or "")
        print("    %-32s %.4g %s%s%s" % (m["name"], m["value"], m["unit"], share,
                                         " at %s MHz" % mhz.group(1) if mhz else ""))
PY
}

run ports2-cold cuda:0
run ports2 cuda:0
run ports2-quick cuda:0 --quick
for f in ports2-cold ports2 ports2-quick; do
    log "figures: $f"
    figures "$out/$f.json"
done

log "NVIDIA OpenCL"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    run ports2-opencl "$ocldev"
    figures "$out/ports2-opencl.json"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

log "ctest -L gpu"
(cd build-gpu && timeout 240 ctest --output-on-failure -L gpu 2>&1) | tee "$out/ctest-gpu.log" |
    tail -30
rm -rf "$cache" "$icd"
echo "done"
