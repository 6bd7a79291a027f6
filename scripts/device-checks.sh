# shellcheck shell=bash
# The per-family checks of scripts/device.sh, sourced by it after
# scripts/device-lib.sh: one function phase_NAME per subcommand. Each runs
# after the driver has built build-gpu (Release) and set $bin (its gpuchar),
# $out (the folder packed into the results archive), $cache (a fresh kernel
# cache) and $limit (seconds per step); each sets status=1 when a check
# fails. Heredocs stay at column 0 (their terminators must).
# shellcheck disable=SC2034,SC2154

# Build, test and measure in one go: the GPU tests (ctest -L 'unit|gpu|sass'),
# the foundation benchmarks through CUDA and NVIDIA's OpenCL, and the tool's
# own cost (compile time, wall time and peak host memory of a cold and a
# warm-cache run, against a baseline process with no benchmark buffers).
phase_check()
{
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
}

# compute.* on cuda:0: the SASS checks of every declared kernel (GC_SKIP_SASS
# skips them), the run twice with one kernel cache (cold, then warm: the warm
# wall time is the acceptance figure, the warm run checked by check-run.py;
# GC_BENCH picks another pattern), compute.fp32.fma and .add through NVIDIA's
# OpenCL (the kernel-time pipeline model), the cuBLASLt reference
# (GC_SKIP_CUBLAS skips it).
phase_compute()
{
    pattern=${GC_BENCH:-compute.*}
    if [ -z "${GC_SKIP_SASS:-}" ]; then
        log "SASS checks"
        (cd build-gpu && ctest --output-on-failure -L sass 2>&1) | tee "$out/sass.log" | tail -60
    fi
    new_kcache
    for run in cold warm; do
        log "gpuchar run --bench '$pattern' ($run kernel cache)"
        wall_ms --stdout "$out/compute_$run.txt" --stderr "$out/compute_$run.err" \
            "$bin" run --device cuda:0 --bench "$pattern" --no-progress --cache-dir "$cache" \
            --json "$out/compute_$run.json"
        tail -5 "$out/compute_$run.err"
    done
    cat "$out/compute_warm.txt"
    python3 scripts/check-run.py "$out/compute_warm.json" 0 | grep -v "^ok" || true
    log "compute.fp32.fma and .add through NVIDIA's OpenCL"
    nvidia_opencl_on "$bin"
    if [ -n "$ocldev" ]; then
        "$bin" run --device "$ocldev" --bench compute.fp32.fma --bench compute.fp32.add --no-progress \
            --cache-dir "$cache" --json "$out/compute_ocl.json" >"$out/compute_ocl.txt" 2>&1
        echo "exit $?"
        grep -E "throughput|latency|ridge|series roof|ok in" "$out/compute_ocl.txt" | head -30
    fi
    unset OCL_ICD_VENDORS
    if [ -z "${GC_SKIP_CUBLAS:-}" ]; then
        log "cuBLASLt reference (dense GEMM 8192^3)"
        build_ref cublas-reference && "$refs/cublas-reference" 8192 50 | tee "$out/cublas-reference.jsonl"
    fi
}

# The memory groups on cuda:0, each under its own time limit: DRAM and copy,
# shared and constant, the access patterns (--quick), the levels (--quick).
phase_memory()
{
    mem_group() {
        local name=$1 limit=$2
        shift 2
        log "$name"
        timeout "$limit" "$bin" run --device cuda:0 --no-progress --json "$out/$name.json" "$@" \
            >"$out/$name.txt" 2>"$out/$name.err"
        echo "exit $?"
        grep -E "^==|bandwidth|latency|size|error|fail" "$out/$name.txt" | grep -v "^  series" | head -60
    }
    mem_group dram 110 --bench 'memory.dram.*' --bench memory.copy
    mem_group shared 50 --bench memory.shared --bench memory.constant
    mem_group access 55 --quick --bench memory.coalescing --bench memory.atomics --bench memory.copy_kernel
    mem_group levels 85 --quick --bench 'memory.latency.*' --bench memory.bandwidth
}

# Latency hiding on cuda:0: hiding.params, the model evaluated offline from
# it, the hiding.mix.* sweeps, the compute and DRAM references they must agree
# with, and the acceptance figures (tools/hiding-check.py).
phase_hiding()
{
    log "hiding.params"
    wall_ms timeout 90 "$bin" run --device cuda:0 --no-progress --bench hiding.params \
        --json "$out/hp.json" >"$out/hp.txt" 2>&1
    tail -3 "$out/hp.txt"
    log "gpuchar model from the profile"
    "$bin" model --profile "$out/hp.json" --alpha 32 --warps 32 2>&1 | head -20
    "$bin" model --profile "$out/hp.json" --sweep 2>&1 | tail -25
    log "hiding.mix.*"
    wall_ms timeout 90 "$bin" run --device cuda:0 --no-progress --bench 'hiding.mix.*' \
        --json "$out/mix.json" >"$out/mix.txt" 2>&1
    tail -3 "$out/mix.txt"
    log "references"
    wall_ms timeout 40 "$bin" run --device cuda:0 --no-progress --bench compute.fp32.add \
        --bench memory.dram.read --json "$out/ref.json" >"$out/ref.txt" 2>&1
    log "acceptance figures"
    python3 tools/hiding-check.py "$out/hp.json" "$out/mix.json" "$out/ref.json"
}

# memory.dram.* and memory.copy, the STREAM-style reference
# (tools/reference/stream-reference.cu), the global and read-only staircases
# (--quick).
phase_dram()
{
    log "memory.dram.* and memory.copy"
    timeout 240 "$bin" run --device cuda:0 --no-progress --bench 'memory.dram.*' \
        --bench memory.copy --json "$out/dram.json" >"$out/dram.txt" 2>"$out/dram.err"
    echo "exit $?"
    grep -E "^==|_bandwidth |best" "$out/dram.txt" | cut -c1-200
    log "STREAM-style reference"
    build_ref stream-reference &&
        timeout 60 "$refs/stream-reference" 2048 30 | tee "$out/stream-reference.jsonl"
    log "staircases (quick)"
    timeout 60 "$bin" run --device cuda:0 --no-progress --quick \
        --bench memory.latency.global --bench memory.latency.readonly --json "$out/stair.json" \
        >"$out/stair.txt" 2>&1
    echo "exit $?"
    grep -E "^==|_size_bytes|_latency_cycles" "$out/stair.txt" | cut -c1-160
}

# The PoCL staircase on the host CPU, three times, as test_staircase runs it
# (its cache sizes beside sysfs's).
phase_staircase_cpu()
{
    log "PoCL staircase on the host CPU"
    grep -m1 "model name" /proc/cpuinfo
    for f in /sys/devices/system/cpu/cpu0/cache/index*/size; do printf '%s ' "$(cat "$f")"; done
    echo
    for i in 1 2 3; do
        timeout 100 "$bin" run --device opencl:0 --no-progress --repeat 5 \
            --min-time 2 --bench memory.latency.global --json "$out/cpu$i.json" \
            >"$out/cpu$i.txt" 2>&1
        echo "run $i: exit $?"
        grep -E "_size_bytes|_latency_ns|footprints " "$out/cpu$i.txt" | cut -c1-160
    done
}

