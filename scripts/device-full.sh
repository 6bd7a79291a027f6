#!/usr/bin/env bash
# The whole default run as a GPU acceptance, in phases that each fit a device
# session of under ten minutes:
#
#   scripts/device-full.sh cuda       build; the README's main command
#                                     (gpuchar run, default profile) on cuda:0,
#                                     checked by scripts/check-run.py; the
#                                     hardware-counter proof of the memory
#                                     levels (scripts/ncu-levels.sh)
#   scripts/device-full.sh cudarun    the run on cuda:0 alone (with BENCH: a part)
#   scripts/device-full.sh opencl     the same default run through NVIDIA's
#                                     OpenCL on the same GPU
#   scripts/device-full.sh tests      ctest -L 'unit|gpu|sass'
#   scripts/device-full.sh host       gpuchar run --quick on the host CPU (PoCL)
#   scripts/device-full.sh speed      the default run cold and warm, --quick warm:
#                                     wall time and peak RSS (each run checked)
#   scripts/device-full.sh quickprof  (after speed) --quick under tools/wallprof.c:
#                                     wall time per function
#   scripts/device-full.sh coldprof   the default run, cold cache, under it: where
#                                     time and resident memory go
#   scripts/device-full.sh abquick    OLD_BIN=... : --quick of another build and of
#                                     this one, alternating on the same VM
#   scripts/device-full.sh fleet      (nvidia-h100-x4; Open MPI) gpuchar run --mpi,
#                                     one rank per GPU: fleet JSON, CSV, HTML;
#                                     then a planted outlier on the last rank,
#                                     which alone must be flagged; then
#                                     'gpuchar fleet' on the ranks' files
#
# BENCH='pattern ...' restricts the runs to those benchmarks (e.g. the part
# of the OpenCL run that one session did not reach). Phases run in the order given. Each step runs under its own time limit
# (STEP_LIMIT seconds, default 540) so that the results of the steps before
# it come back. Results go to $OUT/full-PHASES.tgz (or ./device-out/), written
# however the run ends. Exit status: 1 when any check failed.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
phases=${*:-cuda}
setup_archive "full-${phases// /-}"
limit=${STEP_LIMIT:-540}
status=0
log_stamp=clock

unpack_deps
log "device"
gpu_query "$GPU_FIELDS_FULL" | tee "$out/device.txt"
log "build"
build_release build-gpu -j "$(nproc)"
bin=$PWD/build-gpu/gpuchar
new_kcache
scache=$(mktemp -d) # the speed phase's cache, which quickprof reuses

full_run() { # name device-spec
    local name=$1 spec=$2 rc
    log "default run: $spec"
    local sel=()
    for b in ${BENCH:-}; do sel+=(--bench "$b"); done
    timev timeout "$limit" "$bin" run --device "$spec" "${sel[@]}" --no-progress --cache-dir "$cache" \
        --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.err"
    rc=$?
    time_lines "$out/$name.err"
    grep -v -E "^\s+(Elapsed|Maximum|Command|User|System|Percent|Average|Exit|Major|Minor|Voluntary|Involuntary|Swaps|File|Socket|Signals|Page|Unshared|Shared)" "$out/$name.err" | tail -20
    python3 scripts/check-run.py "$out/$name.json" "$rc" | tee "$out/$name.check" | grep -v "^ok" || true
    tail -1 "$out/$name.check"
    grep -q "all checks passed" "$out/$name.check" || status=1
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
    timeout "$limit" "${mpi[@]}" -n $((n - 1)) "$bin" "${run[@]}" --fleet-dir "$out/fleet-outlier" \
        : -n 1 env GPUCHAR_FAULT=$fault "$bin" "${run[@]}" --fleet-dir "$out/fleet-outlier" \
        >"$out/fleet-outlier.txt" 2>&1
    echo "exit $? (1 expected)"
    grep -E "^(fleet|FLAGGED|  |FAILED|TIMEOUT)" "$out/fleet-outlier.txt"
    "$bin" fleet "$out/fleet-outlier" -o "$out/fleet-offline" >"$out/fleet-offline.txt" 2>&1
    echo "gpuchar fleet on the files: exit $? (1 expected)"
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
assert [f["rank"] for f in b["flagged"]] == [last], "the planted outlier is not the only one flagged"
print("fleet checks passed")
PY
    return $ok
}

for p in $phases; do
    case $p in
    cudarun)
        full_run cuda cuda:0
        ;;
    cuda)
        full_run cuda cuda:0
        log "memory levels by hardware counters"
        cmake --build build-gpu --target gpu_levels -j "$(nproc)" >/dev/null 2>&1
        timeout "$limit" scripts/ncu-levels.sh build-gpu/tests/gpu_levels "$out" || status=1
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
        # with a warm cache. Wall time and peak host RSS of each (issue 13's
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
        ;;
    abquick)
        # The same VM's --quick with another build (OLD_BIN, e.g. the tree
        # before a change, built on a device machine) and with this one,
        # alternating, each with its own warm cache: VMs differ by more than
        # a change does, so a change is judged within one machine.
        if [ ! -x "${OLD_BIN:-}" ]; then
            echo "abquick: OLD_BIN is not an executable"
            status=1
            continue
        fi
        acache=$(mktemp -d)
        bcache=$(mktemp -d)
        for v in fillA fillB A1 B1 A2 B2 A3 B3; do
            case $v in *A*) b=$OLD_BIN c=$acache ;; *) b=$bin c=$bcache ;; esac
            timev -o "$out/ab-$v.time" timeout "$limit" "$b" run --device cuda:0 --quick \
                --no-progress -q --cache-dir "$c" --json "$out/ab-$v.json" >/dev/null 2>&1
            printf '%-6s %s\n' "$v" "$(grep -h 'Elapsed' "$out/ab-$v.time" | awk '{print $NF}')"
        done | tee "$out/abquick.txt"
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
    fleet)
        fleet_phase || status=1
        ;;
    *) echo "unknown phase $p"; status=1 ;;
    esac
done
exit $status
