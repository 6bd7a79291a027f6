#!/usr/bin/env bash
# The benchmarks on the harness's one run flow, on an NVIDIA GPU: a Release
# build; the benchmarks on cuda:0 in the default profile twice (a cold then a
# warm kernel cache; $OUT/ports.json is the warm one) and with --quick, each
# under /usr/bin/time -v (wall time and peak RSS); the same on NVIDIA's
# OpenCL; the GPU tests. Prints each benchmark's wall time and every figure
# against its limit. Results go to $OUT (or ./device-out); 3-5 minutes.
#
# BENCH='pattern ...' picks the benchmarks (default: every harness port:
# memory.copy_kernel, memory.shared, memory.atomics, memory.constant,
# memory.coalescing, compute.mma.*, compute.wgmma.*).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
log_stamp=elapsed
benches=()
set -f # the patterns are gpuchar's, not the shell's
for b in ${BENCH:-memory.copy_kernel memory.shared memory.atomics memory.constant \
    memory.coalescing compute.mma.* compute.wgmma.*}; do
    benches+=(--bench "$b")
done
set +f
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

# figures FILE: per benchmark its wall time and status, then every figure
# that has a limit as a share of it (the clock the limit was taken at).
figures() {
    python3 - "$1" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
for b in j["benchmarks"]:
    print("%-24s %-6s wall %6.2f s (compile %.2f s, %d compiled, %d cached) %s" % (
        b["name"], b["status"], b["wall_s"], b.get("compile_s") or 0,
        b.get("kernels_compiled") or 0, b.get("kernels_cached") or 0,
        (b.get("error") or "")[:100]))
    for m in b["metrics"]:
        lim = m.get("limit")
        if not lim:
            continue
        mhz = re.search(r"x ([0-9]+) MHz", m.get("note") or "")
        print("    %-34s %.4g %s (%.1f%% of %.4g)%s" % (
            m["name"], m["value"], m["unit"], 100 * m["value"] / lim, lim,
            " at %s MHz" % mhz.group(1) if mhz else ""))
PY
}

run ports-cold cuda:0
run ports cuda:0
run ports-quick cuda:0 --quick
for f in ports-cold ports ports-quick; do
    log "figures: $f"
    figures "$out/$f.json"
done

log "NVIDIA OpenCL"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    run ports-opencl "$ocldev"
    figures "$out/ports-opencl.json"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

log "ctest -L gpu"
(cd build-gpu && timeout 240 ctest --output-on-failure -L gpu 2>&1) | tee "$out/ctest-gpu.log" |
    tail -30
rm -rf "$cache" "$icd"
echo "done"
