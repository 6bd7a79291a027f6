#!/usr/bin/env bash
# Settings that hold, on the first OpenCL device:
# 1. An explicit --repeat 2 is at most 2 samples in every measurement of every
#    benchmark of the run (each statistics object of the results tree, and the
#    sampling policy each benchmark records), whatever the benchmarks' own
#    minimums (control.divergence's 6 on a CPU, the chase's, the loops of the
#    launch, allocation and transfer benchmarks, the occupancy sweep's launches
#    per point), with --quick and without.
# 2. GPUCHAR_FAULT=alloc:N reaches every allocation of transfer.* and
#    overhead.alloc (host, pinned, mapped and device memory): N is swept from
#    1 until a run sees no fault; each fault shows in exactly one benchmark's
#    row (its error, or the note or warning of a bound it took as designed),
#    every other row keeps the status of the run without a fault, and the
#    process exits 0 or 1 without a sanitizer report.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cli/checks.sh
. "$(dirname "$0")/checks.sh"

# 1. --repeat 2 over one benchmark of every sampling path PoCL runs.
sel=control.divergence,overhead.alloc,overhead.launch.*,transfer.pageable,transfer.d2d
sel=$sel,memory.constant,compute.fp32.fma,memory.latency.global,memory.dram.read
"$bin" run --device opencl:0 --quick --repeat 2 --min-time 1 --no-progress --bench "$sel" \
    --json "$tmp/repeat.json" >"$tmp/repeat.out" 2>&1
rc=$?
check "--repeat 2 run exits 0" test "$rc" -eq 0
check "--repeat 2: every measurement at most 2 samples" \
    python3 "$here/check_samples.py" "$tmp/repeat.json" 2 0.001
# The default profile's own counts where --quick has fewer (the kernel-timed
# sweep's three launches per point).
"$bin" run --device opencl:0 --repeat 2 --min-time 1 --no-progress --bench compute.fp32.fma \
    --json "$tmp/repeat-default.json" >"$tmp/repeat-default.out" 2>&1
rc=$?
check "--repeat 2, default profile: exits 0" test "$rc" -eq 0
check "--repeat 2, default profile: every measurement at most 2 samples" \
    python3 "$here/check_samples.py" "$tmp/repeat-default.json" 2 0.001

# 2. The allocation fault swept over transfer.* and overhead.alloc.
common=(run --device opencl:0 --quick --repeat 1 --min-time 1 --no-progress
    --bench 'transfer.*' --bench overhead.alloc)
"$bin" "${common[@]}" --json "$tmp/clean.json" >"$tmp/clean.out" 2>&1
rc=$?
check "fault sweep: the run without a fault exits 0" test "$rc" -eq 0
hits=""
n=1
while [ "$n" -le 200 ]; do
    GPUCHAR_FAULT=alloc:$n "$bin" "${common[@]}" --json "$tmp/f.json" >"$tmp/f.out" 2>&1
    rc=$?
    if grep -q "Sanitizer" "$tmp/f.out" || ! { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; }; then
        echo "alloc:$n exits $rc"
        tail -20 "$tmp/f.out"
        check "alloc:$n exits 0 or 1 without a sanitizer report" false
        break
    fi
    hit=$(python3 "$here/check_fault.py" "$tmp/clean.json" "$tmp/f.json" "$rc")
    crc=$?
    if [ "$crc" -ne 0 ]; then
        check "alloc:$n: $hit" false
        break
    fi
    [ -z "$hit" ] && break
    echo "     alloc:$n -> $hit (exit $rc)"
    hits="$hits ${hit%%:*}"
    n=$((n + 1))
done
check "fault sweep ends (a run past the last allocation sees no fault)" test "$n" -le 200
for b in transfer.pinned transfer.pageable transfer.mapped transfer.map transfer.d2d \
    overhead.alloc; do
    status=$(python3 -c 'import json,sys
print([b["status"] for b in json.load(open(sys.argv[1]))["benchmarks"] if b["name"]==sys.argv[2]][0])' \
        "$tmp/clean.json" "$b")
    [ "$status" = ok ] || continue
    check "the fault reaches $b" grep -qw -- "$b" <<<"$hits"
done

echo "$pass passed, $fail failed"
test "$fail" -eq 0