# The pointer-chase staircases: memory.latency.* on cuda:0 (on an H200 L1 ~32,
# L2 ~280, DRAM ~680 cycles, L2 as one SM sees it ~28 MiB), the global,
# constant and TLB chases through NVIDIA's OpenCL (constant_level1 within a
# few % of cuda:0's), then ctest -L gpu -R cuda_backend.
phase_chase()
{
    chase_show() {
        python3 - "$1" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    print("%-30s %-14s %7.1f s" % (b["name"], b["status"], b.get("wall_s") or 0))
    for m in b["metrics"]:
        n = m["name"]
        if n.endswith("_latency_cycles") or n.endswith("_bytes") or n.startswith("footprints"):
            print("    %-34s %14.6g %s" % (n, m["value"], m["unit"]))
print("total wall %.1f s, complete %s" % (d.get("wall_s") or 0, d["complete"]))
PY
    }

    log "memory.latency.* on cuda:0"
    timeout 240 "$bin" run --device cuda:0 --bench 'memory.latency.*' --no-progress \
        --cache-dir "$cache" --json "$out/cuda.json" >"$out/cuda.txt" 2>&1 || status=1
    chase_show "$out/cuda.json"

    nvidia_opencl_on "$bin"
    if [ -n "$ocldev" ]; then
        log "memory.latency.global, .constant, .tlb on NVIDIA's OpenCL ($ocldev)"
        timeout 200 "$bin" run --device "$ocldev" --bench memory.latency.global \
            --bench memory.latency.constant --bench memory.latency.tlb --no-progress \
            --cache-dir "$cache" --json "$out/ocl.json" >"$out/ocl.txt" 2>&1 || status=1
        show "$out/ocl.json"
    else
        echo "no NVIDIA OpenCL device"
        status=1
    fi
    unset OCL_ICD_VENDORS
    rm -rf "$cache"
    new_kcache

    log "ctest -L gpu -R cuda_backend"
    (cd build-gpu && timeout 240 ctest -L gpu -R cuda_backend --output-on-failure) \
        >"$out/ctest.txt" 2>&1 || status=1
    tail -5 "$out/ctest.txt"
}

# The kernel cache: tests/cli/run_cache.sh (truncated, swapped, random and
# old-version entries are compiled again; two runs share one cache) on cuda:0
# and on NVIDIA's OpenCL, then a run with an injected failure that must be
# marked incomplete.
phase_kcache()
{
    log "kernel cache on cuda:0"
    GPUCHAR_CACHE_TEST_DEVICE=cuda:0 bash tests/cli/run_cache.sh "$bin" 2>&1 | tee "$out/kcache_cuda.log"
    rc=${PIPESTATUS[0]}
    echo "run_cache.sh on cuda:0: exit $rc (0 pass, 77 skipped)"
    [ "$rc" -eq 0 ] || status=1

    log "kernel cache on NVIDIA's OpenCL"
    nvidia_opencl_on "$bin" --with-system
    if [ -n "$ocldev" ]; then
        GPUCHAR_CACHE_TEST_DEVICE=$ocldev bash tests/cli/run_cache.sh "$bin" 2>&1 |
            tee "$out/kcache_opencl.log"
        rc=${PIPESTATUS[0]}
        echo "run_cache.sh on $ocldev: exit $rc"
        [ "$rc" -eq 0 ] || status=1
    else
        echo "no NVIDIA OpenCL device found"
        status=1
    fi
    unset OCL_ICD_VENDORS

    log "a failed benchmark marks the run incomplete (cuda:0)"
    GPUCHAR_FAULT=alloc:1 "$bin" run --device cuda:0 --bench memory.copy,compute.fp32.fma --quick \
        --no-progress --quiet --no-cache --json "$out/fault.json" >"$out/fault.txt" 2>&1
    rc=$?
    echo "exit $rc (expected 1)"
    python3 - "$out/fault.json" "$rc" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
st = {b["name"]: b["status"] for b in d["benchmarks"]}
print("statuses:", st, "complete:", d["complete"], "reason:", d["incomplete_reason"])
# memory.copy selects memory.dram.copy, which runs after compute.fp32.fma:
# the first allocation is the FMA benchmark's.
ok = sys.argv[2] == "1" and d["complete"] is False and st.get("compute.fp32.fma") == "error" \
    and st.get("memory.dram.copy") == "ok"
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
}

# The compute pipeline model from whole-kernel times beside the one from
# in-kernel clocks: compute.fp32.* (GC_BENCH: another pattern) on NVIDIA's
# OpenCL and on cuda:0, side by side, then ctest -L gpu.
phase_ktime()
{
    pattern=${GC_BENCH:-compute.fp32.*}

    ktime_one() { # name spec
        log "gpuchar run --device $2 --bench '$pattern'"
        local start end rc
        start=$(date +%s%N)
        timeout 240 "$bin" run --device "$2" --bench "$pattern" --no-progress \
            --json "$out/ktime_$1.json" >"$out/ktime_$1.txt" 2>"$out/ktime_$1.err"
        rc=$?
        end=$(date +%s%N)
        echo "exit $rc, wall $(( (end - start) / 1000000 )) ms"
        [ $rc -eq 0 ] || { status=1; tail -5 "$out/ktime_$1.err"; }
        grep -E "^== |latency|ridge|90pct|littles" "$out/ktime_$1.txt"
    }

    nvidia_opencl_on "$bin" --with-system
    spec=$ocldev
    if [ -z "$spec" ]; then
        echo "no NVIDIA OpenCL device"
        status=1
    else
        ktime_one opencl "$spec"
    fi
    unset OCL_ICD_VENDORS
    ktime_one cuda cuda:0

    log "kernel times (OpenCL) against in-kernel clocks (CUDA)"
    python3 - "$out/ktime_opencl.json" "$out/ktime_cuda.json" <<'PY' || status=1
import json, sys
def load(p):
    try:
        d = json.load(open(p))
    except (OSError, ValueError):
        return {}
    return {b["name"]: {m["name"]: (m["value"], m["unit"]) for m in b["metrics"]}
            for b in d["benchmarks"]}
ocl, cuda = load(sys.argv[1]), load(sys.argv[2])
keys = ["issue_latency", "completion_latency", "ridge_warps_ilp1", "ridge_warps_ilp2",
        "ridge_warps_ilp4", "littles_law_warps"]
print("%-22s %-20s %14s %14s" % ("bench", "metric", "opencl(ktime)", "cuda(clock)"))
for b in sorted(set(ocl) | set(cuda)):
    for k in keys:
        o, c = ocl.get(b, {}).get(k), cuda.get(b, {}).get(k)
        if o is None and c is None:
            continue
        f = lambda v: "-" if v is None or v[0] is None else "%.3g %s" % v
        print("%-22s %-20s %14s %14s" % (b, k, f(o), f(c)))
PY

    log "ctest -L gpu"
    (cd build-gpu && timeout 300 ctest --output-on-failure -L gpu 2>&1) | tee "$out/ctest.log" | tail -20
    grep -q "100% tests passed" "$out/ctest.log" || status=1
}

# The memory hierarchy twice: the SASS of the declared kernels, then
# memory.shared, the global, L2 and partition chases, DRAM read and write and
# memory.bandwidth twice; the second run's latencies must agree to +-1 cycle.
phase_memcheck()
{
    # 1. SASS of every declared kernel (new: shmem_load_*, read_*_ncna*/_pf256/_v32*, chase_l2_all_sms).
    (cd build-gpu && ctest -R test_sass --output-on-failure) 2>&1 | tee "$out/sass.txt" |
        grep -E "shmem_load|ncna|pf256|read_v32|all_sms|^FAIL|tests passed|tests failed"
    # 2. The benchmarks, twice.
    for i in 1 2; do
        "$bin" run --device cuda:0 --no-progress --json "$out/mem$i.json" \
            --bench memory.shared --bench memory.latency.global --bench memory.latency.l2 \
            --bench memory.latency.l2_partition --bench memory.dram.read --bench memory.dram.write \
            --bench memory.bandwidth >"$out/mem$i.txt" 2>&1
        echo "run $i: exit $?"
    done
    python3 - "$out/mem1.json" "$out/mem2.json" <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:3]]
def metrics(d):
    return {(b["name"], m["name"]): m for b in d["benchmarks"] for m in b["metrics"]}
m1, m2 = metrics(runs[0]), metrics(runs[1])
walls = {b["name"]: b["wall_s"] for b in runs[0]["benchmarks"]}
fails = 0
def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1
def get(b, n):
    return m1.get((b, n))
