#!/usr/bin/env bash
# Fault paths on the first OpenCL device: an allocation failure, a kernel
# compile error and a launch failure each give a clear message and a non-zero
# exit, and the results measured before (or beside) the failure are still
# written, the failing benchmark marked as an error.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache"
# shellcheck source=tests/cli/checks.sh
. "$(dirname "$0")/checks.sh"

json_status() { # file bench -> prints status
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print([b["status"] for b in d["benchmarks"] if b["name"]==sys.argv[2]][0])' "$1" "$2"
}

common=(run --device opencl:0 --quick --repeat 3 --min-time 1 --no-progress)

# 1. The first allocation fails: memory.dram.copy errors, memory.dram.triad (after it)
# still runs.
GPUCHAR_FAULT=alloc:1 "$bin" "${common[@]}" --bench memory.dram.copy --bench memory.dram.triad \
    --json "$tmp/alloc.json" >"$tmp/alloc.out" 2>&1
rc=$?
check "alloc fault exits 1" test "$rc" -eq 1
check "alloc fault message" grep -q "out of device memory" "$tmp/alloc.out"
check "alloc fault json written" test -s "$tmp/alloc.json"
check "alloc fault copy marked error" test "$(json_status "$tmp/alloc.json" memory.dram.copy)" = error
check "alloc fault triad still measured" test "$(json_status "$tmp/alloc.json" memory.dram.triad)" = ok
check "alloc fault run marked incomplete" python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
sys.exit(not (d["complete"] is False and "memory.dram.copy" in d["incomplete_reason"]))' "$tmp/alloc.json"

# 2. Every compilation fails: the compiler's log reaches the user.
GPUCHAR_FAULT=compile "$bin" "${common[@]}" --bench compute.fp32.fma --json "$tmp/comp.json" \
    >"$tmp/comp.out" 2>&1
rc=$?
check "compile fault exits 1" test "$rc" -eq 1
check "compile fault shows compiler log" grep -q "injected compile fault" "$tmp/comp.out"
check "compile fault json marks error" test "$(json_status "$tmp/comp.json" compute.fp32.fma)" = error

# 3. A launch fails mid-measurement.
GPUCHAR_FAULT=launch:3 "$bin" "${common[@]}" --bench memory.copy --json "$tmp/launch.json" \
    >"$tmp/launch.out" 2>&1
rc=$?
check "launch fault exits 1" test "$rc" -eq 1
check "launch fault message" grep -q "kernel launch failed" "$tmp/launch.out"
check "launch fault json marked incomplete" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["complete"] is not False)' "$tmp/launch.json"

# 4. A launch kills the context (as a kernel fault does on a GPU): the
# benchmark fails, the device is opened again and the next one is measured.
GPUCHAR_FAULT=lost:3 "$bin" "${common[@]}" --bench memory.dram.copy --bench memory.dram.triad \
    --json "$tmp/lost.json" >"$tmp/lost.out" 2>&1
rc=$?
check "lost context exits 1" test "$rc" -eq 1
check "lost context message" grep -q "context is lost" "$tmp/lost.out"
check "lost context reopened" grep -q "opened again" "$tmp/lost.out"
check "lost context copy marked error" test "$(json_status "$tmp/lost.json" memory.dram.copy)" = error
check "lost context triad measured after reopening" \
    test "$(json_status "$tmp/lost.json" memory.dram.triad)" = ok

echo "$pass passed, $fail failed"
test "$fail" -eq 0
