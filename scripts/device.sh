#!/usr/bin/env bash
# The device driver: every GPU check of gpuchar, as subcommands run in the
# order given on a bare NVIDIA GPU machine (each builds what it needs: a
# Release build in build-gpu, tools and reference programs on demand):
#
#   scripts/device.sh SUBCOMMAND [SUBCOMMAND...]
#
# The whole run (this file):
#   build      configure and build build-gpu (Release; every target)
#   full       the README's main command (gpuchar run, default profile) on
#              cuda:0, checked by scripts/check-run.py (BENCH='pattern ...'
#              restricts it)
#   quick      the same with --quick
#   ncu        the hardware-counter proof of the memory levels
#              (tools/ncu-levels.sh on tests/gpu/levels.c)
#   opencl     the default run through NVIDIA's OpenCL on the same GPU
#   nvocl      NVIDIA's OpenCL alone, cold cache: exit status, wall time, ok /
#              not available / failed counts, check-run.py; then the SASS of
#              the kernels it takes through inline PTX (test_ocl_sass)
#   tests      ctest -L 'unit|gpu|sass'
#   host       gpuchar run --quick on the host CPU (PoCL)
#   hosttests  the PoCL test suite on the host CPU (Debug, sanitizers), with
#              the host's cache facts and with sysfs hidden
#   speed      the default run cold and warm, --quick warm: wall time and peak
#              RSS, each run checked; the warm run's kernel time and the rest
#              by group
#   quickprof  (after speed) --quick under tools/wallprof.c: time per function
#   coldprof   the default run, cold cache, under it: where time and memory go
#   ab         OLD_BIN=BINARY or OLD_TAR=ARCHIVE (git archive of the older
#              tree, carried; built here): that tree against this one on the
#              same VM, alternating, each with its own cache: the default
#              run cold (the older first, on the fresh VM), warm twice,
#              --quick to fill and twice warm; wall times side by side,
#              every run checked, and tools/ab-ranges.py on the default and
#              the warm --quick runs (metrics whose ranges lie > 1% apart)
#   abquick    the same, --quick only
#   peers      gpu-benches' gpu-l2-cache (carried in .peers/) with ncu
#              counters per footprint, beside memory.bandwidth
#   fleet      (several GPUs; Open MPI) gpuchar run --mpi, one rank per GPU,
#              then a planted outlier that alone must be flagged
#   refs       build the CUDA runtime reference programs of tools/reference/
#              into build-gpu/refs/ (the subcommands that use one build it)
#
# The family checks (scripts/device-checks.sh):
#   check      GPU tests, foundation benchmarks via CUDA and OpenCL, tool cost
#   compute    compute.* cold and warm, SASS checks, OpenCL, cuBLASLt reference
#   memory     the memory groups on cuda:0
#   dram       memory.dram.*, the STREAM-style reference, staircases
#   hiding     hiding.params, the model, hiding.mix.*, tools/hiding-check.py
#   chase      memory.latency.* on cuda:0 and NVIDIA's OpenCL
#   staircase-cpu  the PoCL staircase on the host CPU, three times
#   memcheck   the memory hierarchy twice: latencies stable to +-1 cycle
#   ktime      kernel-time pipeline model (OpenCL) beside in-kernel clocks
#   oclcyc     NVIDIA's OpenCL with in-kernel clocks beside CUDA
#   oclconst   what NVIDIA's OpenCL compiles the constant-memory chase to
#   kcache     the kernel cache (tests/cli/run_cache.sh) and an injected failure
#   overheads  transfer.*, overhead.*, control.divergence, CUDA references
#   xfer       host memory and time of the transfer benchmarks
#   shared     the shared-library build (BUILD_SHARED_LIBS=ON)
#   energy     energy.* (ENERGY_PHASES picks parts)
#   energy-uncertainty  the acceptance of the energy figures' 2% rule
#   repeat     --repeat N (REPEAT, default 2) gives at most N samples
#   links      (several GPUs) link.* on every GPU beside nvbandwidth (its public
#              source and Boost carried in .peers/, built by
#              .peers/build-nvbandwidth.sh): per-pair ratios; LINKS_REPEAT=N
#              runs N rounds of both, alternating, and sets the medians side
#              by side, per row and per direction of each pair
#   node       (several GPUs) the default run on cuda:0 cold, on every GPU
#              and on cuda:0 warm: the node's wall time against one GPU's
#   apps       application.* and the profile they need through CUDA and
#              NVIDIA's OpenCL, gpuchar guide on each, ncu's bytes per level
#              against application.polybench's counts
#   plan       the default run cold / warm / --quick with the compile plan and
#              with --no-plan on CUDA; NVIDIA's OpenCL cold with the plan
#
# Every step runs under its own time limit (STEP_LIMIT seconds, default 540)
# so that the results of the steps before it come back. Results go to
# $OUT/device-SUBCOMMANDS.tgz (or ./device-out/), written however the run
# ends. Exit status: 1 when any check failed, 2 for an unknown subcommand.
# Packages the machine lacks (jansson, cmocka) may be carried as .deb files
# in .deps/; they are unpacked first.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
# shellcheck source=scripts/device-checks.sh
. scripts/device-checks.sh