sh = get("memory.shared", "shared_bandwidth")
check(sh is not None and sh["fraction"] is not None and 0.97 <= sh["fraction"] <= 1.0,
      "shared_bandwidth %s" % (sh and "%.4g B/s = %.1f%% (%s)" % (sh["value"], 100 * (sh["fraction"] or 0), sh["note"])))
for n in ("shared_bytes_per_clk_per_cu", "swap_bytes_per_clk_per_cu", "shared_load_bytes_per_clk_per_cu",
          "broadcast_bytes_per_clk_per_cu"):
    x = get("memory.shared", n)
    print("     %-34s %s" % (n, x and "%.1f B/clk/CU; %s" % (x["value"], x["note"])))
l1bw = get("memory.bandwidth", "l1_bytes_per_clk_per_sm")
check(l1bw is not None and (l1bw["fraction"] or 0) >= 0.90, "L1 bandwidth %s" % (l1bw and "%.1f%%" % (100 * (l1bw["fraction"] or 0))))
l1 = get("memory.latency.global", "l1_size_bytes")
check(l1 is not None and l1["limit"] and abs(l1["value"] / l1["limit"] - 1) <= 0.10,
      "L1 size %s" % (l1 and "%.0f B vs %s B (%s)" % (l1["value"], l1["limit"], l1["note"])))
l2 = get("memory.latency.l2", "l2_all_sms_size_bytes")
check(l2 is not None and l2["limit"] and abs(l2["value"] / l2["limit"] - 1) <= 0.10,
      "whole L2 %s" % (l2 and "%.0f B vs %s B (%s)" % (l2["value"], l2["limit"], l2["note"])))
for b in ("memory.latency.global", "memory.latency.l2"):
    x = get(b, "l2_size_bytes")
    print("     %s one-SM L2: %s" % (b, x and "%.0f B (%s)" % (x["value"], x["note"])))
    x = get(b, "l2_spill_size_bytes")
    if x:
        print("     %s l2_spill: %.0f B (%s)" % (b, x["value"], x["note"]))
for b, n in (("memory.latency.global", "l1_latency_cycles"), ("memory.latency.global", "l2_latency_cycles"),
             ("memory.latency.global", "dram_latency_cycles"), ("memory.latency.l2", "l2_latency_cycles"),
             ("memory.latency.l2", "dram_latency_cycles"), ("memory.latency.l2", "l2_all_sms_latency_cycles"),
             ("memory.latency.l2", "dram_all_sms_latency_cycles")):
    a, c = m1.get((b, n)), m2.get((b, n))
    check(a is not None and c is not None and abs(a["value"] - c["value"]) <= 1.0,
          "%s %s stable: %s" % (b, n, a and c and "%.2f / %.2f" % (a["value"], c["value"])))
rd = get("memory.dram.read", "read_bandwidth")
print("     read %s" % (rd and "%.4g B/s = %.1f%%; %s" % (rd["value"], 100 * (rd["fraction"] or 0), rd["note"])))
check(walls.get("memory.dram.read", 1e9) <= 40, "memory.dram.read wall %.1f s (aim <= 40)" % walls.get("memory.dram.read", -1))
for b in ("memory.latency.global", "memory.latency.l2"):
    for k in ("footprints", "footprints_all_sms"):
        x = get(b, k)
        if x:
            print("     %s %s: %s" % (b, k, x["note"]))
sys.exit(1 if fails else 0)
PY
}

