#!/usr/bin/env bash
# Runtime overheads, transfers and branch divergence on an NVIDIA GPU, in one
# session of under eight minutes: build (Release), the GPU tests, the five
# families through CUDA (default profile: the acceptance figures, and their
# cost in wall time) and through NVIDIA's OpenCL, and the references of the
# usual tools (scripts/overhead-reference.cu: launch + cudaDeviceSynchronize,
# bandwidthTest-style cudaMemcpyAsync). Everything goes to $OUT (or
# ./device-out); the last section prints the figures to check.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
log_stamp=clock
fams=(--bench 'transfer.*' --bench 'overhead.*' --bench control.divergence)

unpack_deps
log "device"
gpu_query name,driver_version,pcie.link.gen.max,pcie.link.width.max,pcie.link.gen.current,pcie.link.width.current,clocks.max.sm,power.limit |
    tee "$out/nvidia-smi.csv"
ulimit -l 2>/dev/null | sed 's/^/locked-memory limit (KiB): /'

log "build"
build_release build-gpu
bin=build-gpu/gpuchar

log "GPU tests"
(cd build-gpu && timeout 150 ctest --output-on-failure -L gpu 2>&1) | tee "$out/ctest-gpu.log" |
    grep -E "ok |FAIL|Passed|Failed|tests passed"

log "CUDA: transfer.*, overhead.*, control.divergence (default profile)"
timeout 150 "$bin" run --device cuda:0 --no-progress "${fams[@]}" --json "$out/cuda.json" \
    --csv "$out/cuda-csv" >"$out/cuda.txt" 2>"$out/cuda.err"
echo "exit $?"
sed -n '/== summary: runtime/,$p' "$out/cuda.txt"

log "CUDA: the same, --full (sizes to 2 GiB, 2000 launch samples, compile to 10 000 lines)"
timeout 120 "$bin" run --device cuda:0 --no-progress --full --bench transfer.pinned \
    --bench 'overhead.launch.*' --bench overhead.compile --json "$out/cuda-full.json" \
    >"$out/cuda-full.txt" 2>"$out/cuda-full.err"
echo "exit $?"

log "NVIDIA OpenCL"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    timeout 120 "$bin" run --device "$ocldev" --no-progress "${fams[@]}" --json "$out/opencl.json" \
        >"$out/opencl.txt" 2>"$out/opencl.err"
    echo "exit $?"
    sed -n '/== summary: runtime/,$p' "$out/opencl.txt"
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

log "references: launch round trip and bandwidthTest-style copies (CUDA runtime)"
${NVCC:-nvcc} -O3 -std=c++17 -arch=native -o build-gpu/overhead-reference \
    scripts/overhead-reference.cu >"$out/reference-build.log" 2>&1 &&
    timeout 90 build-gpu/overhead-reference 1024 10 | tee "$out/overhead-reference.jsonl"

log "figures to check"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as e:
        print(f"{name}: not readable ({e})")
        return None
def metric(d, bench, name):
    for b in d["benchmarks"]:
        if b["name"] == bench:
            for m in b.get("metrics", []):
                if m["name"] == name:
                    return m
    return None
def show(d, bench, name, scale=1.0, unit=""):
    m = metric(d, bench, name) if d else None
    if not m or m["value"] is None:
        print(f"  {bench} {name}: -")
        return None
    frac = m.get("fraction")
    extra = f" ({100*frac:.1f}% of {m['limit']*scale:.2f})" if frac is not None else ""
    print(f"  {bench} {name}: {m['value']*scale:.3f} {unit}{extra}")
    return m["value"]
for name in ("cuda.json", "opencl.json"):
    d = load(name)
    if not d:
        continue
    print(name)
    wall = sum(b["wall_s"] for b in d["benchmarks"])
    print(f"  wall time of the families: {wall:.1f} s (budget ~15 s on CUDA)")
    for b in d["benchmarks"]:
        if b["status"] != "ok":
            print(f"  {b['name']}: {b['status']}: {b.get('error','')[:200]}")
    for dirn in ("h2d", "d2h"):
        v = show(d, "transfer.pinned", f"{dirn}_bandwidth", 1e-9, "GB/s")
        v2 = show(d, "transfer.pinned", f"{dirn}_bandwidth_two_streams", 1e-9, "GB/s")
        best = max(x for x in (v, v2, 0) if x is not None)
        print(f"    acceptance {dirn} >= 56 GB/s (best of one and two streams): "
              f"{'PASS' if best >= 56e9 else 'FAIL'} ({best*1e-9:.2f} GB/s)")
    show(d, "transfer.pinned", "bidir_bandwidth", 1e-9, "GB/s")
    show(d, "transfer.pinned", "h2d_latency", 1e6, "us")
    show(d, "transfer.pageable", "h2d_bandwidth", 1e-9, "GB/s")
    show(d, "transfer.mapped", "h2d_bandwidth", 1e-9, "GB/s")
    show(d, "transfer.pinned", "link_limit", 1e-9, "GB/s")
    for n in ("round_trip", "round_trip_p99", "enqueue"):
        show(d, "overhead.launch.roundtrip", n, 1e6, "us")
    show(d, "overhead.launch.rate", "launch_interval", 1e6, "us")
    show(d, "overhead.launch.start", "launch_to_start", 1e6, "us")
    show(d, "overhead.launch.start", "invocation_overhead", 1e6, "us")
    show(d, "overhead.launch.graph", "graph_round_trip", 1e6, "us")
    show(d, "overhead.compile", "compile_per_line", 1e6, "us")
    v = show(d, "control.divergence", "simd_width", 1, "lanes")
    if v is not None:
        print(f"    acceptance SIMD width 32: {'PASS' if v == 32 else 'FAIL'}")
    show(d, "control.divergence", "cutoff_rule_holds", 1, "")
    show(d, "control.divergence", "if_divergent_slowdown", 1, "x")
PY