SUBCOMMANDS=" build full quick ncu opencl nvocl tests host hosttests speed quickprof coldprof
    ab abquick peers fleet refs check compute memory dram hiding chase staircase-cpu memcheck ktime
    oclcyc oclconst kcache overheads xfer shared energy energy-uncertainty repeat links node apps
    plan "

usage() {
    sed -n '2,/^# Packages/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
[ $# -gt 0 ] || usage
for sub in "$@"; do
    case $SUBCOMMANDS in
    *" $sub "* | *" $sub"$'\n'*) ;;
    *)
        echo "device.sh: unknown subcommand '$sub'" >&2
        usage
        ;;
    esac
done
phases=$*
setup_archive "device-${phases// /-}"
limit=${STEP_LIMIT:-540}
status=0
log_stamp=clock

unpack_deps
log "device"
gpu_query "$GPU_FIELDS_FULL" | tee "$out/device.txt"
log "build"
# shellcheck disable=SC2046
build_release build-gpu -j "$(nproc)" $(mpi_cmake_args)
bin=$PWD/build-gpu/gpuchar
refs=$PWD/build-gpu/refs
new_kcache
scache=$(mktemp -d) # the speed phase's cache, which quickprof reuses

# build_ref NAME: builds tools/reference/NAME.cu into $refs/NAME (the one
# build rule of the reference programs); 1 when nvcc fails (its log shown).
build_ref() {
    local libs=()
    [ "$1" = cublas-reference ] && libs=(-lcublasLt)
    mkdir -p "$refs"
    [ -x "$refs/$1" ] && return 0
    if ! ${NVCC:-nvcc} -O3 -std=c++17 -arch=native -o "$refs/$1" "tools/reference/$1.cu" \
        "${libs[@]}" >"$out/$1-build.log" 2>&1; then
        tail -20 "$out/$1-build.log"
        return 1
    fi
}

full_run() { # name device-spec [run options...]
    local name=$1 spec=$2 rc
    shift 2
    log "default run: $spec $*"
    local sel=()
    for b in ${BENCH:-}; do sel+=(--bench "$b"); done
    timev timeout "$limit" "$bin" run --device "$spec" "$@" "${sel[@]}" --no-progress --cache-dir "$cache" \
        --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.err"
    rc=$?
    time_lines "$out/$name.err"
    grep -v -E "^\s+(Elapsed|Maximum|Command|User|System|Percent|Average|Exit|Major|Minor|Voluntary|Involuntary|Swaps|File|Socket|Signals|Page|Unshared|Shared)" "$out/$name.err" | tail -20
    python3 scripts/check-run.py "$out/$name.json" "$rc" | tee "$out/$name.check" | grep -v "^ok" || true
    tail -1 "$out/$name.check"
    grep -q "all checks passed" "$out/$name.check" || status=1
}