# What NVIDIA's OpenCL compiles memory.latency.constant's chase to: the
# benchmark through OpenCL and cuda:0, then the PTX of the OpenCL program in
# the kernel cache, each chase load's state space, and its SASS.
phase_oclconst()
{
    ocache=$(mktemp -d)
    ccache=$(mktemp -d)
    nvidia_opencl_on "$bin"
    for spec in "$ocldev" cuda:0; do
        c=$ccache
        [ "$spec" = cuda:0 ] || c=$ocache
        log "memory.latency.constant on $spec"
        "$bin" run --device "$spec" --bench memory.latency.constant --no-progress --cache-dir "$c" \
            --json "$out/const-${spec%%:*}.json" >"$out/const-${spec%%:*}.txt" 2>&1
        grep -E "constant_level1|footprints|ok in|error" "$out/const-${spec%%:*}.txt" | head -8
    done
    log "OpenCL program: the chase's loads"
    shown=0
    for f in "$ocache"/*; do
        if [ "$shown" -lt 3 ] && grep -aq "entry gc_chase" "$f" 2>/dev/null; then
            shown=$((shown + 1))
            cp "$f" "$out/ocl-$(basename "$f").ptx"
            echo "-- $(basename "$f"): $(grep -ac "ld\." "$f") loads"
            grep -a -n -E "\.entry|ld\.(const|global)[^;]*;" "$f" | head -8
            # The SASS ptxas makes of it (the driver compiles the same PTX).
            python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); i = d.find(b'//'); \
    sys.stdout.buffer.write(d[i:].rstrip(b'\\0'))" "$f" >"$out/tmp.ptx"
            if ptxas -arch=sm_90 "$out/tmp.ptx" -o "$out/tmp.cubin" 2>/dev/null; then
                cuobjdump -sass "$out/tmp.cubin" | grep -oE "\b(U?LDC|LDG)[.A-Z0-9]*" | sort | uniq -c |
                    sort -rn | head -6
            fi
        fi
    done
    unset OCL_ICD_VENDORS
}

# NVIDIA's OpenCL with the in-kernel clocks (inline-PTX probe): the global and
# L2 chases and compute.fp32.fma through OpenCL and cuda:0 on the same GPU,
# side by side (OpenCL's cycle figures within a few % of CUDA's).
phase_oclcyc()
{
    nvidia_opencl_on "$bin" --with-system
    log "gpuchar list"
    "$bin" list | tee "$out/list.txt"
    spec=$ocldev
    if [ -z "$spec" ]; then
        echo "no NVIDIA OpenCL device"
        unset OCL_ICD_VENDORS
        status=1
        return
    fi

    oclcyc_one() { # name spec limit
        local name=$1 dev=$2 lim=$3
        log "$dev: memory.latency.global, memory.latency.l2, compute.fp32.fma"
        timev timeout "$lim" "$bin" run --device "$dev" --bench memory.latency.global \
            --bench memory.latency.l2 --bench compute.fp32.fma --no-progress --cache-dir "$cache" \
            --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.err"
        echo "exit status $?"
        grep -E "Elapsed|Maximum resident" "$out/$name.err"
        cat "$out/$name.txt"
    }

    oclcyc_one ocl "$spec" 300
    unset OCL_ICD_VENDORS
    oclcyc_one cuda cuda:0 120

    log "caps and the figures side by side"
    python3 - "$out/ocl.json" "$out/cuda.json" <<'PY' | tee "$out/compare.txt"
import json, sys
runs = {}
for tag, path in (("opencl", sys.argv[1]), ("cuda", sys.argv[2])):
    try:
        runs[tag] = json.load(open(path))
    except Exception as e:
        print(f"{tag}: no results ({e})")
for tag, r in runs.items():
    extra = r.get("meta", {}).get("device_extra", "")
    print(f"{tag} device_extra: {extra}")
def metrics(r):
    out = {}
    for b in r.get("benchmarks", r.get("results", [])):
        name = b.get("name", "?")
        status = b.get("status", "")
        if status not in ("ok", ""):
            out[(name, "status")] = f"{status}: {b.get('error', '')}"[:100]
        for m in b.get("metrics", []):
            out[(name, m.get("name"))] = m.get("value")
        clk = b.get("context", {}).get("sm_clock_source")
        if clk:
            out[(name, "sm_clock_source")] = clk
    return out
ms = {t: metrics(r) for t, r in runs.items()}
names = sorted({k for m in ms.values() for k in m})
print(f"{'benchmark':24} {'metric':34} {'opencl':>16} {'cuda':>16} {'ratio':>7}")
for k in names:
    a = ms.get("opencl", {}).get(k)
    c = ms.get("cuda", {}).get(k)
    ratio = ""
    if isinstance(a, (int, float)) and isinstance(c, (int, float)) and c:
        ratio = f"{a / c:7.3f}"
    fa = f"{a:.4g}" if isinstance(a, (int, float)) else str(a)
    fc = f"{c:.4g}" if isinstance(c, (int, float)) else str(c)
    print(f"{k[0]:24} {k[1]:34} {fa:>16} {fc:>16} {ratio:>7}")
PY
}

# Runtime overheads, transfers and branch divergence: the GPU tests, the
# families through CUDA (default profile and --full) and NVIDIA's OpenCL,
# the CUDA runtime references (tools/reference/overhead-reference.cu), then
# the figures to check (h2d/d2h >= 56 GB/s, SIMD width 32).
phase_overheads()
{
    local fams=(--bench 'transfer.*' --bench 'overhead.*' --bench control.divergence)
    log "PCIe link"
    gpu_query name,pcie.link.gen.max,pcie.link.width.max,pcie.link.gen.current,pcie.link.width.current |
        tee "$out/nvidia-smi.csv"
    ulimit -l 2>/dev/null | sed 's/^/locked-memory limit (KiB): /'
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
    build_ref overhead-reference &&
        timeout 90 "$refs/overhead-reference" 1024 10 | tee "$out/overhead-reference.jsonl"

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
}

# The shared-library build (BUILD_SHARED_LIBS=ON, build-gpu-shared):
# libgpuchar.so exports the public API only, the tool linked against it
# measures through CUDA and NVIDIA's OpenCL (figures equal to the static
# build's), and its unit and GPU tests pass.
phase_shared()
{
    log "build (BUILD_SHARED_LIBS=ON, Release)"
    build_release build-gpu-shared --log "$out/cmake-shared.log" -DBUILD_SHARED_LIBS=ON
    local bin=build-gpu-shared/gpuchar
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
}

# Host memory and time of the transfer benchmarks: transfer.* and
# memory.coalescing on cuda:0 under time -v (peak resident set, wall time),
# transfer.* through NVIDIA's OpenCL, the whole default run's peak resident
# set (warm kernel cache), then the GPU tests in the time left.
phase_xfer()
{
    # timed NAME CMD...: runs CMD with its peak resident set and wall time in
    # $out/NAME.time; rss NAME prints them.
    xfer_timed() {
        local name=$1
        shift
        timev -o "$out/$name.time" "$@"
    }
    xfer_rss() {
        awk -F': ' '/Maximum resident set size/ {printf "peak RSS %.0f MiB", $2 / 1024}
                    /Elapsed \(wall clock\)/ {printf ", wall %s\n", $2}' "$out/$1.time"
    }
    # metrics FILE: every benchmark's status, wall time and metrics.
    xfer_metrics() {
        python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    print("%-26s %-14s %6.2f s  %s" % (b["name"], b["status"], b.get("wall_s") or 0,
                                      b.get("error") or ""))
    for m in b["metrics"]:
        v, u, f = m["value"], m["unit"], m.get("fraction")
        if v is None:
            continue
        if u == "B/s":
            s = "%.2f GB/s" % (v * 1e-9)
        elif u == "s":
            s = "%.2f us" % (v * 1e6)
        elif u == "B":
            s = "%.0f B" % v
        else:
            s = "%.4g %s" % (v, u)
        print("    %-32s %-16s%s" % (m["name"], s, "  (%.1f%% of limit)" % (100 * f) if f else ""))
PY
    }

    log "device"
    gpu_query name,driver_version,pcie.link.gen.max,pcie.link.width.max,memory.total |
        tee "$out/nvidia-smi.csv"
    ulimit -l 2>/dev/null | sed 's/^/locked-memory limit (KiB): /'

    local cache="$out/kcache"

    log "CUDA: transfer.* (default profile)"
    xfer_timed transfer timeout 120 "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
        --bench 'transfer.*' --json "$out/transfer.json" >"$out/transfer.txt" 2>"$out/transfer.err"
    echo "exit $?"
    xfer_rss transfer
    xfer_metrics "$out/transfer.json"

    log "CUDA: memory.coalescing (default profile)"
    xfer_timed coalescing timeout 90 "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
        --bench memory.coalescing --json "$out/coalescing.json" >"$out/coalescing.txt" \
        2>"$out/coalescing.err"
    echo "exit $?"
    xfer_rss coalescing
    xfer_metrics "$out/coalescing.json"

    log "NVIDIA OpenCL: transfer.*"
    nvidia_opencl_on "$bin"
    if [ -n "$ocldev" ]; then
        xfer_timed opencl timeout 90 "$bin" run --device "$ocldev" --no-progress --cache-dir "$cache" \
            --bench 'transfer.*' --json "$out/opencl.json" >"$out/opencl.txt" 2>"$out/opencl.err"
        echo "exit $?"
        xfer_rss opencl
        xfer_metrics "$out/opencl.json"
    else
        echo "no NVIDIA OpenCL device found"
    fi
    unset OCL_ICD_VENDORS

    log "CUDA: the whole default run (peak RSS; kernel cache warm after a first run elsewhere)"
    xfer_timed default timeout 240 "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
        --json "$out/default.json" >"$out/default.txt" 2>"$out/default.err"
    echo "exit $?"
    xfer_rss default
    python3 - "$out/default.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bs = sorted(d["benchmarks"], key=lambda b: -(b.get("wall_s") or 0))
print("run %.1f s; slowest:" % (d.get("wall_s") or 0))
for b in bs[:8]:
    print("  %-30s %6.2f s  %s" % (b["name"], b.get("wall_s") or 0, b["status"]))
PY

    local left=$((470 - SECONDS + phase_t0))
    if [ "$left" -gt 30 ]; then
        log "GPU tests (${left} s left)"
        (cd build-gpu && timeout "$left" ctest --output-on-failure -L gpu 2>&1) |
            tee "$out/ctest-gpu.log" | grep -E "ok |FAIL|Passed|Failed|tests passed"
    else
        echo "no time left for the GPU tests"
    fi
}

# energy_has " PARTS " PART: whether the energy check's parts name PART.
energy_has()
{
    [[ $1 == *" $2 "* ]]
}

# Power and energy (MIPP Tables I-IV): the energy.* family on cuda:0 in two
# runs, each preceded in the same process by the performance benchmarks whose
# peak configuration the energy workloads run at, a repeat pair for
# run-to-run agreement, NVIDIA's OpenCL (no power meter: not available with
# the reason), the GPU tests. ENERGY_PHASES picks parts (memory compute
# repeat opencl ctest; uncertainty: the acceptance of the 2% rule, with
# GC_ENERGY_PROFILE quick (default), default or full).
phase_energy()
{
    local t_start
    t_start=$(date +%s)
    # The family in two runs (each measures its own idle and static power): the
    # memory levels and occupancy sweeps, then every compute itype and matrix
    # unit. The ordering checks stay within one run (DRAM, L2, shared; FFMA,
    # DFMA, tensor cores). Each run names the performance benchmarks of its
    # workloads too: they run first (the registry's order) and store the
    # configuration of their peak, which the energy workloads of the same run
    # use. SIGINT at a run's budget keeps what it measured (the JSON is written,
    # marked incomplete).
    energy_run() { # name budget patterns...
        local name=$1 budget=$2
        shift 2
        local args=() pat
        for pat in "$@"; do args+=(--bench "$pat"); done
        log "gpuchar run ${args[*]} (cuda:0, at most ${budget} s)"
        wall_ms --stdout "$out/$name.txt" --stderr "$out/$name.err" \
            timeout -s INT "$budget" "$bin" run --device cuda:0 "${args[@]}" --no-progress -v \
            --cache-dir "$cache" --json "$out/$name.json" --csv "$out/$name-csv"
        tail -3 "$out/$name.err"
    }
    # ENERGY_PHASES (default: all but uncertainty) picks parts: memory compute
    # repeat opencl ctest uncertainty.
    local phases=" ${ENERGY_PHASES:-memory compute repeat opencl ctest} "

    if energy_has "$phases" uncertainty; then
        prof=${GC_ENERGY_PROFILE:-quick}
        popt=()
        [ "$prof" = quick ] && popt=(--quick)
        [ "$prof" = full ] && popt=(--full)
        log "gpuchar run --device cuda:0 ${popt[*]} --bench 'energy.*' (the 2% rule)"
        t0=$(date +%s)
        "$bin" run --device cuda:0 "${popt[@]}" --bench 'energy.*' --no-progress \
            --cache-dir "$cache" --json "$out/energy_unc_$prof.json" >"$out/energy_unc_$prof.txt" \
            2>"$out/energy_unc_$prof.err"
        rc=$?
        echo "exit status $rc, wall $(( $(date +%s) - t0 )) s (profile $prof)"
        tail -3 "$out/energy_unc_$prof.err"
        python3 - "$out/energy_unc_$prof.json" "$rc" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
def num(v):
    return float("nan") if v is None else v
worst, bad, rows = 0.0, [], []
print(f"{'benchmark':40s} {'status':13s} {'figure':9s} {'power W':>9s} {'+-W':>7s} "
      f"{'+-%':>6s} {'window s':>8s}  source")
for b in doc["benchmarks"]:
    ms = {m["name"]: m for m in b.get("metrics", [])}
    pcts = [k for k in ms if k.endswith("power_uncertainty_pct")]
    if not pcts and "power_uncertainty_pct_max" not in ms:
        print(f"{b['name']:40s} {b['status']:13s} {(b.get('error') or '')[:90]}")
        if b["status"] == "error":
            bad.append(b["name"])
        continue
    for k in pcts:
        pre = k[: -len("power_uncertainty_pct")]
        pct = num(ms[k]["value"])
        pw = num(ms.get(pre + "power_avg", {}).get("value"))
        uw = num(ms.get(pre + "power_uncertainty", {}).get("value"))
        wl = num(ms.get(pre + "window_length", {}).get("value"))
        note = ms[k].get("note", "")
        src = "integral" if "sampled-power integral" in note else "counter"
        fig = pre.rstrip("_") or "power"
        print(f"{b['name']:40s} {b['status']:13s} {fig:9s} {pw:9.1f} {uw:7.2f} {pct:6.2f} "
              f"{wl:8.3f}  {src}")
        if not math.isnan(pct):
            worst = max(worst, pct)
        if not pct <= 2.0:
            bad.append(f"{b['name']} {fig} {pct:.2f}%")
    if "power_uncertainty_pct_max" in ms:
        pct = num(ms["power_uncertainty_pct_max"]["value"])
        print(f"{b['name']:40s} {b['status']:13s} {'sweep':9s} {'':9s} {'':7s} {pct:6.2f}")
        worst = max(worst, pct) if not math.isnan(pct) else worst
        if not pct <= 2.0:
            bad.append(f"{b['name']} sweep {pct:.2f}%")
    if b.get("warning"):
        print(f"  warning: {b['warning'][:300]}")
    if b["status"] == "error":
        bad.append(b["name"])
print(f"worst uncertainty {worst:.2f}% (bound 2%)")
for x in bad:
    print(f"  OVER/FAILED {x}")
print("UNCERTAINTY OK" if rc == 0 and not bad else "UNCERTAINTY NOT OK")
PY
        if [ "$(echo "$phases" | wc -w)" -eq 1 ]; then
            return
        fi
    fi
    energy_has "$phases" memory && energy_run energy_memory "${GC_ENERGY_MEM_BUDGET:-150}" memory.bandwidth \
        memory.shared memory.constant memory.atomics memory.dram.read memory.dram.write \
        energy.idle 'energy.memory.*' 'energy.occupancy.*'
    energy_has "$phases" compute && energy_run energy_compute "${GC_ENERGY_COMPUTE_BUDGET:-260}" 'compute.*' \
        'energy.compute.*'
    # Run-to-run agreement: the same benchmarks twice, back to back, in the same
    # conditions (the same process start, the same load before each), when the
    # 8 minutes leave room for both (else: PHASES=repeat on its own).
    if energy_has "$phases" repeat; then
        if [ $(( 470 - ($(date +%s) - t_start) )) -ge 110 ]; then
            for rep in a b; do
                energy_run energy_repeat_$rep 50 energy.idle compute.fp32.fma compute.fp64.fma \
                    energy.compute.fp32.fma energy.compute.fp64.fma energy.memory.dram.read \
                    memory.dram.read
            done
        else
            log "repeat skipped: too little time left (run PHASES=repeat on its own)"
        fi
    fi

    log "MIPP tables (text reports)"
    for f in "$out/energy_memory.txt" "$out/energy_compute.txt"; do
        awk '/^== summary: (energy|idle)/{p=1} /^== summary:/ && !/energy|idle/{p=0} p' "$f"
    done

    log "energy counter, baseline and checks"
    python3 - "$out/energy_memory.json" "$out/energy_compute.json" "$out/energy_repeat_a.json" \
        "$out/energy_repeat_b.json" <<'PY'
import json, math, sys
def load(*paths):
    res = {}
    for p in paths:
        try:
            res.update({b["name"]: b for b in json.load(open(p))["benchmarks"]})
        except Exception as e:
            print(f"{p}: {e}")
    return res
def metric(b, name):
    for m in (b or {}).get("metrics", []):
        if m["name"] == name:
            v = m.get("value")
            return float("nan") if v is None else v
    return float("nan")
a, r = load(sys.argv[1], sys.argv[2]), load(sys.argv[4])
if "energy.idle" not in a:  # only the repeat phase ran
    a = load(sys.argv[3])
else:
    r0 = load(sys.argv[3])
    print("repeat pair (same conditions):")
    for name, met in [("energy.idle", "idle_power_avg"), ("energy.idle", "static_power_avg"),
                      ("energy.compute.fp32.fma", "energy_per_op"),
                      ("energy.compute.fp64.fma", "energy_per_op"),
                      ("energy.memory.dram.read", "energy_per_byte")]:
        x, y = metric(r0.get(name), met), metric(r.get(name), met)
        d = abs(x - y) / x * 100 if x and not math.isnan(x) and not math.isnan(y) else float("nan")
        print(f"  {name:28s} {met:18s} {x:10.4g} {y:10.4g}  {d:5.2f}%{'  OVER' if d > 3 else ''}")
    print("against the family run (after other loads):")
idle = a.get("energy.idle")
if idle:
    print(f"counter resolution   {metric(idle, 'counter_resolution')*1e3:.3f} mJ (smallest step)")
    print(f"counter update       {metric(idle, 'counter_update_period')*1e3:.2f} ms (median interval)")
    print(f"counter poll         {metric(idle, 'counter_poll_period')*1e6:.1f} us per read")
    print(f"power limit          {metric(idle, 'power_limit'):.0f} W")
    print(f"idle power           {metric(idle, 'idle_power_avg'):.1f} W")
    print(f"static power         {metric(idle, 'static_power_avg'):.1f} W (one warp/SM asleep)")
st = {}
for b in a.values():
    st.setdefault(b["status"], []).append(b["name"])
print("status: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(st.items())))
for b in a.values():
    if b["status"] == "error":
        print(f"  FAILED {b['name']}: {b.get('error', '')[:300]}")
worst = max((metric(b, "counter_vs_integral") for b in a.values()
             if not math.isnan(metric(b, "counter_vs_integral"))), default=float("nan"))
print(f"counter vs integral: worst benchmark {worst:.2f}% (bound 5% per window)")
for b in a.values():
    for m in b.get("metrics", []):
        if m["name"] == "ordering_check":
            print(f"  ordering {b['name']}: {m.get('note', '')}")
print("run-to-run (energy per op / idle power), bound 3%:")
for name, met in [("energy.idle", "idle_power_avg"), ("energy.compute.fp32.fma", "energy_per_op"),
                  ("energy.compute.fp64.fma", "energy_per_op"),
                  ("energy.memory.dram.read", "energy_per_byte")]:
    x, y = metric(a.get(name), met), metric(r.get(name), met)
    d = abs(x - y) / x * 100 if x and not math.isnan(x) and not math.isnan(y) else float("nan")
    print(f"  {name:28s} {met:18s} {x:10.4g} {y:10.4g}  {d:5.2f}%{'  OVER' if d > 3 else ''}")
# The configuration each workload ran at: its performance benchmark's peak
# in this run, or the fixed one and why.
origin = {"found": [], "not used": [], "did not run": [], "?": []}
for b in a.values():
    if not b["name"].startswith("energy.") or b["status"] != "ok":
        continue
    note = next((m.get("note", "") for m in b.get("metrics", []) if m["name"] == "throughput"), "")
    k = ("found" if "found in this run" in note else "not used" if "was not used" in note
         else "did not run" if "did not run" in note else "?")
    origin[k].append((b["name"], note))
print("configurations: " + ", ".join(f"{k} {len(v)}" for k, v in origin.items()))
for k in ("not used", "did not run", "?"):
    for name, note in origin[k]:
        print(f"  {k:11s} {name}: {note[:200]}")
for name, note in origin["found"]:
    if name in ("energy.compute.fp32.fma", "energy.compute.fp64.fma", "energy.memory.l2",
                "energy.memory.shared", "energy.memory.dram.read"):
        print(f"  found       {name}: {note[:200]}")
fma = a.get("energy.compute.fp32.fma")
dr = a.get("energy.memory.dram.read")
print(f"sanity: FFMA {metric(fma, 'energy_per_op'):.1f} pJ/result total, "
      f"{metric(fma, 'dynamic_energy_per_op'):.1f} dynamic (tens of pJ expected); "
      f"DRAM read {metric(dr, 'energy_per_byte'):.1f} pJ/B total, "
      f"{metric(dr, 'dynamic_energy_per_byte'):.1f} dynamic (a few tens expected)")
PY

    log "occupancy sweeps (power, energy per op, clock)"
    for f in "$out"/energy_memory-csv/energy.occupancy.*; do
        [ -e "$f" ] && { echo "-- $(basename "$f")"; cat "$f"; }
    done 2>/dev/null | head -80

    log "NVIDIA OpenCL (no power meter: not available with the reason)"
    nvidia_opencl_on "$bin" --with-system
    if [ -n "$ocldev" ] && energy_has "$phases" opencl; then
        "$bin" run --device "$ocldev" --bench energy.idle --bench energy.compute.fp32.fma \
            --no-progress --json "$out/energy_opencl.json" 2>&1 | tee "$out/energy_opencl.txt" | tail -8
    else
        echo "no NVIDIA OpenCL device found"
    fi
    unset OCL_ICD_VENDORS

    left=$(( 470 - ($(date +%s) - t_start) ))
    if [ -z "${GC_SKIP_CTEST:-}" ] && energy_has "$phases" ctest && [ "$left" -gt 30 ]; then
        log "ctest -L gpu (${left} s left)"
        (cd build-gpu && timeout "$left" ctest --output-on-failure -L gpu 2>&1) | tail -30
    fi
}

# An explicit --repeat and --min-time over a whole --quick run on cuda:0:
# every statistic has at most N samples (REPEAT, default 2) and every
# benchmark records the user's sampling policy (tests/cli/check_samples.py).
phase_repeat()
{
    local n=${REPEAT:-2}
    log "gpuchar run --quick --repeat $n --min-time 1 (cuda:0)"
    timeout "$limit" "$bin" run --device cuda:0 --quick --repeat "$n" --min-time 1 --no-progress \
        --cache-dir "$cache" --json "$out/repeat.json" >"$out/repeat.out" 2>&1
    echo "run exit $?"
    python3 tests/cli/check_samples.py "$out/repeat.json" "$n" 0.001 || status=1
}

# wall_of FILE: the wall seconds a timev -o FILE recorded.
wall_of()
{
    python3 - "$1" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", t)
if m:
    print(f"{int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3)):.1f}")
else:
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d.]+)", t)
    print(m.group(1) if m else "nan")
PY
}

# The links of a node (docs/methodology.md, "Peer links"): nvbandwidth built
# from its public source (carried in .peers/ with the Boost headers it needs;
# .peers/build-nvbandwidth.sh; NVBW=0 skips it) beside link.* on every GPU
# (LINKS_OPTS: more run options, e.g. --quick), then the ratios.
phase_links()
{
    local n
    n=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
    nvidia-smi topo -m | tee "$out/topo.txt"
    nvidia-smi nvlink -s 2>/dev/null | head -8 | tee "$out/nvlink.txt"
    if [ "$n" -lt 2 ]; then
        echo "links: $n GPU, nothing to measure"
        return
    fi
    if [ "${NVBW:-1}" = 1 ] && [ -x .peers/build-nvbandwidth.sh ] &&
        bash .peers/build-nvbandwidth.sh >"$out/nvbw-build.log" 2>&1; then
        log "nvbandwidth"
        timeout "$limit" .peers/nvbandwidth/nvbandwidth -t device_to_device_memcpy_read_ce \
            device_to_device_memcpy_write_ce device_to_device_bidirectional_memcpy_read_ce \
            device_to_device_bidirectional_memcpy_write_ce host_to_device_memcpy_ce \
            device_to_host_memcpy_ce all_to_host_memcpy_ce host_to_all_memcpy_ce \
            all_to_one_write_ce one_to_all_write_ce device_to_device_memcpy_read_sm \
            device_to_device_memcpy_write_sm device_to_device_latency_sm >"$out/nvbandwidth.txt" 2>&1
        grep -E "^Running|^SUM" "$out/nvbandwidth.txt"
    else
        echo "nvbandwidth: not built (see nvbw-build.log)"
    fi
    log "link.* on every GPU ${LINKS_OPTS:-(default profile)}"
    # shellcheck disable=SC2086
    timev -o "$out/links.time" timeout "$limit" "$bin" run --device all --bench 'link.*' ${LINKS_OPTS:-} --no-progress \
        --cache-dir "$cache" --json "$out/links.json" >"$out/links.txt" 2>"$out/links.err"
    echo "exit $?, wall $(wall_of "$out/links.time") s"
    grep -v '^$' "$out/links.txt" | head -150
    tail -5 "$out/links.err"
    # nvbandwidth's SM copies once more after gpuchar's: the spread of two
    # runs of the reference beside the ratio.
    if [ -s "$out/nvbandwidth.txt" ]; then
        timeout "$limit" .peers/nvbandwidth/nvbandwidth -t device_to_device_memcpy_read_sm \
            device_to_device_memcpy_write_sm >"$out/nvbandwidth-after.txt" 2>&1
        grep -E "^SUM" "$out/nvbandwidth-after.txt"
    fi
    # LINKS_REPEAT=N: N - 1 more rounds of nvbandwidth and link.*,
    # alternating, so that each ratio is set against both tools' spread.
    local r runs=("$out/links.json" "$out/nvbandwidth.txt")
    for ((r = 2; r <= ${LINKS_REPEAT:-1}; r++)); do
        [ -s "$out/nvbandwidth.txt" ] || break
        log "round $r: nvbandwidth, then link.*"
        # shellcheck disable=SC2046
        timeout "$limit" .peers/nvbandwidth/nvbandwidth -t $(grep -o '^Running [a-z_0-9]*' "$out/nvbandwidth.txt" |
            cut -c9- | grep -v latency) >"$out/nvbandwidth-$r.txt" 2>&1
        # shellcheck disable=SC2086
        timeout "$limit" "$bin" run --device all --bench 'link.*' ${LINKS_OPTS:-} --no-progress \
            --cache-dir "$cache" --json "$out/links-$r.json" >"$out/links-$r.txt" 2>"$out/links-$r.err"
        echo "exit $?"
        runs+=("$out/links-$r.json" "$out/nvbandwidth-$r.txt")
    done
    python3 - "${runs[@]}" <<'PY' | tee "$out/links-vs-nvbandwidth.txt"
import json, re, statistics, sys
# Each gpuchar row beside nvbandwidth's tests: (cells, tests[, the cells
# nvbandwidth's SUM adds up, where not the same]); the reference is the
# larger of the tests' SUMs over the count of those cells.
pairs = {"link.ce_write": (r"\d+->\d+", ["device_to_device_memcpy_write_ce"]),
         "link.ce_read": (r"\d+->\d+", ["device_to_device_memcpy_read_ce"]),
         "link.ce_bidir": (r"\d+->\d+\.sum", ["device_to_device_bidirectional_memcpy_read_ce_total",
                                               "device_to_device_bidirectional_memcpy_write_ce_total"],
                           r"\d+->\d+"),
         "link.sm_read": (r"\d+->\d+", ["device_to_device_memcpy_read_sm"]),
         "link.sm_write": (r"\d+->\d+", ["device_to_device_memcpy_write_sm"]),
         "link.all_to_one": (r"all->\d+", ["all_to_one_write_ce"]),
         "link.one_to_all": (r"\d+->all", ["one_to_all_write_ce"]),
         "link.all_to_host": (r"all->host", ["all_to_host_memcpy_ce"]),
         "link.host_to_all": (r"host->all", ["host_to_all_memcpy_ce"])}
def load(js, txt):
    doc = json.load(open(js))
    rows = {b["name"]: b for b in (doc.get("links") or {}).get("benchmarks", [])}
    try:
        nv = open(txt).read()
    except OSError:
        nv = ""
    return rows, nv
def nvsum(nv, test):
    m = re.search(r"SUM %s (\S+)" % re.escape(test), nv)
    return float(m.group(1)) if m else float("nan")
# nvbandwidth's matrix of one test as {"a->b": GB/s}, a the device the data
# leaves: its read tests put the copy into the row's device from the
# column's (doMemcpy(peer, src)), its write tests from the row's into the
# column's, whatever the heading's arrow says.
def nvcells(nv, test, read):
    m = re.search(r"^Running %s\.\n(?:(?!Running ).*\n)*?memcpy[^\n]*\n *((?:\d+ *)+)\n((?: *\d+ .*\n)+)" % re.escape(test), nv, re.M)
    if not m:
        return {}
    cols = m.group(1).split()
    cells = {}
    for line in m.group(2).splitlines():
        f = line.split()
        for c, v in zip(cols, f[1:]):
            if v != "N/A" and f[0] != c:
                cells[f"{c}->{f[0]}" if read else f"{f[0]}->{c}"] = float(v)
    return cells
runs = [load(sys.argv[k], sys.argv[k + 1]) for k in range(1, len(sys.argv), 2)]
rows = runs[0][0]
for name, row in sorted(rows.items()):
    cells = [m for m in row["metrics"] if re.fullmatch(r"\d+->\d+(\.sum)?|all->\S+|\S+->all|\d+->host|host->\d+", m["name"])]
    vals = [m["value"] for m in cells if m["value"] is not None]
    lims = [m["limit"] for m in cells if m.get("limit")]
    print(f"{name:18} {row['status']:8} cells {len(cells):2} "
          + (f"min {min(vals)/1e9:8.1f} max {max(vals)/1e9:8.1f}" if vals else "")
          + (f"  limit {max(lims)/1e9:.1f}" if lims else "")
          + (f"  {row['error'][:200]}" if row["status"] != "ok" else ""))
    if name not in pairs:
        continue
    pat, tests, per = (pairs[name] + (None,))[:3]
    ours, refs = [], []
    for rws, nv in runs:
        b = rws.get(name)
        ms = (b or {}).get("metrics", [])
        v = [m["value"] for m in ms if re.fullmatch(pat, m["name"]) and m["value"] is not None]
        k = len([m for m in ms if re.fullmatch(per, m["name"])]) if per else len(v)
        ref = max(nvsum(nv, t) for t in tests) / max(k, 1)
        if not v or ref != ref:
            continue
        ours.append(sum(v) / len(v) / 1e9)
        refs.append(ref)
    if ours:
        print(f"    mean cell {ours[0]:.1f} GB/s vs nvbandwidth {refs[0]:.1f} GB/s: ratio {ours[0]/refs[0]:.3f}")
    if len(ours) > 1:
        mo, mr = statistics.median(ours), statistics.median(refs)
        print(f"    {len(ours)} rounds: gpuchar {min(ours):.1f}..{max(ours):.1f}, nvbandwidth {min(refs):.1f}..{max(refs):.1f} GB/s;"
              f" medians {mo:.1f} vs {mr:.1f}: ratio {mo/mr:.3f}")
# Per direction: each cell's rounds in both tools, the ratio of the medians.
for name, test, read in (("link.ce_read", "device_to_device_memcpy_read_ce", True),
                         ("link.ce_write", "device_to_device_memcpy_write_ce", False),
                         ("link.sm_read", "device_to_device_memcpy_read_sm", True),
                         ("link.sm_write", "device_to_device_memcpy_write_sm", False)):
    ours, refs = {}, {}
    for rws, nv in runs:
        for m in (rws.get(name) or {}).get("metrics", []):
            if re.fullmatch(r"\d+->\d+", m["name"]) and m["value"] is not None:
                ours.setdefault(m["name"], []).append(m["value"] / 1e9)
        for cell, v in nvcells(nv, test, read).items():
            refs.setdefault(cell, []).append(v)
    for cell in sorted(ours):
        if cell not in refs:
            continue
        mo, mr = statistics.median(ours[cell]), statistics.median(refs[cell])
        print(f"{name:18} {cell:6} gpuchar {' '.join(f'{v:.2f}' for v in ours[cell])}, "
              f"nvbandwidth {' '.join(f'{v:.2f}' for v in refs[cell])}: ratio of medians {mo/mr:.4f}"
              + ("" if min(ours[cell]) >= max(refs[cell]) else "  (below in some round)"))
PY
    # NVIDIA's OpenCL: its GPUs in one shared context, clEnqueueCopyBuffer
    # between them (docs/methodology.md, section 24.8).
    nvidia_icd
    export OCL_ICD_VENDORS=$icd
    local ocl
    ocl=$("$bin" list --json 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(",".join(x["spec"] for x in d["devices"] if x["backend"] == "opencl" and "NVIDIA" in (x["vendor"] + x["name"]).upper()))')
    if [ "${ocl//[^,]/}" != "" ]; then
        log "link.* through NVIDIA's OpenCL: $ocl"
        timev -o "$out/links-ocl.time" timeout "$limit" "$bin" run --device "$ocl" --bench 'link.*' --no-progress \
            --cache-dir "$cache" --json "$out/links-ocl.json" >"$out/links-ocl.txt" 2>"$out/links-ocl.err"
        echo "exit $?, wall $(wall_of "$out/links-ocl.time") s"
        grep -v '^$' "$out/links-ocl.txt" | head -60
        tail -5 "$out/links-ocl.err"
    else
        echo "link.* through NVIDIA's OpenCL: fewer than two NVIDIA OpenCL devices ($ocl)"
    fi
    unset OCL_ICD_VENDORS
}

# The whole node against one GPU (docs/methodology.md, "Nodes"): the default
# run on cuda:0 with a cold cache, then (warm) on every GPU and on cuda:0
# again; the node's wall time against the single warm run.
phase_node()
{
    local rc
    log "default run, cuda:0, cold cache"
    timev -o "$out/one-cold.time" "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
        --json "$out/one-cold.json" >"$out/one-cold.txt" 2>"$out/one-cold.err"
    rc=$?
    echo "exit $rc, wall $(wall_of "$out/one-cold.time") s"
    python3 scripts/check-run.py "$out/one-cold.json" "$rc" | tail -1
    log "default run, every GPU, warm cache"
    timev -o "$out/node.time" timeout "$limit" "$bin" run --device all --no-progress --cache-dir "$cache" \
        --json "$out/node.json" >"$out/node.txt" 2>"$out/node.err"
    rc=$?
    echo "exit $rc, wall $(wall_of "$out/node.time") s"
    tail -5 "$out/node.err"
    "$bin" report "$out/node.json" --html "$out/node.html" --quiet || status=1
    log "default run, cuda:0, warm cache"
    timev -o "$out/one-warm.time" "$bin" run --device cuda:0 --no-progress --cache-dir "$cache" \
        --json "$out/one-warm.json" >"$out/one-warm.txt" 2>"$out/one-warm.err"
    echo "exit $?, wall $(wall_of "$out/one-warm.time") s"
    python3 - "$out/node.json" "$(wall_of "$out/node.time")" "$(wall_of "$out/one-warm.time")" <<'PY' | tee "$out/node-summary.txt"
import json, sys
n = json.load(open(sys.argv[1]))
print(f"node wall {sys.argv[2]} s, one GPU warm {sys.argv[3]} s: ratio {float(sys.argv[2]) / float(sys.argv[3]):.2f}")
for d in n["devices"]:
    r = d.get("results") or {}
    st = [b["status"] for b in r.get("benchmarks", [])]
    print(d.get("spec"), d.get("status"), {s: st.count(s) for s in set(st)}, d.get("identity"))
print("serialized:", sorted({s["bench"] for s in n.get("schedule", []) if s.get("mode") == "serialized"}))
flag = [f for f in n.get("summary", {}).get("figures", []) if f.get("flagged")]
print("flagged figures:", [(f.get("figure"), f.get("deviant"), f.get("spread")) for f in flag][:30])
PY
}

# The application kernels and the guide (docs/methodology.md, "Applications"):
# the profile they need and application.* through CUDA and NVIDIA's OpenCL,
# `gpuchar guide` on each, then Nsight Compute's bytes per level against the
# generator's counts for application.polybench. APPS_OCL=0 and APPS_NCU=0
# leave the OpenCL run and the counters out.
phase_apps()
{
    local b=application.jacobi,application.polybench,compute.fp32.fma,compute.int32.add,compute.fp32.rcp
    b=$b,memory.dram.read,memory.dram.copy,memory.bandwidth,memory.shared,memory.latency.global
    b=$b,memory.coalescing,control.divergence,hiding.params
    log "application.* through CUDA"
    timev -o "$out/apps-cuda.time" timeout "$limit" "$bin" run --device cuda:0 --bench "$b" --no-progress \
        --cache-dir "$cache" --json "$out/apps-cuda.json" >"$out/apps-cuda.txt" 2>"$out/apps-cuda.err"
    echo "exit $?, wall $(wall_of "$out/apps-cuda.time") s"
    sed -n '/omega-Jacobi\|application\./,/^$/p' "$out/apps-cuda.txt" | head -80
    tail -5 "$out/apps-cuda.err"
    "$bin" guide "$out/apps-cuda.json" | tee "$out/guide-cuda.txt" | tail -40
    ocldev=
    [ "${APPS_OCL:-1}" = 1 ] && nvidia_opencl_on "$bin" --with-system
    if [ -n "$ocldev" ]; then
        log "application.* through NVIDIA's OpenCL ($ocldev)"
        timev -o "$out/apps-ocl.time" timeout "$limit" "$bin" run --device "$ocldev" --bench "$b" --no-progress \
            --cache-dir "$cache" --json "$out/apps-ocl.json" >"$out/apps-ocl.txt" 2>"$out/apps-ocl.err"
        echo "exit $?, wall $(wall_of "$out/apps-ocl.time") s"
        sed -n '/omega-Jacobi\|application\./,/^$/p' "$out/apps-ocl.txt" | head -80
        tail -5 "$out/apps-ocl.err"
        "$bin" guide "$out/apps-ocl.json" | tee "$out/guide-ocl.txt" | tail -40
        unset OCL_ICD_VENDORS
    fi
    if [ "${APPS_NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
        log "ncu: application.polybench bytes per level"
        timeout "$limit" ncu --csv --page raw --print-units base --cache-control all -k regex:'^pb_' \
            --metrics "$(python3 scripts/ncu-appwork.py --metrics)" \
            "$bin" run --device cuda:0 --quick --repeat 2 --min-time 0.2 --quiet \
            --bench application.polybench --cache-dir "$cache" --json "$out/pb-ncu.json" >"$out/ncu.csv" 2>"$out/ncu.err"
        python3 scripts/ncu-appwork.py "$out/pb-ncu.json" "$out/ncu.csv" | tee "$out/ncu-appwork.txt" | tail -30
    fi
}

# The run's compile plan (docs/methodology.md, "The compile plan"): the
# default run cold, warm and --quick warm with the plan and with --no-plan,
# alternating, on CUDA; then NVIDIA's OpenCL cold with the plan.
phase_plan()
{
    local c p t opt
    for p in plan noplan; do
        c=$(mktemp -d)
        opt=()
        [ "$p" = noplan ] && opt=(--no-plan)
        for t in cold warm; do
            timev -o "$out/$p-$t.time" "$bin" run --device cuda:0 "${opt[@]}" \
                --no-progress --cache-dir "$c" -q -v --json "$out/$p-$t.json" >"$out/$p-$t.txt" 2>"$out/$p-$t.err"
            echo "$p $t: exit $?, wall $(wall_of "$out/$p-$t.time") s, $(grep -o 'Maximum resident.*' "$out/$p-$t.time")"
            grep -E "compile plan|compiled on demand" "$out/$p-$t.err" "$out/$p-$t.txt" | head -3
        done
        "$bin" run --device cuda:0 --quick "${opt[@]}" --cache-dir "$c" -q --no-progress >/dev/null 2>&1
        timev -o "$out/$p-quick.time" "$bin" run --device cuda:0 --quick "${opt[@]}" --no-progress \
            --cache-dir "$c" -q --json "$out/$p-quick.json" >/dev/null 2>&1
        echo "$p quick warm: wall $(wall_of "$out/$p-quick.time") s"
    done
    python3 scripts/check-run.py "$out/plan-cold.json" 0 | tail -1
    "$bin" compare "$out/noplan-cold.json" "$out/plan-cold.json" >"$out/plan-compare.txt" 2>&1
    tail -15 "$out/plan-compare.txt"
    nvidia_opencl_on "$bin" --with-system
    if [ -n "$ocldev" ]; then
        c=$(mktemp -d)
        timev -o "$out/ocl-plan-cold.time" timeout "$limit" "$bin" run --device "$ocldev" --no-progress \
            --cache-dir "$c" -q -v --json "$out/ocl-plan-cold.json" >"$out/ocl-plan-cold.txt" 2>"$out/ocl-plan-cold.err"
        echo "NVIDIA OpenCL cold with the plan: exit $?, wall $(wall_of "$out/ocl-plan-cold.time") s"
        grep -E "compile plan|compiled on demand" "$out/ocl-plan-cold.err" "$out/ocl-plan-cold.txt" | head -3
        python3 scripts/check-run.py "$out/ocl-plan-cold.json" 0 | tail -1
        unset OCL_ICD_VENDORS
    fi
}