# ab_phase ab|abquick: the older tree (OLD_BIN, or OLD_TAR built here) and
# this one alternating on this VM, each with a cache of its own; the older
# runs first while the VM is fresh, so its cold run pays what a first run
# pays and this tree's finds the driver's own cache filled (its best case).
# The first --quick run compiles the kernels only --quick uses; the two
# after it are the warm ones compared.
ab_phase() {
    local old=${OLD_BIN:-} runs v b c rc
    if [ -z "$old" ] && [ -f "${OLD_TAR:-}" ]; then
        local src
        src=$(mktemp -d)
        log "ab: building the older tree from $OLD_TAR"
        tar xf "$OLD_TAR" -C "$src" &&
            cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release >"$out/ab-old-build.log" 2>&1 &&
            cmake --build "$src/build" -j "$(nproc)" --target gpuchar-cli >>"$out/ab-old-build.log" 2>&1 &&
            old=$src/build/gpuchar
    fi
    if [ ! -x "$old" ]; then
        echo "ab: no older build (OLD_BIN=BINARY, or OLD_TAR=ARCHIVE that builds; see $out/ab-old-build.log)"
        return 1
    fi
    local acache bcache fail=0
    acache=$(mktemp -d)
    bcache=$(mktemp -d)
    runs="A-cold B-cold A-warm1 B-warm1 A-warm2 B-warm2 A-qfill B-qfill A-quick1 B-quick1 A-quick2 B-quick2"
    [ "$1" = abquick ] && runs="A-qfill B-qfill A-quick1 B-quick1 A-quick2 B-quick2 A-quick3 B-quick3"
    log "ab: A = $old, B = $bin"
    for v in $runs; do
        case $v in A-*) b=$old c=$acache ;; *) b=$bin c=$bcache ;; esac
        local extra=()
        case $v in *q*) extra=(--quick) ;; esac
        timev -o "$out/ab-$v.time" timeout "$limit" "$b" run --device cuda:0 "${extra[@]}" \
            --no-progress -q --cache-dir "$c" --json "$out/ab-$v.json" >"$out/ab-$v.txt" 2>&1
        rc=$?
        python3 scripts/check-run.py "$out/ab-$v.json" "$rc" >"$out/ab-$v.check" 2>&1
        printf '%-9s %8s s  %s\n' "$v" "$(wall_of "$out/ab-$v.time")" "$(tail -1 "$out/ab-$v.check")"
    done | tee "$out/ab.txt"
    grep -q -v "all checks passed" "$out/ab.txt" && fail=1
    sides() { # pattern: the A and B JSON files whose run names match it
        local a=() b=() f
        for f in "$out"/ab-A-$1.json; do [ -f "$f" ] && a+=("$f"); done
        for f in "$out"/ab-B-$1.json; do [ -f "$f" ] && b+=("$f"); done
        (IFS=,; echo "${a[*]} ${b[*]}")
    }
    if [ "$1" = ab ]; then
        log "ab: the default runs' figures, A against B"
        # shellcheck disable=SC2046
        python3 tools/ab-ranges.py $(sides '[cw][oa]*') --list | tee "$out/ab-default.txt"
    fi
    log "ab: the warm --quick runs' figures, A against B"
    # shellcheck disable=SC2046
    python3 tools/ab-ranges.py $(sides 'quick*') --list | tee "$out/ab-quick.txt"
    return $fail
}

# One rank per GPU through mpirun (docs/methodology.md, "Fleets"). The
# selection is short: compute throughput and the memory levels. Then the
# same with the last rank's fp32 FMA rate scaled to 0.7 (GPUCHAR_FAULT):
# exactly that rank must be flagged.
fleet_phase() {
    local n ok=0 sel=() fault=scale:compute.fp32.fma/per_clk_per_cu:0.7
    n=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
    for b in ${BENCH:-compute.fp32.fma compute.fp32.add memory.bandwidth}; do sel+=(--bench "$b"); done
    if ! command -v mpirun >/dev/null || grep -q "MPI in this build: none" <("$bin" help run); then
        echo "fleet: no mpirun or a build without MPI (install libopenmpi-dev openmpi-bin)"
        return 1
    fi
    local mpi=(mpirun --allow-run-as-root --map-by "ppr:$n:node" --bind-to none)
    local run=(run --mpi --quick --device cuda --cache-dir "$cache" "${sel[@]}")
    log "fleet: $n ranks, one per GPU"
    timev -o "$out/fleet.time" timeout "$limit" "${mpi[@]}" -n "$n" "$bin" "${run[@]}" \
        --fleet-dir "$out/fleet" >"$out/fleet.txt" 2>&1
    echo "exit $?"
    time_lines "$out/fleet.time"
    grep -E "^(fleet|FLAGGED|  |FAILED|TIMEOUT|REFUSED|note)" "$out/fleet.txt"
    log "fleet: the last rank's fp32 FMA rate scaled to 0.7"
    # A relative floor needs a group of min_group devices (3): with fewer
    # GPUs nothing is flagged and the run exits 0.
    local want=1
    [ "$n" -lt 3 ] && want=0
    timeout "$limit" "${mpi[@]}" -n $((n - 1)) "$bin" "${run[@]}" --fleet-dir "$out/fleet-outlier" \
        : -n 1 env GPUCHAR_FAULT=$fault "$bin" "${run[@]}" --fleet-dir "$out/fleet-outlier" \
        >"$out/fleet-outlier.txt" 2>&1
    echo "exit $? ($want expected)"
    grep -E "^(fleet|FLAGGED|  |FAILED|TIMEOUT)" "$out/fleet-outlier.txt"
    "$bin" fleet "$out/fleet-outlier" -o "$out/fleet-offline" >"$out/fleet-offline.txt" 2>&1
    echo "gpuchar fleet on the files: exit $? ($want expected)"
    # srun's conventions without Slurm: the local ranks given in reverse, so
    # rank 0 must measure the last GPU.
    log "fleet: srun-style environment, local ranks reversed"
    local srun=() r
    for ((r = 0; r < n; r++)); do
        [ $r -gt 0 ] && srun+=(:)
        srun+=(-n 1 env "SLURM_PROCID=$r" "SLURM_LOCALID=$((n - 1 - r))" "SLURM_NTASKS=$n" SLURM_NODEID=0
            "$bin" "${run[@]}" --fleet-dir "$out/fleet-srun")
    done
    timeout "$limit" "${mpi[@]}" "${srun[@]}" >"$out/fleet-srun.txt" 2>&1
    echo "exit $? (0 expected)"
    find "$out/fleet-srun" -maxdepth 1 -regex ".*_r0+\.json" -printf "%f\n"
    nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader | tail -1
    # A rank that crashes and one that hangs past --rank-timeout: both named,
    # the others kept, exit 1.
    log "fleet: a crashed rank and a hung rank (--rank-timeout 20)"
    local healthy=()
    [ "$n" -gt 2 ] && healthy=(-n $((n - 2)) "$bin" "${run[@]}" --fleet-dir "$out/fleet-faults" --rank-timeout 20 :)
    timeout "$limit" "${mpi[@]}" "${healthy[@]}" \
        -n 1 env GPUCHAR_FAULT=crash:3 "$bin" "${run[@]}" --fleet-dir "$out/fleet-faults" --rank-timeout 20 \
        : -n 1 env GPUCHAR_FAULT=hang:3 "$bin" "${run[@]}" --fleet-dir "$out/fleet-faults" --rank-timeout 20 \
        >"$out/fleet-faults.txt" 2>&1
    echo "exit $? (1 expected)"
    grep -E "^(fleet|FAILED|TIMEOUT)" "$out/fleet-faults.txt"
    python3 - "$out/fleet/fleet.json" "$out/fleet-outlier/fleet.json" "$((n - 1))" <<'PY' || ok=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
last = int(sys.argv[3])
print("clean run: %(gpus)d GPUs, %(ok)d ok, %(flagged)d flagged" % a["counts"])
for f in a["flagged"]:
    print("  flagged rank %d %s %s: cause: %s" % (f["rank"], f["pci"], f["uuid"], f["likely_cause"] or "none stated"))
print("outlier run: flagged ranks %s" % [f["rank"] for f in b["flagged"]])
assert a["counts"]["ok"] == a["counts"]["gpus"], "a rank failed"
assert all(f["likely_cause"] for f in a["flagged"]), "a GPU flagged without a cause in the data"
if last + 1 >= b["thresholds"]["min_group"]:
    assert [f["rank"] for f in b["flagged"]] == [last], "the planted outlier is not the only one flagged"
else:
    assert not b["flagged"], "a group smaller than min_group flagged a GPU"
    print("outlier not judged: %d GPUs, a group needs %d" % (last + 1, b["thresholds"]["min_group"]))
print("fleet checks passed")
PY
    return $ok
}

for p in $phases; do
    phase_t0=$SECONDS
    case $p in
    build) ;; # built above
    full)
        full_run cuda cuda:0
        ;;
    quick)
        full_run quick cuda:0 --quick
        ;;
    ncu)
        log "memory levels by hardware counters"
        cmake --build build-gpu --target gpu_levels -j "$(nproc)" >/dev/null 2>&1
        timeout "$limit" tools/ncu-levels.sh build-gpu/tests/gpu_levels "$out" || status=1
        ;;
    refs)
        for f in tools/reference/*.cu; do
            log "reference program $(basename "$f" .cu)"
            if build_ref "$(basename "$f" .cu)"; then
                echo "built $refs/$(basename "$f" .cu)"
            else
                status=1
            fi
        done
        ;;
    energy-uncertainty)
        ENERGY_PHASES=uncertainty phase_energy
        ;;
    check | compute | memory | dram | hiding | chase | staircase-cpu | memcheck | ktime | oclcyc | \
        oclconst | kcache | overheads | xfer | shared | energy | repeat | links | node | apps | plan)
        log "$p"
        "phase_${p//-/_}"
        ;;
    opencl)
        nvidia_opencl_on "$bin" --with-system
        if [ -z "$ocldev" ]; then
            echo "no NVIDIA OpenCL device"
            status=1
        else
            full_run opencl "$ocldev"
        fi
        unset OCL_ICD_VENDORS
        ;;
    nvocl)
        nvidia_opencl_on "$bin" --with-system
        if [ -z "$ocldev" ]; then
            echo "no NVIDIA OpenCL device"
            status=1
            continue
        fi
        log "NVIDIA OpenCL: default run on $ocldev, cold cache"
        # A GPU in an exclusive compute mode takes one context, one process:
        # the plan's compile workers cannot open it then (their note says
        # what they saw).
        nvidia-smi --query-gpu=index,pci.bus_id,compute_mode --format=csv,noheader 2>&1 |
            tee "$out/compute-mode.txt" | sed 's/^/compute mode: /'
        # What a second process lists while one holds the device (as the
        # workers do while the run holds it).
        "$bin" list >"$out/list-alone.txt" 2>&1
        GPUCHAR_COMPILE_WORKERS=2 "$bin" run --device "$ocldev" --bench compute.fp32.fma --quick \
            --no-progress -q --cache-dir "$(mktemp -d)" --json "$out/hold.json" >/dev/null \
            2>"$out/hold.err" &
        hold=$!
        sleep 4
        held=no
        kill -0 "$hold" 2>/dev/null && held=yes
        "$bin" list >"$out/list-held.txt" 2>&1
        wait "$hold"
        echo "NVIDIA OpenCL devices listed by another process: $(grep -c 'opencl:.*NVIDIA' \
            "$out/list-alone.txt") alone, $(grep -c 'opencl:.*NVIDIA' "$out/list-held.txt") while" \
            "one process holds the GPU (still running: $held)"
        python3 -c 'import json, sys; p = json.load(open(sys.argv[1])).get("plan") or {}
print("two forced compile workers of a short run: %s compiled, %s failed; note: %s" % (
      p.get("worker_compiled"), p.get("workers_failed"), p.get("worker_note") or "-"))' \
            "$out/hold.json" 2>/dev/null || tail -3 "$out/hold.err"
        sel=()
        for b in ${BENCH:-}; do sel+=(--bench "$b"); done
        t0=$(date +%s%N)
        timeout "$limit" "$bin" run --device "$ocldev" "${sel[@]}" --no-progress \
            --cache-dir "$(mktemp -d)" --json "$out/nvocl.json" >"$out/nvocl.txt" 2>"$out/nvocl.err"
        rc=$?
        echo "exit status $rc, wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
        python3 - "$out/nvocl.json" <<'PY'
import collections, json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit("no JSON: %s" % e)
n = collections.Counter(b["status"] for b in d["benchmarks"])
print("%d benchmarks: %d ok, %d not available, %d failed (other: %s); run wall %.1f s, "
      "compile %.1f s" % (len(d["benchmarks"]), n["ok"], n["not_available"], n["error"],
      dict((k, v) for k, v in n.items() if k not in ("ok", "not_available", "error")),
      d.get("wall_s") or 0, sum(b.get("compile_s") or 0 for b in d["benchmarks"])))
for b in d["benchmarks"]:
    if b["status"] not in ("ok", "not_available"):
        print("FAILED %s: %s" % (b["name"], (b.get("error") or "")[:400]))
for b in d["benchmarks"]:
    if b["status"] == "not_available":
        print("n/a    %s: %s" % (b["name"], (b.get("error") or "")[:160]))
PY
        tail -5 "$out/nvocl.err"
        python3 -c 'import json, sys; p = json.load(open(sys.argv[1])).get("plan") or {}
print("compile workers: %s started, %s compiled, %s failed; note: %s" % (p.get("workers"),
      p.get("worker_compiled"), p.get("workers_failed"), p.get("worker_note") or "-"))' \
            "$out/nvocl.json" 2>/dev/null || true
        python3 scripts/check-run.py "$out/nvocl.json" "$rc" | tee "$out/nvocl.check" | grep -v "^ok" || true
        grep -q "all checks passed" "$out/nvocl.check" || status=1
        log "NVIDIA OpenCL: SASS of the inline-PTX kernels"
        if cmake --build build-gpu --target test_ocl_sass -j "$(nproc)" >>"$out/cmake.log" 2>&1; then
            GPUCHAR_SASS_DUMP=$out timeout 300 build-gpu/tests/test_ocl_sass >"$out/ocl-sass.txt" 2>&1
            src=$?
            grep -E "^(ok  |FAIL)|checked|skipped|sm_" "$out/ocl-sass.txt"
            echo "test_ocl_sass exit status $src"
            [ "$src" = 0 ] || status=1
        else
            echo "test_ocl_sass did not build (cmocka missing?): see cmake.log"
            status=1
        fi
        unset OCL_ICD_VENDORS
        ;;
    tests)
        log "ctest -L 'unit|gpu|sass'"
        (cd build-gpu && GPUCHAR_CHECK_OUT="$out/check" timeout "$limit" ctest --output-on-failure \
            -L 'unit|gpu|sass' 2>&1) | tee "$out/ctest.log" | tail -30
        grep -q "100% tests passed" "$out/ctest.log" || status=1
        ;;
    host)
        spec=$(device_spec "$bin" cpu-opencl)
        log "host CPU ($spec, $(nproc) cores): --quick"
        timeout "$limit" "$bin" run --device "$spec" --quick --no-progress --cache-dir "$cache" \
            --json "$out/host.json" >"$out/host.txt" 2>&1
        rc=$?
        python3 scripts/check-run.py "$out/host.json" "$rc" | tee "$out/host.check" | grep -v "^ok"
        grep -q "all checks passed" "$out/host.check" || status=1
        ;;
    speed)
        # The default run with a cold kernel cache, again warm (the same
        # cache), then --quick twice: the first compiles the kernels only
        # --quick uses (shorter chains and streams), the second is --quick
        # with a warm cache. Wall time and peak host RSS of each (the speed
        # acceptance), every run checked.
        for v in cold warm quickfill quick; do
            extra=()
            case $v in quick*) extra=(--quick) ;; esac
            log "speed: $v"
            timev -o "$out/speed-$v.time" timeout "$limit" "$bin" run --device cuda:0 \
                "${extra[@]}" --no-progress --cache-dir "$scache" --json "$out/speed-$v.json" \
                >"$out/speed-$v.txt" 2>&1
            rc=$?
            time_lines "$out/speed-$v.time"
            python3 scripts/check-run.py "$out/speed-$v.json" "$rc" | tee "$out/speed-$v.check" |
                grep -v "^ok" || true
            grep -q "all checks passed" "$out/speed-$v.check" || status=1
        done
        python3 - "$out/speed-cold.json" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
g = collections.defaultdict(float)
for b in d["benchmarks"]:
    g[".".join(b["name"].split(".")[:2])] += b.get("wall_s") or 0
print("cold run %.1f s; by group:" % d["wall_s"])
for k, v in sorted(g.items(), key=lambda t: -t[1])[:15]:
    print("  %-24s %6.1f s" % (k, v))
PY
        # Where the warm run's time goes: device time of the launches
        # (kernel_s) against the rest (host work and launch overhead).
        python3 - "$out/speed-warm.json" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
g = collections.defaultdict(lambda: [0.0, 0.0, 0])
for b in d["benchmarks"]:
    x = g[".".join(b["name"].split(".")[:2])]
    x[0] += b.get("wall_s") or 0
    x[1] += b.get("kernel_s") or 0
    x[2] += b.get("launches") or 0
w, k = sum(x[0] for x in g.values()), sum(x[1] for x in g.values())
print("warm run %.1f s: benchmarks %.1f s, kernels %.1f s, the rest %.1f s; by group, most rest first:"
      % (d["wall_s"], w, k, w - k))
for name, x in sorted(g.items(), key=lambda t: -(t[1][0] - t[1][1]))[:15]:
    print("  %-24s wall %5.1f s  kernels %5.1f s  rest %5.1f s  %6d launches"
          % (name, x[0], x[1], x[0] - x[1], x[2]))
PY
        ;;
    ab | abquick)
        # Two trees on the same VM: VMs differ by more than a change does,
        # so a change is judged within one machine, the runs alternating.
        ab_phase "$p" || status=1
        ;;
    quickprof | coldprof)
        # Under the wall-clock sampler (tools/wallprof.c): --quick with the
        # speed phase's cache (run after it), or the default run with a
        # fresh cache (cold: where the compiler's memory peaks). Time and
        # resident memory per function in $p.report.
        gcc -O2 -shared -fPIC -o build-gpu/libwallprof.so tools/wallprof.c -lrt || exit 1
        pargs=(--quick --cache-dir "$scache")
        [ "$p" = coldprof ] && pargs=(--cache-dir "$(mktemp -d)")
        log "$p"
        timev -o "$out/$p.time" env WALLPROF_OUT="$out/$p.prof" \
            LD_PRELOAD="$PWD/build-gpu/libwallprof.so" "$bin" run --device cuda:0 "${pargs[@]}" \
            --no-progress -q --json "$out/$p.json"
        time_lines "$out/$p.time"
        python3 tools/wallprof.py "$out/$p.prof" "$bin" --top 80 >"$out/$p.report"
        cp "$bin" "$out/gpuchar"
        sed -n '/per run function/,/== inclusive/p' "$out/$p.report" | head -25
        sed -n '/== resident/,/== library/p' "$out/$p.report" | head -30
        ;;
    hosttests)
        # The PoCL half of the suite on the host CPU, as scripts/test.sh runs
        # it (sanitizers on), once with the host's cache facts and once with
        # sysfs hidden (GPUCHAR_SYSFS_CPU): the suite must pass on both. The
        # two run at once, each in its own build tree on half the cores (the
        # CLI tests run one at a time within each).
        log "host tests ($(nproc) cores): build"
        half=$(( ($(nproc) + 1) / 2 ))
        for v in sysfs hidden; do
            (cmake -S . -B "build-htest-$v" -DCMAKE_BUILD_TYPE=Debug -DGC_WERROR=ON \
                -DGC_SANITIZE=ON >"$out/htest-cmake-$v.log" 2>&1 &&
                cmake --build "build-htest-$v" -j "$half" >>"$out/htest-cmake-$v.log" 2>&1) &
        done
        wait
        for v in sysfs hidden; do
            [ -x "build-htest-$v/gpuchar" ] || { tail -30 "$out/htest-cmake-$v.log"; status=1; }
        done
        log "host tests: sysfs and hidden at once"
        for v in sysfs hidden; do
            env_v=()
            [ $v = hidden ] && env_v=(GPUCHAR_SYSFS_CPU=/nonexistent)
            (cd "build-htest-$v" && env "${env_v[@]}" timeout "$limit" ctest --output-on-failure \
                -LE gpu -E test_sass -j "$half" --timeout 400 >"$out/htest-$v.log" 2>&1) &
        done
        wait
        for v in sysfs hidden; do
            echo "host tests, $v:"
            grep -E "tests passed|\*\*\*|Timeout" "$out/htest-$v.log" | tail -12
            grep -q "100% tests passed" "$out/htest-$v.log" || status=1
        done
        ;;
    peers)
        # gpu-benches' gpu-l2-cache (its public source, carried in .peers/,
        # not part of this tree) beside memory.bandwidth: which level serves
        # its bytes at 10-40 MB and 0.5 GB (docs/methodology.md, section 4.2).
        if [ ! -f .peers/gpu-l2-cache/main.cu ]; then
            echo "peers: .peers/gpu-l2-cache is not carried"
            status=1
            continue
        fi
        log "peer: gpu-l2-cache"
        (cd .peers/gpu-l2-cache && nvcc -std=c++17 -O3 -arch=sm_90 -o "$out/l2c" main.cu) ||
            { status=1; continue; }
        timeout "$limit" "$out/l2c" >"$out/l2c-sweep.txt" 2>&1
        grep -E "^ +512 kB +(9728|10240|19968|20480|40448|41984|506880|512000|563200) " \
            "$out/l2c-sweep.txt" || tail -40 "$out/l2c-sweep.txt"
        ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
        m=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
        m=$m,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
        m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
        m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
        for n in 20 40 80 1000; do
            timeout 120 "$ncu" --cache-control none --clock-control none -k regex:sumKernel \
                --launch-skip 5 --launch-count 1 --metrics "$m" --csv --page raw \
                "$out/l2c" "$n" >"$out/l2c-ncu-$n.csv" 2>&1
        done
        python3 - "$out" <<'PY'
import csv, io, sys
out = sys.argv[1]
print("%8s %10s %9s %9s %9s %9s %9s" % ("set MB", "counted", "TB/s", "L1 hit", "L2 hit",
                                         "DRAM", "L1->L2"))
for n in (20, 40, 80, 1000):
    text = open("%s/l2c-ncu-%d.csv" % (out, n)).read()
    rows = [l for l in text.splitlines() if l.startswith('"')]
    r = list(csv.DictReader(io.StringIO("\n".join(rows))))
    if len(r) < 2:
        print("%d: no ncu row: %s" % (n, text[-300:]))
        continue
    x = r[-1]
    num = lambda k: float(str(x.get(k, "nan")).replace(",", ""))
    counted = 512 * 1024 * 200000.0
    t = num("gpu__time_duration.sum") * 1e-9
    l1 = num("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum") * 32
    l2 = num("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum") * 32
    tol2 = num("lts__t_sectors_srcunit_tex_op_read.sum") * 32
    dram = num("dram__bytes_read.sum")
    print("%8.1f %9.1fG %9.2f %8.1f%% %8.1f%% %8.1f%% %8.1f%%" % (
        n * 0.5, counted / 1e9, counted / t / 1e12, 100 * l1 / counted, 100 * l2 / counted,
        100 * dram / counted, 100 * tol2 / counted))
PY
        log "memory.bandwidth and memory.dram.read beside it"
        "$bin" run --device cuda:0 --bench memory.bandwidth --bench memory.dram.read --no-progress \
            --cache-dir "$cache" --json "$out/peers-gpuchar.json" >"$out/peers-gpuchar.txt" 2>&1
        grep -E "l2_read_bandwidth|dram_read_bandwidth|read_bandwidth |buffer_size" "$out/peers-gpuchar.txt"
        # The launch length: --full streams up to 4 GiB per launch where the
        # default streams 16x the L2 (at most 1 GiB).
        log "memory.dram.read, --full footprint"
        "$bin" run --device cuda:0 --full --bench memory.dram.read --no-progress \
            --cache-dir "$cache" --json "$out/peers-dram-full.json" >"$out/peers-dram-full.txt" 2>&1
        grep -E "read_bandwidth |buffer_size" "$out/peers-dram-full.txt"
        ;;
    fleet)
        fleet_phase || status=1
        ;;
    *) echo "unknown subcommand $p"; status=1 ;;
    esac
done
exit $status
